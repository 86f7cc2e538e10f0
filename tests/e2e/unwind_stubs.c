/* unwind_stubs.c - stacks without frame pointers through HotSpot's stubs and native methods
 * (issue 35): a Java program whose hot loops call through megamorphic call sites (four
 * receiver classes: an interface call through an itable stub, a virtual call through a vtable
 * stub) and a JNI method (Deflater.deflateBytesBytes, zlib underneath: a native wrapper, no
 * intrinsic), recorded with `jitprof record --call-graph dwarf` without
 * -XX:+PreserveFramePointer on JDK 17 and 25 (each a part skipped where absent), injected with
 * the stack copies kept and unwound by report (its frames named). The ground truth is the
 * program written here: every sample inside a vtable stub has Stubs.viaVtable as its caller,
 * an itable stub Stubs.viaItable, the native wrapper Deflater.deflate; >= 95% of the samples
 * of the program's work reach Stubs.main without an [unknown] cut. Without the CFI synth
 * writes for stubs and native wrappers (synth/cfi_stubs.c, prologue.c) the stubs' samples
 * lose their callers and the native ones stop at the wrapper. */
#include "tests/e2e/report_util.h"
#include "tests/lib/javac.h"

TestSuite(unwind_stubs, .init = rx_setup, .fini = rx_teardown, .timeout = 600);

static const char stubs_java[] =
	"import java.util.zip.Deflater;\n"
	"public class Stubs {\n"
	"    interface Shape { long area(long x); }\n"
	"    static final class A implements Shape { public long area(long x) { return x * 3 + 1; } }\n"
	"    static final class B implements Shape { public long area(long x) { return x * 5 + 2; } }\n"
	"    static final class C implements Shape { public long area(long x) { return x ^ 7; } }\n"
	"    static final class D implements Shape { public long area(long x) { return x - 9; } }\n"
	"    static abstract class Base { abstract long f(long x); }\n"
	"    static final class E extends Base { long f(long x) { return x + 11; } }\n"
	"    static final class F extends Base { long f(long x) { return x * 13; } }\n"
	"    static final class G extends Base { long f(long x) { return x >> 1; } }\n"
	"    static final class H extends Base { long f(long x) { return ~x; } }\n"
	"    static volatile long sink;\n"
	"    static long viaItable(Shape[] s, long x) {\n"
	"        long t = 0;\n"
	"        for (int i = 0; i < (1 << 18); i++) t += s[i & 3].area(x + i);\n"
	"        return t;\n"
	"    }\n"
	"    static long viaVtable(Base[] b, long x) {\n"
	"        long t = 0;\n"
	"        for (int i = 0; i < (1 << 18); i++) t += b[i & 3].f(x + i);\n"
	"        return t;\n"
	"    }\n"
	"    static long viaNative(Deflater d, byte[] in, byte[] out) {\n"
	"        d.reset();\n"
	"        d.setInput(in);\n"
	"        d.finish();\n"
	"        long n = 0;\n"
	"        while (!d.finished()) n += d.deflate(out);\n"
	"        return n;\n"
	"    }\n"
	"    public static void main(String[] args) {\n"
	"        Shape[] s = { new A(), new B(), new C(), new D() };\n"
	"        Base[] b = { new E(), new F(), new G(), new H() };\n"
	"        byte[] in = new byte[1 << 15], out = new byte[1 << 17];\n"
	"        for (int i = 0; i < in.length; i++) in[i] = (byte) (i * 31 % 251 + (i >> 7));\n"
	"        Deflater d = new Deflater(6);\n"
	"        long end = System.nanoTime() + Long.parseLong(args[0]) * 1000000L;\n"
	"        for (long i = 0; System.nanoTime() < end; i++)\n"
	"            sink += viaItable(s, i) + viaVtable(b, i) + viaNative(d, in, out);\n"
	"    }\n"
	"}\n";

