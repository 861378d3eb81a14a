/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket server (--ctrl PATH): transport only. The
 * protocol (requests, answers, framing, its versions): docs/control-protocol.md.
 *
 * A Unix stream socket, mode 0600 (0660 and the group of --ctrl-group),
 * served by one control thread: framing, clients, their credentials, idle
 * reaping and the answers held for an SP batch. Each request goes to the
 * command table (ctrl_cmd.c), which leaves every change to the change
 * engine (cp.c); the lifetime events come from the event queue (evq.c).
 *
 * Clients are served together by poll() over non-blocking sockets; no
 * client can make the thread wait, and one that does not read its answers
 * holds back only itself.
 *
 * Keys: request bytes stay in the client's buffer (pages left out of core
 * dumps), which is wiped as each request is consumed; the words and
 * scratch copies of the request being served likewise; no stdio stream
 * ever holds them. Answers never contain key bytes, and an error quotes a
 * request's token only through gw_token_quote().
 */
#define _GNU_SOURCE             /* struct ucred, accept4() */

#include "gw_dp.h"
#include "cp.h"
#include "ctrl_cmd.h"
#include "ctrl_path.h"
#include "evq.h"
#include "gw_log.h"
#include "ha.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59        /* Linux 4.13 */
#endif

#define CTRL_MAX_CLIENTS 16
#define CTRL_OUT_MAX (1u << 20)         /* unsent event bytes of a subscriber */
#define CTRL_STALL_MS 10000             /* unsent output that long: dropped */
#define CTRL_REQS_PER_TURN 16           /* then the other clients' turn */
#define CTRL_POLL_MS 20                 /* events and stop are seen this often */

/* An answer held until the SP batch is committed (spd_commit). */
struct held {
	char *text;             /* the answer lines */
	size_t len;
	bool spd;               /* an `sp` add: OK only if the commit works */
};

struct gw_ctrl_client {
	int fd;                 /* -1: no socket, answers go to sink */
	void (*sink)(void *arg, const char *p, size_t n);
	void *sink_arg;
	bool sub;               /* subscribed: takes no more requests */
	bool sub_all;           /* `subscribe all`: the control plane's events too */
	bool discard;           /* inside an over-long line: drop bytes up to its '\n' */
	bool eof;               /* the client ended its side */
	bool done;              /* close once the queued output is out */
	bool dead;              /* close now */
	int pid;                /* its process (SO_PEERCRED at accept), 0 unknown */
	char *out;              /* output not sent yet: out[out_off .. out_len) */
	size_t out_off, out_len, out_cap;
	uint64_t stall_ms;      /* since when the output has not moved; 0: it moves */
	uint64_t seen_ms;       /* its last byte in or out (--ctrl-idle) */
	struct held *held;      /* answers waiting for the SPD commit (spd_commit) */
	unsigned int nheld, cap_held;
	size_t in_len;
	char in[CTRL_LINE_MAX]; /* request bytes as they came, wiped when consumed */
};

static struct gw_ctrl_client *clients[CTRL_MAX_CLIENTS];
static unsigned int nb_clients, nb_subs;
static struct ctrl_req *req;    /* one request at a time, in secret memory */

unsigned int gw_ctrl_idle_s = GW_CTRL_IDLE_S_DEFAULT;
static int listen_fd = -1;
static int ctrl_gid = -1;       /* --ctrl-group, -1 none */
static pthread_t ctrl_tid;
static volatile bool ctrl_stop;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static uint64_t now_ms(void);
static void client_queue(struct gw_ctrl_client *c, const char *p, size_t n);

static void
release_held(struct gw_ctrl_client *c, int rc, const char *err)
{
	for (unsigned int k = 0; k < c->nheld; k++) {
		struct held *h = &c->held[k];

		if (h->spd && rc != 0) {
			char line[320];
			int n = snprintf(line, sizeof(line), "ERR %s\n", err);

			client_queue(c, line, (size_t)RTE_MIN(n, (int)sizeof(line) - 1));
		} else {
			client_queue(c, h->text, h->len);
		}
		free(h->text);
	}
	c->nheld = 0;
}

/*
 * Commit the SP batch (cp.c: SP changes in batches), then every held
 * answer goes out (extra's too): a client still reads OK only once its
 * rule is in force. Answers that follow a held one in a client's stream
 * are held too, so they keep their order.
 */
