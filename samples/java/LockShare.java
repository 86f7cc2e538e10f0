// LockShare: ground truth for lock contention (report --event lock,
// tests/e2e/report_alloclock.c). A holder thread keeps a Gate monitor for 4 ms of each
// 5 ms; a waiter thread enters it in waitGate() again and again and measures how long each
// enter took (nanoTime before synchronized and first thing inside). Prints "blocked NS
// enters N". An unrelated monitor (Quiet) is taken without contention throughout.
package jitprof.samples;

public class LockShare {
	static final class Gate {
	}

	static final class Quiet {
	}

	static final Gate gate = new Gate();
	static final Quiet quiet = new Quiet();
	static volatile long sink;

	static void spinFor(long ns) {
		long end = System.nanoTime() + ns;
		while (System.nanoTime() < end)
			for (int i = 0; i < 100; i++)
				sink += i;
	}

	static void holdGate() {
		synchronized (gate) {
			spinFor(4_000_000L);
		}
	}

	static long waitGate() {
		long t0 = System.nanoTime();
		synchronized (gate) {
			long t1 = System.nanoTime();
			sink++;
			return t1 - t0;
		}
	}

	public static void main(String[] args) throws Exception {
		int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 300;
		Thread h = new Thread(() -> {
			for (int i = 0; i < cycles; i++) {
				holdGate();
				spinFor(1_000_000L);
			}
		}, "holder");
		h.start();
		long blocked = 0, enters = 0;
		while (h.isAlive()) {
			blocked += waitGate();
			enters++;
			synchronized (quiet) {
				spinFor(500_000L);
			}
		}
		h.join();
		System.out.println("blocked " + blocked + " enters " + enters);
	}
}
