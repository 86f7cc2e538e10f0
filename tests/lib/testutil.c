/* testutil.c - see testutil.h. Used by unit and e2e tests alike. */
#include "tests/lib/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap ? *cap * 2 : 4096);
		while (ncap < *len + n + 1)
			ncap *= 2;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

static char **merged_env(const char *const *extra)
{
	size_t n = 0, m = 0;
	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = calloc(n + m + 1, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		env[k++] = (char *)extra[i];
	for (size_t i = 0; i < n; i++) {
		int shadowed = 0;
		for (size_t j = 0; j < m; j++) {
			size_t l = strcspn(extra[j], "=");
			if (!strncmp(environ[i], extra[j], l) && environ[i][l] == '=')
				shadowed = 1;
		}
		if (!shadowed)
			env[k++] = environ[i];
	}
	return env;
}

int tu_run(struct tu_result *r, char *const argv[], const char *const *env_extra,
	   const void *in, size_t in_len, unsigned timeout_s)
{
	int pin[2], pout[2], perr[2];
	memset(r, 0, sizeof(*r));
	if (pipe(pin) || pipe(pout) || pipe(perr))
		return -errno;
	char **env = merged_env(env_extra);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		setpgid(0, 0);
		execvpe(argv[0], argv, env);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(env);
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	signal(SIGPIPE, SIG_IGN);
	size_t in_off = 0, out_cap = 0, err_cap = 0;
	if (!in || !in_len) {
		close(pin[1]);
		pin[1] = -1;
	} else {
		fcntl(pin[1], F_SETFL, O_NONBLOCK);
	}
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	time_t deadline = time(NULL) + (timeout_s ? timeout_s : 600);
	int open_fds = 2;
	while (open_fds > 0) {
		struct pollfd p[3] = { { pout[0], POLLIN, 0 }, { perr[0], POLLIN, 0 },
				       { pin[1], POLLOUT, 0 } };
		int rc = poll(p, pin[1] >= 0 ? 3 : 2, 1000);
		if (time(NULL) > deadline) {
			kill(-pid, SIGKILL);
			break;
		}
		if (rc <= 0)
			continue;
		char buf[65536];
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(i ? perr[0] : pout[0]);
				if (i)
					perr[0] = -1;
				else
					pout[0] = -1;
				open_fds--;
			} else if (i) {
				append(&r->err, &r->err_len, &err_cap, buf, (size_t)n);
			} else {
				append(&r->out, &r->out_len, &out_cap, buf, (size_t)n);
			}
		}
		if (pin[1] >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(pin[1], (const char *)in + in_off, in_len - in_off);
			if (n > 0)
				in_off += (size_t)n;
			if (n < 0 || in_off == in_len) {
				close(pin[1]);
				pin[1] = -1;
			}
		}
	}
	if (pin[1] >= 0)
		close(pin[1]);
	if (pout[0] >= 0)
		close(pout[0]);
	if (perr[0] >= 0)
		close(perr[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

int tu_sh(struct tu_result *r, const char *cmdline, unsigned timeout_s)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)cmdline, NULL };
	return tu_run(r, argv, NULL, NULL, 0, timeout_s);
}

int tu_sh_in(struct tu_result *r, const char *dir, const char *cmdline, unsigned timeout_s)
{
	char jp[4096], *full;
	int rc;

	if (!realpath(tu_build("jitprof"), jp))
		return -errno;
	/* ';', not '&&': a cmdline that starts a job (cmd & P=$!) must not take these with it */
	if (asprintf(&full, "cd '%s' || exit 1; J='%s'; export DEBUGINFOD_URLS=; %s", dir, jp,
		     cmdline) < 0)
		return -ENOMEM;
	rc = tu_sh(r, full, timeout_s);
	free(full);
	return rc;
}

int tu_cc_in(struct tu_result *r, const char *dir, const char *name, const char *src, size_t len,
	     const char *flags)
{
	char path[4200], cmd[4400];

	snprintf(path, sizeof(path), "%s/%s.c", dir, name);
	if (tu_write_file(path, src, len))
		return -EIO;
	snprintf(cmd, sizeof(cmd), "cc %s -o %s %s.c", flags, name, name);
	return tu_sh_in(r, dir, cmd, 300);
}