static void
spd_commit(struct gw_ctrl_client *extra)
{
	char err[256] = "";
	bool listed = false;
	int rc = gw_cp_commit(err, sizeof(err));

	for (unsigned int i = 0; i < nb_clients; i++) {
		listed = listed || clients[i] == extra;
		release_held(clients[i], rc, err);
		/* the rebuild held everyone up, not the client: its output clock starts now */
		if (clients[i]->stall_ms != 0)
			clients[i]->stall_ms = now_ms();
	}
	if (extra != NULL && !listed)
		release_held(extra, rc, err);
}

/* The batch is due: old enough, or nobody sent more for gw_cp_dry_wait_ms() (dry). */
static void
spd_commit_if_due(bool dry)
{
	bool held = false;

	for (unsigned int i = 0; i < nb_clients && !held; i++)
		held = clients[i]->nheld != 0;
	if (!held && !gw_cp_batch_open())
		return;
	if (dry || gw_cp_batch_due())
		spd_commit(NULL);
}

/* ---- framing ------------------------------------------------------------- */

/* Why line[0..len) is not one well-formed request; NULL when it is. */
static const char *
frame_check(const char *line, size_t len, size_t *at)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)line[i];

		*at = i;
		if (b == '\0')
			return "a NUL byte";
		if (b == '\t')
			continue;
		if (b < 0x20 || b == 0x7f)
			return "a control character";
		if (b > 0x7f)
			return "a byte that is not ASCII";
		if (b == '#')
			return "'#' (comments are for configuration files)";
		if (b == '\\')
			return "'\\' (line continuation is for configuration files)";
	}
	return NULL;
}

/* Split r->line into words (blanks: space, tab). */
static void
split_words(struct ctrl_req *r, size_t len)
{
	size_t i = 0;

	memcpy(r->words, r->line, len + 1);
	r->n = 0;
	while (i < len) {
		while (i < len && (r->words[i] == ' ' || r->words[i] == '\t'))
			i++;
		if (i == len)
			break;
		r->w[r->n] = r->words + i;
		r->off[r->n] = (unsigned int)i;
		r->n++;
		while (i < len && r->words[i] != ' ' && r->words[i] != '\t')
			i++;
		r->words[i++] = '\0';
	}
}

static void client_queue(struct gw_ctrl_client *c, const char *p, size_t n);
static void client_hold(struct gw_ctrl_client *c, const char *p, size_t n, bool spd);

