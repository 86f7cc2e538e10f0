/* strtab.c - distinct (string, tag) pairs numbered in first-seen order: the frame and name
 * tables the exports write once and refer to by index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/report_views/views_int.h"

int rp_strtab_id(struct rp_strtab *t, const char *str, uintptr_t tag, uint32_t *id)
{
	uint64_t h = rp_hash_seeded(str, strlen(str), tag) | 1;
	uint32_t v;
	while (rp_map_get(&t->idx, h, &v)) {
		if (t->tag[v - 1] == tag && !strcmp(t->str[v - 1], str)) {
			*id = v - 1;
			return 0;
		}
		h += 2;	/* a hash collision: the next odd key */
	}
	if (t->n == t->cap) {	/* two arrays, one capacity: it moves once both have room */
		size_t cap_str = t->cap, cap_tag = t->cap;
		if (jp_grow(&t->str, &cap_str, t->n + 1, sizeof(*t->str), 256) ||
		    jp_grow(&t->tag, &cap_tag, t->n + 1, sizeof(*t->tag), 256))
			return -ENOMEM;
		t->cap = cap_str < cap_tag ? cap_str : cap_tag;
	}
	if (!(t->str[t->n] = strdup(str)))
		return -ENOMEM;
	t->tag[t->n] = tag;
	if (rp_map_put(&t->idx, h, (uint32_t)t->n + 1) < 0) {
		free(t->str[t->n]);
		return -ENOMEM;
	}
	*id = (uint32_t)t->n++;
	return 0;
}

void rp_strtab_free(struct rp_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->tag);
	rp_map_free(&t->idx);
	memset(t, 0, sizeof(*t));
}
