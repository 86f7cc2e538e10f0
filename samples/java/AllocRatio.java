// AllocRatio: ground truth for allocation profiling (report --event alloc,
// tests/e2e/report_alloclock.c). bigArrays() allocates long[] and smallObjects() allocates
// Payload objects, about three bytes of the first for one of the second; each measures the
// bytes its thread allocated in it (ThreadMXBean.getThreadAllocatedBytes) and the program
// prints the totals: "arrays A payloads P".
package jitprof.samples;

import java.lang.management.ManagementFactory;

public class AllocRatio {
	static final class Payload {
		long a, b;
		int c;
	}

	static Object[] keep = new Object[1024];
	static int slot;

	static void bigArrays(int n) {
		for (int i = 0; i < n; i++)
			keep[slot++ & 1023] = new long[62];
	}

	static void smallObjects(int n) {
		for (int i = 0; i < n; i++)
			keep[slot++ & 1023] = new Payload();
	}

	public static void main(String[] args) {
		long total = (args.length > 0 ? Long.parseLong(args[0]) : 400) << 20;
		com.sun.management.ThreadMXBean mx =
			(com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long id = Thread.currentThread().getId();
		long arrays = 0, payloads = 0;
		while (arrays + payloads < total) {
			long t0 = mx.getThreadAllocatedBytes(id);
			bigArrays(3000);	/* 3000 x 512 bytes */
			long t1 = mx.getThreadAllocatedBytes(id);
			smallObjects(16000);	/* 16000 x 32 bytes: a third of it */
			long t2 = mx.getThreadAllocatedBytes(id);
			arrays += t1 - t0;
			payloads += t2 - t1;
		}
		System.out.println("arrays " + arrays + " payloads " + payloads);
	}
}
