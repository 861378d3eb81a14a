/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-ctl: talks to vecsec-gw's control socket (ctrl.c). With words on
 * the command line it sends them as one request; without, it sends every
 * line of standard input, or of FILE with -f (blank lines and lines
 * starting with '#' skipped, a final line without '\n' and a '\r' before
 * '\n' accepted). Requests that carry keys must come that way: the command
 * line is visible to every user (ps, /proc/PID/cmdline), so one with a key
 * keyword (cipher_key, auth_key, aead_key) or a word shaped like a key is
 * refused. Prints the answers; exits 1 if any request got ERR or was
 * refused here, 2 if the gateway cannot be reached or hangs up.
 *
 *   vecsec-ctl [-s SOCKET | -p PREFIX] [-j] [-i S [-c N]] [COMMAND ...]
 *   vecsec-ctl [-s SOCKET | -p PREFIX] [-j] -f FILE
 *   vecsec-ctl [-s SOCKET | -p PREFIX] [-j] monitor   events as they come (SA added,
 *                                                      deleted, reset, reload, expire)
 *   vecsec-ctl check-proposals [SWANCTL_FILE ...]       ESP proposals it cannot serve
 *   vecsec-ctl --version | --help
 *
 * The socket: -s, else $VECSEC_GW_SOCKET, else the gateway's default for
 * EAL file prefix -p (ctrl_path.h: /run/vecsec-gw/ctrl.sock for root and
 * the default prefix). -j: each answer as JSON on stdout (the gateway's
 * JSON where the request has one, else {"ok": ...}); -i S: the command
 * again every S seconds (-c N times; stats rates and counters as they go).
 *
 * The gateway is trusted before anything is sent: the socket's folder must
 * be this user's or root's and writable by nobody else (ctrl_path.h, as the
 * gateway checks it: another user could have made /tmp/vecsec-gw-UID first
 * and listen there), and the listener's credentials (SO_PEERCRED) root or
 * this user. Otherwise nothing is sent (exit 2). With -i each repetition
 * connects anew (an idle connection may have been closed by the gateway).
 *
 * Options are parsed here, up to the first word that is not one (or "--"):
 * an unknown option is refused, never sent as a request.
 *
 * No stdio stream touches the socket or the request lines: they are read
 * and sent from buffers of our own, wiped before exit.
 */
#define _GNU_SOURCE             /* struct ucred */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* apps/vecsec-gw/ctrl_path.h: the one copy, the gateway's own (meson.build) */
#include "ctrl_path.h"
#include "proposals.h"
#include "vecsec_version.h"

#define CTL_LINE_MAX 4096       /* the gateway's limit: a request and its '\n' */

/* A line reader over a file descriptor, with buffers of its own. */
struct reader {
	int fd;
	size_t len, off;
	bool eof;
	char buf[8192];
};

static struct reader src;       /* the requests: stdin or -f FILE */
static struct reader ans;       /* the gateway's answers */
static char req[CTL_LINE_MAX + 1];
static bool json;               /* -j: JSON out */

static void
wipe_all(void)
{
	explicit_bzero(&src, sizeof(src));
	explicit_bzero(req, sizeof(req));
}

/*
 * The next line of r into line (at most max bytes, '\n' dropped). Returns
 * its length, -1 at the end, -2 when it is longer than max (the rest of it
 * is skipped), -3 on a read error.
 */
