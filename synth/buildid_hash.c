/* buildid_hash.c - the deterministic build-id: SHA-1 (libcrypto) over every input that shapes
 * the ELF, each field as u64 (tag << 56 | length) followed by its bytes, so no two different
 * inputs serialize alike. The generation is a field: two generations never share an id. */
#include <endian.h>
#include <errno.h>
#include <string.h>

/* libcrypto's SHA-1 itself, not through EVP: OpenSSL 3.0's first EVP_MD_fetch makes the
 * library context and, when one of its allocations fails, goes on to lock a lock it never
 * made (a crash the allocation-failure sweep found, tests/faults). The low-level functions
 * allocate nothing and compute the same digest; a context on the stack needs no freeing.
 * libcrypto is loaded when the first id is hashed (lib/sha1.h). */
#include "lib/sha1.h"
#include "synth/synth_int.h"

enum id_tag {
	TAG_SCHEME = 1, TAG_MACHINE, TAG_NAME, TAG_GENERATION, TAG_CODE_INDEX, TAG_CODE_ADDR,
	TAG_TIER, TAG_CODE, TAG_LINE, TAG_INL_METHOD, TAG_INL_PC, TAG_UNWIND, TAG_UNWIND_SIZES,
};

/* Bump when the ELF layout changes, so old cache entries are never taken for new files. */
static const char scheme[] = "jitprof-synth-2";

/* Small fields are staged so a line table is a few SHA-1 updates, not thousands; a field is
 * written straight into the stage (h_room), so an 8-byte number is one store, not a call.
 * Once a libcrypto call failed (failed names it), nothing more goes to the context: the
 * fields are still staged and dropped, and the caller returns an error. */
struct hasher {
	const struct jp_sha1 *sha;
	struct jp_sha1_ctx ctx;
	uint8_t stage[2048];
	size_t n;
	const char *failed;
};

static void h_update(struct hasher *h, const void *p, size_t len)
{
	if (!h->failed && !h->sha->update(&h->ctx, p, len))
		h->failed = "SHA1_Update";
}

static void h_flush(struct hasher *h)
{
	if (h->n)
		h_update(h, h->stage, h->n);
	h->n = 0;
}

/* len bytes of the stage to fill, after flushing it when they do not fit behind what it
 * holds; NULL when they would not fit even in an empty stage (the caller updates directly). */
static inline uint8_t *h_room(struct hasher *h, size_t len)
{
	if (len > sizeof(h->stage) - h->n) {
		h_flush(h);
		if (len > sizeof(h->stage))
			return NULL;
	}
	uint8_t *p = h->stage + h->n;
	h->n += len;
	return p;
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	uint64_t le = htole64(v);	/* little-endian whatever the host */
	memcpy(p, &le, 8);
}

static void h_bytes(struct hasher *h, const void *p, size_t len)
{
	uint8_t *d = h_room(h, len);
	if (d)
		memcpy(d, p, len);
	else
		h_update(h, p, len);
}

static inline void h_u64(struct hasher *h, uint64_t v)
{
	put_u64(h_room(h, 8), v);	/* 8 bytes always fit an empty stage */
}

static void h_field(struct hasher *h, enum id_tag tag, const void *p, size_t len)
{
	h_u64(h, (uint64_t)tag << 56 | (uint64_t)len);
	h_bytes(h, p, len);
}

static void h_num(struct hasher *h, enum id_tag tag, uint64_t v)
{
	h_u64(h, (uint64_t)tag << 56 | 8);
	h_u64(h, v);
}

static void h_str(struct hasher *h, enum id_tag tag, const char *s)
{
	h_field(h, tag, s, strlen(s));
}

/* The rows the line program uses, as given (synth_line_next); the walk's counts in *it. */
static void hash_lines(struct hasher *h, const struct synth_input *in,
		       struct synth_line_it *it_out)
{
	struct synth_line_it it;
	char script[SYNTH_SCRIPT_MAX + 1];
	synth_line_it_init(&it, in->lines, in->nr_lines, in->code_addr, in->code_size,
			   synth_name_script(in->name, script, sizeof(script)));
	const char *last = NULL;
	size_t flen = 0;
	for (const struct jd_line *l; (l = synth_line_next(&it));) {
		if (l->file != last)	/* rows share their file's string: measured once */
			flen = strlen(last = l->file);
		uint64_t v[3] = { htole64((uint64_t)TAG_LINE << 56 | (16 + flen)), htole64(l->addr),
				  htole64((uint64_t)(uint32_t)l->line << 32 | (uint32_t)l->discrim) };
		uint8_t *d = h_room(h, sizeof(v) + flen);	/* one row, one copy */
		if (d) {
			memcpy(d, v, sizeof(v));
			memcpy(d + sizeof(v), l->file, flen);
			continue;
		}
		h_bytes(h, v, sizeof(v));
		h_bytes(h, l->file, flen);
	}
	*it_out = it;
}

