/* source.c - extra places to find files by build-id: a directory laid out like ~/.debug, or an
 * archive (`jitprof archive`, perf-archive) whose members mirror that layout. An archive is
 * unpacked once (libarchive: tar with any compression) into a private temporary directory, so
 * every member is then opened and mmapped like a cached file; members that would land
 * outside that directory are skipped. The .build-id links are kept as an index, not written
 * to disk. */
#include "recorder/symbols/symbols_int.h"

#include "lib/archive_api.h"
#include "lib/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct link_ent {
	char hex[SYM_BUILD_ID_HEX];
	char *rel;		/* member path the link resolves to */
	int is_file;		/* .build-id/xx/rest is itself the ELF (old layout) */
};

struct sym_source {
	struct sym_source *next;
	char *root;		/* the directory, or where the archive was unpacked */
	struct sym_tmpdir tmp;	/* that directory, when unpacked (tmp.path == root) */
	uint64_t budget, unpacked_bytes;	/* SYM_ARCHIVE_BUDGET for this archive */
	uint64_t max_entries, entries;	/* SYM_ARCHIVE_ENTRIES: members, directories made */
	struct link_ent *links;
	size_t n_links, cap_links;
};

/* Lexical normalisation of a member path; NULL if it is absolute or climbs out. */
static char *clean_rel(const char *base_dir, const char *name)
{
	char buf[4096];
	if (name[0] == '/')
		return NULL;
	snprintf(buf, sizeof(buf), "%s%s%s", base_dir, *base_dir ? "/" : "", name);
	char *out = malloc(strlen(buf) + 1);
	if (!out)
		return NULL;
	size_t olen = 0;
	for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/")) {
		if (!strcmp(tok, ".") || !*tok)
			continue;
		if (!strcmp(tok, "..")) {
			if (!olen) {
				free(out);
				return NULL;
			}
			while (olen && out[olen - 1] != '/')
				olen--;
			if (olen)
				olen--;
			continue;
		}
		if (olen)
			out[olen++] = '/';
		memcpy(out + olen, tok, strlen(tok));
		olen += strlen(tok);
	}
	out[olen] = 0;
	if (!olen) {
		free(out);
		return NULL;
	}
	/* archives made from $HOME may carry the cache's own name as a prefix */
	if (!strncmp(out, ".debug/", 7))
		memmove(out, out + 7, olen - 6);
	return out;
}

/* One more member, or directory made for one: 200,000 empty members of a 306 KB archive took
 * 198 s to create and remove, within any byte budget. */
static int entry_take(struct sym_source *src)
{
	if (src->entries >= src->max_entries)
		return -EDQUOT;
	src->entries++;
	return 0;
}

