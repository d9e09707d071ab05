// SPDX-License-Identifier: MIT
/* Logging, allocation, parsing and file helpers shared by every part of rocelab. */
#define _GNU_SOURCE
#include "harness/lib/common.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum rl_log_level rl_log_level = RL_LOG_INFO;

/*
 * head, fmt's text with control characters (but newline and tab) as \xNN, and tail, into
 * buf as one string (a longer message is cut).  Written with one call: stderr is
 * unbuffered, and a character at a time was a write(2) each (agents under qemu lost half
 * their probes to it).
 */
__attribute__((format(printf, 4, 0))) static size_t
text_of_msg(char *out, size_t len, const char *head, const char *fmt, va_list ap, const char *tail)
{
	char body[4096];
	size_t o = (size_t)snprintf(out, len, "%s", head);

	if (o >= len)
		o = len - 1;
	if (vsnprintf(body, sizeof(body), fmt, ap) < 0)
		body[0] = '\0';
	for (const char *p = body; *p && o + 5 < len; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	o += (size_t)snprintf(out + o, len - o, "%s", tail);
	return o < len ? o : len - 1;
}

void rl_fprintf_text(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rl_vfprintf_text(f, fmt, ap);
	va_end(ap);
}

void rl_vfprintf_text(FILE *f, const char *fmt, va_list ap)
{
	char out[4 * 4096 + 64];

	fwrite(out, 1, text_of_msg(out, sizeof(out), "", fmt, ap, ""), f);
}

/* A message to stderr between head and tail, as text (rl_vfprintf_text()), in one write. */
__attribute__((format(printf, 3, 0))) static void say(const char *head, const char *tail,
						      const char *fmt, va_list ap)
{
	char out[4 * 4096 + 512];

	fwrite(out, 1, text_of_msg(out, sizeof(out), head, fmt, ap, tail), stderr);
}

void rl_log(enum rl_log_level lvl, const char *fmt, ...)
{
	static const char *const prefix[] = {
	    [RL_LOG_ERR] = "rocelab: error: ",
	    [RL_LOG_WARN] = "rocelab: warning: ",
	    [RL_LOG_INFO] = "rocelab: ",
	    [RL_LOG_DEBUG] = "rocelab: debug: ",
	};
	va_list ap;

	if (lvl > rl_log_level)
		return;
	va_start(ap, fmt);
	say(prefix[lvl], "\n", fmt, ap);
	va_end(ap);
}

int rl_usage_error(const char *what, const char *fmt, ...)
{
	char head[256];
	va_list ap;

	snprintf(head, sizeof(head), "rocelab: %.200s%s", what ? what : "", what ? ": " : "");
	va_start(ap, fmt);
	say(head, " (see --help)\n", fmt, ap);
	va_end(ap);
	return RL_EXIT_USAGE;
}

int rl_fail(char *err, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -(e ? e : EIO);
}

void rl_oom(void)
{
	fputs("rocelab: out of memory\n", stderr);
	abort();
}

void *rl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		rl_oom();
	return p;
}

void *rl_xrealloc(void *p, size_t n, size_t size)
{
	void *q = reallocarray(p, n ? n : 1, size ? size : 1);

	if (!q)
		rl_oom();
	return q;
}

char *rl_xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		rl_oom();
	return d;
}

unsigned long long rl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

unsigned long long rl_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static bool name_chars_ok(const char *name, size_t maxlen, const char *extra)
{
	size_t n = 0;

	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++, n++) {
		if (!isalnum((unsigned char)*p) && !strchr(extra, *p))
			return false;
	}
	/* A leading '-' could be taken for an option by a switch CLI; "." and ".." name folders. */
	return n <= maxlen && name[0] != '-' && strspn(name, ".") < n;
}

bool rl_name_ok(const char *name, size_t maxlen)
{
	return name_chars_ok(name, maxlen, "_.:-");
}

bool rl_test_name_ok(const char *name, size_t maxlen)
{
	const char *hash = strchr(name ? name : "", '#');
	size_t base = hash ? (size_t)(hash - name) : 0;
	char buf[256];

	if (!hash)
		return rl_name_ok(name, maxlen);
	if (base >= sizeof(buf) || !hash[1] || strspn(hash + 1, "0123456789") != strlen(hash + 1) ||
	    strlen(hash + 1) > 6)
		return false;
	snprintf(buf, sizeof(buf), "%.*s", (int)base, name);
	return rl_name_ok(buf, maxlen);
}

bool rl_file_name_ok(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);

	return n > e && n < 200 && name[0] != '.' && !strcmp(name + n - e, ext) &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
		   n;
}

bool rl_port_name_ok(const char *name, size_t maxlen)
{
	return name_chars_ok(name, maxlen, "_.:-/");
}