/* Each frame to check and the method its caller must be (a prefix of its name). */
static const struct { const char *frame, *caller; int prefix; } calls[] = {
	{ "vtable stub", "Stubs.viaVtable(", 0 },
	{ "itable stub", "Stubs.viaItable(", 0 },
	{ "java.util.zip.Deflater.deflateBytes", "java.util.zip.Deflater.deflate(", 1 },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

struct verdict {
	unsigned long work, reach, seen[NCALLS], right[NCALLS], unnamed[NCALLS];
	char first_wrong[1024];
};

/* A frame's name without report's _[i] / _[int] marks, in place. */
static void unmark(char *f)
{
	size_t l = strlen(f);
	if (l > 6 && !strcmp(f + l - 6, "_[int]"))
		f[l - 6] = 0;
	else if (l > 4 && !strcmp(f + l - 4, "_[i]"))
		f[l - 4] = 0;
}

static void check_stack(char *line, unsigned long cnt, struct verdict *v)
{
	char copy[1024], *f[256];
	size_t n = 0;
	int work = 0, main_ = 0, cut = 0;
	snprintf(copy, sizeof(copy), "%.1000s", line);
	for (char *tok = strtok(line, ";"); tok && n < 256; tok = strtok(NULL, ";")) {
		unmark(tok);
		f[n++] = tok;
		work |= !strncmp(tok, "Stubs.", 6) || strstr(tok, "table stub") ||
			strstr(tok, "Deflater");
		main_ |= !strncmp(tok, "Stubs.main(", 11);
		cut |= !strcmp(tok, "[unknown]");
	}
	if (!work)
		return;
	v->work += cnt;
	v->reach += main_ && !cut ? cnt : 0;
	for (size_t i = 1; i < n; i++)
		for (size_t k = 0; k < NCALLS; k++) {
			if (calls[k].prefix ? strncmp(f[i], calls[k].frame, strlen(calls[k].frame))
					    : strcmp(f[i], calls[k].frame))
				continue;
			v->seen[k] += cnt;
			if (!strncmp(f[i - 1], calls[k].caller, strlen(calls[k].caller)))
				v->right[k] += cnt;
			else if (!strncmp(f[i - 1], "[unknown]", 9))
				v->unnamed[k] += cnt;	/* cut, or a pc no load covers */
			else if (!v->first_wrong[0])
				memcpy(v->first_wrong, copy, sizeof(copy));
		}
}

static void run(const char *home)
{
	char line[32768];
	struct tu_result r;
	struct verdict v = { 0 };

	if (rx_record_java_dwarf(home, "Stubs 2500"))
		return;
	rx_ok(&r, "cd '%s' && HOME='%s' '%s' inject --jit --all --keep-stacks -q -i perf.data -o "
	      "perf.jit.data && HOME='%s' '%s' report -i perf.jit.data --collapsed", dir, dir,
	      rx_jitprof, dir, rx_jitprof);
	for (const char *p = r.out; rx_next_line(&p, line, sizeof(line));) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		check_stack(line, strtoul(sp + 1, NULL, 10), &v);
	}
	tu_result_free(&r);
	cr_assert_geq(v.work, 500, "%s: %lu samples of the program's work", home, v.work);
	cr_assert_geq(v.reach * 100, v.work * 95, "%s: %lu of %lu reach Stubs.main", home, v.reach,
		      v.work);
	for (size_t k = 0; k < NCALLS; k++) {
		cr_assert_geq(v.seen[k], 20, "%s: %lu samples in %s", home, v.seen[k],
			      calls[k].frame);
		cr_assert_eq(v.right[k] + v.unnamed[k], v.seen[k], "%s: %s called from another "
			     "method than %s, as\n%s", home, calls[k].frame, calls[k].caller,
			     v.first_wrong);
		cr_assert_geq(v.right[k] * 100, v.seen[k] * 95, "%s: %lu of %lu samples in %s "
			      "under %s", home, v.right[k], v.seen[k], calls[k].frame,
			      calls[k].caller);
	}
}

Test(unwind_stubs, megamorphic_and_native_without_frame_pointers)
{
	static const char *const homes[] = { "/usr/lib/jvm/java-17-openjdk-amd64",
					     "/usr/lib/jvm/temurin-25-jdk-amd64" };
	if (tu_javac(dir, "Stubs", stubs_java, "--release 17"))
		cr_skip_test("no javac here");
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		run(homes[i]);
}
