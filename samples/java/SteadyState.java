// SteadyState: a fixed amount of ordinary Java work (hash maps, strings, sorting, arithmetic)
// that runs for seconds after a short warm-up, for measuring the agent's steady-state cost.
// Usage: java -cp build/java jitprof.samples.SteadyState [rounds]   (default 60)
package jitprof.samples;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class SteadyState {
    static long words(int round) {
        Map<String, Integer> counts = new HashMap<>();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            sb.setLength(0);
            sb.append("w").append((i * 7919 + round) % 997);
            counts.merge(sb.toString(), 1, Integer::sum);
        }
        long s = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            s += e.getKey().hashCode() * (long) e.getValue();
        }
        return s;
    }

    static long sorting(int round) {
        List<Integer> xs = new ArrayList<>();
        long seed = round * 6364136223846793005L + 1442695040888963407L;
        for (int i = 0; i < 50_000; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            xs.add((int) (seed >>> 33));
        }
        Collections.sort(xs);
        return xs.get(xs.size() / 2);
    }

    static double numeric(int round) {
        double acc = 0;
        for (int i = 1; i < 2_000_000; i++) {
            acc += Math.sqrt(i + round) / i;
        }
        return acc;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        long check = 0;
        for (int r = 0; r < rounds; r++) {
            check += words(r) + sorting(r) + (long) numeric(r);
        }
        System.out.println("steady done " + (check != 0));
    }
}