static long
read_line(struct reader *r, char *line, size_t max)
{
	size_t n = 0;
	bool any = false, over = false;

	for (;;) {
		if (r->off == r->len) {
			ssize_t got;

			if (r->eof)
				break;
			got = read(r->fd, r->buf, sizeof(r->buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				return -3;
			explicit_bzero(r->buf + got, sizeof(r->buf) - (size_t)got);
			r->len = (size_t)got;
			r->off = 0;
			if (got == 0) {
				r->eof = true;
				break;
			}
		}
		any = true;
		if (r->buf[r->off] == '\n') {
			r->off++;
			return over ? -2 : (long)n;
		}
		if (n < max)
			line[n++] = r->buf[r->off];
		else
			over = true;
		r->off++;
	}
	if (!any)
		return -1;
	return over ? -2 : (long)n;
}

static int
send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* s as a JSON string (printable ASCII from the gateway: quotes and backslashes escaped) */
static void
json_str(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			putchar(*s);
	}
	putchar('"');
}

/*
 * The final line of an answer under -j when no JSON came before it:
 * {"ok": true[, "warning": ...]} or {"ok": false, "error": ...}.
 */
static void
json_status(const char *a, bool body)
{
	bool ok = strncmp(a, "OK", 2) == 0;
	const char *rest = a + (ok ? 2 : 3);

	while (*rest == ' ')
		rest++;
	if (ok && body)
		return;                 /* the JSON answer was the output */
	printf("{\"ok\": %s", ok ? "true" : "false");
	if (!ok) {
		printf(", \"error\": ");
		json_str(rest);
	} else if (strncmp(rest, "warning: ", 9) == 0) {
		printf(", \"warning\": ");
		json_str(rest + 9);
	}
	printf("}\n");
}

/* request() prints no ERR line (monitor's first try). */
static bool hush_err;

/*
 * Send one request (len bytes, no '\n'; with -j as `json <request>`), copy
 * the answer to stdout; 0 OK, 1 ERR, -1 lost.
 */
static int
request(int fd, char *line, size_t len)
{
	char a[CTL_LINE_MAX];
	bool body = false;
	long n;

	line[len] = '\n';
	/* if the gateway hung up, it may have said why first (a refused peer) */
	if (json)
		(void)send_all(fd, "json ", 5);
	(void)send_all(fd, line, len + 1);
	while ((n = read_line(&ans, a, sizeof(a) - 1)) != -1 && n != -3) {
		bool ok, err;

		if (n < 0)
			continue;       /* an answer line longer than ours: not an OK or ERR line */
		a[n] = '\0';
		ok = strncmp(a, "OK", 2) == 0;
		err = strncmp(a, "ERR", 3) == 0;
		if (err && hush_err)
			;               /* the caller tries something else */
		else if (json && (ok || err))
			json_status(a, body);
		else
			puts(a);
		body = true;
		if (ok)
			return 0;
		if (err)
			return 1;
	}
	return -1;
}

/* The Unix time in milliseconds of an event's " time S.MMM" (-1: none). */
static long long
event_time_ms(const char *a)
{
	const char *t = strstr(a, " time ");
	unsigned long long sec;
	unsigned int ms;

	if (t == NULL || sscanf(t, " time %llu.%3u", &sec, &ms) != 2)
		return -1;
	return (long long)(sec * 1000 + ms);
}

/*
 * An event line (docs/control-protocol.md, "Events") as JSON, else as it
 * is: expire soft|hard in|out SPI packets|bytes LIMIT; add sa in|out SPI by
 * control|reload [owner NAME]; del sa in|out SPI by control|reload|flush
 * owner NAME; reset all | reset sa in|out|any SPI; reload ok added N removed
 * N kept N | reload failed; segment +N|-N by control|hangup active LIST (1.8);
 * partner up|down|synced epoch N [restarted] (--cluster-sync);
 * lost N (events the gateway's full queues
 * dropped); each with " time S.MMM" at the end.
 */
static void
event_out(const char *a)
{
	char kind[8], dir[8], what[8], by[8], owner[40] = "";
	unsigned long long spi, limit, x[3];
	long long t = event_time_ms(a);
	bool done = true;

	if (!json || t < 0) {
		puts(a);
		return;
	}
	if (sscanf(a, "expire %7s %7s %llu %7s %llu", kind, dir, &spi, what, &limit) == 5)
		printf("{\"event\": \"expire\", \"kind\": \"%s\", \"dir\": \"%s\", \"spi\": %llu, "
		       "\"by\": \"%s\", \"limit\": %llu", kind, dir, spi, what, limit);
	else if (sscanf(a, "add sa %7s %llu by %7s owner %39s", dir, &spi, by, owner) >= 3 ||
		 sscanf(a, "del sa %7s %llu by %7s owner %39s", dir, &spi, by, owner) >= 3) {
		printf("{\"event\": \"%s\", \"dir\": \"%s\", \"spi\": %llu, \"by\": \"%s\"",
		       a[0] == 'a' ? "add" : "del", dir, spi, by);
		if (owner[0] != '\0' && strcmp(owner, "time") != 0)
			printf(", \"owner\": \"%s\"", owner);
	} else if (strncmp(a, "reset all ", 10) == 0)
		printf("{\"event\": \"reset\", \"what\": \"all\"");
	else if (sscanf(a, "reset sa %7s %llu", dir, &spi) == 2)
		printf("{\"event\": \"reset\", \"what\": \"sa\", \"dir\": \"%s\", \"spi\": %llu",
		       dir, spi);
	else if (sscanf(a, "reload ok added %llu removed %llu kept %llu", &x[0], &x[1],
			&x[2]) == 3)
		printf("{\"event\": \"reload\", \"result\": \"ok\", \"added\": %llu, "
		       "\"removed\": %llu, \"kept\": %llu", x[0], x[1], x[2]);
	else if (strncmp(a, "reload failed ", 14) == 0)
		printf("{\"event\": \"reload\", \"result\": \"failed\"");
	else if (sscanf(a, "segment %7s by %7s active %39s", what, by, owner) == 3 &&
		 (what[0] == '+' || what[0] == '-'))
		printf("{\"event\": \"segment\", \"change\": \"%s\", \"by\": \"%s\", "
		       "\"active\": \"%s\"", what, by, owner);
	else if (sscanf(a, "partner %7s epoch %llu", what, &x[0]) == 2)
		printf("{\"event\": \"partner\", \"state\": \"%s\", \"epoch\": %llu%s", what,
		       x[0], strstr(a, " restarted ") != NULL ? ", \"restarted\": true" : "");
	else if (sscanf(a, "lost %llu", &x[0]) == 1)
		printf("{\"event\": \"lost\", \"count\": %llu", x[0]);
	else
		done = false;
	if (done)
		printf(", \"time_ms\": %lld}\n", t);
	else
		puts(a);        /* an event this vecsec-ctl does not know: as it came */
}

static bool
is_key_keyword(const char *w)
{
	return strcmp(w, "cipher_key") == 0 || strcmp(w, "auth_key") == 0 ||
		strcmp(w, "aead_key") == 0;
}

/* A word a key could be: 16 or more hex digits, with ':' (or '-') between bytes or not. */
static bool
key_shaped(const char *w)
{
	size_t digits = 0;

	if (w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
		w += 2;
	for (; *w != '\0'; w++) {
		if ((*w >= '0' && *w <= '9') || (*w >= 'a' && *w <= 'f') ||
				(*w >= 'A' && *w <= 'F'))
			digits++;
		else if (*w != ':' && *w != '-')
			return false;
	}
	return digits >= 16;
}

static bool
line_has_key(const char *line, size_t len)
{
	char w[64];
	size_t i = 0;
	bool key = false;

	while (i < len && !key) {
		size_t n = 0;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		while (i < len && line[i] != ' ' && line[i] != '\t') {
			if (n < sizeof(w) - 1)
				w[n++] = line[i];
			i++;
		}
		w[n] = '\0';
		key = is_key_keyword(w);
	}
	explicit_bzero(w, sizeof(w));
	return key;
}

/*
 * Connect to the gateway at path, once it is trusted (see the head of this
 * file); the socket, or -1 after a message (nothing was sent).
 */
static int
ctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], why[sizeof(sa.sun_path) + 64];
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vecsec-ctl: socket path too long\n");
		return -1;
	}
	strcpy(sa.sun_path, path);
	if (gw_ctrl_path_dir(path, dir, sizeof(dir)) != 0) {
		fprintf(stderr, "vecsec-ctl: socket path too long\n");
		return -1;
	}
	rc = gw_ctrl_dir_check(dir, geteuid(), true, why, sizeof(why));
	if (rc == -EPERM) {
		fprintf(stderr, "vecsec-ctl: %s: refused, nothing sent: the socket's folder %s "
			"(another user could have put the socket there)\n", path, why);
		return -1;
	}
	if (rc != 0) {
		fprintf(stderr, "vecsec-ctl: cannot reach %s: %s\n", path, strerror(-rc));
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "vecsec-ctl: cannot reach %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* the gateway runs as root or as this user; anyone else may not read our requests */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr)) {
		fprintf(stderr, "vecsec-ctl: %s: refused, nothing sent: no peer credentials "
			"(%s)\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (cr.uid != 0 && cr.uid != geteuid()) {
		fprintf(stderr, "vecsec-ctl: %s: refused, nothing sent: the listener (pid %d) "
			"runs as uid %u, not as root or uid %u: not a gateway of ours\n", path,
			(int)cr.pid, (unsigned int)cr.uid, (unsigned int)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

static void
usage(const char *prog)
{
	char def[108];

	if (gw_ctrl_default_path(def, sizeof(def), NULL) != 0)
		snprintf(def, sizeof(def), "(none)");
	printf("usage: %s [-s SOCKET | -p PREFIX] [-j] [-i S [-c N]] [--] [COMMAND ...]\n"
	       "       %s [-s SOCKET | -p PREFIX] [-j] -f FILE\n"
	       "       %s --version | --help\n"
	       "  -s, --socket SOCKET  the gateway's control socket\n"
	       "  -p, --file-prefix PREFIX\n"
	       "                       the default socket of the gateway started with EAL\n"
	       "                       --file-prefix PREFIX\n"
	       "  -f, --file FILE      one request per line of FILE\n"
	       "  -j, --json           answers as JSON: the gateway's for list, stats, show,\n"
	       "                       version, reset, reload; {\"ok\": ...} for the others\n"
	       "  -i, --interval S     send COMMAND again every S seconds (stats: counters and\n"
	       "                       rates as they change)\n"
	       "  -c, --count N        with -i: N times (default: until interrupted)\n"
	       "  -V, --version        print vecsec-ctl's version and exit (the gateway's\n"
	       "                       protocol version: the 'version' command)\n"
	       "  commands: sa ..., sp ..., del sa in|out SPI, del sp <rule>, list, stats,\n"
	       "    show sa [[in|out] SPI], reset [SPI | sa in|out SPI], reload,\n"
	       "    replace sp <rule> with protect SPI|bypass|discard, version\n"
	       "  monitor: subscribe, print one line per event (SA added, deleted, reset,\n"
	       "    reload, expire) until the gateway exits\n"
	       "  check-proposals [FILE ...]: warn about swanctl esp_proposals the gateway\n"
	       "    cannot serve (default /etc/swanctl/swanctl.conf and its includes)\n"
	       "  no COMMAND: one request per line of standard input (-f FILE: of FILE);\n"
	       "    requests with keys (sa ...) must come this way, never as arguments\n"
	       "  default socket: $VECSEC_GW_SOCKET, else %s (-p PREFIX: PREFIX.sock\n"
	       "    in the same folder)\n",
	       prog, prog, prog, def);
}

/*
 * An unknown option, or one without its argument: named, but only up to an
 * '=' (what follows could be key material) and never sent to the gateway.
 */
static void
bad_option(int c, const char *word)
{
	size_t n = strcspn(word, "=");

	if (c == ':' && optopt != 0 && word[1] != '-')
		fprintf(stderr, "vecsec-ctl: option -%c needs an argument\n", optopt);
	else if (c == ':')
		fprintf(stderr, "vecsec-ctl: option %.*s needs an argument\n", (int)n, word);
	else if (optopt != 0 && word[1] != '-')
		fprintf(stderr, "vecsec-ctl: unknown option -%c\n", optopt);
	else
		fprintf(stderr, "vecsec-ctl: unknown option %.*s\n", (int)n, word);
	fprintf(stderr, "vecsec-ctl: see --help; a request's words come after the options "
		"(or after --)\n");
}

/* Does the command line carry a key? Then it is refused, before anything is sent. */
static bool
argv_has_key(int argc, char **argv, int i)
{
	for (; i < argc; i++)
		if (is_key_keyword(argv[i]) || key_shaped(argv[i])) {
			fprintf(stderr, "vecsec-ctl: refused: this request carries key material, "
				"and the command line is visible to every user (ps, /proc); send it on "
				"standard input or from a file of mode 0600:\n"
				"  vecsec-ctl [-s SOCKET] -f FILE    or    ... | vecsec-ctl "
				"[-s SOCKET]\n");
			return true;
		}
	return false;
}

/* Requests from the command line: one, its words joined by spaces. */
static int
from_argv(int fd, int argc, char **argv, int i)
{
	size_t len = 0;
	int r;

	for (; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 1 > CTL_LINE_MAX - 1) {
			fprintf(stderr, "vecsec-ctl: command longer than %d bytes\n",
				CTL_LINE_MAX - 1);
			return 1;
		}
		if (len != 0)
			req[len++] = ' ';
		memcpy(req + len, argv[i], n);
		len += n;
	}
	if (len == strlen("monitor") && memcmp(req, "monitor", len) == 0) {
		char a[CTL_LINE_MAX];
		long n;

		/* line buffered, so that a reader sees each event when it comes */
		setvbuf(stdout, NULL, _IOLBF, 0);
		/* every event (protocol 1.6); a gateway before it has expire events only */
		hush_err = true;
		r = request(fd, memcpy(req, "subscribe all", 13), 13);
		hush_err = false;
		if (r > 0)
			r = request(fd, memcpy(req, "subscribe", 9), 9);
		if (r != 0)
			return r < 0 ? 2 : r;
		while ((n = read_line(&ans, a, sizeof(a) - 1)) != -1 && n != -3) {
			if (n < 0)
				continue;
			a[n] = '\0';
			event_out(a);
			if (ferror(stdout))
				return 1;       /* our reader is gone (SIGPIPE is off) */
		}
		return 0;
	}
	r = request(fd, req, len);
	return r < 0 ? 2 : r;
}

/* Requests from stdin or -f FILE, one per line. */
static int
from_lines(int fd, const char *file)
{
	struct stat st;
	bool keys = false;
	unsigned long lineno = 0;
	int rc = 0, r;
	long n;

	src.fd = file != NULL ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (src.fd < 0) {
		fprintf(stderr, "vecsec-ctl: %s: %s\n", file, strerror(errno));
		return 1;
	}
	while ((n = read_line(&src, req, CTL_LINE_MAX - 1)) != -1) {
		size_t len = (size_t)n;

		lineno++;
		if (n == -3) {
			fprintf(stderr, "vecsec-ctl: reading requests: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (n == -2) {
			fprintf(stderr, "vecsec-ctl: line %lu: longer than %d bytes: not sent\n",
				lineno, CTL_LINE_MAX - 1);
			rc = 1;
			continue;
		}
		if (len > 0 && req[len - 1] == '\r')
			len--;          /* a CRLF file */
		if (memchr(req, '\0', len) != NULL) {
			fprintf(stderr, "vecsec-ctl: line %lu: has a NUL byte: not sent\n", lineno);
			explicit_bzero(req, sizeof(req));
			rc = 1;
			continue;
		}
		req[len] = '\0';
		if (len == strspn(req, " \t") || req[strspn(req, " \t")] == '#') {
			explicit_bzero(req, sizeof(req));
			continue;
		}
		keys = keys || line_has_key(req, len);
		r = request(fd, req, len);
		explicit_bzero(req, sizeof(req));
		if (r < 0)
			return 2;
		if (r > 0)
			rc = 1;
	}
	if (file != NULL && keys && fstat(src.fd, &st) == 0 &&
			(st.st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH)) != 0)
		fprintf(stderr, "vecsec-ctl: warning: %s holds keys and group or others may read "
			"or write it (mode %03o): chmod 600 it\n", file,
			(unsigned int)(st.st_mode & 0777));
	if (file != NULL)
		close(src.fd);
	return rc;
}

/* A number of seconds (-i) or a count (-c); false if arg is not one. */
static bool
parse_num(const char *arg, double min, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	return *end == '\0' && errno == 0 && *v >= min && *v <= max;
}

/* What the command line asks for, besides the request itself */
struct ctl_opts {
	const char *path;               /* -s, else $VECSEC_GW_SOCKET */
	const char *file;               /* -f */
	const char *prefix;             /* -p */
	double interval, count;         /* -i, -c; 0: not given */
};

/*
 * The options, up to the first word that is none. Returns the exit status
 * (--help, --version, a bad option), or -1 to go on.
 */
static int
parse_opts(int argc, char **argv, struct ctl_opts *co)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "file-prefix", required_argument, NULL, 'p' },
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* '+': the first word that is no option starts the command; ':': our messages */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:p:f:ji:c:hV", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			co->path = optarg;
			break;
		case 'p':
			co->prefix = optarg;
			break;
		case 'f':
			co->file = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'i':
			if (!parse_num(optarg, 0.01, 86400, &co->interval)) {
				fprintf(stderr, "vecsec-ctl: -i %s: seconds, 0.01..86400\n",
					optarg);
				return 1;
			}
			break;
		case 'c':
			if (!parse_num(optarg, 1, 1e9, &co->count) ||
			    co->count != (double)(long)co->count) {
				fprintf(stderr, "vecsec-ctl: -c %s: a count from 1\n", optarg);
				return 1;
			}
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		case 'V':
			printf("vecsec-ctl %s\n", VECSEC_VERSION_STRING);
			return 0;
		default:
			bad_option(c, argv[optind - 1]);
			return 1;
		}
	}
	return -1;
}

