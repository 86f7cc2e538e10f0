/* jvmlog_guard.c - the bytes of a compilation log on their way to libxml2, made safe for it
 * in one linear pass: a document type declaration is blanked (HotSpot writes none; entities
 * it declared made each read of an attribute referring to them quadratic in libxml2 2.9, and
 * without it no entity but XML's five predefined ones exists), and the attributes of one start
 * tag past RP_JVMLOG_MAX_ATTRS are blanked (libxml2 2.9 checks a tag's attributes for
 * duplicates pairwise). Blanked bytes become spaces (newlines stay), so every byte offset
 * libxml2 reports is still the file's. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "recorder/report_analysis/analysis_int.h"

enum {
	G_TEXT,		/* content, or anything not looked into */
	G_LT,		/* after '<' */
	G_BANG,		/* after "<!": which declaration, by its next letters */
	G_COMMENT,	/* until "-->" */
	G_CDATA,	/* until "]]>" */
	G_PI,		/* until "?>" */
	G_DOCTYPE,	/* blanked until its '>' outside quotes and the internal subset */
	G_TAG,		/* a start tag's name, then between its attributes */
	G_ANAME,	/* an attribute's name, up to '=' */
	G_AEQ,		/* after '=': its opening quote */
	G_AVAL,		/* its value, up to the closing quote */
};

/* The bytes of "<!DOCTYP" before the 'E' that decides a declaration is one: a read hands
 * on all but this many of its last bytes, so they can still be blanked. */
#define HOLD 8

