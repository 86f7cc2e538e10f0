/* name_match.c - what --method, --compare and --diff-generations take: a method's name as the
 * user copies it from a report matches as text (Java's names are full of regex characters: $ in
 * lambdas and inner classes, dots, parentheses and brackets in signatures; V8's carry paths),
 * and a text that is also a valid extended regex matches whatever that regex matches too. */
#include <string.h>

#include "recorder/report_model/model.h"

void rp_name_match_init(struct rp_name_match *m, const char *text)
{
	m->text = text;
	m->have_re = regcomp(&m->re, text, REG_EXTENDED | REG_NOSUB) == 0;
}

int rp_name_matches(const struct rp_name_match *m, const char *name)
{
	return name && (strstr(name, m->text) || (m->have_re && !regexec(&m->re, name, 0, NULL, 0)));
}

void rp_name_match_fini(struct rp_name_match *m)
{
	if (m->have_re)
		regfree(&m->re);
	m->have_re = 0;
}

int rp_name_is_regex(const char *text, char *why, size_t len)
{
	regex_t re;
	int rc = regcomp(&re, text, REG_EXTENDED | REG_NOSUB);
	if (!rc) {
		regfree(&re);
		return 1;
	}
	regerror(rc, &re, why, len);
	return 0;
}
