/* proc_snapshot.c - what existed before the events were opened, written as perf record writes it:
 * the kernel map "[kernel.kallsyms]_text" with pgoff = runtime _text (so a report elsewhere
 * can undo KASLR), and COMM/FORK/MMAP2 for processes read from /proc. Every mapping seen,
 * synthesized or live, also goes through rec_note_mmap (DSO hits, build-id requests). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/grow.h"
#include "recorder/record/record_int.h"

/* A name the kernel gives a mapping that is no file to read a build-id from, though it starts
 * with '/' (perf's anonymous names): reading "//anon" fails, and the fallback through
 * /proc/PID/map_files/START-END then finds whatever file was mapped into that range since
 * (HotSpot maps libjimage.so into reserved anonymous memory): a wrong id under "//anon". */
static bool is_anon_name(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "/SYSV", 5);
}

int rec_note_mmap(struct rec_synth_ctx *c, const struct pd_mmap *m, uint16_t misc)
{
	uint16_t cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool exec = m->is_mmap2 ? (m->prot & PROT_EXEC) : !(misc & PERF_RECORD_MISC_MMAP_DATA);
	struct rec_dso *d;
	int err;

	if (!exec || !m->filename)
		return 0;
	/* Out of memory here the DSO's samples would go unattributed and its build-id unread:
	 * a recording without the ids its samples need, so the recording fails. */
	d = rec_hits_dso(c->hits, m->filename, cpumode);
	if (!d || (err = rec_hits_mmap(c->hits, m->pid, m->start, m->len, d)))
		return -ENOMEM;
	bool file = m->filename[0] == '/' && !is_anon_name(m->filename);
	if (m->has_build_id && m->build_id_size) {
		d->state = BID_KNOWN;
		d->id_size = m->build_id_size;
		memcpy(d->id, m->build_id, m->build_id_size);
		/* --keep-deleted: the side thread looks whether the file is still there */
		if (c->keep_deleted && file && c->bids)
			return rec_bid_request_map(c->bids, m->filename, (pid_t)m->pid, m->start,
						   m->start + m->len, m->build_id,
						   m->build_id_size);
	} else if (d->state == BID_UNKNOWN && c->bids &&
		   (file || !strcmp(m->filename, "[vdso]"))) {
		if ((err = rec_bid_request_map(c->bids, m->filename, (pid_t)m->pid, m->start,
					       m->start + m->len, NULL, 0)))
			return err;
		d->state = BID_REQUESTED;
	}
	return 0;
}

/* _text (or _stext) and _etext from /proc/kallsyms. The file is ~10^5 lines and the kernel
 * generates it slowly: match names by their tail, parse only those lines, stop at _etext. */
static int kernel_text(uint64_t *start, uint64_t *end, const char **ref)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	uint64_t text = 0, stext = 0, etext = 0;

	if (!f)
		return -errno;
	while (!etext && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);
		uint64_t *dst = NULL;
		if (l > 7 && !strcmp(line + l - 7, " _text\n"))
			dst = &text;
		else if (l > 8 && !strcmp(line + l - 8, " _stext\n"))
			dst = &stext;
		else if (l > 8 && !strcmp(line + l - 8, " _etext\n"))
			dst = &etext;
		if (dst)
			*dst = strtoull(line, NULL, 16);
	}
	fclose(f);
	*ref = text ? "_text" : "_stext";
	*start = text ? text : stext;
	*end = etext > *start ? etext : *start;
	/* kptr_restrict hides addresses (all zero): no relocation info, as with perf. */
	return *start ? 0 : -EPERM;
}

int rec_synth_kernel(struct rec_synth_ctx *c)
{
	uint64_t start = 0, end = 0;
	const char *ref = "_text";
	char name[64];
	uint8_t id[PD_BUILD_ID_MAX];
	size_t idsz = 0;
	struct pd_mmap m = { 0 };
	int err = kernel_text(&start, &end, &ref);

	if (err)
		return err;
	/* No id (no notes) is said by the report; out of memory it would be a wrong answer. */
	if (rec_kernel_build_id(id, &idsz) == -ENOMEM)
		return -ENOMEM;
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", ref);
	struct pd_mmap2_args a = {
		.pid = UINT32_MAX, .tid = 0, .cpumode = PERF_RECORD_MISC_KERNEL,
		.start = start, .len = (end - start + 4096) & ~4095ULL, .pgoff = start,
		.build_id = idsz ? id : NULL, .build_id_size = idsz,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = name,
	};
	err = pd_writer_mmap2(c->w, &a, NULL);
	/* Hits and the table use perf's DSO name for the kernel. */
	m.is_mmap2 = true;
	m.pid = UINT32_MAX;
	m.start = a.start;
	m.len = a.len;
	m.prot = a.prot;
	m.filename = "[kernel.kallsyms]";
	m.has_build_id = idsz > 0;
	m.build_id_size = (uint8_t)idsz;
	memcpy(m.build_id, id, idsz);
	if (!err)
		err = rec_note_mmap(c, &m, PERF_RECORD_MISC_KERNEL);
	return err ? err : rec_synth_modules(c, "/proc/modules");
}

