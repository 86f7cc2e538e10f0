/* test_cxx.c - C++ names as perf report prints them (no parameters, return types or clone
 * suffixes): every function of a C++ library g++ builds here, resolved by address, against
 * `c++filt -p` of its mangled name as the oracle; --no-demangle keeps the mangled name. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

static const char *cxx_src =
	"#include <vector>\n"
	"#include <functional>\n"
	"#include <map>\n"
	"namespace ns {\n"
	"template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
	"struct K {\n"
	"	int v;\n"
	"	__attribute__((noinline)) int get() const { return v; }\n"
	"	__attribute__((noinline)) K operator+(const K &o) const { return K{v + o.v}; }\n"
	"	__attribute__((noinline)) bool operator()(int a) const { return a < v; }\n"
	"};\n"
	"namespace { __attribute__((noinline)) int hidden(int a) { return a * 7; } }\n"
	/* operator templates (libiberty prints "operator<< <T>"), ref-qualified members, and
	 * a thunk (special names keep their parameters) */
	"struct Out { int n; };\n"
	"template <typename T> __attribute__((noinline)) Out &operator<<(Out &o, const T &v)\n"
	"{ o.n += (int)sizeof(v); return o; }\n"
	"template <typename T> __attribute__((noinline)) bool operator<(const Out &a, T b)\n"
	"{ return a.n < (int)b; }\n"
	"struct S {\n"
	"	std::vector<int> v;\n"
	"	__attribute__((noinline)) std::vector<int> take() && { return v; }\n"
	"	__attribute__((noinline)) int peek() const & { return (int)v.size(); }\n"
	"};\n"
	"struct A { virtual ~A() {} virtual int fa() { return 1; } };\n"
	"struct B { virtual ~B() {} virtual int fb() { return 2; } };\n"
	"struct C : A, B { __attribute__((noinline)) int fb() override { return 3; } };\n"
	"}\n"
	"__attribute__((noinline)) int more(int n)\n"
	"{\n"
	"	ns::Out o{n};\n"
	"	o << n << 2.5;\n"
	"	ns::S s{{1, 2}};\n"
	"	ns::C c;\n"
	"	ns::B &b = c;\n"
	"	return o.n + (o < 3L) + s.peek() + (int)std::move(s).take().size() + b.fb();\n"
	"}\n"
	"__attribute__((noinline)) int use(std::vector<int> &v, std::map<int, long> &m, int n)\n"
	"{\n"
	"	auto f = [n](int a) { return a * n; };\n"
	"	std::function<int(int)> g = f;\n"
	"	ns::K k{n};\n"
	"	ns::K k2 = k + k;\n"
	"	v.push_back(ns::twice(n) + g(3) + k2.get() + ns::hidden(n) + k(2));\n"
	"	m[n] += ns::twice<long>(n);\n"
	"	return (int)v.size() + (int)m.size();\n"
	"}\n";

Test(cxx, names_like_perf_report)
{
	if (!tu_have("g++") || !tu_have("c++filt"))
		cr_skip_test("g++/c++filt not installed");
	char *dir = tu_tmpdir("sym-cxx");
	char cmd[9000], src[4200], so[4200];
	snprintf(src, sizeof(src), "%s/x.cc", dir);
	snprintf(so, sizeof(so), "%s/libx.so", dir);
	cr_assert_eq(tu_write_file(src, cxx_src, strlen(cxx_src)), 0);
	snprintf(cmd, sizeof(cmd), "g++ -O2 -g -fPIC -shared -o %s %s", so, src);
	st_run(cmd);
	/* address, mangled name, c++filt -p name: one line each */
	snprintf(cmd, sizeof(cmd),
		 "nm -S --defined-only %s | awk 'NF == 4 && $3 ~ /^[TtWw]$/ && $4 ~ /^_Z/ "
		 "{ l[NR] = $1 \" \" $4; n[$1]++ } END { for (i in l) { split(l[i], f, \" \"); "
		 "if (n[f[1]] == 1) print l[i] } }' | "	/* aliases (D1/D2) share an address */
		 "while read a m; do echo \"$a $m $(echo $m | c++filt -p)\"; done",
		 so);
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);

	struct sym_build_id bid;
	cr_assert_eq(sym_elf_build_id(so, &bid, NULL), 0);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	struct sym_opts raw = o;
	raw.no_demangle = 1;
	struct sym_session *sr = sym_session_new(&raw);
	uint64_t base = 0x7f3300000000ull;
	cr_assert_eq(st_map(s, 5, so, so, base, &bid), 0);
	cr_assert_eq(st_map(sr, 5, so, so, base, &bid), 0);
	size_t n = 0;
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		char *mangled = strchr(line, ' ');
		cr_assert(mangled);
		*mangled++ = 0;
		char *want = strchr(mangled, ' ');
		cr_assert(want);
		*want++ = 0;
		uint64_t addr = base + strtoull(line, NULL, 16);
		struct sym_result res;
		cr_assert_eq(sym_resolve(s, 5, addr, 1, 2, 0, &res), 0);
		cr_expect_str_eq(res.sym ? res.sym : "(none)", want, "%s", mangled);
		cr_assert_eq(sym_resolve(sr, 5, addr, 1, 2, 0, &res), 0);
		cr_expect_str_eq(res.sym ? res.sym : "(none)", mangled);
		n++;
	}
	cr_expect_geq(n, 8, "the library must hold templates, operators, lambdas");
	tu_result_free(&r);
	sym_session_free(s);
	sym_session_free(sr);
	tu_rmtree(dir);
	free(dir);
}
