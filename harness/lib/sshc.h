/* SPDX-License-Identifier: MIT */
/* libssh client for lab devices: strict host-key checking against the lab's known_hosts, keys or
 * agent only. */
#ifndef ROCELAB_SSHC_H
#define ROCELAB_SSHC_H

#include "harness/lib/inventory.h"

#include <stdbool.h>

struct sshc;

/* Where to log in: any lab device, host or switch, with its inventory credential. */
struct sshc_target {
	const char *name;	   /* the inventory device, for messages */
	struct in_addr addr;	   /* its management address */
	const struct inv_ssh *ssh; /* user, port, credential reference */
	const char *known_hosts;   /* the file the lab owns: the only host keys trusted */
	const char *lab_key;	   /* private key behind 'credential: lab-key' (NULL: none) */
};

/*
 * Log into t.  A host key that is unknown or changed is refused.
 * Returns a new session (sshc_close()) or NULL with errno set and a
 * one-line reason in err: EACCES auth refused, EPERM host key refused,
 * ETIMEDOUT / ECONNREFUSED / EHOSTUNREACH network.  SIGINT and SIGTERM
 * are held until it returns (both calls here are bounded by their timeouts).
 */
struct sshc *sshc_connect(const struct sshc_target *t, int timeout_s, char *err, size_t errlen);

/*
 * Run cmd over an exec channel, feeding it input (NULL: nothing) on stdin.
 * out/errout (may be NULL) receive new NUL-terminated buffers to free().
 * Returns the remote exit status (0..255), or -errno (-ETIMEDOUT when it ran
 * longer than timeout_ms, -EFBIG when it printed more than SSHC_OUT_MAX).
 */
#define SSHC_OUT_MAX (64u << 20)
int sshc_exec(struct sshc *c, const char *cmd, const char *input, char **out, char **errout,
	      int timeout_ms);

/* One exchange of sshc_exchange(): a line sent, its one-line answer, this machine's clock. */
struct sshc_stamp {
	double sent;	/* CLOCK_REALTIME just before the line was written (s) */
	double got;	/* just after its answer's newline arrived */
	char reply[64]; /* the answer, without its newline (cut at 63 bytes) */
};

/*
 * Run cmd over an exec channel that answers each line it reads with one line
 * (a clock: 'while read -r _; do date +%s.%N; done'), and time n exchanges
 * on it, one after the other.  The channel's set-up (login shell, command
 * start) is in no exchange but the first.  Returns 0, or -errno (-ETIMEDOUT
 * when an answer took longer than timeout_ms, -EPROTO when cmd ended early).
 */
int sshc_exchange(struct sshc *c, const char *cmd, struct sshc_stamp *st, int n, int timeout_ms);

void sshc_close(struct sshc *c);

enum sshc_key_state {
	SSHC_KEY_KNOWN,	  /* in known_hosts, the same key */
	SSHC_KEY_NEW,	  /* not in known_hosts */
	SSHC_KEY_CHANGED, /* known_hosts has another key for this address */
};

struct sshc_host_key {
	char type[24];	      /* ssh-ed25519, ecdsa-sha2-nistp256, ... */
	char fingerprint[80]; /* SHA256:... as ssh-keygen -l prints it */
	enum sshc_key_state state;
	char entry[2048]; /* the key as a known_hosts line, newline-terminated */
};

/*
 * Connect to t without logging in and read its host key: its type,
 * fingerprint, known_hosts line and how it stands against t->known_hosts.
 * 0, or -errno with a one-line reason in err.
 */
int sshc_host_key(const struct sshc_target *t, int timeout_s, struct sshc_host_key *k, char *err,
		  size_t errlen);
/*
 * Append exactly k, a key sshc_host_key() read and found new (the one shown,
 * not a second connection's), to known_hosts.  0, or -errno with err.
 */
int sshc_record_key(const char *known_hosts, const struct sshc_host_key *k, char *err,
		    size_t errlen);

#endif
