/* dynload.c - see dynload.h. The handle is never closed: the symbols stay valid for the run. */
#include "lib/dynload.h"

#include <dlfcn.h>
#include <stdio.h>

int jp_dynload(struct jp_dynlib *l)
{
	if (l->state)
		return l->state > 0 ? 0 : -1;
	l->state = -1;
	void *h = dlopen(l->soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		snprintf(l->err, sizeof(l->err), "%s cannot be loaded: %s", l->soname, dlerror());
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		dlerror();
		if (!(l->slots[i] = dlsym(h, l->names[i]))) {
			snprintf(l->err, sizeof(l->err), "%s has no %s", l->soname, l->names[i]);
			return -1;
		}
	}
	l->state = 1;
	return 0;
}