void rp_jvmlog_guard_init(struct rp_jvmlog_guard *g, int fd)
{
	memset(g, 0, sizeof(*g));
	g->fd = fd;
	g->state = G_TEXT;
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void blank(unsigned char *p)
{
	if (*p != '\n')
		*p = ' ';
}

/* After "<!": the letters so far name a comment, a CDATA section or a DOCTYPE, or nothing
 * known (libxml2 then says what is wrong). */
static void bang(struct rp_jvmlog_guard *g, size_t i)
{
	static const char *const words[] = { "--", "[CDATA[", "DOCTYPE" };
	static const int states[] = { G_COMMENT, G_CDATA, G_DOCTYPE };
	g->word[g->n++] = (char)g->buf[i];
	for (size_t w = 0; w < 3; w++) {
		if (strncmp(words[w], g->word, g->n))
			continue;
		if (words[w][g->n])
			return;		/* a prefix still */
		g->state = states[w];
		g->n = 0;
		if (g->state == G_DOCTYPE) {
			if (!g->doctypes++)
				g->doctype_off = g->base + i - HOLD;
			g->quote = 0;
			g->depth = 0;
			g->hist = 0;
			g->in_comment = 0;
			for (size_t k = 0; k <= HOLD; k++)
				blank(&g->buf[i - k]);	/* "<!DOCTYPE" */
		}
		return;
	}
	g->state = G_TEXT;
}

/* Inside a start tag: a new attribute past the cap is blanked from its name to its quote. */
static void tag(struct rp_jvmlog_guard *g, size_t i)
{
	unsigned char c = g->buf[i];
	if (c == '>') {
		g->state = G_TEXT;
	} else if (is_space(c)) {
		g->n = 1;	/* the element's name has ended */
	} else if (g->n && c != '/') {
		g->state = G_ANAME;
		g->dropping = ++g->attrs > RP_JVMLOG_MAX_ATTRS;
		if (g->dropping && !g->attrs_dropped++)
			g->attrs_off = g->base + i;
		if (g->dropping)
			blank(&g->buf[i]);
	}
}

static void attribute(struct rp_jvmlog_guard *g, size_t i)
{
	unsigned char c = g->buf[i];
	if (g->dropping)
		blank(&g->buf[i]);
	if (g->state == G_AVAL) {
		if (c == g->quote)
			g->state = G_TAG;
	} else if (c == '>') {
		g->state = G_TEXT;	/* not well-formed: libxml2 says so */
	} else if (g->state == G_ANAME && c == '=') {
		g->state = G_AEQ;
	} else if (g->state == G_AEQ && (c == '"' || c == '\'')) {
		g->state = G_AVAL;
		g->quote = c;
	}
}

/* After a '&' in content or an attribute value: a character reference or one of XML's five
 * entities stays; any other reference (no DOCTYPE declares one) has its '&' made '?', so it is
 * text, not a reference libxml2 would report once per occurrence. Decided within 5 bytes,
 * while the '&' is still held. */
static void reference(struct rp_jvmlog_guard *g, size_t i)
{
	static const char *const known[] = { "lt;", "gt;", "amp;", "apos;", "quot;" };
	g->ref[g->nref++] = (char)g->buf[i];
	if (g->ref[0] == '#') {
		g->nref = 0;
		return;
	}
	for (size_t k = 0; k < 5; k++)
		if (!strncmp(known[k], g->ref, g->nref)) {
			if (!known[k][g->nref])
				g->nref = 0;	/* one of them, whole */
			return;
		}
	g->buf[i - g->nref] = '?';
	if (!g->refs_dropped++)
		g->refs_off = g->base + i - g->nref;
	g->nref = 0;
}

/* One byte, buf[i], through the state machine. */
static void step(struct rp_jvmlog_guard *g, size_t i)
{
	unsigned char c = g->buf[i];
	if (g->nref || g->amp) {
		g->amp = 0;
		reference(g, i);
	}
	if (c == '&' && (g->state == G_TEXT || g->state == G_AVAL))
		g->amp = 1;
	switch (g->state) {
	case G_TEXT:
		if (c == '<')
			g->state = G_LT;
		return;
	case G_LT:
		g->n = 0;
		g->attrs = 0;
		g->state = c == '!' ? G_BANG : c == '?' ? G_PI : c == '<' ? G_LT :
			   c == '/' || c == '>' || is_space(c) ? G_TEXT : G_TAG;
		return;
	case G_BANG:
		bang(g, i);
		return;
	case G_COMMENT:
	case G_CDATA:
		/* "-->" and "]]>": a '>' after two of the doubled character */
		if (c == '>' && g->n >= 2)
			g->state = G_TEXT;
		g->n = c == (g->state == G_COMMENT ? '-' : ']') ? g->n + 1 : 0;
		return;
	case G_PI:
		if (c == '>' && g->n)
			g->state = G_TEXT;
		g->n = c == '?';
		return;
	case G_DOCTYPE:
		/* its own comments may hold quotes, brackets and '>' */
		blank(&g->buf[i]);
		g->hist = g->hist << 8 | c;
		if (g->in_comment) {
			g->in_comment = (g->hist & 0xffffff) != 0x2d2d3e;	/* "-->" */
		} else if (!g->quote && g->hist == 0x3c212d2d) {		/* "<!--" */
			g->in_comment = 1;
			g->hist = 0;	/* "<!-->" does not end it */
		} else if (g->quote) {
			if (c == g->quote)
				g->quote = 0;
		} else if (c == '"' || c == '\'') {
			g->quote = c;
		} else if (c == '[') {
			g->depth++;
		} else if (c == ']' && g->depth) {
			g->depth--;
		} else if (c == '>' && !g->depth) {
			g->state = G_TEXT;
		}
		return;
	case G_TAG:
		tag(g, i);
		return;
	default:
		attribute(g, i);
	}
}

/* Past the bytes before e that the state machine would pass unchanged: content up to its
 * next '<' or '&', a kept attribute's name up to its '=' and its value up to its quote or '&'
 * (nearly all of a log), two compares a byte. */
static size_t skip(const struct rp_jvmlog_guard *g, size_t i, size_t e)
{
	const unsigned char *b = g->buf;
	unsigned char stop = g->state == G_TEXT ? '<' : g->quote;
	if (g->amp || g->nref || g->dropping ||
	    (g->state != G_TEXT && g->state != G_ANAME && g->state != G_AVAL))
		return i;
	if (g->state == G_ANAME)
		while (i < e && b[i] != '=' && b[i] != '>')
			i++;
	else
		while (i < e && b[i] != stop && b[i] != '&')
			i++;
	return i;
}

int rp_jvmlog_guard_read(void *ctx, char *out, int len)
{
	struct rp_jvmlog_guard *g = ctx;
	int done = 0;
	while (done < len) {
		if (g->pos < g->ready) {
			size_t n = g->ready - g->pos;
			if (n > (size_t)(len - done))
				n = (size_t)(len - done);
			memcpy(out + done, g->buf + g->pos, n);
			g->pos += n;
			done += (int)n;
			continue;
		}
		if (g->eof)
			break;
		/* the held bytes to the front, then what the file gives after them */
		size_t tail = g->end - g->ready;
		memmove(g->buf, g->buf + g->ready, tail);
		g->base += g->ready;
		g->pos = g->ready = 0;
		g->end = tail;
		ssize_t n;
		do
			n = read(g->fd, g->buf + g->end, sizeof(g->buf) - g->end);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return done ? done : -1;
		if (n == 0) {
			g->eof = 1;
			g->ready = g->end;	/* the end of the file releases them */
			continue;
		}
		for (size_t i = g->end, e = g->end + (size_t)n; i < e; i++) {
			i = skip(g, i, e);
			if (i < e)
				step(g, i);
		}
		g->end += (size_t)n;
		g->ready = g->end > HOLD ? g->end - HOLD : 0;
	}
	return done;
}