/* Queue "ERR <why>\n", or a plain line (held behind held answers). */
static void
client_say(struct gw_ctrl_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
client_say(struct gw_ctrl_client *c, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (c->nheld != 0)
		client_hold(c, line, (size_t)n, false);       /* after the held ones */
	else
		client_queue(c, line, (size_t)n);
}

/* Keep an answer until the batch is committed (spd_commit). */
static void
client_hold(struct gw_ctrl_client *c, const char *p, size_t n, bool spd)
{
	struct held *h;

	if (c->nheld == c->cap_held) {
		unsigned int ncap = c->cap_held != 0 ? 2 * c->cap_held : 64;
		struct held *nh = realloc(c->held, ncap * sizeof(*nh));

		if (nh == NULL) {
			c->dead = true;
			return;
		}
		c->held = nh;
		c->cap_held = ncap;
	}
	h = &c->held[c->nheld];
	h->text = malloc(n);
	if (h->text == NULL) {
		c->dead = true;
		return;
	}
	memcpy(h->text, p, n);
	h->len = n;
	h->spd = spd;
	c->nheld++;
}

/* An `sa` or `sp` add, which may join the batch of SP changes. */
static bool
batchable(const struct ctrl_req *r)
{
	return r->n > 1 && (strcmp(r->w[0], "sa") == 0 || strcmp(r->w[0], "sp") == 0);
}

/* One complete line, line[len] == '\0' (its '\n' was there). */
static void
client_request(struct gw_ctrl_client *c, const char *line, size_t len)
{
	char err[512] = "";
	const char *why;
	char *buf = NULL;
	size_t at, size = 0;
	FILE *out;
	int rc;

	why = frame_check(line, len, &at);
	if (why != NULL) {
		client_say(c, "ERR request refused whole: %s at byte %zu", why, at + 1);
		return;
	}
	req->line = line;
	req->subscribe = false;
	req->subscribe_all = false;
	req->spd = false;
	req->json = false;
	req->pid = c->pid;
	split_words(req, len);
	if (req->n != 0 && strcmp(req->w[0], "json") == 0) {
		/* `json <request>`: the same request, JSON answer lines where it has them */
		req->json = true;
		req->n--;
		memmove(&req->w[0], &req->w[1], req->n * sizeof(req->w[0]));
		memmove(&req->off[0], &req->off[1], req->n * sizeof(req->off[0]));
		if (req->n == 0) {
			client_say(c, "ERR usage: json <request>");
			goto wipe;
		}
	}
	if (req->n == 0) {
		client_say(c, "OK");
		goto wipe;
	}
	/* anything but an add sees (and waits for) the SP changes before it */
	if (!batchable(req))
		spd_commit(c);
	out = open_memstream(&buf, &size);
	if (out == NULL) {
		client_say(c, "ERR out of memory");
		goto wipe;
	}
	req->subs_full = nb_subs == CTRL_MAX_SUBS;
	gw_cp_begin();          /* the lock, against reloads, telemetry and the samples */
	rc = gw_ctrl_dispatch(req, out, err, sizeof(err));
	gw_cp_end();            /* kept while a batch is open */
	if (rc != 0)
		fprintf(out, "ERR %s\n", err);
	else if (err[0] != '\0')
		fprintf(out, "OK warning: %s\n", err);
	else
		fprintf(out, "OK\n");
	if (fclose(out) != 0) {
		free(buf);
		client_say(c, "ERR out of memory");
		goto wipe;
	}
	if (req->spd || c->nheld != 0)
		client_hold(c, buf, size, req->spd);
	else
		client_queue(c, buf, size);
	free(buf);
	if (req->subscribe) {
		c->sub = true;
		c->sub_all = req->subscribe_all;
		nb_subs++;
	}
wipe:
	explicit_bzero(req->words, len + 1);
	explicit_bzero(req->text, sizeof(req->text));
	req->line = NULL;
}

/* Drop the first n bytes of the input, wiping what they leave behind. */
static void
in_consume(struct gw_ctrl_client *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	explicit_bzero(c->in + c->in_len - n, n);
	c->in_len -= n;
}

/* Serve the next complete request, if any; false when there is none. */
static bool
client_next(struct gw_ctrl_client *c)
{
	char *nl;

	if (c->discard) {
		nl = memchr(c->in, '\n', c->in_len);
		if (nl == NULL) {
			in_consume(c, c->in_len);
			if (c->eof)
				c->done = true;
			return false;
		}
		in_consume(c, (size_t)(nl + 1 - c->in));
		c->discard = false;
	}
	nl = memchr(c->in, '\n', c->in_len);
	if (nl == NULL) {
		if (c->in_len == sizeof(c->in)) {
			client_say(c, "ERR request refused whole: longer than %d bytes",
				   CTRL_LINE_MAX - 1);
			in_consume(c, c->in_len);
			c->discard = true;
			return true;
		}
		if (c->eof) {
			if (c->in_len != 0)
				client_say(c, "ERR request refused whole: no newline before "
					   "the end of the connection");
			in_consume(c, c->in_len);
			c->done = true;
		}
		return false;
	}
	*nl = '\0';
	client_request(c, c->in, (size_t)(nl - c->in));
	in_consume(c, (size_t)(nl + 1 - c->in));
	return true;
}

/* ---- clients ------------------------------------------------------------- */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
client_queue(struct gw_ctrl_client *c, const char *p, size_t n)
{
	char *grown;

	if (c->dead || n == 0)
		return;
	if (c->fd < 0) {
		c->sink(c->sink_arg, p, n);
		return;
	}
	if (c->sub && c->out_len - c->out_off + n > CTRL_OUT_MAX) {
		GW_LOG(WARNING, "control: a subscriber dropped: %zu bytes of events unread",
		       c->out_len - c->out_off);
		c->dead = true;
		return;
	}
	if (c->out_off != 0) {          /* keep the unsent part only */
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + n > c->out_cap) {      /* doubling: a batch's answers come at once */
		size_t cap = RTE_MAX(c->out_len + n, 2 * c->out_cap);

		grown = realloc(c->out, cap);
		if (grown == NULL) {
			c->dead = true;
			return;
		}
		c->out = grown;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
}

/* Send what is queued, without waiting; -1 when the client is gone. */
static int
client_flush(struct gw_ctrl_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->out_off += (size_t)n;
			c->stall_ms = 0;
			c->seen_ms = now_ms();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->stall_ms == 0)
				c->stall_ms = now_ms();
			return 0;
		}
		return -1;                      /* EPIPE, ECONNRESET...: gone */
	}
	free(c->out);
	c->out = NULL;
	c->out_off = c->out_len = c->out_cap = 0;
	c->stall_ms = 0;
	return 0;
}

