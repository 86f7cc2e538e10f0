// Waits: ground truth for off-CPU and wall-clock time (jitprof record --off-cpu, report
// --event wall|offcpu; tests/e2e/report_offcpu.c). A worker thread's cycles sleep
// (Thread.sleep 4 ms), wait for a monitor another thread holds (about 3 ms of its 10 ms
// cycle), and compute (3 ms); the worker measures each phase and prints the totals in ns:
// "sleep S lock L compute C".
package jitprof.samples;

public class Waits {
	static final Object lock = new Object();
	static volatile long sink;

	static void sleeper(long ms) throws InterruptedException {
		Thread.sleep(ms);
	}

	static void holder(long ms) {
		synchronized (lock) {
			spinFor(ms);
		}
	}

	static void contender() {
		synchronized (lock) {
			sink++;
		}
	}

	static void spinFor(long ms) {
		long end = System.nanoTime() + ms * 1_000_000L;
		while (System.nanoTime() < end)
			for (int i = 0; i < 1000; i++)
				sink += i * i;
	}

	public static void main(String[] args) throws Exception {
		int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 100;
		Thread h = new Thread(() -> {
			for (int i = 0; i < cycles; i++) {
				holder(3);
				try {
					Thread.sleep(7);
				} catch (InterruptedException e) {
					return;
				}
			}
		}, "holder");
		h.start();
		Thread w = new Thread(() -> {
			long s = 0, l = 0, c = 0;
			for (int i = 0; i < cycles; i++) {
				long t0 = System.nanoTime();
				try {
					sleeper(4);
				} catch (InterruptedException e) {
					return;
				}
				long t1 = System.nanoTime();
				contender();
				long t2 = System.nanoTime();
				spinFor(3);
				long t3 = System.nanoTime();
				s += t1 - t0;
				l += t2 - t1;
				c += t3 - t2;
			}
			System.out.println("sleep " + s + " lock " + l + " compute " + c);
		}, "worker");
		w.start();
		w.join();
		h.join();
	}
}