static int mkdirs(struct sym_source *src, char *path)
{
	for (char *p = path + strlen(src->root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int rc = mkdir(path, 0700) ? errno == EEXIST ? 0 : -errno : entry_take(src);
		*p = '/';
		if (rc)
			return rc;
	}
	return 0;
}

/* A ".build-id/xx/rest" member: remember where it points. */
static int note_link(struct sym_source *src, const char *rel, const char *target, int is_file)
{
	const char *p = rel + 10;	/* after ".build-id/" */
	if (strlen(p) < 4 || p[2] != '/' || strchr(p + 3, '/'))
		return 0;
	struct link_ent e = { .is_file = is_file };
	snprintf(e.hex, sizeof(e.hex), "%.2s%s", p, p + 3);
	char dir[16];
	snprintf(dir, sizeof(dir), ".build-id/%.2s", p);
	e.rel = is_file ? strdup(rel) : clean_rel(dir, target);
	if (!e.rel)
		return 0;
	if (JP_GROW_FOR(src->links, src->cap_links, src->n_links)) {
		free(e.rel);
		return -ENOMEM;
	}
	src->links[src->n_links++] = e;
	return 0;
}

static const struct jp_archive_api *la;	/* libarchive, loaded by unpack */

/* A member's bytes into fd, within the archive's budget: a small archive of one huge
 * compressed-zero member must not fill the temporary directory. */
static int copy_member(struct archive *a, int fd, struct sym_source *src)
{
	const void *buf;
	size_t n;
	la_int64_t off;
	int r;
	while ((r = la->read_data_block(a, &buf, &n, &off)) == ARCHIVE_OK) {
		if (n > src->budget - src->unpacked_bytes)
			return -EFBIG;
		src->unpacked_bytes += n;
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
			return -EIO;
	}
	return r == ARCHIVE_EOF ? 0 : -EIO;
}

static int unpack_entry(struct archive *a, struct archive_entry *ent, struct sym_source *src)
{
	char *rel = clean_rel("", la->entry_pathname(ent));
	char path[4096];
	int rc = 0, depth = 0;
	if (tmpdir_stopping()) {
		free(rel);
		return -EINTR;
	}
	for (const char *p = rel; p && *p; p++)
		depth += *p == '/';
	if (!rel || depth >= SYM_UNPACK_MAX_DEPTH) {	/* no cache layout nests so deep */
		free(rel);
		return 0;
	}
	int is_link = !strncmp(rel, ".build-id/", 10);
	mode_t type = la->entry_filetype(ent);
	const char *hard = la->entry_hardlink(ent);
	snprintf(path, sizeof(path), "%s/%s", src->root, rel);
	if (type == AE_IFLNK) {
		if (is_link)
			rc = note_link(src, rel, la->entry_symlink(ent), 0);
	} else if (hard) {
		char *hrel = clean_rel("", hard), hpath[4096];
		if (hrel && !(rc = mkdirs(src, path))) {
			snprintf(hpath, sizeof(hpath), "%s/%s", src->root, hrel);
			if (link(hpath, path) && errno != EEXIST)
				rc = -errno;
			if (!rc && is_link)
				rc = note_link(src, rel, NULL, 1);
		}
		free(hrel);
	} else if (type == AE_IFREG) {
		int fd = -1;
		if (!(rc = mkdirs(src, path)) &&
		    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
			rc = errno == EEXIST ? 0 : -errno;
		if (fd >= 0) {
			rc = copy_member(a, fd, src);
			close(fd);
		}
		if (!rc && is_link)
			rc = note_link(src, rel, NULL, 1);
	}
	free(rel);
	return rc;
}

static int unpack(struct sym_session *s, const char *file, struct sym_source *src)
{
	struct sess_log said = { s, JP_LOG_ERROR, 0 };
	if (!(la = jp_archive_api(&(struct jp_log){ sess_log_msg, &said }, file,
				  "cannot read an archive")))
		return -ENOTSUP;
	int rc = tmpdir_make(&src->tmp);
	if (rc)
		return rc;
	if (!(src->root = strdup(src->tmp.path)))
		return -ENOMEM;
	struct stat st;
	src->budget = s->o.archive_budget ? s->o.archive_budget : SYM_ARCHIVE_BUDGET_BASE;
	if (!s->o.archive_budget && !stat(file, &st) && st.st_size > 0)
		src->budget += SYM_ARCHIVE_BUDGET_RATIO * (uint64_t)st.st_size;
	src->max_entries = s->o.archive_max_entries ? s->o.archive_max_entries
			   : SYM_ARCHIVE_ENTRIES_BASE;
	if (!s->o.archive_max_entries && !stat(file, &st) && st.st_size > 0)
		src->max_entries += (uint64_t)st.st_size / SYM_ARCHIVE_ENTRIES_BYTES;
	struct archive *a = la->read_new();
	if (!a)
		return -ENOMEM;
	la->read_support_filter_all(a);
	la->read_support_format_all(a);
	if (la->read_open_filename(a, file, 1 << 16) != ARCHIVE_OK) {
		sess_msg(s, JP_LOG_ERROR, "%s: %s", file, la->error_string(a));
		rc = -EINVAL;
	}
	struct archive_entry *ent;
	while (!rc) {
		int r = la->read_next_header(a, &ent);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			sess_msg(s, JP_LOG_ERROR, "%s: %s", file, la->error_string(a));
			rc = -EINVAL;
			break;
		}
		if (!(rc = entry_take(src)))
			rc = unpack_entry(a, ent, src);
		if (rc == -EFBIG)
			sess_msg(s, JP_LOG_ERROR, "%s: members unpack to more than %llu bytes "
				 "(SYM_ARCHIVE_BUDGET: %llu MiB plus %u times the archive's size)",
				 file, (unsigned long long)src->budget,
				 (unsigned long long)(SYM_ARCHIVE_BUDGET_BASE >> 20),
				 SYM_ARCHIVE_BUDGET_RATIO);
		else if (rc == -EDQUOT)
			sess_msg(s, JP_LOG_ERROR, "%s: more than %llu members and directories "
				 "(SYM_ARCHIVE_ENTRIES: %u plus one per %u bytes of the archive)",
				 file, (unsigned long long)src->max_entries,
				 SYM_ARCHIVE_ENTRIES_BASE, SYM_ARCHIVE_ENTRIES_BYTES);
	}
	la->read_free(a);
	return rc;
}

static void source_remove_files(struct sym_source *src)
{
	tmpdir_remove(&src->tmp);
}

void source_remove_all_files(struct sym_session *s)
{
	for (struct sym_source *src = s->sources; src; src = src->next)
		source_remove_files(src);
}

static void source_free(struct sym_source *src)
{
	source_remove_files(src);
	for (size_t i = 0; i < src->n_links; i++)
		free(src->links[i].rel);
	free(src->links);
	free(src->root);
	free(src);
}

int source_add(struct sym_session *s, const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return -errno;
	struct sym_source *src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->tmp = (struct sym_tmpdir){ -1, -1, -1, NULL };
	int rc = 0;
	if (S_ISDIR(st.st_mode))
		rc = (src->root = strdup(path)) ? 0 : -ENOMEM;
	else
		rc = unpack(s, path, src);
	if (rc) {
		source_free(src);
		return rc;
	}
	struct sym_source **tail = &s->sources;
	while (*tail)
		tail = &(*tail)->next;
	*tail = src;
	return 0;
}

const char *sym_session_source_root(const struct sym_session *s, size_t i)
{
	const struct sym_source *src = s->sources;
	while (src && i--)
		src = src->next;
	return src ? src->root : NULL;
}

void source_free_all(struct sym_session *s)
{
	for (struct sym_source *src = s->sources, *n; src; src = n) {
		n = src->next;
		source_free(src);
	}
	s->sources = NULL;
}

static int exists_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int source_lookup(struct sym_session *s, const struct sym_build_id *id, const char *kind,
		  char **path, void **image, size_t *len)
{
	char hex[SYM_BUILD_ID_HEX], buf[4096];
	(void)len;
	*image = NULL;
	sym_build_id_hex(id, hex);
	for (struct sym_source *src = s->sources; src; src = src->next) {
		/* a directory, or links we wrote nowhere: resolve through the index first */
		for (size_t i = 0; i < src->n_links; i++) {
			const struct link_ent *e = &src->links[i];
			if (strcmp(e->hex, hex))
				continue;
			if (e->is_file && strcmp(kind, "elf"))
				continue;
			snprintf(buf, sizeof(buf), "%s/%s%s%s", src->root, e->rel,
				 e->is_file ? "" : "/", e->is_file ? "" : kind);
			if (exists_file(buf))
				return (*path = strdup(buf)) ? 0 : -ENOMEM;
		}
		snprintf(buf, sizeof(buf), "%s/.build-id/%.2s/%s/%s", src->root, hex, hex + 2, kind);
		if (exists_file(buf))
			return (*path = strdup(buf)) ? 0 : -ENOMEM;
		snprintf(buf, sizeof(buf), "%s/.build-id/%.2s/%s", src->root, hex, hex + 2);
		if (!strcmp(kind, "elf") && exists_file(buf))
			return (*path = strdup(buf)) ? 0 : -ENOMEM;
		/* the vdso's own place, for archives that carry no .build-id links */
		snprintf(buf, sizeof(buf), "%s/[vdso]/%s/vdso", src->root, hex);
		if (!strcmp(kind, "vdso") && exists_file(buf))
			return (*path = strdup(buf)) ? 0 : -ENOMEM;
	}
	return -ENOENT;
}