static bool
client_pending(const struct gw_ctrl_client *c)
{
	return c->out_off < c->out_len;
}

/*
 * Serve up to CTRL_REQS_PER_TURN requests, each once the answer before is
 * out. Returns -1 (close it), 0 (waits for the client) or 1 (more to do).
 */
static int
client_work(struct gw_ctrl_client *c)
{
	for (unsigned int turn = 0; turn < CTRL_REQS_PER_TURN; turn++) {
		if (c->dead || (c->fd >= 0 && client_flush(c) < 0))
			return -1;
		if (client_pending(c))
			return 0;
		if (c->done && c->nheld != 0) {
			spd_commit(c);          /* its last answers, before it goes */
			continue;
		}
		if (c->done)
			return -1;
		if (c->sub)     /* a subscriber that talks or hangs up is dropped */
			return c->in_len != 0 || c->eof ? -1 : 0;
		if (!client_next(c)) {
			if (c->done && c->nheld != 0)
				continue;
			return c->done && !client_pending(c) ? -1 : 0;
		}
	}
	return 1;
}

/* Bytes from the socket into the input buffer; -1 when the client is gone. */
static int
client_read(struct gw_ctrl_client *c)
{
	while (!c->eof && c->in_len < sizeof(c->in)) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
				 MSG_DONTWAIT);

		if (n > 0) {
			c->in_len += (size_t)n;
			c->seen_ms = now_ms();
			continue;
		}
		if (n == 0) {
			c->eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		return -1;
	}
	return 0;
}

static struct gw_ctrl_client *
client_new(int fd)
{
	struct gw_ctrl_client *c;

	if (req == NULL) {
		req = gw_secret_alloc(sizeof(*req));
		if (req == NULL)
			return NULL;
	}
	c = gw_secret_alloc(sizeof(*c));
	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->seen_ms = now_ms();
	return c;
}

static void
client_free(struct gw_ctrl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->sub)
		nb_subs--;
	free(c->out);
	for (unsigned int k = 0; k < c->nheld; k++)
		free(c->held[k].text);
	free(c->held);
	gw_secret_free(c, sizeof(*c));  /* wipes what is left of its requests */
}

/*
 * May this peer talk to us? Root, the gateway's own user, or a member of
 * --ctrl-group (its primary group or one of its others). The socket file's
 * mode is a second fence, not the only one.
 */
static bool
peer_allowed(int fd, struct ucred *cr)
{
	socklen_t len = sizeof(*cr);
	gid_t small[64], *groups = small;
	bool ok = false;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &len) != 0 || len != sizeof(*cr))
		return false;
	if (cr->uid == 0 || cr->uid == geteuid())
		return true;
	if (ctrl_gid < 0)
		return false;
	if (cr->gid == (gid_t)ctrl_gid)
		return true;
	len = sizeof(small);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
		if (errno != ERANGE || (groups = malloc(len)) == NULL)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0)
			len = 0;
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		ok = ok || groups[i] == (gid_t)ctrl_gid;
	if (groups != small)
		free(groups);
	return ok;
}

/*
 * Idle past --ctrl-idle: nothing came from it, nothing went to it, nothing
 * of its is pending (output, answers held for the SPD batch) and it is no
 * subscriber (`monitor`, charon's event stream: quiet until an SA expires).
 * A partial request that stopped coming counts as idle.
 */
static bool
client_idle(const struct gw_ctrl_client *c, uint64_t now)
{
	return gw_ctrl_idle_s != 0 && !c->sub && !client_pending(c) && c->nheld == 0 &&
		now > c->seen_ms && now - c->seen_ms >= (uint64_t)gw_ctrl_idle_s * 1000;
}

