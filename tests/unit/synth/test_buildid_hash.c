/* test_buildid_hash.c - synth/buildid_hash.c: the recipe of docs/synth.md recomputed independently,
 * determinism, sensitivity to every field that shapes the ELF, and thread safety. */
#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>

#include "tests/unit/synth/st.h"

static void id_of(const struct synth_input *in, uint8_t id[20])
{
	char err[256];
	cr_assert_eq(synth_build_id(in, id, JP_ERRBUF_LOG(err)), 0, "%s", err);
}

static void field(EVP_MD_CTX *c, unsigned tag, const void *p, uint64_t len)
{
	uint8_t h[8];
	uint64_t v = (uint64_t)tag << 56 | len;
	for (int i = 0; i < 8; i++)
		h[i] = (uint8_t)(v >> (8 * i));
	EVP_DigestUpdate(c, h, 8);
	EVP_DigestUpdate(c, p, len);
}

static void num(EVP_MD_CTX *c, unsigned tag, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	field(c, tag, b, 8);
}

Test(buildid, recipe_recomputed)
{
	struct st_load l;
	st_load_init(&l, 0);
	l.in.lines = NULL;
	l.in.nr_lines = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha1(), NULL);
	field(c, 1, "jitprof-synth-2", 15);
	num(c, 2, 62);
	field(c, 3, l.in.name, strlen(l.in.name));
	num(c, 4, 2);
	num(c, 5, 5);
	num(c, 6, ST_CODE_ADDR);
	num(c, 7, JD_TIER_C2);
	field(c, 8, l.code, ST_CODE_SIZE);
	uint8_t want[20], got[20];
	unsigned n;
	EVP_DigestFinal_ex(c, want, &n);
	EVP_MD_CTX_free(c);
	id_of(&l.in, got);
	cr_assert(!memcmp(want, got, 20), "build-id differs from the documented recipe");
}

Test(buildid, equals_elf_and_is_deterministic)
{
	struct st_load l;
	st_load_init(&l, 1);
	st_add_unwind(&l);
	uint8_t id[20];
	id_of(&l.in, id);
	struct synth_elf a, b;
	char err[256];
	cr_assert_eq(synth_build(&l.in, &a, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(synth_build(&l.in, &b, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert(!memcmp(id, a.build_id, 20));
	cr_assert_eq(a.size, b.size);
	cr_assert(!memcmp(a.data, b.data, a.size), "two builds differ");
	char hex[SYNTH_BUILD_ID_HEX];
	synth_build_id_hex(id, hex);
	cr_assert_eq(strlen(hex), 40);
	cr_assert_not_null(memmem(a.data, a.size, id, 20), "id in the note");
	synth_elf_free(&a);
	synth_elf_free(&b);
}

Test(buildid, generations_differ_with_equal_code)
{
	struct st_load l;
	st_load_init(&l, 1);
	uint8_t g1[20], g2[20];
	l.in.generation = 1;
	id_of(&l.in, g1);
	l.in.generation = 2;
	id_of(&l.in, g2);
	cr_assert(memcmp(g1, g2, 20));
}

/* Each change to what shapes the ELF changes the id; the pid and timestamp do not. */
Test(buildid, sensitive_to_every_field)
{
	struct st_load base;
	st_load_init(&base, 1);
	st_add_unwind(&base);
	uint8_t ref[20];
	id_of(&base.in, ref);
	for (int k = 0; k < 13; k++) {
		struct st_load l;
		st_load_init(&l, 1);
		st_add_unwind(&l);
		int same = 0;
		switch (k) {
		case 0: l.in.name = "Lcom/acme/Foo;baz(I)I"; break;
		case 1: l.in.code_addr += 0x1000;
			for (int i = 0; i < 6; i++) {
				l.lines[i].addr += 0x1000;
				l.pcs[i].addr += 0x1000;
			}
			break;
		case 2: l.code[3] ^= 1; break;
		case 3: l.lines[2].line++; break;
		case 4: l.lines[2].file = "com/acme/Other.java"; break;
		case 5: l.f[3][1].line++; break;
		case 6: l.unwind[42] ^= 1; break;
		case 7: l.in.code_index++; break;
		case 8: l.in.e_machine = 183; break;
		case 9: l.in.tier = JD_TIER_C1; break;
		case 10: l.lines[5].discrim = 0; break;
		case 11: l.in.pid++; same = 1; break;
		case 12: l.in.timestamp++; same = 1; break;
		}
		uint8_t id[20];
		id_of(&l.in, id);
		cr_assert_eq(!memcmp(id, ref, 20), same, "change %d", k);
	}
}

static void *thread_ids(void *arg)
{
	uint8_t *out = arg;
	struct st_load l;
	st_load_init(&l, 1);
	char err[128];
	for (int i = 0; i < 200; i++)
		if (synth_build_id(&l.in, out, JP_ERRBUF_LOG(err)))
			memset(out, 0, 20);
	return NULL;
}

Test(buildid, threads_agree)
{
	pthread_t t[4];
	uint8_t ids[4][20];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_ids, ids[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	uint8_t ref[20];
	struct st_load l;
	st_load_init(&l, 1);
	id_of(&l.in, ref);
	for (int i = 0; i < 4; i++)
		cr_assert(!memcmp(ids[i], ref, 20));
}
