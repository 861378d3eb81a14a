/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-vecsec: vecsec-gw control socket client (the protocol:
 * docs/control-protocol.md). One connection per
 * request (connect, send a line, half-close, read until the gateway closes),
 * each bounded by a timeout, so a dead or stuck gateway costs a charon
 * thread at most that long. Answers are checked before anything is used:
 * printable text, bounded size, a last line "OK..." or "ERR ..."; anything
 * else is a malformed answer, logged and treated as a failure.
 *
 * Requests carry keys, so the listener is checked before anything is sent:
 * its credentials (SO_PEERCRED) must be root's (vecsec-gw runs as root) or
 * charon's own user's; another user who got a socket to the path first
 * (a folder it could write to) is refused and logged.
 *
 * Copyright (c) 2026, the vecsec authors
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* struct ucred */
#endif
#include "kernel_vecsec_ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <daemon.h>

/* longest request (an sa rule with two 64-byte keys is about 700 bytes) */
#define REQ_MAX 2048
/* longest answer accepted (the plugin asks nothing longer than a few lines) */
#define ANSWER_MAX 65536

typedef struct private_kernel_vecsec_ctl_t private_kernel_vecsec_ctl_t;

struct private_kernel_vecsec_ctl_t {
	kernel_vecsec_ctl_t public;
	char *path;
	u_int timeout_ms;
};

static int
connect_to(private_kernel_vecsec_ctl_t *this)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr = { .pid = 0 };
	socklen_t len = sizeof(cr);
	int fd;

	if (strlen(this->path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, this->path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr) ||
	    (cr.uid != 0 && cr.uid != geteuid())) {
		DBG1(DBG_KNL, "kernel-vecsec: refused the listener at %s: pid %d uid %u is not "
		     "root or charon's uid %u (not vecsec-gw?); nothing sent", this->path,
		     len == sizeof(cr) ? (int)cr.pid : -1,
		     len == sizeof(cr) ? (unsigned int)cr.uid : (unsigned int)-1,
		     (unsigned int)geteuid());
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* wait for fd to be ready for events until deadline; FALSE on timeout */
static bool
wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		uint64_t now = now_ms();
		int rc;

		if (now >= deadline)
			return FALSE;
		rc = poll(&p, 1, (int)(deadline - now));
		if (rc > 0)
			return TRUE;
		if (rc < 0 && errno != EINTR)
			return FALSE;
	}
}

static bool
send_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
	while (len > 0) {
		ssize_t n;

		if (!wait_fd(fd, POLLOUT, deadline))
			return FALSE;
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return FALSE;
		buf += n;
		len -= (size_t)n;
	}
	return TRUE;
}

/* The first word of the request, for messages (never anything after it: keys). */
static void
req_name(const char *req, char *out, size_t len)
{
	size_t n = strcspn(req, " \n");

	if (n >= len)
		n = len - 1;
	memcpy(out, req, n);
	out[n] = '\0';
}

/*
 * Split a raw answer into lines and its final status; FALSE (and a logged
 * reason) if it is not text ending in an OK or ERR line.
 */
static bool
parse_answer(char *raw, size_t len, kernel_vecsec_answer_t *answer, bool *ok, char *what)
{
	char *last;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (c != '\n' && c != '\t' && (c < 0x20 || c > 0x7e)) {
			DBG1(DBG_KNL, "kernel-vecsec: malformed answer to '%s' from vecsec-gw: "
			     "byte 0x%02x at offset %zu", what, c, i);
			return FALSE;
		}
	}
	if (len == 0 || raw[len - 1] != '\n') {
		DBG1(DBG_KNL, "kernel-vecsec: malformed answer to '%s' from vecsec-gw: %s", what,
		     len == 0 ? "empty (did the gateway close the connection?)"
			      : "no final line (OK or ERR)");
		return FALSE;
	}
	raw[len - 1] = '\0';
	last = strrchr(raw, '\n');
	last = last ? last + 1 : raw;
	if (strcmp(last, "OK") == 0 || strncmp(last, "OK ", 3) == 0) {
		*ok = TRUE;
		answer->err = strdup("");
	} else if (strncmp(last, "ERR", 3) == 0 && (last[3] == ' ' || last[3] == '\0')) {
		*ok = FALSE;
		answer->err = strdup(last[3] ? last + 4 : "");
	} else {
		DBG1(DBG_KNL, "kernel-vecsec: malformed answer to '%s' from vecsec-gw: its last "
		     "line is neither OK nor ERR", what);
		return FALSE;
	}
	if (last != raw)
		last[-1] = '\0';
	else
		last[0] = '\0';
	answer->lines = strdup(raw);
	return TRUE;
}

