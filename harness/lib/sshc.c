// SPDX-License-Identifier: MIT
/* SSH sessions to lab devices over libssh, refusing any host key the lab does not know. */
#define _GNU_SOURCE
#include "harness/lib/sshc.h"

#include "harness/lib/common.h"
#include "harness/lib/sbuf.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libssh/libssh.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct sshc {
	ssh_session s;
};

static void hold_signals(sigset_t *old);

/*
 * A device that stops answering (its management link down, powered off) is
 * given up in about 10 s, not at a command's own timeout (30 s): the kernel
 * drops the connection when what was sent goes unacknowledged for
 * SSH_DEAD_PEER_S, or an idle one when keepalives go unanswered for as long.
 * A command that takes long on a device that answers is not cut short.
 */
#define SSH_DEAD_PEER_S 10

static void dead_peer_timeout(int fd)
{
	int on = 1, idle = SSH_DEAD_PEER_S / 2, intvl = 2, cnt = SSH_DEAD_PEER_S / 2 / 2;
	unsigned user_ms = SSH_DEAD_PEER_S * 1000;

	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms));
}

/*
 * A session to t, connected but not logged in, that trusts only
 * t->known_hosts.  NULL with a reason in err and errno (ECONNREFUSED,
 * ETIMEDOUT, EHOSTUNREACH, EIO).
 */
static ssh_session session_open(const struct sshc_target *t, int timeout_s, char *err,
				size_t errlen)
{
	ssh_session s = ssh_new();
	char addr[INET_ADDRSTRLEN];
	int strict = 1;
	long timeout = timeout_s;
	bool process_config = false;
	unsigned port = t->ssh->port ? t->ssh->port : 22;

	inet_ntop(AF_INET, &t->addr, addr, sizeof(addr));
	if (!s) {
		snprintf(err, errlen, "libssh: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	ssh_options_set(s, SSH_OPTIONS_HOST, addr);
	ssh_options_set(s, SSH_OPTIONS_PORT, &port);
	ssh_options_set(s, SSH_OPTIONS_USER, t->ssh->user);
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
	ssh_options_set(s, SSH_OPTIONS_STRICTHOSTKEYCHECK, &strict);
	/* Only the lab's own known_hosts counts: not ~/.ssh, not /etc/ssh, not ssh_config. */
	ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, t->known_hosts);
	ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, t->known_hosts);
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &process_config);
	if (ssh_connect(s) != SSH_OK) {
		const char *m = ssh_get_error(s);

		errno = strstr(m, "refused")  ? ECONNREFUSED
			: strstr(m, "imeout") ? ETIMEDOUT
			: strstr(m, "nreach") ? EHOSTUNREACH
					      : EIO;
		snprintf(err, errlen, "cannot connect to %s (%s:%u): %s", t->name, addr, port, m);
		ssh_free(s);
		return NULL;
	}
	dead_peer_timeout(ssh_get_fd(s));
	/* not inherited: a process this one starts (an agent, gnuplot) holds no session */
	if (ssh_get_fd(s) >= 0)
		fcntl(ssh_get_fd(s), F_SETFD, FD_CLOEXEC);
	return s;
}

static struct sshc *do_connect(const struct sshc_target *t, int timeout_s, char *err, size_t errlen)
{
	struct sshc *c = rl_xcalloc(1, sizeof(*c));
	const char *known_hosts = t->known_hosts;
	char addr[INET_ADDRSTRLEN];
	int e = EIO;
	ssh_key pk = NULL;

	inet_ntop(AF_INET, &t->addr, addr, sizeof(addr));
	c->s = session_open(t, timeout_s, err, errlen);
	if (!c->s) {
		e = errno;
		free(c);
		errno = e;
		return NULL;
	}
	switch (ssh_session_is_known_server(c->s)) {
	case SSH_KNOWN_HOSTS_OK:
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		snprintf(err, errlen,
			 "host key of %s (%s) does not match %s: refusing to log in (if the switch "
			 "was reinstalled, update that file)",
			 t->name, addr, known_hosts);
		e = EPERM;
		goto disconnect;
	default:
		snprintf(
		    err, errlen,
		    "host key of %s (%s) is not in %s: refusing to log in (add it there first)",
		    t->name, addr, known_hosts);
		e = EPERM;
		goto disconnect;
	}
	switch (t->ssh->auth) {
	case INV_AUTH_LAB_KEY:
	case INV_AUTH_KEY_FILE: {
		const char *path = t->ssh->auth == INV_AUTH_LAB_KEY ? t->lab_key : t->ssh->key_file;
		struct stat st;

		/* A path from an inventory: a regular file of a key's size, before libssh reads it.
		 */
		if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > (1 << 20))) {
			snprintf(err, errlen, "the private key %s is %s", path,
				 S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
			e = EINVAL;
			goto disconnect;
		}
		/* as ssh itself: a private key others may read is no longer private */
		if (stat(path, &st) == 0 && (st.st_mode & 077)) {
			snprintf(err, errlen,
				 "the private key %s can be read by others (mode %03o): 'chmod 600 "
				 "%s', as ssh requires",
				 path, (unsigned)(st.st_mode & 0777), path);
			e = EACCES;
			goto disconnect;
		}
		if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL, &pk) != SSH_OK) {
			snprintf(err, errlen, "cannot read the private key %s", path);
			e = EACCES;
			goto disconnect;
		}
		if (ssh_userauth_publickey(c->s, NULL, pk) != SSH_AUTH_SUCCESS) {
			snprintf(err, errlen, "%s refused key %s for user %s", t->name, path,
				 t->ssh->user);
			e = EACCES;
			goto free_key;
		}
		break;
	}
	case INV_AUTH_AGENT:
		if (ssh_userauth_agent(c->s, NULL) != SSH_AUTH_SUCCESS) {
			snprintf(err, errlen, "%s refused every ssh-agent key for user %s", t->name,
				 t->ssh->user);
			e = EACCES;
			goto disconnect;
		}
		break;
	default:
		snprintf(err, errlen, "%s has no ssh credential", t->name);
		e = EACCES;
		goto disconnect;
	}
	ssh_key_free(pk);
	return c;
