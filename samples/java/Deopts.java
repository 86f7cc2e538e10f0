// Deopts: three hot methods, each driven into a known deoptimization by a later phase, so the
// generations view can be checked against what HotSpot says ended each generation:
//   branchy()  - C2 prunes the never-taken "x < 0" branch; phase 2 takes it: unstable_if trap.
//   poly()     - C2 guards the two receiver types it saw (Sq, Rect); phase 3 brings a third
//                (Tri): class check (bimorphic) traps until the code is made not entrant.
//   cha()      - Animal has one concrete subclass (Dog) while C2 compiles, so the call is
//                inlined on a class-hierarchy dependency; phase 4 loads Cat: dependency broken.
// Usage: java -cp build/java jitprof.samples.Deopts [phase_ms [jfr]]   (default 1000 ms per phase)
// With "jfr" phase 1 waits (up to 60 s) until a Flight Recording runs (one the agent's jfr=on
// starts on its own thread): the traps of phases 2-4 then come after its start on any machine.
// Prints "pid N" first, then "phase N" as each phase starts (tests take `jcmd Compiler.codelist` meanwhile).
package jitprof.samples;

public final class Deopts {
    abstract static class Shape {
        abstract int area();
    }

    // Stateless receivers: only their classes matter to the call site's type profile.
    static final class Sq extends Shape {
        @Override
        int area() {
            return 9;
        }
    }

    static final class Rect extends Shape {
        @Override
        int area() {
            return 10;
        }
    }

    static final class Tri extends Shape {
        @Override
        int area() {
            return 12;
        }
    }

    abstract static class Animal {
        abstract int sound();
    }

    static final class Dog extends Animal {
        @Override
        int sound() {
            return 3;
        }
    }

    // Loaded only by name in phase 4: until then Dog is Animal's only subclass.
    static final class Cat extends Animal {
        @Override
        int sound() {
            return 5;
        }
    }

    static int branchy(int x) {
        if (x < 0) { // MARK unstable_if: the trap re-executes this if (tests/e2e/report_deopts)
            return negative(x);
        }
        return x * 3 + 1;
    }

    static int negative(int x) {
        return -x * 7;
    }

    static int poly(Shape s) {
        return s.area() * 2 + 1; // MARK call area: poly's call site of area()
    }

    static int cha(Animal a) {
        return a.sound() + 1;
    }

    static volatile long sink;

    // One phase: each hot method called in turn until phaseMs passed.
    static void phase(int n, long phaseMs, int sign, Shape[] shapes, Animal[] animals) {
        System.out.println("phase " + n);
        System.out.flush();
        long end = System.nanoTime() + phaseMs * 1_000_000L;
        long acc = 0;
        int i = 0;
        while (System.nanoTime() < end) {
            for (int k = 0; k < 1000; k++, i++) {
                acc += branchy(sign * (i & 1023));
                acc += poly(shapes[i % shapes.length]);
                acc += cha(animals[i % animals.length]);
            }
        }
        sink += acc;
    }

    // Polls isInitialized() first: asking for the recorder would start JFR here, racing the
    // agent's start of it.
    static boolean waitForRecording(long ms) throws InterruptedException {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            if (jdk.jfr.FlightRecorder.isInitialized())
                for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings())
                    if (r.getState() == jdk.jfr.RecordingState.RUNNING)
                        return true;
            Thread.sleep(20);
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        long phaseMs = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        System.out.println("pid " + ProcessHandle.current().pid());
        if (args.length > 1 && args[1].equals("jfr"))
            System.out.println("jfr " + (waitForRecording(60_000) ? "running" : "not running"));
        Shape[] two = { new Sq(), new Rect() };
        Shape[] three = { new Sq(), new Rect(), new Tri() };
        Animal[] dogs = { new Dog() };
        phase(1, phaseMs, 1, two, dogs);       // everything reaches C2
        phase(2, phaseMs, -1, two, dogs);      // unstable_if in branchy
        phase(3, phaseMs, -1, three, dogs);    // third receiver type in poly
        Animal cat = (Animal) Class.forName("jitprof.samples.Deopts$Cat")
                .getDeclaredConstructor().newInstance();
        phase(4, phaseMs, -1, three, new Animal[] { new Dog(), cat });  // CHA broken in cha
        System.out.println("deopts done " + (sink != 0));
    }
}