int rec_synth_modules(struct rec_synth_ctx *c, const char *proc_modules)
{
	FILE *f = fopen(proc_modules, "r");
	char line[1024], name[256], path[512];
	int err = 0;

	if (!f)	/* no modules (or a kernel without module support) */
		return errno == ENOMEM ? -ENOMEM : 0;
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long size, addr;
		uint8_t id[PD_BUILD_ID_MAX];
		size_t idsz = 0;
		/* "name size refcount deps state address [taint]" */
		if (sscanf(line, "%255s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr)
			continue;
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
		if (rec_notes_build_id(path, id, &idsz) == -ENOMEM) {
			err = -ENOMEM;
			break;
		}
		char mname[260];
		snprintf(mname, sizeof(mname), "[%s]", name);
		struct pd_mmap2_args a = {
			.pid = UINT32_MAX, .cpumode = PERF_RECORD_MISC_KERNEL, .start = addr,
			.len = size, .build_id = idsz ? id : NULL, .build_id_size = idsz,
			.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = mname,
		};
		err = pd_writer_mmap2(c->w, &a, NULL);
		struct pd_mmap m = { .pid = UINT32_MAX, .start = addr, .len = size, .is_mmap2 = true,
				     .prot = a.prot, .filename = mname, .has_build_id = idsz > 0,
				     .build_id_size = (uint8_t)idsz };
		memcpy(m.build_id, id, idsz);
		if (!err)
			err = rec_note_mmap(c, &m, PERF_RECORD_MISC_KERNEL);
	}
	fclose(f);
	return err;
}

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	if ((nl = strchr(buf, '\n')))
		*nl = 0;
	return 0;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid;
}

int rec_list_threads(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t cap = 16;

	*n = 0;
	*tids = malloc(cap * sizeof(pid_t));
	if (!*tids)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path))) {
		free(*tids);
		*tids = NULL;
		return -errno;
	}
	while ((de = readdir(d))) {
		int t = atoi(de->d_name);
		if (t <= 0)
			continue;
		if (jp_grow(tids, &cap, *n + 1, sizeof(pid_t), 16)) {
			closedir(d);
			free(*tids);
			*tids = NULL;
			*n = 0;
			return -ENOMEM;
		}
		(*tids)[(*n)++] = t;
	}
	closedir(d);
	return *n ? 0 : -ESRCH;
}

static int synth_maps(struct rec_synth_ctx *c, pid_t pid)
{
	char path[64], line[4608];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))	/* gone, or not ours to read (as perf, skip it) */
		return errno == ENOMEM ? -ENOMEM : 0;
	while (!err && fgets(line, sizeof(line), f)) {
		uint64_t start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &off, &maj, &min, &ino, &name_at) < 7 || !name_at)
			continue;
		if (perms[2] != 'x')
			continue;
		char *name = line + name_at, *nl = strchr(name, '\n');
		if (nl)
			*nl = 0;
		if (!*name)
			name = "//anon";
		struct pd_mmap2_args a = {
			.pid = (uint32_t)pid, .tid = (uint32_t)pid, .cpumode = PERF_RECORD_MISC_USER,
			.start = start, .len = end - start, .pgoff = off,
			.maj = maj, .min = min, .ino = ino,
			.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
				PROT_EXEC,
			.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE,
			.filename = name,
		};
		err = pd_writer_mmap2(c->w, &a, NULL);
		struct pd_mmap m = { .pid = a.pid, .start = start, .len = a.len, .is_mmap2 = true,
				     .prot = a.prot, .filename = name };
		if (!err)
			err = rec_note_mmap(c, &m, PERF_RECORD_MISC_USER);
	}
	fclose(f);
	return err;
}

int rec_synth_process(struct rec_synth_ctx *c, pid_t pid, bool fork)
{
	pid_t *tids;
	size_t n;
	char path[96], comm[64];
	int err = rec_list_threads(pid, &tids, &n);

	if (err)
		return err == -ENOMEM ? err : 0;	/* exited or hidden: nothing to say */
	for (size_t i = 0; i < n && !err; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tids[i]);
		if ((err = read_line(path, comm, sizeof(comm)))) {
			err = err == -ENOMEM ? err : 0;
			continue;	/* exited meanwhile */
		}
		if (fork) {
			bool leader = tids[i] == pid;
			pid_t pp = leader ? parent_of(pid) : pid;
			struct pd_task t = { .pid = (uint32_t)pid, .ppid = (uint32_t)pp,
					     .tid = (uint32_t)tids[i],
					     .ptid = (uint32_t)(leader ? pp : pid) };
			err = pd_writer_fork(c->w, PERF_RECORD_FORK, &t, true, NULL);
		}
		if (!err)
			err = pd_writer_comm(c->w, (uint32_t)pid, (uint32_t)tids[i], comm, false, NULL);
	}
	free(tids);
	return err ? err : synth_maps(c, pid);
}

int rec_synth_all(struct rec_synth_ctx *c)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		int pid = atoi(de->d_name);
		if (pid > 0)
			err = rec_synth_process(c, pid, true);
	}
	closedir(d);
	return err;
}