void tu_result_free(struct tu_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

char *tu_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *path;
	if (asprintf(&path, "%s/jitprof-%s-XXXXXX", base && *base ? base : "/tmp", tag) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	return path;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void tu_rmtree(const char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tu_build(const char *name)
{
	static char buf[4096];
	const char *b = getenv("JITPROF_BUILD");
	snprintf(buf, sizeof(buf), "%s/%s", b && *b ? b : "build", name);
	return buf;
}

int tu_have(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	char *dup = strdup(path), *save = NULL;
	int found = 0;
	for (char *d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char full[4096];
		snprintf(full, sizeof(full), "%s/%s", d, prog);
		found = access(full, X_OK) == 0;
	}
	free(dup);
	return found;
}

void *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 131072;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, 65536, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int tu_write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	size_t w = fwrite(buf, 1, len, f);
	int rc = fclose(f);
	return (w == len && rc == 0) ? 0 : -EIO;
}

size_t tu_long_dir(char *buf, size_t len, const char *base, int parts)
{
	char part[251];
	memset(part, 'p', 250);
	part[250] = 0;
	size_t n = (size_t)snprintf(buf, len, "%s", base);
	for (int i = 0; i < parts && n < len; i++) {
		n += (size_t)snprintf(buf + n, len - n, "/%s", part);
		if (n >= len || (mkdir(buf, 0755) && errno != EEXIST))
			return 0;
	}
	return n;
}

size_t tu_count(const char *hay, const char *needle)
{
	size_t n = 0, l = strlen(needle);
	if (!l)
		return 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += l)
		n++;
	return n;
}

const char *tu_java_env_sh(const char *agent_so)
{
	static char buf[8192];
	struct tu_result r;
	size_t len = 0;
	char *so = tu_read_file(agent_so, &len);
	int sanitized = so && memmem(so, len, "libasan.so", 10);

	free(so);
	buf[0] = 0;
	if (!sanitized || tu_sh(&r, "${CC:-cc} -print-file-name=libasan.so", 30) != 0)
		return buf;
	r.out[strcspn(r.out, "\n")] = 0;
	if (r.status == 0)
		snprintf(buf, sizeof(buf),
			 "env LD_PRELOAD='%s' ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:"
			 "handle_sigfpe=0:allow_user_segv_handler=1:detect_leaks=0 ", r.out);
	tu_result_free(&r);
	return buf;
}

const char *tu_self_map_path(const char *needle, char *buf, size_t len)
{
	char line[4608];
	FILE *f = fopen("/proc/self/maps", "re");
	buf[0] = 0;
	while (f && !buf[0] && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (p && strstr(p, needle))
			snprintf(buf, len, "%s", p);
	}
	if (f)
		fclose(f);
	return buf;
}

uint64_t tu_mul_inverse(uint64_t odd)
{
	uint64_t x = odd;	/* right to 3 bits; each Newton step doubles that */
	for (int i = 0; i < 5; i++)
		x *= 2 - odd * x;
	return x;
}

uint64_t tu_unxorshift(uint64_t y, unsigned s)
{
	uint64_t x = y;
	for (unsigned k = s; k < 64; k += s)
		x = y ^ (x >> s);
	return x;
}

static int word_is_text(uint64_t w)
{
	for (int i = 0; i < 8; i++, w >>= 8)
		if (!(w & 0xff))
			return 0;
	return 1;
}

int tu_name_of_words(uint64_t w0, uint64_t w1, char out[17])
{
	if (!word_is_text(w0) || !word_is_text(w1))
		return 0;
	memcpy(out, &w0, 8);
	memcpy(out + 8, &w1, 8);
	out[16] = 0;
	return 1;
}

void tu_crafted_names(char (*out)[17], size_t n, int (*make)(uint64_t i, char out[17]))
{
	size_t k = 0;
	for (uint64_t i = 0; k < n; i++)
		k += make(i, out[k]) != 0;
}

void tu_random_names(char (*out)[17], size_t n, const char *prefix, unsigned seed)
{
	size_t plen = strlen(prefix);
	for (size_t i = 0; i < n; i++) {
		memcpy(out[i], prefix, plen);
		for (size_t k = plen; k < 16; k++) {
			seed = seed * 1103515245u + 12345u;
			out[i][k] = (char)('a' + (seed >> 16) % 26);
		}
		out[i][16] = 0;
	}
}
