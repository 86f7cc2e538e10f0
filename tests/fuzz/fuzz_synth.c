/* fuzz_synth.c - libFuzzer target: synth's input validation, as a property. The input bytes are
 * decoded into a struct synth_input (names, code, line table, inline tables and unwind blob of
 * any shape, valid or not); then synth_validate and synth_build must agree: what validate
 * accepts builds into an ELF libelf can walk, whose build-id equals synth_build_id's; what it
 * refuses, build refuses too. An input that starts like a jitdump is read as one instead, and
 * each of its loads checked the same way.
 * fuzz-srcs: synth/ jitdump/ safeio/ lib/nomem.c lib/grow.c lib/hindex.c lib/hash_seed.c lib/sha1.c lib/dynload.c
 * fuzz-libs: -lelf -lpthread */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"

#define PROMISE(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "synth broke a promise: %s (%s)\n", what, err); abort(); } } while (0)

static void walk_elf(const struct synth_elf *e, const char *err);

struct bytes {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct bytes *b, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n && b->left; i++, b->left--)
		v |= (uint64_t)*b->p++ << (8 * i);
	return v;
}

/* A slice of the input itself: the bytes stay valid for the whole run. */
static const uint8_t *slice(struct bytes *b, size_t *n)
{
	if (*n > b->left)
		*n = b->left;
	const uint8_t *s = b->p;
	b->p += *n;
	b->left -= *n;
	return s;
}

static const char *const files[] = { "", "/src/a.java", "\xff", "b.c", "dir/../x.js" };

static const char *pick_file(struct bytes *b)
{
	return files[take(b, 1) % (sizeof(files) / sizeof(files[0]))];
}

/* A string from the input: length byte, then that many bytes, made NUL-terminated. */
static char *take_str(struct bytes *b, char *buf, size_t cap)
{
	size_t n = take(b, 1);
	if (n == 255)
		n = cap - 1;		/* now and then a long one */
	if (n > cap - 1)
		n = cap - 1;
	const uint8_t *s = slice(b, &n);
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static struct jd_line lines[64];
static struct jd_inline_method methods[4];
static struct jd_inline_frame frames[16][4];
static struct jd_inline_pc pcs[16];
static struct jd_ext_inline inl;
static char name[SYNTH_NAME_MAX + 64], mnames[4][32];

/* Mostly a small step up from the previous address (tables are sorted), now and then a jump
 * anywhere, near the code or not. */
static uint64_t next_addr(struct bytes *b, uint64_t base, uint64_t prev)
{
	uint8_t step = (uint8_t)take(b, 1);
	if (step < 250)
		return prev + step % 16;
	return step & 1 ? base + take(b, 2) : take(b, 8);
}

static void decode(struct bytes *b, struct synth_input *in)
{
	static const uint16_t machines[] = { 0, EM_X86_64, EM_AARCH64, EM_RISCV, EM_386, 0xffff };
	memset(in, 0, sizeof(*in));
	in->e_machine = machines[take(b, 1) % 6];
	in->pid = (uint32_t)take(b, 4);
	in->code_index = take(b, 8);
	in->generation = (uint32_t)take(b, 1);
	in->tier = (uint32_t)take(b, 1) % 8;
	in->timestamp = take(b, 8);
	in->code_addr = take(b, 1) & 1 ? take(b, 8) : 0x7f0000001000ull;
	uint8_t name_len = (uint8_t)take(b, 1);
	if (name_len == 255) {		/* around SYNTH_NAME_MAX */
		size_t n = SYNTH_NAME_MAX - 2 + take(b, 1) % 5;
		memset(name, 'N', n);
		name[n] = 0;
	} else {
		size_t n = name_len;
		const uint8_t *s = slice(b, &n);
		memcpy(name, s, n);
		name[n] = 0;
	}
	in->name = name;
	size_t code_size = take(b, 2) % 4096;
	in->code = slice(b, &code_size);
	in->code_size = code_size;

	in->nr_lines = take(b, 1) % 65;
	uint64_t at = in->code_addr;
	for (size_t i = 0; i < in->nr_lines; i++) {
		at = next_addr(b, in->code_addr, at);
		lines[i] = (struct jd_line){ at, (int32_t)take(b, 2) - 8, (int32_t)take(b, 1) % 3,
					     pick_file(b) };
	}
	in->lines = in->nr_lines ? lines : NULL;

	if (take(b, 1) & 1) {
		inl = (struct jd_ext_inline){ .nr_methods = (uint32_t)take(b, 1) % 5,
					      .nr_pcs = (uint32_t)take(b, 1) % 17 };
		for (uint32_t m = 0; m < inl.nr_methods; m++)
			methods[m] = (struct jd_inline_method){
				take_str(b, mnames[m], sizeof(mnames[m])), pick_file(b) };
		at = in->code_addr;
		for (uint32_t i = 0; i < inl.nr_pcs; i++) {
			at = next_addr(b, in->code_addr, at) + (i > 0);
			pcs[i] = (struct jd_inline_pc){ at,
							(uint32_t)take(b, 1) % 5, frames[i] };
			for (uint32_t d = 0; d < pcs[i].depth; d++)
				frames[i][d] = (struct jd_inline_frame){ (uint32_t)take(b, 1) % 6,
									 (int32_t)take(b, 2), -1 };
		}
		inl.methods = methods;
		inl.pcs = pcs;
		in->inl = &inl;
	}
	if (take(b, 1) & 1) {
		size_t n = take(b, 2) % 2048;
		in->unwind = slice(b, &n);
		in->unwind_size = take(b, 1) & 1 ? n : take(b, 2);
		in->eh_frame_hdr_size = take(b, 1) % 64;
		in->mapped_size = take(b, 1) & 1 ? in->unwind_size : take(b, 2) % 3 * 8;
		if (in->unwind_size > n)	/* never lie about memory we hand over */
			in->unwind_size = n;
	}
	in->comp_dir = take(b, 1) & 1 ? "/work" : NULL;
}

static void walk_elf(const struct synth_elf *e, const char *err)
{
	Elf *elf = elf_memory((char *)e->data, e->size);
	PROMISE(elf && elf_kind(elf) == ELF_K_ELF, "output is not an ELF");
	size_t n = 0;
	PROMISE(elf_getshdrnum(elf, &n) == 0 && n > 1, "no section headers");
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		PROMISE(gelf_getshdr(s, &sh), "unreadable section header");
		if (sh.sh_type != SHT_NOBITS)
			PROMISE(sh.sh_offset <= e->size && sh.sh_size <= e->size - sh.sh_offset,
				"section outside the file");
	}
	elf_end(elf);
}

