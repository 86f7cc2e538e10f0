/* text.c - text from untrusted input made safe to print: names and paths in a recording can
 * hold a terminal's escape sequences, which are kept as the visible text \xNN instead. */
#include "safeio/safeio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int sio_has_controls(const char *s)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			return 1;
	return 0;
}

char *sio_escape_controls(const char *s)
{
	char *out = malloc(strlen(s) * 4 + 1), *o = out;
	if (!out)
		return NULL;
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			o += sprintf(o, "\\x%02x", (unsigned char)*s);
		else
			*o++ = *s;
	*o = 0;
	return out;
}
