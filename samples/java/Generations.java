// Generations: one hot method, total(), that goes through every kind of code load HotSpot has:
// interpreted, C1 (tier 3), C2 (tier 4), then a deoptimization when Circle's loading changes
// the class hierarchy its C2 code relied on (CHA inlined Square.area()), then a recompile.
// Usage: java -cp build/java jitprof.samples.Generations [phase_ms]   (default 1500 ms/phase)
// With HotSpot's default thresholds C1's turn lasts only tens of milliseconds (tier 4 comes after
// a few thousand calls). For a C1 phase as long as the others (measured on JDK 17: C1 0.2-2.0 s,
// C2 2.0-3.2 s, deoptimized at 3.2 s, recompiled C2 until 6 s) raise the tier-4 thresholds:
//   java -XX:Tier4InvocationThreshold=2000000 -XX:Tier4MinInvocationThreshold=400000 \
//        -XX:Tier4CompileThreshold=8000000 -XX:Tier4BackEdgeThreshold=80000000 \
//        -cp build/java jitprof.samples.Generations
package jitprof.samples;

public final class Generations {
    abstract static class Shape {
        abstract double area();
    }

    static final class Square extends Shape {
        private final double side;

        Square(double side) {
            this.side = side;
        }

        @Override
        double area() {
            return side * side;
        }
    }

    // Not touched before phase 2: until then Square is Shape's only subclass, so the JIT may
    // inline Square.area() at a megamorphic-looking call site with no type check at all.
    static final class Circle extends Shape {
        private final double radius;

        Circle(double radius) {
            this.radius = radius;
        }

        @Override
        double area() {
            return 3.141592653589793 * radius * radius;
        }
    }

    static double total(Shape[] shapes) {
        double sum = 0;
        for (int i = 0; i < shapes.length; i++) {
            sum += shapes[i].area();
        }
        return sum;
    }

    // A leaf with known lines (tests check the agent's line table against them).
    // mix-begin
    static long mix(long h, int v) {
        long x = h ^ v;
        x *= 0x9E3779B97F4A7C15L;
        x ^= x >>> 29;
        x *= 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 32);
    }
    // mix-end

    static double runPhase(Shape[] shapes, long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        double acc = 0;
        long h = 17;
        int calls = 0;
        while (System.nanoTime() < end) {
            for (int k = 0; k < 64; k++) {
                acc += total(shapes);
                h = mix(h, calls++);
            }
        }
        return acc + (h & 1);
    }

    public static void main(String[] args) throws Exception {
        long phaseMs = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        Shape[] squares = new Shape[256];
        for (int i = 0; i < squares.length; i++) {
            squares[i] = new Square(i % 7 + 1);
        }
        // Phases 1-2: interpreted, then C1, then C2 (the JIT decides when within the phase).
        double r = runPhase(squares, phaseMs);
        r += runPhase(squares, phaseMs);
        // Phase 3: a second subclass appears -> total()'s compiled code is deoptimized.
        Shape[] mixed = new Shape[256];
        Class<?> circle = Class.forName("jitprof.samples.Generations$Circle");
        for (int i = 0; i < mixed.length; i++) {
            mixed[i] = (i & 1) == 0 ? squares[i] : (Shape) circle.getDeclaredConstructor(double.class)
                    .newInstance((double) (i % 5 + 1));
        }
        // Phase 4: recompiled for the bimorphic call site.
        r += runPhase(mixed, phaseMs);
        r += runPhase(mixed, phaseMs);
        System.out.println("generations done " + (r > 0));
    }
}