double rl_strtod(const char *s, char **end)
{
	const char *p = s;
	char buf[80];
	size_t n;
	double v;

	*end = (char *)s;
	while (*p == ' ' || *p == '\t') /* as strtod() */
		p++;
	s = p;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p);)
			p++;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2]))))
		for (p += 2; isdigit((unsigned char)*p);)
			p++;
	if ((n = (size_t)(p - s)) >= sizeof(buf)) {
		errno = ERANGE;
		return 0;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtod(buf, NULL); /* errno ERANGE as strtod's */
	*end = (char *)p;
	return v;
}

unsigned long long rl_proc_start(pid_t pid)
{
	char path[64], *stat, *c, *save = NULL, *w = NULL;
	unsigned long long t = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pid <= 0 || !(stat = rl_read_file(path, NULL)))
		return 0;
	/* Field 22 (starttime), counted after the command name's closing parenthesis (field 2). */
	if ((c = strrchr(stat, ')'))) {
		w = strtok_r(c + 1, " ", &save);
		for (int field = 3; w && field < 22; field++)
			w = strtok_r(NULL, " ", &save);
	}
	if (w)
		t = strtoull(w, NULL, 10);
	free(stat);
	return t;
}

/* Parse a non-negative decimal with an optional fraction; returns the end pointer or NULL. */
static const char *parse_number(const char *s, double *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return NULL;
	errno = 0;
	*v = rl_strtod(s, &end);
	if (errno || !isfinite(*v))
		return NULL;
	return end;
}

/* r >= 0 (below 2^53) to the nearest integer, halves up, as llround() gives it: without
 * libm, which an agent then need not map. */
static long long round_nonneg(double r)
{
	long long i = (long long)r;

	return r - (double)i >= 0.5 ? i + 1 : i;
}

/* A duration in units of one 'scale' ms; us: also take microseconds. */
static int parse_duration(const char *s, double scale, bool us, long long *out)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {{"ms", 1}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}, {"", 1e3}, {"us", 1e-3}};
	double v;
	const char *u = parse_number(s, &v);

	if (!u)
		return -EINVAL;
	/* issue 58: a bare number is refused but 0 ("interval: 20" once meant 20 s silently) */
	if (!*u && v != 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units) - !us; i++) {
		if (strcmp(u, units[i].unit) == 0) {
			double r = v * units[i].ms / scale;

			if (r > 1e15)
				return -ERANGE;
			*out = round_nonneg(r);
			return 0;
		}
	}
	return -EINVAL;
}

int rl_parse_duration_ms(const char *s, long long *ms)
{
	return parse_duration(s, 1, false, ms);
}

const char *rl_format_duration_ms(long long ms, char *buf, size_t len)
{
	if (ms && ms % 1000 == 0)
		snprintf(buf, len, "%llds", ms / 1000);
	else
		snprintf(buf, len, "%lldms", ms);
	return buf;
}

const char *rl_duration_range(long long lo_ms, long long hi_ms, char *buf, size_t len)
{
	/* the usual two first; then others, so that a narrow range still gets two of its own */
	static const long long pick[] = {500, 20000, 2000, 100,	  1000,	  10000,  5000,
					 50,  10,    1,	   60000, 300000, 3600000};
	long long ex[2] = {lo_ms, hi_ms};
	char a[32], b[32];
	size_t k = 0;

	for (size_t i = 0; i < sizeof(pick) / sizeof(pick[0]) && k < 2; i++)
		if (pick[i] >= lo_ms && pick[i] <= hi_ms)
			ex[k++] = pick[i];
	if (k == 1) /* the one that fits, and an end of the range */
		ex[1] = ex[0] == hi_ms ? lo_ms : hi_ms;
	snprintf(buf, len, "give a duration from %lld ms to %.10g s (e.g. %s, %s)", lo_ms,
		 (double)hi_ms / 1000, rl_format_duration_ms(ex[0], a, sizeof(a)),
		 rl_format_duration_ms(ex[1], b, sizeof(b)));
	return buf;
}

int rl_parse_duration_us(const char *s, long long *us)
{
	return parse_duration(s, 1e-3, true, us);
}

int rl_parse_rate_mbps(const char *s, unsigned long long *mbps)
{
	static const struct {
		const char *unit;
		double mbps;
	} units[] = {
	    {"kbit", 1e-3}, {"k", 1e-3},   {"mbit", 1}, {"m", 1}, {"gbit", 1e3},
	    {"g", 1e3},	    {"tbit", 1e6}, {"t", 1e6},	{"", 1},
	};
	double v;
	const char *u = parse_number(s, &v);

	if (!u)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(u, units[i].unit) == 0) {
			double r = v * units[i].mbps;

			if (r > 1e9)
				return -ERANGE;
			*mbps = (unsigned long long)round_nonneg(r);
			return 0;
		}
	}
	return -EINVAL;
}

int rl_write_file(const char *path, const char *buf, size_t len)
{
	return rl_write_file_mode(path, buf, len, 0600);
}

int rl_write_file_mode(const char *path, const char *buf, size_t len, unsigned mode)
{
	/* never through a link planted where a file of ours goes (/tmp, a results folder) */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto close_fd;
		}
		buf += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0)
		ret = -errno;
