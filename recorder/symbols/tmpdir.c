/* tmpdir.c - the private directories archives are unpacked into (source.c): made under
 * $TMPDIR and held locked (flock) while in use, registered so that a command's SIGINT, SIGTERM
 * or SIGHUP handler can remove them with async-signal-safe calls only, and removed on the next
 * run when a crash or SIGKILL left them behind (nobody holds their lock any more). */
#include "recorder/symbols/symbols_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "jitprof-archive."
/* A directory this young may be a live run's, between its mkdtemp and its flock. */
#define STALE_AFTER_S 10

/* What a signal handler removes: the parent directory's fd and the name in it, written
 * before the slot is published (n_live) and cleared (name[0] = 0) before it is freed. */
#define MAX_LIVE 16
static struct {
	int parent;
	char name[64];
} live[MAX_LIVE];
static volatile sig_atomic_t n_live;
static volatile sig_atomic_t removing;

/* Removes what is beneath dirfd, never following a symlink: a name unlink(2) calls a
 * directory is entered (openat O_NOFOLLOW) and emptied first. System calls only (getdents64,
 * not readdir's malloc), so a signal handler may call it; depth at most SYM_UNPACK_MAX_DEPTH,
 * which unpack keeps every member within. */
static void empty_dir(int dirfd, int depth)
{
	char buf[1024];
	for (int pass = 0; pass < 64; pass++) {
		int removed = 0;
		long n;
		lseek(dirfd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);
				off += d->d_reclen;
				const char *nm = d->d_name;
				if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
					continue;
				if (!unlinkat(dirfd, nm, 0)) {
					removed++;
					continue;
				}
				if (errno != EISDIR || depth >= SYM_UNPACK_MAX_DEPTH + 1)
					continue;
				int sub = openat(dirfd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							    O_CLOEXEC);
				if (sub < 0)
					continue;
				empty_dir(sub, depth + 1);
				close(sub);
				if (!unlinkat(dirfd, nm, AT_REMOVEDIR))
					removed++;
			}
		}
		if (!removed)
			return;
	}
}

/* name beneath parent, with all it holds. Async-signal-safe. */
static void remove_tree(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	empty_dir(fd, 0);
	close(fd);
	unlinkat(parent, name, AT_REMOVEDIR);
}

void sym_remove_unpacked_now(void)
{
	int saved = errno;
	removing = 1;
	int n = n_live;
	for (int i = 0; i < n && i < MAX_LIVE; i++)
		if (live[i].name[0])
			remove_tree(live[i].parent, live[i].name);
	errno = saved;
}

int tmpdir_stopping(void)
{
	return removing;
}

/* Directories of ours left by runs that are gone: the name ours, a directory (not a link),
 * owned by us, older than STALE_AFTER_S, and nobody holding its lock. */
static void remove_stale(int parent)
{
	int fd = fcntl(parent, F_DUPFD_CLOEXEC, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(dir));) {
		struct stat sb;
		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) ||
		    fstatat(parent, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(sb.st_mode) ||
		    sb.st_uid != geteuid() || now - sb.st_mtime < STALE_AFTER_S)
			continue;
		int d = openat(parent, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0)
			continue;
		if (!flock(d, LOCK_EX | LOCK_NB))
			remove_tree(parent, e->d_name);
		close(d);
	}
	closedir(dir);
}

/* A fresh name in slot: PREFIX and six random characters (mkdtemp's, but the name is known
 * to sym_remove_unpacked_now before the directory exists: a signal right after the mkdir
 * finds it). */
static int make_in_slot(struct sym_tmpdir *t, int slot)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char name[sizeof(live[0].name)];
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		int n = snprintf(name, sizeof(name), PREFIX);
		for (size_t i = 0; i < sizeof(r); i++)
			name[n + i] = set[r[i] % (sizeof(set) - 1)];
		name[n + sizeof(r)] = 0;
		live[slot].name[0] = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		memcpy(live[slot].name, name, sizeof(name));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* the name, then the directory */
		if (!mkdirat(t->parent, name, 0700))
			return 0;
		live[slot].name[0] = 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int tmpdir_make(struct sym_tmpdir *t)
{
	const char *tmp = getenv("TMPDIR");
	*t = (struct sym_tmpdir){ -1, -1, -1, NULL };
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((t->parent = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	remove_stale(t->parent);
	int slot = 0;
	while (slot < n_live && live[slot].name[0])
		slot++;
	if (slot >= MAX_LIVE)
		return -EMFILE;
	live[slot].parent = t->parent;
	live[slot].name[0] = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* the slot, then its publication */
	if (slot == n_live)
		n_live = slot + 1;
	t->slot = slot;
	int rc = make_in_slot(t, slot);
	if (rc)
		return rc;
	const char *name = live[slot].name;
	size_t len = strlen(tmp) + 1 + strlen(name) + 1;
	if ((t->path = malloc(len)))
		snprintf(t->path, len, "%s/%s", tmp, name);
	t->fd = openat(t->parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!t->path || t->fd < 0 || flock(t->fd, LOCK_EX)) {
		rc = t->path ? -errno : -ENOMEM;
		remove_tree(t->parent, name);
		return rc;
	}
	return 0;
}

void tmpdir_remove(struct sym_tmpdir *t)
{
	if (t->slot >= 0 && live[t->slot].name[0])
		remove_tree(t->parent, live[t->slot].name);
	if (t->slot >= 0) {
		live[t->slot].name[0] = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	if (t->fd >= 0)
		close(t->fd);
	if (t->parent >= 0)
		close(t->parent);
	free(t->path);
	*t = (struct sym_tmpdir){ -1, -1, -1, NULL };
}
