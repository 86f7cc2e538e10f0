// Inlined: call sites whose inlining is known by construction, to check that stacks show inlined
// frames exactly as the code was inlined (tests/e2e/report_inlined.c).
// chain: outer() computes post(make(n).work()), the shape of String.split's
//   Pattern.compile(regex).split(s): make() and post() are small and inlined into outer(),
//   work() is not (-XX:CompileCommand=dontinline,jitprof.samples.Inlined$Box::work) and does
//   the work. Its caller is outer(): never make() (whose code ends just before the call) nor
//   post() (whose code starts at the return address).
// mega: drive() loops over kernel(), inlined into it, which calls area() on four classes: a
//   megamorphic call through a vtable stub, whose caller is kernel() inlined into drive().
// The only calls between this class's methods are those of CALLS below (caller -> callee), and
// the tests check every stack against them. outer() and drive() are kept out of run() (the
// dontinline options) so that each is compiled code of its own, with callers' frames in it.
// Usage: java -XX:CompileCommand=quiet \
//            -XX:CompileCommand=dontinline,jitprof.samples.Inlined\$Box::work \
//            -XX:CompileCommand=dontinline,jitprof.samples.Inlined::outer \
//            -XX:CompileCommand=dontinline,jitprof.samples.Inlined::drive \
//            -cp build/java jitprof.samples.Inlined [ms] [case ...]  (default: 3000, chain mega)
package jitprof.samples;

public final class Inlined {
    // CALLS: main>run run>outer run>drive outer>make outer>post outer>Box.work make>Box.<init>
    // CALLS: drive>kernel kernel>Shape.area (each of A, B, C, D)
    static long sink;

    static final class Box {
        final long n;

        Box(long n) {
            this.n = n;
        }

        long work() {
            long h = n;
            for (int i = 0; i < 20_000; i++) {
                h = h * 6364136223846793005L + i;
                h ^= h >>> 29;
            }
            return h;
        }
    }

    static Box make(long n) {
        return new Box(n | 1);
    }

    static long post(long v) {
        return (v ^ (v >>> 17)) + 3;
    }

    static long outer(long n) {
        return post(make(n).work());
    }

    abstract static class Shape {
        abstract long area(long x);
    }

    static final class A extends Shape {
        long area(long x) { return x * 3 + (x >>> 7); }
    }

    static final class B extends Shape {
        long area(long x) { return x * 5 ^ (x >>> 9); }
    }

    static final class C extends Shape {
        long area(long x) { return x * 7 - (x >>> 11); }
    }

    static final class D extends Shape {
        long area(long x) { return (x * 11) | (x >>> 13); }
    }

    static long kernel(Shape s, long x) {
        long y = s.area(x);
        return y * 31 + (y >>> 7) * (x | 1);  // work of its own: samples in the inlined frame
    }

    static long drive(Shape[] shapes, int rounds) {
        long acc = 0;
        for (int r = 0; r < rounds; r++)
            for (int i = 0; i < shapes.length; i++)
                acc += kernel(shapes[i], acc + i);
        return acc;
    }

    static void run(String c, Shape[] shapes, long i) {
        switch (c) {
            case "chain": sink += outer(i); break;
            case "mega": sink += drive(shapes, 600); break;
            default: throw new IllegalArgumentException(c);
        }
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        String[] cases = args.length > 1 ? java.util.Arrays.copyOfRange(args, 1, args.length)
                                         : new String[] { "chain", "mega" };
        Shape[] shapes = new Shape[64];
        for (int i = 0; i < shapes.length; i++)  // a mix no profile can predict: megamorphic
            shapes[i] = i % 4 == 0 ? new A() : i % 4 == 1 ? new B()
                      : i % 4 == 2 ? new C() : new D();
        long end = System.nanoTime() + ms * 1_000_000L;
        for (long i = 0; System.nanoTime() < end; i++)
            for (String c : cases)
                run(c, shapes, i);
        System.out.println(sink != 0 ? "done" : "done.");
    }
}
