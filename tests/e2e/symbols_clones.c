/* symbols_clones.c - C++ clone symbols (.isra.N, .constprop.N, .part.N) named as perf report
 * names them, on a binary built here: functions under GCC clone names (one of them V8's
 * StringShape::DispatchToSpecificTypeWithoutCast .isra.0 clone, which the C++ runtime's
 * __cxa_demangle and `c++filt` with parameters refuse) recorded with perf, then the symbol
 * column of `perf report --sort sym` against ours, row for row. */
#include "tests/e2e/report_util.h"

TestSuite(symbols_clones, .init = rx_setup, .fini = rx_teardown, .timeout = 300);

#define V8_CLONE "_ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCastIZNS1_22Dispatch" \
	"ToSpecificTypeIZNKS0_6String7GetImplEiNS0_16PtrComprCageBaseERKNS0_31SharedStringAccess" \
	"GuardIfNeededEE19StringGetDispatchertJRiRS5_S8_EEET0_S4_DpOT1_E17CastingDispatchertJRS4_SA" \
	"_SB_S8_EEESC_SF_.isra.0"

static const char prog[] =
	"volatile unsigned long sink;\n"
	"#define HOT(f, sym, op) __attribute__((noinline)) void f(int n) __asm__(sym); \\\n"
	"	__attribute__((noinline)) void f(int n) { for (int i = 0; i < n; i++) sink op i; }\n"
	"HOT(h1, \"" V8_CLONE "\", +=)\n"
	"HOT(h2, \"_ZN2nsL5cpropEii.constprop.0\", ^=)\n"
	"HOT(h3, \"_ZN2ns3FooC2Ev.part.0\", -=)\n"
	"HOT(h4, \"_ZN2ns3Big4sizeEv.isra.0\", |=)\n"
	"HOT(h5, \"_ZNK2ns3Map4findIiEEPKvRKT_.constprop.0.isra.0\", +=)\n"
	"int main(void)\n"
	"{\n"
	"	for (int r = 0; r < 2000; r++) {\n"
	"		h1(20000); h2(20000); h3(20000); h4(20000); h5(20000);\n"
	"	}\n"
	"	return 0;\n"
	"}\n";

/* "  12.34%  [.] name" rows: the names, in order. */
static size_t sym_rows(const char *out, char (*names)[1024], size_t max)
{
	size_t n = 0;
	char line[2048];
	for (const char *p = out; n < max && rx_next_line(&p, line, sizeof(line));) {
		double pct;
		const char *s = strstr(line, "[.] ");
		if (line[0] == '#' || sscanf(line, " %lf%%", &pct) != 1 || !s)
			continue;
		snprintf(names[n], 1024, "%s", s + 4);
		char *e = names[n] + strlen(names[n]);
		while (e > names[n] && e[-1] == ' ')
			*--e = 0;
		n++;
	}
	return n;
}

Test(symbols_clones, names_like_perf_report)
{
	char home[PATH_MAX];
	snprintf(home, sizeof(home), "%s/home", dir);
	rx_build_and_record(home, "clones", prog, "-O1", "-F 2000", "");
	struct tu_result perf, ours;
	rx_ok(&perf, "cd '%s' && HOME='%s' perf report -i perf.data --stdio --sort sym "
	      "--percent-limit 5 2>/dev/null", dir, home);
	rx_ok(&ours, "cd '%s' && HOME='%s' '%s' report -i perf.data --sort sym --percent-limit 5 "
	      "2>/dev/null", dir, home, rx_jitprof);
	static char pn[16][1024], on[16][1024];
	size_t np = sym_rows(perf.out, pn, 16), no = sym_rows(ours.out, on, 16);
	cr_assert_geq(np, 5, "the five clones are hot:\n%s", perf.out);
	cr_assert_eq(no, np, "ours:\n%s\nperf:\n%s", ours.out, perf.out);
	size_t v8 = 0;
	for (size_t i = 0; i < np; i++) {
		cr_assert_str_eq(on[i], pn[i], "row %zu", i);
		cr_assert(!strstr(on[i], "_Z"), "still mangled: %s", on[i]);
		v8 += strncmp(on[i], "v8::internal::StringShape::", 27) == 0;
	}
	cr_assert_eq(v8, 1, "the V8 clone is demangled:\n%s", ours.out);
	tu_result_free(&perf);
	tu_result_free(&ours);
}