free_key:
	ssh_key_free(pk);
disconnect:
	ssh_disconnect(c->s);
	ssh_free(c->s);
	free(c);
	errno = e;
	return NULL;
}

/* A new channel running cmd (ssh_channel_free() it); NULL with *ret -ENOMEM or -EIO. */
static ssh_channel exec_channel(struct sshc *c, const char *cmd, int *ret)
{
	ssh_channel ch = ssh_channel_new(c->s);

	if (!ch) {
		*ret = -ENOMEM;
		return NULL;
	}
	if (ssh_channel_open_session(ch) != SSH_OK || ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		ssh_channel_free(ch);
		*ret = -EIO;
		return NULL;
	}
	return ch;
}

static int do_exec(struct sshc *c, const char *cmd, const char *input, char **out, char **errout,
		   int timeout_ms)
{
	struct sbuf bo = {0}, be = {0};
	unsigned long long deadline = rl_now_ns() + (unsigned long long)timeout_ms * 1000000ULL;
	int ret = 0;
	ssh_channel ch = exec_channel(c, cmd, &ret);

	if (!ch)
		goto outputs;
	for (size_t off = 0, len = input ? strlen(input) : 0; off < len;) {
		int n = ssh_channel_write(ch, input + off, (uint32_t)(len - off));

		if (n <= 0) {
			ret = -EIO;
			goto close_channel;
		}
		off += (size_t)n;
	}
	ssh_channel_send_eof(ch);
	while (!ssh_channel_is_eof(ch)) {
		char tmp[4096];
		int n;

		if (rl_now_ns() > deadline) {
			ret = -ETIMEDOUT;
			goto close_channel;
		}
		n = ssh_channel_read_timeout(ch, tmp, sizeof(tmp), 0, 100);
		if (n == SSH_ERROR) {
			ret = -EIO;
			goto close_channel;
		}
		if (n > 0)
			sb_add(&bo, tmp, (size_t)n);
		n = ssh_channel_read_timeout(ch, tmp, sizeof(tmp), 1, 0);
		if (n > 0)
			sb_add(&be, tmp, (size_t)n);
		/* a device's answer is bounded: one that streams without end is cut, not kept */
		if (bo.len + be.len > SSHC_OUT_MAX) {
			ret = -EFBIG;
			goto close_channel;
		}
	}
	/* Drain stderr that arrived with EOF. */
	for (;;) {
		char tmp[4096];
		int n = ssh_channel_read_timeout(ch, tmp, sizeof(tmp), 1, 0);

		if (n <= 0)
			break;
		sb_add(&be, tmp, (size_t)n);
	}
	ret = ssh_channel_get_exit_status(ch);
	if (ret < 0)
		ret = -EIO;
close_channel:
	ssh_channel_close(ch);
	ssh_channel_free(ch);
outputs:
	if (out)
		*out = sb_take(&bo);
	sb_free(&bo);
	if (errout)
		*errout = sb_take(&be);
	sb_free(&be);
	return ret;
}

/* One line of ch's stdout into buf (no newline): 0, -ETIMEDOUT past deadline, -EPROTO at EOF. */
static int read_line(ssh_channel ch, char *buf, size_t len, unsigned long long deadline)
{
	size_t o = 0;

	for (;;) {
		char c;
		int n;

		if (rl_now_ns() > deadline)
			return -ETIMEDOUT;
		n = ssh_channel_read_timeout(ch, &c, 1, 0, 100);
		if (n == SSH_ERROR)
			return -EIO;
		if (n == 0 && ssh_channel_is_eof(ch))
			return -EPROTO;
		if (n <= 0)
			continue;
		if (c == '\n')
			break;
		if (o + 1 < len)
			buf[o++] = c;
	}
	buf[o] = '\0';
	return 0;
}

