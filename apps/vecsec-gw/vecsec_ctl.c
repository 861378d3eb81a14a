/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-ctl: talks to vecsec-gw's control socket (ctrl.c). With words on
 * the command line it sends them as one request; without, it sends every
 * line of standard input (the way to pass keys: argv is visible to all).
 * Prints the answers; exits 1 if any request got ERR, 2 if the gateway
 * cannot be reached.
 *
 *   vecsec-ctl [-s SOCKET] [COMMAND ...]
 *   vecsec-ctl [-s SOCKET] monitor     print SA expire events as they come
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CTL_DEFAULT_SOCKET "/run/vecsec-gw.sock"
#define CTL_LINE_MAX 4096

static char tobuf[CTL_LINE_MAX], inbuf[CTL_LINE_MAX];

/* Send one request, copy the answer to stdout; 0 OK, 1 ERR, -1 lost connection. */
static int
request(FILE *to, FILE *from, const char *req)
{
	char line[CTL_LINE_MAX];

	if (fprintf(to, "%s\n", req) < 0 || fflush(to) != 0)
		return -1;
	while (fgets(line, sizeof(line), from) != NULL) {
		fputs(line, stdout);
		if (strncmp(line, "OK", 2) == 0)
			return 0;
		if (strncmp(line, "ERR", 3) == 0)
			return 1;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = getenv("VECSEC_GW_SOCKET");
	char req[CTL_LINE_MAX];
	FILE *to, *from;
	int fd, i = 1, rc = 0, r;

	if (path == NULL)
		path = CTL_DEFAULT_SOCKET;
	if (argc > 2 && strcmp(argv[1], "-s") == 0) {
		path = argv[2];
		i = 3;
	}
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: %s [-s SOCKET] [COMMAND ...]\n"
		       "  commands: sa ..., sp ..., del sa in|out SPI, del sp <rule>, list, stats,\n"
		       "    replace sp <rule> with protect SPI|bypass|discard, version\n"
		       "  monitor: subscribe, print one line per SA expire event until the gateway "
		       "exits\n"
		       "  no COMMAND: one request per line of standard input\n"
		       "  default socket: $VECSEC_GW_SOCKET or %s\n",
		       argv[0], CTL_DEFAULT_SOCKET);
		return 0;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vecsec-ctl: socket path too long\n");
		return 2;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "vecsec-ctl: cannot reach %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	to = fdopen(dup(fd), "w");
	from = fdopen(fd, "r");
	if (to == NULL || from == NULL) {
		fprintf(stderr, "vecsec-ctl: out of memory\n");
		return 2;
	}
	/* requests carry keys: stdio buffers of our own, wiped at the end */
	setvbuf(to, tobuf, _IOFBF, sizeof(tobuf));
	setvbuf(stdin, inbuf, _IOFBF, sizeof(inbuf));
	if (i < argc) {
		size_t len = 0;

		req[0] = '\0';
		for (; i < argc; i++) {
			size_t n = strlen(argv[i]);

			if (len + n + 2 > sizeof(req)) {
				fprintf(stderr, "vecsec-ctl: command too long\n");
				return 2;
			}
			if (len != 0)
				req[len++] = ' ';
			memcpy(req + len, argv[i], n + 1);
			len += n;
		}
		if (strcmp(req, "monitor") == 0) {
			/* line buffered, so a reader sees each event when it comes */
			setvbuf(stdout, NULL, _IOLBF, 0);
			r = request(to, from, "subscribe");
			if (r == 0) {
				char line[CTL_LINE_MAX];

				while (fgets(line, sizeof(line), from) != NULL)
					fputs(line, stdout);
			}
			rc = r < 0 ? 2 : r;
		} else {
			r = request(to, from, req);
			rc = r < 0 ? 2 : r;
		}
	} else {
		while (fgets(req, sizeof(req), stdin) != NULL) {
			req[strcspn(req, "\n")] = '\0';
			if (req[0] == '\0' || req[0] == '#')
				continue;
			r = request(to, from, req);
			if (r < 0) {
				rc = 2;
				break;
			}
			if (r > 0)
				rc = 1;
		}
		explicit_bzero(req, sizeof(req));
	}
	if (rc == 2)
		fprintf(stderr, "vecsec-ctl: the gateway closed the connection\n");
	fclose(to);
	fclose(from);
	explicit_bzero(tobuf, sizeof(tobuf));
	explicit_bzero(inbuf, sizeof(inbuf));
	return rc;
}
