// ForkJvm: a JVM that starts another JVM, as build tools (Gradle, Maven's forked tests) do.
// The child runs Generations for the given time on the same class path; the parent spins in
// its own hot method meanwhile. A profiler that gives the agent only to the JVM on its command
// line misses the child's compiled code (its samples stay unnamed JIT code).
// Usage: java -cp build/java jitprof.samples.ForkJvm [ms]   (default 300 ms per phase)
package jitprof.samples;

public final class ForkJvm {
    static long spin(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += (i * 31) ^ (s >>> 3);
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        String ms = args.length > 0 ? args[0] : "300";
        Process child = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "-cp",
                System.getProperty("java.class.path"), "jitprof.samples.Generations", ms)
                .inheritIO().start();
        long until = System.nanoTime() + Long.parseLong(ms) * 2_000_000L, s = 0;
        while (System.nanoTime() < until) {
            s += spin(50_000);
        }
        System.out.println("forkjvm parent " + (s != 0) + ", child exit " + child.waitFor());
    }
}
