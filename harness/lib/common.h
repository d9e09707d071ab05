/* SPDX-License-Identifier: MIT */
/* Shared conventions of rocelab: error returns, logging, exit codes, small helpers. */
#ifndef ROCELAB_COMMON_H
#define ROCELAB_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Error convention: int functions return 0 or -errno; pointer functions
 * return NULL and set errno.  Messages meant for the user are logged where
 * the failure is understood, with what went wrong and what to do.
 */

/* Process exit codes (stable interface, see docs/development.md). */
enum rl_exit {
	RL_EXIT_OK = 0,	   /* ok / pass */
	RL_EXIT_FAIL = 1,  /* a scenario failed */
	RL_EXIT_USAGE = 2, /* usage or input error; nothing was changed */
	RL_EXIT_SETUP = 3, /* lab or fault could not be set up or verified */
};

enum rl_log_level { RL_LOG_ERR, RL_LOG_WARN, RL_LOG_INFO, RL_LOG_DEBUG };

extern enum rl_log_level rl_log_level;

void rl_log(enum rl_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * vfprintf() to f as text a terminal shows and does not obey: what a message quotes
 * (a device's output, a file's bytes) may hold escape sequences; control characters
 * but newline and tab become \xNN.  rl_log() and the file:line:col errors of
 * inventories, scenarios and rules print this way.
 */
void rl_vfprintf_text(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* rl_vfprintf_text() with its arguments. */
void rl_fprintf_text(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Log macros keep errno intact so callers can log and then return -errno. */
#define rl_log_keep_errno(lvl, ...)                                                                \
	do {                                                                                       \
		if (rl_log_level >= (lvl)) {                                                       \
			int saved_errno__ = errno;                                                 \
			rl_log((lvl), __VA_ARGS__);                                                \
			errno = saved_errno__;                                                     \
		}                                                                                  \
	} while (0)
#define rl_err(...)  rl_log_keep_errno(RL_LOG_ERR, __VA_ARGS__)
#define rl_warn(...) rl_log_keep_errno(RL_LOG_WARN, __VA_ARGS__)
#define rl_info(...) rl_log_keep_errno(RL_LOG_INFO, __VA_ARGS__)
#define rl_dbg(...)  rl_log_keep_errno(RL_LOG_DEBUG, __VA_ARGS__)

/* Print "rocelab: <what>: <message> (see --help)" and return RL_EXIT_USAGE. */
int rl_usage_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Why into err (len bytes), and -e (-EIO when e is 0): the error return of a function that says
 * why. */
int rl_fail(char *err, size_t len, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define ROCEV2_UDP_PORT 4791 /* IANA port of RoCEv2 */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RL_STR_(x)    #x
#define RL_STR(x)     RL_STR_(x) /* a macro's value as a string literal */

/* Allocation that never returns NULL: out of memory aborts with a message (rl_oom()). */
void rl_oom(void) __attribute__((noreturn));
void *rl_xcalloc(size_t n, size_t size);
void *rl_xrealloc(void *p, size_t n, size_t size);
char *rl_xstrdup(const char *s);

/* Append one element to a growable array; returns a pointer to the zeroed new slot. */
#define RL_PUSH(arr, n)                                                                            \
	((arr) = rl_xrealloc((arr), (n) + 1, sizeof(*(arr))),                                      \
	 memset(&(arr)[(n)], 0, sizeof(*(arr))), &(arr)[(n)++])

/*
 * pid's start time (field 22 of /proc/PID/stat, clock ticks since boot), 0 when it
 * is not running: with its pid, what names one process for as long as the machine runs.
 * (Here, not in proc.c: the agent links what state.c reaches, and proc.c brings netlink.)
 */
unsigned long long rl_proc_start(pid_t pid);

/* Monotonic time in nanoseconds. */
unsigned long long rl_now_ns(void);

/* Wall-clock (CLOCK_REALTIME) nanoseconds: probe, fault and verdict times share it across hosts. */
unsigned long long rl_realtime_ns(void);

/*
 * strtod() of a decimal as people write one in a scenario, an inventory or on a
 * command line: [+-]digits[.digits][e[+-]digits].  strtod() alone also took
 * "0x10" as 16, "inf" and "nan": none passes here (*end stays at s).  errno
 * ERANGE as strtod() sets it.
 */
double rl_strtod(const char *s, char **end);

/*
 * True when NAME is 1..maxlen characters of [A-Za-z0-9_.:-] (safe on any command line),
 * not led by '-' and not made only of dots (".." would name a folder above).
 */
bool rl_name_ok(const char *name, size_t maxlen);
/* A test's name as a run gives it, NAME or NAME#N (a scenario twice): a folder in its results. */
bool rl_test_name_ok(const char *name, size_t maxlen);
/* A file of a run's folder (a plot, its script, its data): [A-Za-z0-9_.-]+ ending in ext, no dot
 * first. */
bool rl_file_name_ok(const char *name, const char *ext);

/*
 * rl_name_ok() that also admits '/', as switch port names carry it (EOS
 * "Ethernet1/1", NVUE breakouts "swp1s0" do not, SONiC aliases "etp1/1" do).
 * Still safe on a command line: no shell metacharacter, no leading '-'.
 */
bool rl_port_name_ok(const char *name, size_t maxlen);

/*
 * Parse "10s", "250ms", "1.5m", "2h" into milliseconds; -EINVAL when malformed or
 * when a number other than 0 has no unit (issue 58: "20" is 20 what?).
 */
int rl_parse_duration_ms(const char *s, long long *ms);
/* The same in microseconds, which also takes "us" ("500us", "1.5ms"). */
int rl_parse_duration_us(const char *s, long long *us);
/* A duration as a person writes it and rl_parse_duration_ms takes back: "20s", "1500ms". */
const char *rl_format_duration_ms(long long ms, char *buf, size_t len);
/*
 * What an error about a duration outside [lo_ms, hi_ms] asks for: "give a
 * duration from 1 ms to 10 s (e.g. 500ms, 2s)", its two examples in the range
 * ("500ms, 20s" where both fit).
 */
const char *rl_duration_range(long long lo_ms, long long hi_ms, char *buf, size_t len);

/* Parse "100g", "25G", "10mbit", "1gbit", "400000" (Mbit/s) into Mbit/s; -EINVAL when malformed. */
int rl_parse_rate_mbps(const char *s, unsigned long long *mbps);

/* Write all of buf to path (mode 0600), fsync'ing it; -errno on failure. */
int rl_write_file(const char *path, const char *buf, size_t len);
/* The same with the mode given (less the umask): 0644 for results and logs people archive. */
int rl_write_file_mode(const char *path, const char *buf, size_t len, unsigned mode);

/*
 * Read a whole file into a new NUL-terminated buffer; free() it.  NULL+errno
 * on failure; a file someone names must be a regular file (else EINVAL) of at
 * most RL_READ_MAX bytes (else EFBIG): 'inventory: /dev/zero' is refused, not
 * read until memory runs out.  rl_read_strerror() says which, for the user.
 */
#define RL_READ_MAX (16u << 20)
char *rl_read_file(const char *path, size_t *len);
const char *rl_read_strerror(int e);

/*
 * For folders that are not rocelab's own (a results folder someone handed over):
 * a folder opened once, and what is read or written is a name in it, never a path
 * that could be swapped.  rl_open_dir() opens the folder a person named (a link
 * they made is theirs to make); rl_open_subdir() one inside it, refusing a link
 * (-ELOOP) or a file (-ENOTDIR); both return a descriptor to close() or -errno.
 * rl_read_at() is rl_read_file() that refuses a link (ELOOP); rl_replace_at() writes
 * a new file beside name and renames it over name, so a link or hard link planted at
 * name is replaced, never written through (0 or -errno).
 */
int rl_open_dir(const char *path);
int rl_open_subdir(int dirfd, const char *name);
char *rl_read_at(int dirfd, const char *name, size_t *len);
int rl_replace_at(int dirfd, const char *name, const char *buf, size_t len, unsigned mode);

/* This process's peak resident set (VmHWM) in KiB, 0 when unknown. */
unsigned rl_peak_rss_kb(void);
/* This process's user + system CPU time so far, microseconds. */
unsigned long long rl_cpu_us(void);

/* qsort() that takes an empty array (base may be NULL when n is 0, which qsort does not). */
void rl_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* mkdir -p with the given mode; -errno on failure. */
int rl_mkdir_p(const char *path, unsigned mode);

/* SHA-256 of a file's bytes as 64 hex digits (OpenSSL's libcrypto); -errno on failure. */
int rl_sha256_file(const char *path, char hex[65]);

/* t (CLOCK_REALTIME seconds; one gmtime cannot take: the epoch) in UTC as strftime's fmt has
 * it, into buf; returns buf. */
const char *rl_utc(double t, const char *fmt, char *buf, size_t len)
    __attribute__((format(strftime, 2, 0)));

/*
 * rel in rocelab's data (inventories, scenarios): beside the binary in a build
 * tree (EXE/../rel) when it is there, else installed (ROCELAB_DATADIR/rel).
 * Into buf; returns buf.
 */
const char *rl_data_path(const char *rel, char *buf, size_t len);

/* rm -rf of a directory tree that rocelab owns; -errno on failure. */
int rl_rm_rf(const char *path);

#include <signal.h>
/* Set by SIGINT/SIGTERM/SIGHUP once rl_signals_install() ran; long operations poll it and unwind.
 */
extern volatile sig_atomic_t rl_interrupted;
void rl_signals_install(void);

/* XML/HTML-escape s into buf; control characters go. */
const char *rl_xml_escape(const char *s, char *buf, size_t len);
/*
 * s as text a gnuplot script may hold, in a '...' or "..." string or a # comment:
 * only letters, digits, space, _.,:;=+-/()%<>[]#!?&*~| and bytes from 0x80 up (UTF-8)
 * pass; any other byte becomes '_'. gnuplot runs `...` inside "..." and expands @macros,
 * and a quote or newline would end the string or comment: none of them can pass, so no
 * text from a device, a results folder or a history reaches gnuplot as a command.
 */
const char *rl_gp_text(const char *s, char *buf, size_t len);
/*
 * s written to f as XML or HTML text of any length (also fit for a double-
 * quoted attribute): & < > " escaped, newlines and tabs kept, other control
 * characters left out.
 */
void rl_xml_fputs(FILE *f, const char *s);

#endif
