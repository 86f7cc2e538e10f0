/* test_jfr.c - recorder/report/jfr*.c: JFR's compressed integers and strings byte for byte
 * (values worked out from the format: 7 bits a byte, the ninth byte whole), event sizes that
 * count themselves across a byte boundary, Java names split into class, method and
 * descriptor, and a written chunk read back by a decoder here: its header, one event per
 * sample in time order, constant pools holding each stack, method, class and thread once. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/jfr_int.h"
#include "tests/unit/report/rptest.h"

static void expect_bytes(const struct rp_jfr_buf *b, const uint8_t *want, size_t n)
{
	cr_assert_eq(b->err, 0);
	cr_assert_eq(b->n, n, "%zu bytes, expected %zu", b->n, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(b->p[i], want[i], "byte %zu: %02x, expected %02x", i, b->p[i], want[i]);
}

Test(jfr, varints)
{
	static const struct { uint64_t v; uint8_t bytes[9]; size_t n; } cases[] = {
		{ 0, { 0 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 16383, { 0xff, 0x7f }, 2 },
		{ 16384, { 0x80, 0x80, 0x01 }, 3 },
		{ (1ull << 56) - 1, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 8 },
		{ 1ull << 56, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 9 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 9 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rp_jfr_buf b = { 0 };
		rp_jfr_varint(&b, cases[i].v);
		expect_bytes(&b, cases[i].bytes, cases[i].n);
		cr_assert_eq(rp_jfr_varint_len(cases[i].v), cases[i].n);
		rp_jfr_buf_free(&b);
	}
	/* an int is its 32 bits: -1 in five bytes, as the reader casts the long back */
	struct rp_jfr_buf b = { 0 };
	rp_jfr_int(&b, -1);
	expect_bytes(&b, (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0x0f }, 5);
	rp_jfr_buf_free(&b);
}

Test(jfr, strings_and_raw_fields)
{
	struct rp_jfr_buf b = { 0 };
	rp_jfr_str(&b, NULL);
	rp_jfr_str(&b, "");
	rp_jfr_str(&b, "abc");
	rp_jfr_be16(&b, 0x0201);
	rp_jfr_be64(&b, 0x0102030405060708ull);
	expect_bytes(&b, (const uint8_t[]){ 0, 1, 3, 3, 'a', 'b', 'c', 2, 1,
					    1, 2, 3, 4, 5, 6, 7, 8 }, 17);
	rp_jfr_buf_free(&b);
}

/* The size field counts itself: 126 payload bytes make 127 (one byte of size), 127 make 129
 * (128 needs two). */
Test(jfr, event_size_counts_itself)
{
	for (size_t payload = 120; payload < 140; payload++) {
		struct rp_jfr_buf ev = { 0 }, out = { 0 };
		for (size_t i = 0; i < payload; i++)
			rp_jfr_u8(&ev, 0x55);
		rp_jfr_event(&out, &ev);
		size_t want = payload < 127 ? payload + 1 : payload + 2;
		cr_assert_eq(out.n, want, "payload %zu: %zu bytes", payload, out.n);
		uint64_t size = out.p[0] & 0x7f;
		if (out.p[0] & 0x80)
			size |= (uint64_t)out.p[1] << 7;
		cr_assert_eq(size, out.n, "payload %zu: size says %lu", payload, (unsigned long)size);
		rp_jfr_buf_free(&ev);
		rp_jfr_buf_free(&out);
	}
}

Test(jfr, java_names)
{
	struct rp_jfr_method m = { 0 };
	cr_assert(rp_jfr_split_java("Ljava/util/HashMap;get(Ljava/lang/Object;)Ljava/lang/Object;",
				    &m));
	cr_assert_str_eq(m.cls.s, "java/util/HashMap");
	cr_assert_str_eq(m.name.s, "get");
	cr_assert_str_eq(m.desc.s, "(Ljava/lang/Object;)Ljava/lang/Object;");
	cr_assert(rp_jfr_split_java("a.b.Gen$Shape.runPhase(a.b.Gen$Shape[], long, int[][])", &m));
	cr_assert_str_eq(m.cls.s, "a/b/Gen$Shape");
	cr_assert_str_eq(m.name.s, "runPhase");
	cr_assert_str_eq(m.desc.s, "([La/b/Gen$Shape;J[[I)V");
	cr_assert(rp_jfr_split_java("Main.<init>()", &m));
	cr_assert_str_eq(m.cls.s, "Main");
	cr_assert_str_eq(m.name.s, "<init>");
	cr_assert_str_eq(m.desc.s, "()V");
	static const char *const native[] = {
		"Threads::create_vm()", "std::vector<int>::size() const", "memcpy",
		"finish_task_switch.isra.0", "JS:*main /tmp/x.js:3", "a.b(int, )", "(x).y()", "",
		"Lfoo;bar", "x.y(a b)",
	};
	for (size_t i = 0; i < sizeof(native) / sizeof(native[0]); i++)
		cr_assert_not(rp_jfr_split_java(native[i], &m), "'%s' taken for Java", native[i]);
	rp_jfr_method_free(&m);
}

