/* safeio.h - touching the file system on behalf of untrusted input: a recording, dump or
 * archive from another user names paths that must never make us follow a planted link out of
 * a directory, block on a FIFO, read a device forever, or write where someone else can swap
 * the file. libc only; every function returns 0 / a file descriptor, or a negative errno. */
#ifndef JITPROF_SAFEIO_H
#define JITPROF_SAFEIO_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Returned for an existing name that is not a regular file (FIFO, device, socket,
 * directory): sio_strerror() words it. */
#define SIO_ENOTREG (-EMEDIUMTYPE)

/* strerror(-rc), except SIO_ENOTREG reads "not a regular file". */
const char *sio_strerror(int rc);

/* Opens path (symlinks followed, as for a library a recording names) for reading: regular
 * files only, opened O_NONBLOCK so a FIFO never blocks the open, then switched back to
 * blocking. Returns the fd (O_CLOEXEC) or a negative errno. */
int sio_open_regular(const char *path);

/* Opens rel beneath dirfd: no symlink anywhere, no "..", no absolute path (openat2's
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, else a walk opening one
 * component at a time with O_NOFOLLOW). Regular files only, never blocking; read-only. */
int sio_open_beneath(int dirfd, const char *rel);

/* The directory rel beneath dirfd as an O_PATH descriptor, under the same rules (no symlink,
 * no "..", not absolute): -ELOOP when a component is a symlink, -ENOTDIR when it is another
 * non-directory. sio_mkdirs_beneath creates what is missing (mkdirat, mode) on the way and
 * refuses the same; nothing is created past a refused component. Used for the build-id
 * cache, whose root is the user's choice but whose insides are walked, never followed. */
int sio_opendir_beneath(int dirfd, const char *rel);
int sio_mkdirs_beneath(int dirfd, const char *rel, mode_t mode);

/* Reads the whole of fd from offset 0 into a malloc'd buffer (NUL-terminated, not counted),
 * refusing with -EFBIG a file of more than max bytes (0: no limit). The bytes are ours once
 * read: a file that shrinks or grows meanwhile cannot fault us. */
int sio_read_all(int fd, uint64_t max, uint8_t **buf, size_t *len);

/* Directory trust. 0 when dirfd is a directory owned by uid (or by root, unless
 * SIO_DIR_OWNER_ONLY) and not writable by others (allowed with the sticky bit when
 * SIO_DIR_STICKY_OK; group write is the owner's choice); -EPERM otherwise, with the reason in why (may be NULL). */
#define SIO_DIR_OWNER_ONLY 1
#define SIO_DIR_STICKY_OK 2
int sio_dir_check(int dirfd, uid_t uid, int flags, char *why, size_t whylen);
/* File trust, perf's rule for what a recording names: 0 when sb is owned by uid or by root;
 * -EPERM otherwise, with "owned by uid N, not by uid M or root" in why (may be NULL). */
struct stat;
int sio_owner_check(const struct stat *sb, uid_t uid, char *why, size_t whylen);

/* An output file created fresh in a directory and given its name only when complete:
 * an unnamed O_TMPFILE (or an O_EXCL temp of random name) linked or renamed over name.
 * An existing name that is not a regular file (FIFO, device, directory) is refused
 * (SIO_ENOTREG); a symlink there is replaced, never followed. */
struct sio_out {
	int fd;			/* write here */
	int dirfd;		/* owned: closed by commit/abort */
	int unnamed;		/* fd is an O_TMPFILE */
	char name[256];
	char tmp[256 + 24];	/* the temp name when not unnamed */
};
/* dirfd is duplicated, the caller keeps its own. */
int sio_out_open(struct sio_out *o, int dirfd, const char *name, mode_t mode);
/* Same for a path the user chose (its directory is opened following links, as the user
 * asked for it). */
int sio_out_open_path(struct sio_out *o, const char *path, mode_t mode);
/* Closes fd and names the file; on failure nothing is left behind. */
int sio_out_commit(struct sio_out *o);
void sio_out_abort(struct sio_out *o);

/* A file that did not exist, created beneath dirfd at name (one component) with the bytes of
 * iov (at most SIO_CREATE_IOV_MAX parts) and mode whatever the umask: one openat with
 * O_CREAT|O_EXCL|O_NOFOLLOW, the writes, a close. -EEXIST when anything is at the name
 * (nothing there is opened or followed: replace it through sio_out). The name exists while
 * the bytes are written, and is removed if writing them fails: for directories where nobody
 * else can replace or remove a name of ours (sio_dir_check). */
struct iovec;
#define SIO_CREATE_IOV_MAX 8
int sio_create_new(int dirfd, const char *name, const struct iovec *iov, int iovcnt,
		   mode_t mode);

/* Text from untrusted input shown safely: the one escaping path of every output. Escaped are
 * the control characters (below 0x20, 0x7f, U+0080-U+009F), bytes that are not valid UTF-8,
 * the bidirectional controls and marks (U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069) and the line and paragraph separators (U+2028, U+2029); in text a single
 * byte as the four characters \xNN, a character of several bytes as \uXXXX.
 * sio_has_controls: 1 if s holds anything to escape. sio_escape_controls: a malloc'd escaped
 * copy (NULL: out of memory). sio_fputs_text: s escaped, to fp (fputs's return). */
int sio_has_controls(const char *s);
char *sio_escape_controls(const char *s);
int sio_fputs_text(const char *s, FILE *fp);
/* Messages that quote data. A message's own text (the format, its newlines included) is
 * shown as it is; what it quotes from a file or a recording (every %s argument: a name, a
 * path) is data, escaped as above, so a name cannot end the line or start a fake one.
 * sio_vsnprintf_text: vsnprintf with every %s argument escaped (precision: at most that many
 * bytes of the argument, before escaping); the conversions of C99 and %m; the length the
 * whole message has (buf holds what fits, NUL-terminated when len > 0), or -1 for a
 * conversion it does not take (%n, %ls). sio_fputs_message: a message so formatted, to fp:
 * its newlines as lines, anything else escaped (a message built without the rule above). */
int sio_vsnprintf_text(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int sio_snprintf_text(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sio_fputs_message(const char *msg, FILE *fp);
/* s as a JSON string, quotes included: '"' and '\\' escaped, what text escapes as \uXXXX
 * (C0 controls \u00NN), a byte that is not UTF-8 as \ufffd: valid JSON whatever s holds. */
int sio_fput_json_str(const char *s, FILE *fp);

/* The length (1-4) of the valid UTF-8 sequence at s, whose first byte is not NUL; 0 when the
 * bytes there are not one (a stray continuation byte, a cut, overlong or surrogate sequence,
 * above U+10FFFF). */
size_t sio_utf8_len(const unsigned char *s);
/* 1 when s is valid UTF-8 of at most max bytes without control characters (a tab allowed):
 * what a file or symbol name that means something looks like. */
int sio_utf8_is_text(const char *s, size_t max);
/* U+FFFD, what an output writes for a byte that is not valid UTF-8. */
#define SIO_UTF8_REPLACEMENT "\xef\xbf\xbd"

#endif
