/* jvmlog_fixture.c - see jvmlog_fixture.h. */
#include "tests/unit/report/jvmlog_fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const jl_log_tty =
	"<?xml version='1.0' encoding='UTF-8'?>\n"
	"<hotspot_log version='160 1' process='4242' time_ms='1'>\n"
	"<tty>\n"
	"<writer thread='7'/>\n"
	"<nmethod compile_id='1' compiler='c1' level='3' entry='0x1000' size='100' "
	"method='A m ()V' stamp='0.100'/>\n"
	"<task_queued compile_id='2' compile_kind='osr' method='A m ()V' osr_bci='5' "
	"stamp='0.2'/>\n"
	"<nmethod compile_id='2' compile_kind='osr' compiler='c2' level='4' entry='0x2000' "
	"size='100' method='A m ()V' stamp='0.200'/>\n"
	"<nmethod compile_id='3' compiler='c2' level='4' entry='0x3000' size='100' "
	"method='A m ()V' stamp='0.300'/>\n"
	"<make_not_entrant thread='7' compile_id='1' compiler='c1' level='3' stamp='0.300'/>\n"
	"<writer thread='9'/>\n"
	"<uncommon_trap thread='9' reason='unstable_if' action='reinterpret' debug_id='0' "
	"compile_id='3' compiler='c2' level='4' stamp='0.500'>\n"
	"<jvms bci='26' method='A m ()V' bytes='78'/>\n"
	"<jvms bci='3' method='A caller ()V' bytes='10'/>\n"
	"</uncommon_trap>\n"
	"<make_not_entrant thread='9' compile_id='3' compiler='c2' level='4' stamp='0.500'/>\n";
const char *const jl_log_rest =
	"<nmethod compile_id='4' compiler='c2' level='4' entry='0x4000' size='100' "
	"method='A m ()V' stamp='0.550'/>\n"
	"<dependency_failed type='abstract_with_unique_concrete_subtype' ctxk='A' x='B' "
	"witness='C' stamp='0.600'/>\n"
	"<make_not_entrant thread='9' compile_id='2' compile_kind='osr' compiler='c2' level='4' "
	"stamp='0.600'/>\n"
	"</tty>\n"
	"<compilation_log thread='8'>\n"
	"<task compile_id='3' method='A m ()V' bytes='27' level='4' stamp='0.25'>\n"
	"<klass id='10' name='A' flags='1'/>\n"
	"<method id='11' holder='10' name='m' flags='0' bytes='27'/>\n"
	"<parse method='11' stamp='0.25'>\n"
	"<bc code='182' bci='14'/>\n"
	"<klass id='12' name='B' flags='1'/>\n"
	"<method id='13' holder='12' name='area' flags='0' bytes='10'/>\n"
	"<call method='13' count='100' inline='1'/>\n"
	"<inline_success reason='inline (hot)'/>\n"
	"<parse method='13'>\n"
	"<bc code='182' bci='2'/>\n"
	"<method id='14' holder='12' name='big' flags='0' bytes='500'/>\n"
	"<call method='14' count='100'/>\n"
	"<inline_fail reason='too big'/>\n"
	"</parse>\n"
	"<bc code='184' bci='20'/>\n"
	"<call method='11' count='1'/>\n"
	"<inline_fail reason='recursive inlining is too deep'/>\n"
	"</parse>\n"
	"<task_done success='1' stamp='0.3'/>\n"
	"</task>\n"
	"</compilation_log>\n"
	"<hotspot_log_done stamp='1.0'/>\n"
	"</hotspot_log>\n";

char *jl_write_log(const char *dir, const char *name, const char *a, const char *b)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	cr_assert_not_null(path);
	sprintf(path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(a, f);
	if (b)
		fputs(b, f);
	fclose(f);
	return path;
}

struct rp_jvmlog *jl_open_ok(const char *path)
{
	struct rp_jvmlog *jl;
	char err[512] = "";
	cr_assert_eq(rp_jvmlog_open(&jl, path, JP_ERRBUF_LOG(err)), 0, "%s", err);
	return jl;
}