/* Class, method and parameter names past any fixed buffer (Kotlin and Scala make such) come
 * out whole: two methods that differ only at their ends stay two. */
Test(jfr, long_java_names_whole)
{
	enum { N = 5000 };
	static char cls[N + 1], meth[N + 1], sym[4 * N], want[2 * N];
	memset(cls, 'c', N);
	memset(meth, 'm', N);
	memcpy(cls + 2000, ".sub.", 5);
	snprintf(sym, sizeof(sym), "%s.%s(%s[], int)", cls, meth, cls);
	struct rp_jfr_method m = { 0 };
	cr_assert(rp_jfr_split_java(sym, &m));
	cr_assert_eq(m.cls.len, N);
	cr_assert(!strncmp(m.cls.s + 2000, "/sub/", 5));
	cr_assert_eq(m.name.len, N);
	cr_assert(!strcmp(m.name.s, meth));
	snprintf(want, sizeof(want), "([L%s;I)V", m.cls.s);
	cr_assert_str_eq(m.desc.s, want);
	snprintf(sym, sizeof(sym), "L%s;%s(J)V", cls, meth);
	cr_assert(rp_jfr_split_java(sym, &m));
	cr_assert_eq(m.cls.len, N, "the buffers are reused, not appended to");
	cr_assert_str_eq(m.desc.s, "(J)V");
	rp_jfr_method_free(&m);
}

/* ---- a decoder for what the writer writes (the format, read as the JDK reads it) ---- */

struct rd { const uint8_t *p; size_t n, off; };

