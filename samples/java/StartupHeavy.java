// StartupHeavy: a start-up-shaped workload with many small methods. It generates classes at
// run time (a minimal class-file writer, no libraries), each with `methods` tiny static methods
// chained by run(), loads them and calls each enough times for HotSpot to compile them: with
// the defaults, 200 classes x 100 methods ~ 20,000 compiled methods, each with a line table.
// HotSpot throttles tier-3 compiles by queue length, so run it with -Xbatch (synchronous
// compiles) to get them all: java -Xbatch -cp build/java jitprof.samples.StartupHeavy.
// Usage: java [-Xbatch] -cp build/java jitprof.samples.StartupHeavy [classes] [methods] [calls]
//        [unload [SEEN]]   (unload: then drop the classes and collect, so their code is
//        unloaded; with SEEN, keep collecting until the file SEEN exists, at most 60 s)
package jitprof.samples;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntUnaryOperator;

public final class StartupHeavy {
    static final String PKG = "jitprof/samples/gen/";
    static final int STEPS = 5;

    /** Constant pool and class-file bytes for one generated class. */
    static final class ClassFile {
        private final ByteArrayOutputStream poolBytes = new ByteArrayOutputStream();
        private final DataOutputStream pool = new DataOutputStream(poolBytes);
        private final Map<String, Integer> entries = new HashMap<>();
        private int count = 1;

        private int entry(String key, int tag, int a, int b, String utf) throws IOException {
            Integer have = entries.get(key);
            if (have != null) {
                return have;
            }
            pool.writeByte(tag);
            if (utf != null) {
                pool.writeUTF(utf);
            } else if (tag == 7) {
                pool.writeShort(a);
            } else {
                pool.writeShort(a);
                pool.writeShort(b);
            }
            entries.put(key, count);
            return count++;
        }

        int utf8(String s) throws IOException {
            return entry("U" + s, 1, 0, 0, s);
        }

        int cls(String name) throws IOException {
            return entry("C" + name, 7, utf8(name), 0, null);
        }

        int method(String owner, String name, String desc) throws IOException {
            int c = cls(owner);
            int nat = entry("N" + name + desc, 12, utf8(name), utf8(desc), null);
            return entry("M" + owner + "." + name + desc, 10, c, nat, null);
        }

        /** One method with a Code attribute; its LineNumberTable has a row every `step` bytes. */
        void writeMethod(DataOutputStream out, int access, String name, String desc, int maxStack,
                int maxLocals, byte[] code, int line, int step) throws IOException {
            int rows = step > 0 ? (code.length - 1) / step : 1;
            out.writeShort(access);
            out.writeShort(utf8(name));
            out.writeShort(utf8(desc));
            out.writeShort(1);
            out.writeShort(utf8("Code"));
            out.writeInt(8 + code.length + 2 + 2 + 8 + 4 * rows);
            out.writeShort(maxStack);
            out.writeShort(maxLocals);
            out.writeInt(code.length);
            out.write(code);
            out.writeShort(0); // exception table
            out.writeShort(1);
            out.writeShort(utf8("LineNumberTable"));
            out.writeInt(2 + 4 * rows);
            out.writeShort(rows);
            for (int r = 0; r < rows; r++) {
                out.writeShort(r * step);
                out.writeShort(line + r);
            }
        }
    }