/* The options that go together, or not, with the command at argv[i]; 0 or 1 */
static int
check_opts(int argc, char **argv, int i, const struct ctl_opts *co)
{
	if (co->file != NULL && i < argc) {
		fprintf(stderr, "vecsec-ctl: -f FILE and a command on the command line: one or "
			"the other\n");
		return 1;
	}
	if ((co->interval > 0 || co->count > 0) &&
	    (i == argc || strcmp(argv[i], "monitor") == 0)) {
		fprintf(stderr, "vecsec-ctl: -i and -c repeat a command given on the command line "
			"(not monitor)\n");
		return 1;
	}
	if (co->count > 0 && co->interval == 0) {
		fprintf(stderr, "vecsec-ctl: -c needs -i\n");
		return 1;
	}
	if (argv_has_key(argc, argv, i))
		return 1;
	return 0;
}

/*
 * The command at argv[i], sent on *fd, and with -i again every interval
 * (-c times), a new connection each time. Returns the exit status.
 */
static int
repeat_argv(int *fd, const char *path, int argc, char **argv, int i,
	    const struct ctl_opts *co)
{
	double interval = co->interval;
	int rc;

	for (unsigned long k = 1;; k++) {
		struct timespec ts = { (time_t)interval,
			(long)((interval - (double)(time_t)interval) * 1e9) };

		rc = from_argv(*fd, argc, argv, i);
		fflush(stdout);
		if (rc == 2 || interval == 0 || (co->count > 0 && (double)k >= co->count))
			break;
		nanosleep(&ts, NULL);
		/* a new connection each time: the gateway closes idle ones */
		close(*fd);
		memset(&ans, 0, sizeof(ans));
		*fd = ctl_connect(path);
		if (*fd < 0)
			return -1;
		ans.fd = *fd;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	struct ctl_opts co = { .path = getenv("VECSEC_GW_SOCKET") };
	char def[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *path;
	int fd, i, rc;

	/* the gateway hanging up is an answer (exit 2), not a signal */
	signal(SIGPIPE, SIG_IGN);
	rc = parse_opts(argc, argv, &co);
	if (rc >= 0)
		return rc;
	path = co.path;
	i = optind;
	/* reads swanctl files, talks to no gateway */
	if (i < argc && strcmp(argv[i], "check-proposals") == 0)
		return ctl_check_proposals(argc - i - 1, argv + i + 1);
	if (check_opts(argc, argv, i, &co) != 0)
		return 1;
	if (co.prefix != NULL || path == NULL) {
		/* -p wins over the environment: it names the gateway */
		if (gw_ctrl_default_path(def, sizeof(def), co.prefix) != 0) {
			fprintf(stderr, "vecsec-ctl: -p %s: not a file prefix\n",
				co.prefix != NULL ? co.prefix : "");
			return 1;
		}
		path = def;
	}
	fd = ctl_connect(path);
	if (fd < 0)
		return 2;
	ans.fd = fd;
	if (i < argc) {
		rc = repeat_argv(&fd, path, argc, argv, i, &co);
		if (rc < 0) {
			wipe_all();
			return 2;
		}
	} else {
		rc = from_lines(fd, co.file);
	}
	if (rc == 2)
		fprintf(stderr, "vecsec-ctl: the gateway closed the connection\n");
	close(fd);
	wipe_all();
	return rc;
}