static int do_exchange(struct sshc *c, const char *cmd, struct sshc_stamp *st, int n,
		       int timeout_ms)
{
	int ret = 0;
	ssh_channel ch = exec_channel(c, cmd, &ret);

	if (!ch)
		return ret;
	for (int i = 0; i < n && !ret; i++) {
		unsigned long long deadline =
		    rl_now_ns() + (unsigned long long)timeout_ms * 1000000ULL;

		st[i].sent = (double)rl_realtime_ns() / 1e9;
		if (ssh_channel_write(ch, "\n", 1) != 1) {
			ret = -EIO;
			break;
		}
		ret = read_line(ch, st[i].reply, sizeof(st[i].reply), deadline);
		st[i].got = (double)rl_realtime_ns() / 1e9;
	}
	ssh_channel_send_eof(ch);
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return ret;
}

int sshc_exchange(struct sshc *c, const char *cmd, struct sshc_stamp *st, int n, int timeout_ms)
{
	sigset_t old;
	int r;

	hold_signals(&old);
	r = do_exchange(c, cmd, st, n, timeout_ms);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/*
 * SIGINT, SIGTERM and SIGHUP wait while libssh talks to a device.  A signal that
 * interrupted its poll left the session in error until its timeout ran out
 * (10 s under qemu), and a command cut in half leaves a device half-changed.
 * Both calls are bounded by their timeouts; the signal arrives on return.
 */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

struct sshc *sshc_connect(const struct sshc_target *t, int timeout_s, char *err, size_t errlen)
{
	sigset_t old;
	struct sshc *c;
	int e;

	hold_signals(&old);
	c = do_connect(t, timeout_s, err, errlen);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return c;
}

int sshc_exec(struct sshc *c, const char *cmd, const char *input, char **out, char **errout,
	      int timeout_ms)
{
	sigset_t old;
	int r;

	hold_signals(&old);
	r = do_exec(c, cmd, input, out, errout, timeout_ms);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

static int do_host_key(const struct sshc_target *t, int timeout_s, struct sshc_host_key *k,
		       char *err, size_t errlen)
{
	ssh_session s = session_open(t, timeout_s, err, errlen);
	char *entry = NULL;
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp;
	int ret = 0;

	if (!s)
		return -errno;
	if (ssh_get_server_publickey(s, &key) != SSH_OK ||
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) != 0 ||
	    !(fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen))) {
		snprintf(err, errlen, "%s sent no host key libssh can read", t->name);
		ret = -EPROTO;
		goto out;
	}
	snprintf(k->fingerprint, sizeof(k->fingerprint), "%s", fp);
	ssh_string_free_char(fp);
	snprintf(k->type, sizeof(k->type), "%s", ssh_key_type_to_char(ssh_key_type(key)));
	switch (ssh_session_is_known_server(s)) {
	case SSH_KNOWN_HOSTS_OK:
		k->state = SSHC_KEY_KNOWN;
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		k->state = SSHC_KEY_CHANGED;
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		k->state = SSHC_KEY_NEW;
		break;
	default:
		snprintf(err, errlen, "cannot read %s: %s", t->known_hosts, ssh_get_error(s));
		ret = -EIO;
		goto out;
	}
	/* the key as a known_hosts line, so that the very key shown is the one written */
	if (ssh_session_export_known_hosts_entry(s, &entry) == SSH_OK && entry)
		entry[strcspn(entry, "\n")] = '\0';
	if (!entry || !*entry || strpbrk(entry, "\r\n") || strlen(entry) + 2 > sizeof(k->entry)) {
		snprintf(err, errlen, "%s: its host key cannot be written as a known_hosts line",
			 t->name);
		ret = -EPROTO;
		goto out;
	}
	snprintf(k->entry, sizeof(k->entry), "%s\n", entry);
out:
	ssh_string_free_char(entry);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	ssh_disconnect(s);
	ssh_free(s);
	return ret;
}

int sshc_host_key(const struct sshc_target *t, int timeout_s, struct sshc_host_key *k, char *err,
		  size_t errlen)
{
	sigset_t old;
	int r;

	hold_signals(&old);
	r = do_host_key(t, timeout_s, k, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

int sshc_record_key(const char *known_hosts, const struct sshc_host_key *k, char *err,
		    size_t errlen)
{
	size_t len = strlen(k->entry);
	int fd;

	if (k->state != SSHC_KEY_NEW || !len || k->entry[len - 1] != '\n') {
		snprintf(err, errlen, "no new key to write to %s", known_hosts);
		return -EINVAL;
	}
	fd = open(known_hosts, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, k->entry, len) != (ssize_t)len || fsync(fd) < 0) {
		int e = errno ? errno : EIO;

		snprintf(err, errlen, "cannot add a key to %s: %s", known_hosts, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

void sshc_close(struct sshc *c)
{
	if (!c)
		return;
	ssh_disconnect(c->s);
	ssh_free(c->s);
	free(c);
}
