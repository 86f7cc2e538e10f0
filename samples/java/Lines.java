// Lines: ground truth for source-line attribution in compiled code. Each hot method has one
// expensive line (a dependent chain of square roots and divisions, all on that line) between
// cheap ones; C2 compiles them, and outer() has inner() inlined, so its expensive line is in
// the inlined callee. A profiler that maps pcs to lines right puts nearly every sample of
// these methods on the lines marked EXPENSIVE (tests/e2e/agent_lines.c finds them by that
// marker, so the line numbers may move).
// Usage: java -cp build/java jitprof.samples.Lines [ms]   (default 2000 ms)
package jitprof.samples;

public final class Lines {
    static double sink;

    static double hot(double x, int n) {
        double a = x + 1.0;
        for (int i = 0; i < n; i++) { a = Math.sqrt(a * 1.0000001 + i) / 1.0000003; } // EXPENSIVE hot
        return a * 2.0 - x;
    }

    static double inner(double b, int n) {
        for (int i = 0; i < n; i++) { b = Math.sqrt(b + 3.0 * i) / 0.9999997; } // EXPENSIVE inner
        return b;
    }

    static double outer(double x, int n) {
        double b = x * 3.0 + 1.0;
        b = inner(b, n);
        return b - x;
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        long end = System.nanoTime() + ms * 1_000_000L;
        double s = 0;
        for (int round = 0; System.nanoTime() < end; round++) {
            for (int k = 0; k < 200; k++) {
                s += hot(k, 40);
                s += outer(k, 40);
            }
            sink = s;
        }
        System.out.println(sink > 0 ? "done" : "done.");
    }
}