close_fd:
	close(fd);
	return ret;
}

/* rl_read_file() of an open file; closes fd. */
static char *read_fd(int fd, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	int e = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	if (e)
		goto out;
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = rl_xrealloc(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > RL_READ_MAX) {
			e = EFBIG;
			break;
		}
	}
out:
	close(fd);
	if (e) {
		free(buf);
		errno = e;
		return NULL;
	}
	if (!buf)
		buf = rl_xrealloc(NULL, 1, 1);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

char *rl_read_file(const char *path, size_t *lenp)
{
	return read_fd(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), lenp);
}

char *rl_read_at(int dirfd, const char *name, size_t *lenp)
{
	if (strchr(name, '/')) {
		errno = EINVAL;
		return NULL;
	}
	return read_fd(openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW), lenp);
}

int rl_replace_at(int dirfd, const char *name, const char *buf, size_t len, unsigned mode)
{
	char tmp[NAME_MAX + 1];
	unsigned long long r = rl_realtime_ns() ^ ((unsigned long long)getpid() << 32);
	int fd = -1, ret = 0;

	if (strchr(name, '/') || strlen(name) > NAME_MAX - 24)
		return -EINVAL;
	for (int tries = 0; fd < 0 && tries < 16; tries++, r = r * 6364136223846793005ULL + 1) {
		snprintf(tmp, sizeof(tmp), ".%s.%016llx", name, r);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)mode);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	while (len && !ret) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0)
			buf += n, len -= (size_t)n;
	}
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	/* rename replaces the name itself: a link planted there is replaced, not followed */
	if (!ret && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	return ret;
}

int rl_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int rl_open_subdir(int dirfd, const char *name)
{
	int fd = strchr(name, '/')
		     ? (errno = EINVAL, -1)
		     : openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

const char *rl_read_strerror(int e)
{
	if (e == EINVAL)
		return "not a regular file";
	if (e == EFBIG)
		return "larger than 16 MiB, more than rocelab reads";
	return strerror(e);
}

void rl_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

int rl_mkdir_p(const char *path, unsigned mode)
{
	char tmp[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int rl_rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR)
			return unlink(path) < 0 ? -errno : 0;
		return -errno;
	}
	while ((e = readdir(d))) {
		char sub[4096];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (e->d_type == DT_DIR) {
			int r = rl_rm_rf(sub);

			if (r && !ret)
				ret = r;
		} else if (unlink(sub) < 0 && !ret) {
			ret = -errno;
		}
	}
	closedir(d);
	if (rmdir(path) < 0 && !ret)
		ret = -errno;
	return ret;
}

volatile sig_atomic_t rl_interrupted;

static void on_signal(int sig)
{
	rl_interrupted = sig;
}

void rl_signals_install(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	/* No SA_RESTART: blocking calls return EINTR so loops notice the request promptly. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal: 'inject --hold' reverts as at SIGTERM, not killed mid-fault */
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

const char *rl_gp_text(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;
		bool ok = c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || strchr(" _.,:;=+-/()%<>[]#!?&*~|", c);

		buf[o++] = ok ? (char)c : '_';
	}
	if (len)
		buf[o] = '\0';
	return buf;
}

const char *rl_xml_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s && *s && o + 7 < len; s++) {
		const char *rep = NULL;

		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&apos;";
			break;
		case '\\':
			rep = "&#92;";
			break;
		case '\n':
		case '\r':
		case '\t':
			rep = " ";
			break;
		}
		if (rep) {
			size_t k = strlen(rep);

			memcpy(buf + o, rep, k);
			o += k;
		} else if ((unsigned char)*s >= 0x20) {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
	return buf;
}

void rl_xml_fputs(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
}

const char *rl_utc(double t, const char *fmt, char *buf, size_t len)
{
	/* a time from a file (results.json, a history) may be any double: out of range is 0 */
	time_t s = t > -1e11 && t < 1e11 ? (time_t)t : 0;
	struct tm tm;

	if (!len)
		return buf;
	if (!gmtime_r(&s, &tm)) { /* a time gmtime cannot take: the epoch */
		s = 0;
		gmtime_r(&s, &tm);
	}
	/* fmt is checked at each call: rl_utc has strftime's format attribute */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (!strftime(buf, len, fmt, &tm))
		buf[0] = '\0';
#pragma GCC diagnostic pop
	return buf;
}

const char *rl_data_path(const char *rel, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		snprintf(buf, len, "%s/../%s", dirname(exe), rel);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	snprintf(buf, len, "%s/%s", ROCELAB_DATADIR, rel);
	return buf;
}

unsigned rl_peak_rss_kb(void)
{
	char *s = rl_read_file("/proc/self/status", NULL), *p;
	unsigned kb = 0;

	if (s && (p = strstr(s, "VmHWM:")))
		kb = (unsigned)strtoul(p + 6, NULL, 10);
	free(s);
	return kb;
}

unsigned long long rl_cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ULL +
	       (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}
