/* ondemand.c - the ELFs of an `inject --no-elfs` recording, built in memory when a reader
 * (report, archive and every export through them) first needs one: a symbols provider that
 * finds the build-id in the origins section, opens the dump once per run after checking its
 * identity (a changed dump is refused, never mis-symbolized), and builds that one ELF with
 * synth exactly as the file-writing path would, checking its build-id again. */
#include "recorder/inject/inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

struct od_dump {
	struct inj_dump d;	/* the index plus per-load file_seq/flags, as inj_load_input reads */
	int state;		/* 0 not opened, 1 open, -1 refused */
	char msg[600];
};

struct ondemand {
	struct inj_origins o;
	struct od_dump *dumps;
	uint32_t *by_id;	/* entry indexes sorted by build-id */
	uint64_t built;
};

static int cmp_id(const void *a, const void *b, void *ctx)
{
	const struct inj_origins *o = ctx;
	const uint32_t *x = a, *y = b;
	int c = memcmp(o->v[*x].build_id, o->v[*y].build_id, 20);
	return c ? c : (*x > *y) - (*x < *y);
}

static const struct inj_origin *lookup(const struct ondemand *od, const struct sym_build_id *id)
{
	size_t lo = 0, hi = od->o.n;
	if (id->size != 20)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(od->o.v[od->by_id[mid]].build_id, id->data, 20);
		if (!c)
			return &od->o.v[od->by_id[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int open_dump(struct ondemand *od, uint32_t k)
{
	struct od_dump *dd = &od->dumps[k];
	struct jd_index *x;
	char err[500] = "";
	if (dd->state)
		return dd->state;
	dd->state = -1;
	if (inj_origins_open_dump(&od->o, k, &x, err, sizeof(err)) < 0) {
		snprintf(dd->msg, sizeof(dd->msg), "%s: its jitted ELFs are refused (rerun jitprof "
			 "inject on the recording)", err);
		return -1;
	}
	struct inj_dump *d = &dd->d;
	d->x = x;
	d->nr_loads = jd_index_nr_loads(x);
	d->path = strdup(od->o.dumps[k].path);
	d->loads = calloc(d->nr_loads + 1, sizeof(*d->loads));
	d->file_seqs = calloc(d->nr_loads + 1, sizeof(*d->file_seqs));
	if (!d->path || !d->loads || !d->file_seqs) {
		snprintf(dd->msg, sizeof(dd->msg), "%s: out of memory", od->o.dumps[k].path);
		return -1;
	}
	dd->state = 1;
	return 1;
}

static int get(void *ctx, const struct sym_build_id *id, const char *long_name, void **image,
	       size_t *len, char **what, char *msg, size_t msglen)
{
	struct ondemand *od = ctx;
	const struct inj_origin *e = lookup(od, id);
	char err[400] = "";
	(void)long_name;
	if (!e)
		return 0;
	struct od_dump *dd = &od->dumps[e->dump];
	if (open_dump(od, e->dump) < 0) {
		snprintf(msg, msglen, "%s", dd->msg);
		return -ESTALE;
	}
	struct inj_dump *d = &dd->d;
	uint32_t l = inj_load_at_offset(d->x, e->offset);
	if (l == INJ_NONE || jd_index_load(d->x, l)->load.code_index != e->code_index) {
		snprintf(msg, msglen, "%s: no code load %llu at offset %llu as the recording says: "
			 "refused", d->path, (unsigned long long)e->code_index,
			 (unsigned long long)e->offset);
		return -ESTALE;
	}
	struct synth_input in;
	struct synth_elf elf = { 0 };
	d->file_seqs[l] = e->file_seq;
	d->loads[l].flags = (e->flags & INJ_ORIGIN_NOLINES) ? INJ_NOLINES : 0;
	inj_load_input(d, l, &in);
	if (synth_build(&in, &elf, err, sizeof(err)) < 0) {
		snprintf(msg, msglen, "%s: code load at offset %llu: %s", d->path,
			 (unsigned long long)e->offset, err);
		return -EINVAL;
	}
	if (memcmp(elf.build_id, e->build_id, 20)) {
		synth_elf_free(&elf);
		snprintf(msg, msglen, "%s: code load at offset %llu no longer makes the ELF the "
			 "recording names (build-id differs): refused", d->path,
			 (unsigned long long)e->offset);
		return -ESTALE;
	}
	char *w = malloc(strlen(d->path) + 48);
	if (!w) {
		synth_elf_free(&elf);
		return -ENOMEM;
	}
	sprintf(w, "%s@%llu", d->path, (unsigned long long)e->offset);
	*image = elf.data;	/* the session frees it */
	*len = elf.size;
	*what = w;
	od->built++;
	return 1;
}

static void fini(void *ctx)
{
	struct ondemand *od = ctx;
	for (size_t k = 0; k < od->o.nr_dumps; k++)
		inj_dump_fini(&od->dumps[k].d);
	free(od->dumps);
	free(od->by_id);
	inj_origins_free(&od->o);
	free(od);
}

int inj_ondemand_attach(struct sym_session *ss, const struct pd_reader *r, const char *input,
			char *err, size_t errlen)
{
	struct ondemand *od = calloc(1, sizeof(*od));
	if (!od)
		return -ENOMEM;
	int rc = inj_origins_read(r, input, &od->o, err, errlen);
	if (rc < 0) {
		free(od);
		return rc == -ENOENT ? 0 : rc;
	}
	od->dumps = calloc(od->o.nr_dumps + 1, sizeof(*od->dumps));
	od->by_id = calloc(od->o.n + 1, sizeof(*od->by_id));
	if (!od->dumps || !od->by_id) {
		fini(od);
		return -ENOMEM;
	}
	for (size_t i = 0; i < od->o.n; i++)
		od->by_id[i] = (uint32_t)i;
	qsort_r(od->by_id, od->o.n, sizeof(*od->by_id), cmp_id, &od->o);
	struct sym_provider p = { get, fini, od };
	if ((rc = sym_session_set_provider(ss, &p)) < 0) {
		fini(od);
		return rc;
	}
	return 1;
}