static uint64_t vl(struct rd *r)
{
	uint64_t v = 0;
	for (int i = 0; i < 9; i++) {
		cr_assert_lt(r->off, r->n, "read past the end");
		uint8_t b = r->p[r->off++];
		if (i == 8)
			return v | (uint64_t)b << 56;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	return v;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A string: its bytes copied into buf. */
static const char *str(struct rd *r, char *buf, size_t len)
{
	uint8_t enc = r->p[r->off++];
	if (enc == 0 || enc == 1)
		return enc ? "" : NULL;
	cr_assert_eq(enc, 3, "encoding %u", enc);
	size_t l = vl(r);
	cr_assert_lt(l, len);
	memcpy(buf, r->p + r->off, l);
	buf[l] = '\0';
	r->off += l;
	return buf;
}

struct pools {
	size_t stacks, methods, classes, threads, symbols, packages, frame_types;
	char sym[64][128];		/* by key */
	uint64_t meth_name[64];		/* method key -> its name's symbol key */
	uint64_t first_stack_frames[8];	/* stack 1's frames' method keys */
	size_t first_stack_n;
	int32_t first_stack_lines[8];
	uint64_t first_stack_types[8];
};

static void read_pools(struct rd *r, struct pools *pl)
{
	char buf[256];
	cr_assert_eq(vl(r), 1, "checkpoint type");
	vl(r), vl(r), vl(r);
	r->off++;	/* flush flag */
	for (uint64_t np = vl(r); np; np--) {
		uint64_t type = vl(r), count = vl(r);
		cr_assert_gt(count, 0, "an empty pool is refused");
		for (uint64_t i = 0; i < count; i++) {
			uint64_t key = vl(r);
			switch (type) {
			case RP_JFR_T_FRAME_TYPE:
				str(r, buf, sizeof(buf));
				pl->frame_types++;
				break;
			case RP_JFR_T_THREAD_STATE:
				cr_assert_str_eq(str(r, buf, sizeof(buf)), "STATE_RUNNABLE");
				break;
			case RP_JFR_T_THREAD:
				str(r, buf, sizeof(buf)), vl(r), str(r, buf, sizeof(buf)), vl(r);
				pl->threads++;
				break;
			case RP_JFR_T_STACK_TRACE: {
				r->off++;
				uint64_t n = vl(r);
				for (uint64_t k = 0; k < n; k++) {
					uint64_t m = vl(r);
					int32_t line = (int32_t)vl(r);
					vl(r);
					uint64_t t = vl(r);
					if (key == 1 && k < 8) {
						pl->first_stack_frames[k] = m;
						pl->first_stack_lines[k] = line;
						pl->first_stack_types[k] = t;
						pl->first_stack_n = k + 1;
					}
				}
				pl->stacks++;
				break;
			}
			case RP_JFR_T_METHOD:
				vl(r);
				cr_assert_lt(key, 64);
				pl->meth_name[key] = vl(r);
				vl(r), vl(r);
				r->off++;
				pl->methods++;
				break;
			case RP_JFR_T_CLASS:
				vl(r), vl(r), vl(r), vl(r);
				pl->classes++;
				break;
			case RP_JFR_T_PACKAGE:
				vl(r);
				pl->packages++;
				break;
			case RP_JFR_T_SYMBOL:
				cr_assert_lt(key, 64);
				snprintf(pl->sym[key], sizeof(pl->sym[key]), "%s",
					 str(r, buf, sizeof(buf)));
				pl->symbols++;
				break;
			default:
				cr_assert_fail("pool of type %lu", (unsigned long)type);
			}
		}
	}
}

/* The chunk written for s, its length in *len. */
static uint8_t *write_mem(struct rp_session *s, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	cr_assert_not_null(fp);
	cr_assert_eq(rp_write_jfr(fp, s), 0);
	fclose(fp);
	return (uint8_t *)buf;
}

/* Three threads (one renamed), three distinct stacks over five samples; a JIT frame with a
 * method inlined into it at a call line, a native caller, a kernel leaf. */
static struct rp_session *java_session(void)
{
	struct rp_session *s = rt_session();
	uint32_t g = rt_load(s, 7, "p.Main.loop(int)", 1, 0, 0, 0x1000, 0x100);
	struct rp_frame inl = { .dso = rp_intern(s, "jitted-7-1.so"),
				.sym = rp_intern(s, "p.Main.add(int, int)"), .line = 12,
				.flags = RP_FRAME_INLINED, .ip = 0x1010 };
	struct rp_frame jit = { .dso = inl.dso, .sym = rp_intern(s, "p.Main.loop(int)"), .line = 12,
				.call_line = 30, .load = g, .ip = 0x1010 };
	struct rp_frame nat = { .dso = rp_intern(s, "libjvm.so"), .sym = rp_intern(s, "call_stub"),
				.ip = 0x500 };
	struct rp_frame k = { .dso = rp_intern(s, "[kernel.kallsyms]"),
			      .sym = rp_intern(s, "clear_page"), .flags = RP_FRAME_KERNEL,
			      .ip = 0xffffffff81000000ull };
	const struct rp_frame a[] = { inl, jit, nat }, b[] = { k, nat }, c[] = { jit, nat };
	/* thread 8 renamed: two threads of one id, each sample under its name then */
	struct { uint64_t t; uint32_t tid; const char *comm; const struct rp_frame *f;
		 uint32_t n; } smp[] = {
		{ 500, 7, "main", a, 3 }, { 100, 7, "main", a, 3 }, { 300, 8, "worker", b, 2 },
		{ 200, 8, "java", c, 2 }, { 400, 7, "main", a, 3 },
	};
	for (size_t i = 0; i < sizeof(smp) / sizeof(smp[0]); i++) {
		struct rp_sample x = { .time = smp[i].t, .period = 1, .pid = 7, .tid = smp[i].tid,
				       .comm = rp_intern(s, smp[i].comm) };
		cr_assert_eq(rp_add_sample(s, &x, smp[i].f, smp[i].n), 0);
	}
	rp_set_span(s, 50, 600);
	rp_session_finish(s);
	return s;
}

Test(jfr, chunk_read_back)
{
	struct rp_session *s = java_session();
	size_t len;
	uint8_t *p = write_mem(s, &len);
	cr_assert_geq(len, 68);
	cr_assert_eq(memcmp(p, "FLR\0\0\2\0\0", 8), 0, "magic and version 2.0");
	cr_assert_eq(be64(p + 8), len, "chunk size");
	uint64_t cp = be64(p + 16), meta = be64(p + 24);
	cr_assert_eq(be64(p + 40), 550, "duration: the span");
	cr_assert_eq(be64(p + 48), 50, "start ticks: the span's start");
	cr_assert_eq(be64(p + 56), 1000000000, "ticks per second");
	cr_assert_eq(p[64], 0, "finished");
	cr_assert(cp < meta && meta < len);

	/* events: one per sample, in time order, each its size long */
	struct rd r = { p, len, 68 };
	uint64_t last = 0, n = 0;
	while (r.off < cp) {
		size_t start = r.off;
		uint64_t size = vl(&r);
		cr_assert_eq(vl(&r), RP_JFR_T_EXECUTION_SAMPLE);
		uint64_t t = vl(&r);
		cr_assert_geq(t, last, "time order");
		last = t;
		cr_assert_neq(vl(&r), 0, "thread");
		cr_assert_neq(vl(&r), 0, "stack");
		cr_assert_eq(vl(&r), 1, "state");
		cr_assert_eq(r.off, start + size, "event size");
		n++;
	}
	cr_assert_eq(n, 5);
	cr_assert_eq(last, 500);

	struct pools pl;
	memset(&pl, 0, sizeof(pl));
	r.off = cp;
	uint64_t cp_size = vl(&r);
	read_pools(&r, &pl);
	cr_assert_eq(r.off, cp + cp_size, "checkpoint size");
	cr_assert_eq(pl.stacks, 3, "stacks once each");
	cr_assert_eq(pl.threads, 3, "main, worker, and worker's earlier name");
	cr_assert_eq(pl.methods, 4, "add, loop, call_stub, clear_page");
	cr_assert_eq(pl.classes, 3, "p/Main, libjvm.so, [kernel.kallsyms]");
	cr_assert_eq(pl.packages, 1, "p");
	cr_assert_eq(pl.frame_types, 4);
	/* the first stack written is the first sample's in time: add (inlined, its own line)
	 * in loop (JIT, the call's line) in call_stub (native, no line) */
	cr_assert_eq(pl.first_stack_n, 3);
	cr_assert_str_eq(pl.sym[pl.meth_name[pl.first_stack_frames[0]]], "add");
	cr_assert_str_eq(pl.sym[pl.meth_name[pl.first_stack_frames[1]]], "loop");
	cr_assert_str_eq(pl.sym[pl.meth_name[pl.first_stack_frames[2]]], "call_stub");
	cr_assert_eq(pl.first_stack_lines[0], 12);
	cr_assert_eq(pl.first_stack_lines[1], 30);
	cr_assert_eq(pl.first_stack_lines[2], -1);
	cr_assert_eq(pl.first_stack_types[0], RP_JFR_FT_INLINED);
	cr_assert_eq(pl.first_stack_types[1], RP_JFR_FT_JIT);
	cr_assert_eq(pl.first_stack_types[2], RP_JFR_FT_NATIVE);
	for (size_t i = 1; i <= pl.symbols; i++)
		for (size_t k = i + 1; k <= pl.symbols; k++)
			cr_assert_str_neq(pl.sym[i], pl.sym[k], "symbol '%s' twice", pl.sym[i]);

	r.off = meta;
	vl(&r);
	cr_assert_eq(vl(&r), 0, "the metadata event");
	free(p);
	rp_session_free(s);
}

/* No samples: still a chunk the JDK reads (pools of frame types and states, metadata). */
Test(jfr, empty_session)
{
	struct rp_session *s = rt_session();
	rp_session_finish(s);
	size_t len;
	uint8_t *p = write_mem(s, &len);
	cr_assert_eq(be64(p + 8), len);
	cr_assert_eq(be64(p + 16), 68, "no events: the checkpoint first");
	struct pools pl;
	memset(&pl, 0, sizeof(pl));
	struct rd r = { p, len, 68 };
	vl(&r);
	read_pools(&r, &pl);
	cr_assert_eq(pl.stacks + pl.threads + pl.methods, 0);
	cr_assert_eq(pl.frame_types, 4);
	free(p);
	rp_session_free(s);
}
