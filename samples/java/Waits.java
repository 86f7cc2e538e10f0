// Waits: ground truth for off-CPU and wall-clock time (jitprof record --off-cpu, report
// --event wall|offcpu; tests/e2e/report_offcpu.c). A worker thread's cycles sleep
// (Thread.sleep 4 ms), wait for a monitor another thread holds (about 3 ms of its 10 ms
// cycle), compute (3 ms), write a byte (in no phase) and read a byte from an OS pipe
// (java.nio Pipe) that a third thread answers 2 ms after the worker's request; the worker
// measures each phase (the pipe's: its read) and prints the totals in ns:
// "sleep S lock L compute C pipe P".
package jitprof.samples;

import java.nio.ByteBuffer;
import java.nio.channels.Pipe;

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

	// Blocks in read(2) on the pipe until the answerer's byte comes.
	static void reader(Pipe.SourceChannel in, ByteBuffer b) throws java.io.IOException {
		b.clear();
		while (b.hasRemaining() && in.read(b) >= 0)
			;
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
		Pipe ask = Pipe.open(), answer = Pipe.open();
		Thread a = new Thread(() -> {
			ByteBuffer b = ByteBuffer.allocate(1);
			try {
				for (int i = 0; i < cycles; i++) {
					reader(ask.source(), b);
					Thread.sleep(2);
					b.flip();
					answer.sink().write(b);
				}
			} catch (Exception e) {
				throw new RuntimeException(e);
			}
		}, "answerer");
		a.setDaemon(true);
		a.start();
		Thread w = new Thread(() -> {
			long s = 0, l = 0, c = 0, p = 0;
			ByteBuffer b = ByteBuffer.allocate(1);
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
				// compute is the spin alone: the write below wakes the answerer,
				// and on a loaded machine the worker may then wait long for a CPU
				// under the write's stack, not spinFor's
				long t3 = System.nanoTime(), t4, tc = t3;
				try {
					b.clear();
					b.put((byte)i).flip();
					ask.sink().write(b);
					t3 = System.nanoTime();	// the read alone
					reader(answer.source(), b);
					t4 = System.nanoTime();
				} catch (java.io.IOException e) {
					throw new RuntimeException(e);
				}
				s += t1 - t0;
				l += t2 - t1;
				c += tc - t2;
				p += t4 - t3;
			}
			System.out.println("sleep " + s + " lock " + l + " compute " + c + " pipe " + p);
		}, "worker");
		w.start();
		w.join();
		h.join();
	}
}
