/* javac.h - a test's Java program compiled once: the class files of a source kept under the
 * build tree, keyed by the source, the flags and the javac, so the test cases and binaries
 * that run the same program share one javac (a JVM start-up of 1-3 s each) instead of one
 * per case. */
#ifndef JITPROF_TEST_JAVAC_H
#define JITPROF_TEST_JAVAC_H

/* cls.java (the text src) and its class files in dir, compiled with `javac flags` by the
 * first JDK installed of 17 and 25 (flags should hold --release 17 so both JDKs run it).
 * 0; -1 when no javac is installed (nothing written); a failing javac fails the test. */
int tu_javac(const char *dir, const char *cls, const char *src, const char *flags);

#endif
