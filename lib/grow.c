/* grow.c - see grow.h. */
#include "lib/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int jp_grow(void *arrp, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : (min_cap ? min_cap : 1);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (!elem || ncap > SIZE_MAX / elem)
		return -ENOMEM;
	void **arr = arrp, *p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
