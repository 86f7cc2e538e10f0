// HotLines: loops of several statements, exactly one of which does the work (marked "HOT <case>"
// on its line; the others cost a few cycles): ground truth for which line a profiler blames.
// div3: a long remainder (a runtime call under C1); sqrt5: a dependent square root among five
// statements; walk: a load that misses the cache every time; inlined: the remainder in a callee
// that C2 inlines. tests/e2e/agent_lines.c and bench/hotlines.sh find the lines by marker.
// Usage: java -cp build/java jitprof.samples.HotLines [ms] [case ...]  (default: 3000, all)
package jitprof.samples;

public final class HotLines {
    static long sink;

    static long div3(long n, long d) {
        long a = 0, b = 1, c = 0;
        for (long i = 1; i < n; i++) {
            a += i * 3;
            b = (b * 31 + i) % d; // HOT div3
            c ^= a + b;
        }
        return a + b + c;
    }

    static double sqrt5(long n) {
        double x = 1, y = 0;
        long k = 0, m = 7;
        for (long i = 1; i < n; i++) {
            k += i;
            m ^= k;
            x = Math.sqrt(x + i) * 1.0001; // HOT sqrt5
            y += m & 3;
            k -= 1;
        }
        return x + y + k + m;
    }

    static long walk(int[] arr, long n) {
        long s = 0, idx = 1;
        int mask = arr.length - 1;
        for (long i = 0; i < n; i++) {
            s += i;
            idx = idx * 6364136223846793005L + 1442695040888963407L;
            s += arr[(int) (idx >>> 33) & mask]; // HOT walk
            s ^= i;
        }
        return s;
    }

    static long helper(long b, long i, long d) {
        return (b * 31 + i) % d; // HOT inlined
    }

    static long inlined(long n, long d) {
        long a = 0, b = 1;
        for (long i = 1; i < n; i++) {
            a += i;
            b = helper(b, i, d);
            a ^= b;
        }
        return a + b;
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        String[] cases = args.length > 1 ? java.util.Arrays.copyOfRange(args, 1, args.length)
                                         : new String[] { "div3", "sqrt5", "walk", "inlined" };
        long d = 1_000_003L + args.length;  // not a constant: a real division
        int[] arr = new int[1 << 24];  // 64 MB: every load misses the caches
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            for (String c : cases) {
                switch (c) {
                    case "div3": sink += div3(400_000, d); break;
                    case "sqrt5": sink += (long) sqrt5(400_000); break;
                    case "walk": sink += walk(arr, 100_000); break;
                    case "inlined": sink += inlined(400_000, d); break;
                    default: throw new IllegalArgumentException(c);
                }
            }
        }
        System.out.println(sink != 0 ? "done" : "done.");
    }
}