METHOD(kernel_vecsec_ctl_t, request, status_t,
	private_kernel_vecsec_ctl_t *this, kernel_vecsec_answer_t *answer, char *fmt, ...)
{
	char req[REQ_MAX], what[24];
	char *raw = NULL;
	size_t got = 0;
	uint64_t deadline = now_ms() + this->timeout_ms;
	status_t status = FAILED;
	bool ok = FALSE;
	va_list args;
	int len, fd;

	answer->lines = NULL;
	answer->err = NULL;
	va_start(args, fmt);
	len = vsnprintf(req, sizeof(req) - 1, fmt, args);
	va_end(args);
	req_name(req, what, sizeof(what));
	if (len < 0 || len >= (int)sizeof(req) - 1) {
		DBG1(DBG_KNL, "kernel-vecsec: request '%s' too long", what);
		goto out;
	}
	req[len++] = '\n';
	fd = connect_to(this);
	if (fd < 0) {
		DBG1(DBG_KNL, "kernel-vecsec: cannot reach vecsec-gw at %s (%s): is the gateway "
		     "running with --ctrl %s?", this->path, strerror(errno), this->path);
		goto out;
	}
	if (!send_all(fd, req, (size_t)len, deadline)) {
		DBG1(DBG_KNL, "kernel-vecsec: sending '%s' to vecsec-gw at %s failed", what,
		     this->path);
		close(fd);
		goto out;
	}
	shutdown(fd, SHUT_WR);          /* one request: the gateway closes after answering */
	raw = malloc(ANSWER_MAX + 1);
	for (;;) {
		ssize_t n;

		if (!wait_fd(fd, POLLIN, deadline)) {
			DBG1(DBG_KNL, "kernel-vecsec: no answer to '%s' from vecsec-gw at %s "
			     "within %u ms", what, this->path, this->timeout_ms);
			break;
		}
		n = recv(fd, raw + got, ANSWER_MAX - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			DBG1(DBG_KNL, "kernel-vecsec: reading the answer to '%s': %s", what,
			     strerror(errno));
			break;
		}
		if (n == 0) {
			if (parse_answer(raw, got, answer, &ok, what))
				status = ok ? SUCCESS :
					strncmp(answer->err, "no ", 3) == 0 ? NOT_FOUND : FAILED;
			break;
		}
		got += (size_t)n;
		if (got == ANSWER_MAX) {
			DBG1(DBG_KNL, "kernel-vecsec: malformed answer to '%s' from vecsec-gw: "
			     "longer than %d bytes", what, ANSWER_MAX);
			break;
		}
	}
	close(fd);
out:
	memwipe(req, sizeof(req));
	free(raw);
	if (status == FAILED && answer->lines == NULL) {
		free(answer->err);
		answer->err = NULL;
	}
	if (answer->lines == NULL)
		answer->lines = strdup("");
	if (answer->err == NULL)
		answer->err = strdup("no answer");
	return status;
}

METHOD(kernel_vecsec_ctl_t, subscribe, int,
	private_kernel_vecsec_ctl_t *this)
{
	static const char req[] = "subscribe\n";
	uint64_t deadline = now_ms() + this->timeout_ms;
	char ans[4];
	size_t got = 0;
	int fd = connect_to(this);

	if (fd < 0)
		return -1;
	if (!send_all(fd, req, sizeof(req) - 1, deadline)) {
		close(fd);
		return -1;
	}
	/* exactly "OK\n", then events */
	while (got < 3) {
		ssize_t n;

		if (!wait_fd(fd, POLLIN, deadline))
			break;
		n = recv(fd, ans + got, 3 - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != 3 || memcmp(ans, "OK\n", 3) != 0) {
		DBG1(DBG_KNL, "kernel-vecsec: vecsec-gw at %s refused the event subscription",
		     this->path);
		close(fd);
		return -1;
	}
	return fd;
}

METHOD(kernel_vecsec_ctl_t, get_path, char *,
	private_kernel_vecsec_ctl_t *this)
{
	return this->path;
}

METHOD(kernel_vecsec_ctl_t, destroy, void,
	private_kernel_vecsec_ctl_t *this)
{
	free(this->path);
	free(this);
}

void
kernel_vecsec_answer_free(kernel_vecsec_answer_t *answer)
{
	free(answer->lines);
	free(answer->err);
	answer->lines = NULL;
	answer->err = NULL;
}

bool
kernel_vecsec_answer_u64(kernel_vecsec_answer_t *answer, char *first, char *key,
			 uint64_t *value)
{
	char *line = answer->lines;
	size_t flen = strlen(first), klen = strlen(key);

	while (line && *line) {
		char *end = strchr(line, '\n');
		size_t llen = end ? (size_t)(end - line) : strlen(line);

		if (llen > flen && strncmp(line, first, flen) == 0 && line[flen] == ' ') {
			char *p = line;

			while (p < line + llen) {
				char *w = p;
				size_t wl = strcspn(w, " \n");

				p = w + wl;
				while (*p == ' ')
					p++;
				if (wl == klen && strncmp(w, key, klen) == 0 && p < line + llen) {
					char *e;
					unsigned long long v;

					errno = 0;
					if (*p < '0' || *p > '9')
						return FALSE;
					v = strtoull(p, &e, 10);
					if (errno != 0 || (*e != ' ' && *e != '\n' && *e != '\0'))
						return FALSE;
					*value = v;
					return TRUE;
				}
			}
			return FALSE;
		}
		line = end ? end + 1 : NULL;
	}
	return FALSE;
}

kernel_vecsec_ctl_t *
kernel_vecsec_ctl_create(char *path, u_int timeout_ms)
{
	private_kernel_vecsec_ctl_t *this;

	INIT(this,
		.public = {
			.request = _request,
			.subscribe = _subscribe,
			.get_path = _get_path,
			.destroy = _destroy,
		},
		.path = strdup(path),
		.timeout_ms = timeout_ms,
	);
	return &this->public;
}