/* The property: validate and build agree; a built ELF is walkable and carries the id. */
static void check(const struct synth_input *in)
{
	char err[512] = "";
	int valid = synth_validate(in, JP_ERRBUF_LOG(err)) == 0;
	struct synth_elf e = { 0 };
	int built = synth_build(in, &e, JP_ERRBUF_LOG(err));
	if (!valid) {
		PROMISE(built < 0, "synth_build accepted what synth_validate refused");
		PROMISE(err[0], "refused without a message");
		return;
	}
	PROMISE(built == 0, "synth_build refused what synth_validate accepted");
	walk_elf(&e, err);
	uint8_t id[SYNTH_BUILD_ID_SIZE];
	PROMISE(synth_build_id(in, id, JP_ERRBUF_LOG(err)) == 0, "no build-id for a valid input");
	PROMISE(memcmp(id, e.build_id, sizeof(id)) == 0, "build-id differs from the ELF's");
	synth_elf_free(&e);
}

/* A jitdump as input: every load with the DEBUG_INFO / UNWINDING_INFO before it, the way the
 * index pairs them, through synth_input_from_load (real unwind tables come from node's). */
static void from_dump(const uint8_t *data, size_t size)
{
	struct jd_reader *r;
	if (jd_reader_open_mem(&r, data, size, "fuzz.dump", NULL, 0) < 0)
		return;
	struct jd_record rec;
	struct jd_load_entry e = { .generation = 1 };
	struct jd_unwinding_info unwind;
	int have_unwind = 0;
	while (jd_reader_next(r, &rec) == 1) {
		if (rec.id == JD_CODE_DEBUG_INFO) {
			/* entries live until the next jd_reader_next: keep a copy */
			size_t n = rec.u.debug.nr_entry < 64 ? rec.u.debug.nr_entry : 64;
			if (n)
				memcpy(lines, rec.u.debug.entries, n * sizeof(*lines));
			e.lines = lines;
			e.nr_lines = n;
		} else if (rec.id == JD_CODE_UNWINDING_INFO) {
			unwind = rec.u.unwind;
			have_unwind = 1;
		} else if (rec.id == JD_CODE_LOAD) {
			struct synth_input in;
			e.load = rec.u.load;
			e.timestamp = rec.timestamp;
			e.unwind = have_unwind ? &unwind : NULL;
			synth_input_from_load(&in, jd_reader_header(r), &e);
			check(&in);
			e.lines = NULL;
			e.nr_lines = 0;
			have_unwind = 0;
		}
	}
	jd_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	if (!once++)
		elf_version(EV_CURRENT);
	uint32_t magic = 0;
	if (size >= 4)
		memcpy(&magic, data, 4);
	if (magic == JD_MAGIC || magic == JD_MAGIC_SWAPPED) {
		from_dump(data, size);
		return 0;
	}
	struct bytes b = { data, size };
	struct synth_input in;
	decode(&b, &in);
	check(&in);
	return 0;
}
