/* test_demangle.c - the Java demangler (recorder/symbols/demangle.c): descriptors, arrays,
 * nested and generic signatures, and names that must pass through unchanged. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/symbols/symbols.h"

static void check(const char *in, const char *want, int want_rc)
{
	char out[512];
	int rc = sym_java_demangle(in, out, sizeof(out));
	cr_expect_str_eq(out, want, "demangle(%s)", in);
	cr_expect_eq(rc, want_rc, "demangle(%s) rc %d", in, rc);
}

Test(demangle, brief_example)
{
	check("Lgenerations/Shape;area([Lgenerations/Shape;I)D",
	      "generations.Shape.area(generations.Shape[], int)", 1);
}

/* perf 6.1 prints "Fixture.fold(Fixture$Op, int[])" for this one. */
Test(demangle, perf_wrong_case)
{
	check("LFixture;fold([LFixture$Op;I)J", "Fixture.fold(Fixture$Op[], int)", 1);
	check("LShape;f([LShape;I)D", "Shape.f(Shape[], int)", 1);
}

Test(demangle, primitives)
{
	check("LP;m(BCDFIJSZ)V", "P.m(byte, char, double, float, int, long, short, boolean)", 1);
	check("Lp/q/R;noargs()V", "p.q.R.noargs()", 1);
}

Test(demangle, arrays)
{
	check("LA;m([[I[[[Ljava/lang/String;[Z)[[J",
	      "A.m(int[][], java.lang.String[][][], boolean[])", 1);
	check("LA;m(I[I)V", "A.m(int, int[])", 1);
}

Test(demangle, nested)
{
	check("Lcom/x/Outer$Inner;run(Lcom/x/Outer$Inner$Deep;)V",
	      "com.x.Outer$Inner.run(com.x.Outer$Inner$Deep)", 1);
	check("LMain;lambda$main$0(I)I", "Main.lambda$main$0(int)", 1);
}

Test(demangle, constructors)
{
	check("Ljava/lang/Object;<init>()V", "java.lang.Object.<init>()", 1);
	check("LK;<clinit>()V", "K.<clinit>()", 1);
}

Test(demangle, generics)
{
	check("Ljava/util/Map;put(TK;TV;)TV;", "java.util.Map.put(K, V)", 1);
	check("LU;sort<T:Ljava/lang/Object;>(Ljava/util/List<TT;>;Ljava/util/Comparator<-TT;>;)V",
	      "U.sort(java.util.List<T>, java.util.Comparator<? super T>)", 1);
	check("LU;f(Ljava/util/Map<Ljava/lang/String;+Ljava/lang/Number;>;Ljava/util/List<*>;)V",
	      "U.f(java.util.Map<java.lang.String, ? extends java.lang.Number>, java.util.List<?>)",
	      1);
	check("LU;g(Lp/Outer<TT;>.Inner<TU;>;)V", "U.g(p.Outer<T>.Inner<U>)", 1);
	check("LU;h<T::Ljava/lang/Comparable<TT;>;>([TT;)TT;", "U.h(T[])", 1);
}

Test(demangle, other_forms)
{
	check("java/lang/String.hashCode()I", "java.lang.String.hashCode()", 1);
	check("java.util.HashMap::get(Ljava/lang/Object;)Ljava/lang/Object;",
	      "java.util.HashMap.get(java.lang.Object)", 1);
	check("LFixture;fold", "Fixture.fold", 1);
}

Test(demangle, passthrough)
{
	check("Interpreter", "Interpreter", 0);
	check("itable stub", "itable stub", 0);
	check("_ZN3foo3barEv", "_ZN3foo3barEv", 0);
	check("main", "main", 0);
	check("LBroken;m([X)V", "LBroken;m([X)V", 0);
	check("LBroken;m(I", "LBroken;m(I", 0);
	check("LA;m(I)Vjunk", "LA;m(I)Vjunk", 0);
	check("", "", 0);
}

Test(demangle, truncates_safely)
{
	char out[8];
	sym_java_demangle("Lgenerations/Shape;area([Lgenerations/Shape;I)D", out, sizeof(out));
	cr_expect_eq(strlen(out), 7);
	cr_expect(!strncmp(out, "generat", 7));
	char big[64];
	memset(big, 'x', sizeof(big));
	sym_java_demangle("plain", big, 3);
	cr_expect_str_eq(big, "pl");
}

/* "L" + "A<L" x n + "B;" + ">;" x n + "m()V": n levels of type arguments (malloc'd). */
static char *nested(size_t n)
{
	char *s = malloc(6 * n + 8), *p = s;
	cr_assert(s);
	*p++ = 'L';
	for (size_t i = 0; i < n; i++, p += 3)
		memcpy(p, "A<L", 3);
	memcpy(p, "B;", 2);
	p += 2;
	for (size_t i = 0; i < n; i++, p += 2)
		memcpy(p, ">;", 2);
	strcpy(p, "m()V");
	return s;
}

/* Issue 34 finding 6: each '<' was one more level of recursion, and 250,000 of them (a
 * recorded symbol or CODE_LOAD name) overflowed the stack. Past SYM_JAVA_MAX_NESTING the name
 * is shown as recorded; at the cap it is still read. */
Test(demangle, deep_type_arguments_capped, .timeout = 30)
{
	char *deep = nested(250000);
	size_t len = strlen(deep);
	char *out = malloc(len + 1);
	cr_assert(out);
	cr_expect_eq(sym_java_demangle(deep, out, len + 1), 0);
	cr_expect_str_eq(out, deep);
	free(out);
	free(deep);

	char *at = nested(SYM_JAVA_MAX_NESTING), *past = nested(SYM_JAVA_MAX_NESTING + 1);
	char buf[2048];
	cr_expect_eq(sym_java_demangle(at, buf, sizeof(buf)), 1, "%s", buf);
	cr_expect(!strncmp(buf, "A<A<A<", 6) && strstr(buf, "B>>>"), "%s", buf);
	cr_expect_eq(sym_java_demangle(past, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, past);
	free(at);
	free(past);
}

/* Into a growable string the name comes out whole however far it expands (each 'Z' is
 * "boolean, "), the same as a large enough buffer gives; a name left as it is, whole too. */
Test(demangle, whole_into_a_string)
{
	enum { N = 1000 };
	static char in[N + 16], want[10 * N + 16], raw[3 * N];
	memcpy(in, "LA;m(", 5);
	memset(in + 5, 'Z', N);
	memcpy(in + 5 + N, ")V", 3);
	size_t o = (size_t)snprintf(want, sizeof(want), "A.m(");
	for (int i = 0; i < N; i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, "%sboolean", i ? ", " : "");
	snprintf(want + o, sizeof(want) - o, ")");
	struct jp_str s = { 0 };
	cr_assert_eq(sym_java_demangle_str(in, &s), 1);
	cr_assert_eq(s.len, strlen(want));
	cr_assert_str_eq(s.s, want);
	memset(raw, 'r', sizeof(raw) - 1);
	cr_assert_eq(sym_java_demangle_str(raw, &s), 0, "not Java: as it is");
	cr_assert_str_eq(s.s, raw, "replaced, whole");
	cr_assert_eq(jp_str_free(&s), 0);
}