    static byte[] generate(String name, int methods) throws IOException {
        ClassFile cf = new ClassFile();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(body);
        int line = 1;

        out.writeShort(methods + 3);
        for (int k = 0; k < methods; k++) {
            // static int m<k>(int x) { x = x * (k + 3) + 1; ... five times ...; return x; }
            // 42 bytes of bytecode: above C1's 35-byte inlining limit, so run()'s compiled
            // code keeps calling m<k> and every m<k> gets compiled on its own.
            ByteArrayOutputStream m = new ByteArrayOutputStream();
            for (int r = 0; r < STEPS; r++) {
                m.write(0x1a); // iload_0
                m.write(0x11); // sipush k + 3 + r
                m.write((k + 3 + r) >> 8);
                m.write(k + 3 + r);
                m.write(0x68); // imul
                m.write(0x04); // iconst_1
                m.write(0x60); // iadd
                m.write(0x3b); // istore_0
            }
            m.write(0x1a);
            m.write(0xac); // ireturn
            cf.writeMethod(out, 0x0009, "m" + k, "(I)I", 2, 1, m.toByteArray(), line, 8);
            line += STEPS;
        }
        // static int run(int x) { return m<n-1>(...m1(m0(x))); }
        ByteArrayOutputStream run = new ByteArrayOutputStream();
        run.write(0x1a);
        for (int k = 0; k < methods; k++) {
            int ref = cf.method(name, "m" + k, "(I)I");
            run.write(0xb8);
            run.write(ref >> 8);
            run.write(ref);
        }
        run.write(0xac);
        cf.writeMethod(out, 0x0009, "run", "(I)I", 1, 1, run.toByteArray(), line++, 0);
        int runRef = cf.method(name, "run", "(I)I");
        byte[] apply = {0x1b, (byte) 0xb8, (byte) (runRef >> 8), (byte) runRef, (byte) 0xac};
        cf.writeMethod(out, 0x0001, "applyAsInt", "(I)I", 1, 2, apply, line++, 0);
        int init = cf.method("java/lang/Object", "<init>", "()V");
        byte[] ctor = {0x2a, (byte) 0xb7, (byte) (init >> 8), (byte) init, (byte) 0xb1};
        cf.writeMethod(out, 0x0001, "<init>", "()V", 1, 1, ctor, line, 0);
        out.writeShort(1); // class attributes: SourceFile
        out.writeShort(cf.utf8("SourceFile"));
        out.writeInt(2);
        out.writeShort(cf.utf8("Generated.java"));

        int self = cf.cls(name);
        int sup = cf.cls("java/lang/Object");
        int iface = cf.cls("java/util/function/IntUnaryOperator");
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream f = new DataOutputStream(file);
        f.writeInt(0xCAFEBABE);
        f.writeShort(0);
        f.writeShort(52); // Java 8 format: straight-line code needs no StackMapTable
        f.writeShort(cf.count);
        cf.pool.flush();
        f.write(cf.poolBytes.toByteArray());
        f.writeShort(0x0031); // public final super
        f.writeShort(self);
        f.writeShort(sup);
        f.writeShort(1);
        f.writeShort(iface);
        f.writeShort(0); // fields
        out.flush();
        f.write(body.toByteArray());
        return file.toByteArray();
    }

    static final class Loader extends ClassLoader {
        Loader() {
            super(StartupHeavy.class.getClassLoader());
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }

    public static void main(String[] args) throws Exception {
        int classes = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int methods = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        Loader loader = new Loader();
        IntUnaryOperator[] ops = new IntUnaryOperator[classes];
        for (int c = 0; c < classes; c++) {
            String name = PKG + "G" + c;
            Class<?> k = loader.define(name.replace('/', '.'), generate(name, methods));
            ops[c] = (IntUnaryOperator) k.getDeclaredConstructor().newInstance();
        }
        int x = 1;
        for (int r = 0; r < calls; r++) {
            for (IntUnaryOperator op : ops) {
                x = op.applyAsInt(x);
            }
        }
        System.out.println("startup done " + classes * methods + " methods " + (x != 0));
        if (args.length > 3 && args[3].equals("unload")) {
            ops = null;
            loader = null;
            System.gc(); // class unloading frees the generated classes' compiled code
            System.gc();
            if (args.length > 4) {
                // Whoever watches the dump says when it has seen the unloads (the file
                // appears): collecting until then leaves nothing to the GC's timing.
                java.io.File seen = new java.io.File(args[4]);
                for (int i = 0; i < 1200 && !seen.exists(); i++) {
                    System.gc();
                    Thread.sleep(50);
                }
            } else {
                Thread.sleep(300); // unload events are posted by a JVM thread: let it run
            }
        }
    }
}