static void hash_inline(struct hasher *h, const struct jd_ext_inline *x)
{
	for (uint32_t m = 0; m < x->nr_methods; m++) {
		h_str(h, TAG_INL_METHOD, x->methods[m].name);
		h_str(h, TAG_INL_METHOD, x->methods[m].file);
	}
	for (uint32_t i = 0; i < x->nr_pcs; i++) {
		const struct jd_inline_pc *p = &x->pcs[i];
		uint64_t len = 8 + 8 * (uint64_t)p->depth;
		uint8_t *d = h_room(h, 8 + len);	/* a pc and its frames in one go */
		if (d) {
			put_u64(d, (uint64_t)TAG_INL_PC << 56 | len);
			put_u64(d + 8, p->addr);
			for (uint32_t k = 0; k < p->depth; k++)
				put_u64(d + 16 + 8 * (size_t)k,
					(uint64_t)p->frames[k].method << 32 |
					(uint32_t)p->frames[k].line);
			continue;
		}
		h_u64(h, (uint64_t)TAG_INL_PC << 56 | len);
		h_u64(h, p->addr);
		for (uint32_t k = 0; k < p->depth; k++)
			h_u64(h, (uint64_t)p->frames[k].method << 32 | (uint32_t)p->frames[k].line);
	}
}

static int hash_input(const struct synth_input *in, uint8_t id[SYNTH_BUILD_ID_SIZE],
		      const struct jp_log *log, struct synth_line_it *rows)
{
	struct hasher h;	/* the stage is not zeroed: only its first n bytes are read */
	const char *why = NULL;
	h.n = 0;
	h.failed = NULL;
	h.sha = jp_sha1(&why);
	if (!h.sha)
		return synth_err(log, -EIO, "build-id: SHA-1: %s", why);
	if (!h.sha->init(&h.ctx))
		return synth_err(log, -EIO, "build-id: SHA-1: SHA1_Init failed");
	h_str(&h, TAG_SCHEME, scheme);
	h_num(&h, TAG_MACHINE, synth_machine(in));
	h_str(&h, TAG_NAME, in->name);
	h_num(&h, TAG_GENERATION, in->generation);
	h_num(&h, TAG_CODE_INDEX, in->code_index);
	h_num(&h, TAG_CODE_ADDR, in->code_addr);
	h_num(&h, TAG_TIER, in->tier);
	h_field(&h, TAG_CODE, in->code, in->code_size);
	hash_lines(&h, in, rows);
	if (in->inl)
		hash_inline(&h, in->inl);
	if (in->unwind_size) {
		h_field(&h, TAG_UNWIND, in->unwind, in->unwind_size);
		h_num(&h, TAG_UNWIND_SIZES, in->eh_frame_hdr_size);
		h_num(&h, TAG_UNWIND_SIZES, in->mapped_size);
	}
	h_flush(&h);
	uint8_t md[JP_SHA1_DIGEST];
	if (!h.failed && !h.sha->final(md, &h.ctx))
		h.failed = "SHA1_Final";
	/* The id names the ELF: the caller stops on it (inject fails the dump, naming the load;
	 * synth stops the run), never leaves the load out as if it were damaged. */
	if (h.failed)
		return synth_err(log, -EIO, "build-id: SHA-1: %s failed", h.failed);
	memcpy(id, md, SYNTH_BUILD_ID_SIZE);
	return 0;
}

int synth_build_id(const struct synth_input *in, uint8_t id[SYNTH_BUILD_ID_SIZE],
		   const struct jp_log *log)
{
	struct synth_line_it rows;
	int rc = synth_validate(in, log);
	return rc ? rc : hash_input(in, id, log, &rows);
}

int synth_build_id_counted(const struct synth_input *in, uint8_t id[SYNTH_BUILD_ID_SIZE],
			   size_t *dropped, size_t *renamed)
{
	struct synth_line_it rows;
	int rc = hash_input(in, id, NULL, &rows);
	*dropped = rc ? 0 : rows.bad;
	*renamed = rc ? 0 : rows.renamed;
	return rc;
}

void synth_build_id_hex(const uint8_t id[SYNTH_BUILD_ID_SIZE], char hex[SYNTH_BUILD_ID_HEX])
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < SYNTH_BUILD_ID_SIZE; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * SYNTH_BUILD_ID_SIZE] = 0;
}