/* Send a line to a client we are about to close, without waiting. */
static void
refuse(int fd, const char *line)
{
	(void)send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void
accept_clients(void)
{
	for (;;) {
		struct ucred cr = { .pid = 0 };
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct gw_ctrl_client *c;

		if (fd < 0)
			return;         /* EAGAIN: no more now; others: try next time */
		if (!peer_allowed(fd, &cr)) {
			GW_LOG(WARNING, "control: refused pid %d uid %u gid %u: not root, uid %u%s",
			       (int)cr.pid, (unsigned int)cr.uid, (unsigned int)cr.gid,
			       (unsigned int)geteuid(),
			       ctrl_gid >= 0 ? " or a member of the control group" : "");
			refuse(fd, "ERR permission denied\n");
			continue;
		}
		if (nb_clients == CTRL_MAX_CLIENTS) {
			refuse(fd, "ERR too many clients\n");
			continue;
		}
		c = client_new(fd);
		if (c == NULL) {
			refuse(fd, "ERR out of memory\n");
			continue;
		}
		c->pid = (int)cr.pid;
		clients[nb_clients++] = c;
	}
}

/* An event's line to every subscriber (all_only: to those of `subscribe all`). */
static void
event_send(void *arg, const char *line, size_t len, bool all_only)
{
	(void)arg;
	for (unsigned int i = 0; i < nb_clients; i++)
		if (clients[i]->sub && (!all_only || clients[i]->sub_all))
			client_queue(clients[i], line, len);
}

/* Send the queued events to every subscriber (and a line to the log). */
static void
events_flush(void)
{
	gw_evq_drain(event_send, NULL);
}

static void *
ctrl_main(void *arg)
{
	bool busy = false;

	(void)arg;
	while (!ctrl_stop) {
		struct pollfd pfd[1 + CTRL_MAX_CLIENTS];
		unsigned int n = nb_clients, i;
		uint64_t now;
		int np;

		events_flush();
		pfd[0].fd = listen_fd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		for (i = 0; i < n; i++) {
			const struct gw_ctrl_client *c = clients[i];

			pfd[1 + i].fd = c->fd;
			pfd[1 + i].events = 0;
			pfd[1 + i].revents = 0;
			/* a client's next request is read once its last answer is out */
			if (!c->eof && c->in_len < sizeof(c->in) && (c->sub || !client_pending(c)))
				pfd[1 + i].events |= POLLIN;
			if (client_pending(c))
				pfd[1 + i].events |= POLLOUT;
		}
		gw_cp_idle();           /* reclamation; compaction if idle long enough */
		/* with a batch open, wait a little for more (else commit it) */
		np = poll(pfd, 1 + n, busy ? 0 : gw_cp_batch_open() ? gw_cp_dry_wait_ms() :
			  CTRL_POLL_MS);
		if (np < 0 && errno != EINTR)
			continue;
		busy = false;
		for (i = 0; i < n; i++) {
			struct gw_ctrl_client *c = clients[i];
			int rc = 0;

			if ((pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
				rc = client_read(c);
			if (rc == 0)
				rc = client_work(c);
			/* now after the work: serving may take longer than a millisecond */
			now = now_ms();
			if (rc == 0 && c->stall_ms != 0 && now > c->stall_ms &&
					now - c->stall_ms > CTRL_STALL_MS) {
				GW_LOG(WARNING, "control: a client dropped: its output did not "
				       "move for %d s", CTRL_STALL_MS / 1000);
				rc = -1;
			}
			if (rc == 0 && client_idle(c, now)) {
				GW_LOG(NOTICE, "control: a client closed: idle for %u s (--ctrl-idle)",
				       gw_ctrl_idle_s);
				rc = -1;
			}
			if (rc < 0)
				c->dead = true;
			busy = busy || rc > 0;
		}
		/* dry: nothing came or could be sent for dry_wait_ms() */
		spd_commit_if_due(np == 0 && !busy);
		/* close the dead ones, keeping the others' order */
		for (unsigned int k = i = 0; i < n; i++) {
			struct gw_ctrl_client *c = clients[i];

			clients[i] = NULL;
			if (c->dead && c->sub) {
				/* an IKE daemon's subscription lasts as long as it does (ha.h) */
				gw_cp_begin();
				gw_ha_client_gone(c->pid);
				gw_cp_end();
			}
			if (c->dead)
				client_free(c);
			else
				clients[k++] = c;
			nb_clients = k;
		}
		if (pfd[0].revents & POLLIN)
			accept_clients();
	}
	return NULL;
}

/*
 * The default socket's folder (ctrl_path.h): made with mode 0700, or 0750
 * and the group of --ctrl-group. One that exists must be a real folder of
 * this user that nobody else can write into (it may sit in /tmp).
 */
static int
ctrl_dir(const char *path, int gid)
{
	mode_t mode = gid >= 0 ? 0750 : 0700;
	char dir[sizeof(sock_path)], why[sizeof(sock_path) + 64];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, mode) != 0 && errno != EEXIST) {
		GW_LOG(ERR, "control socket folder %s: %s (give --ctrl PATH, or --ctrl none)", dir,
		       strerror(errno));
		return -errno;
	}
	if (gw_ctrl_dir_check(dir, geteuid(), false, why, sizeof(why)) != 0) {
		GW_LOG(ERR, "control socket folder %s: not a folder of uid %u that only it can "
		       "write to (%s); refused", dir, (unsigned int)geteuid(), why);
		return -EPERM;
	}
	if ((gid >= 0 && chown(dir, (uid_t)-1, (gid_t)gid) != 0) || chmod(dir, mode) != 0) {
		GW_LOG(ERR, "control socket folder %s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Is a gateway listening on path? (A socket file nobody answers on is left from a crash.) */
static bool
ctrl_live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 || errno == EAGAIN;
	close(fd);
	return live;
}

int
gw_ctrl_start(const char *path, int gid, bool own_dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		GW_LOG(ERR, "--ctrl %s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	if (own_dir && (rc = ctrl_dir(path, gid)) != 0)
		return rc;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			GW_LOG(ERR, "--ctrl %s exists and is not a socket", path);
			return -EEXIST;
		}
		if (ctrl_live(&sa)) {
			GW_LOG(ERR, "control socket %s: another gateway listens there (give each "
			       "gateway its own EAL --file-prefix, or --ctrl PATH)", path);
			return -EADDRINUSE;
		}
		unlink(path);
	}
	strcpy(sock_path, path);
	ctrl_gid = gid;
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return -errno;
	gw_cp_ctrl_thread(true);        /* the management thread leaves housekeeping to us */
	old = umask(0177);
	rc = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	/* --ctrl-group: its members may connect (the peer check lets them in too) */
	if (rc == 0 && gid >= 0 && (chown(path, (uid_t)-1, (gid_t)gid) != 0 ||
			chmod(path, 0660) != 0))
		rc = -1;
	if (rc != 0 || listen(listen_fd, CTRL_MAX_CLIENTS) != 0) {
		rc = -errno;
		GW_LOG(ERR, "--ctrl %s: %s", path, strerror(errno));
		unlink(path);
		goto fail;
	}
	rc = rte_ctrl_thread_create(&ctrl_tid, "gw-ctrl", NULL, ctrl_main, NULL);
	if (rc != 0) {
		rc = -rc;
		unlink(path);
		goto fail;
	}
	return 0;
fail:
	close(listen_fd);
	listen_fd = -1;
	gw_cp_ctrl_thread(false);
	sock_path[0] = '\0';
	return rc;
}

void
gw_ctrl_stop(void)
{
	if (listen_fd < 0)
		return;
	ctrl_stop = true;
	pthread_join(ctrl_tid, NULL);
	spd_commit(NULL);
	events_flush();
	for (unsigned int i = 0; i < nb_clients; i++) {
		if (!clients[i]->dead)
			(void)client_flush(clients[i]);        /* one try, no waiting */
		client_free(clients[i]);
		clients[i] = NULL;
	}
	nb_clients = 0;
	close(listen_fd);
	listen_fd = -1;
	gw_cp_ctrl_thread(false);
	unlink(sock_path);
	gw_secret_free(req, sizeof(*req));
	req = NULL;
	gw_cp_fini();
}

/* ---- without a socket: tests and the fuzzer ------------------------------ */

struct gw_ctrl_client *
gw_ctrl_client_new(void (*sink)(void *arg, const char *p, size_t n), void *arg)
{
	struct gw_ctrl_client *c = client_new(-1);

	if (c != NULL) {
		c->sink = sink;
		c->sink_arg = arg;
	}
	return c;
}

bool
gw_ctrl_feed(struct gw_ctrl_client *c, const void *p, size_t n, bool eof)
{
	const char *b = p;

	for (;;) {
		size_t k = RTE_MIN(n, sizeof(c->in) - c->in_len);
		int rc;

		memcpy(c->in + c->in_len, b, k);
		c->in_len += k;
		b += k;
		n -= k;
		c->eof = eof && n == 0;
		do {
			rc = client_work(c);
			/* nothing more to serve now: the batch is done */
			if (rc == 0 && c->nheld != 0) {
				spd_commit(c);
				rc = 1;
			}
		} while (rc > 0);
		if (rc < 0)
			return false;
		if (n == 0)
			return true;
	}
}

void
gw_ctrl_client_free(struct gw_ctrl_client *c)
{
	if (c != NULL)
		client_free(c);
}
