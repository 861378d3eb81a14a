/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket commands (ctrl_cmd.c): the request the socket
 * server (ctrl.c) hands over, and the table that serves it. The protocol:
 * docs/control-protocol.md.
 */
#ifndef VECSEC_GW_CTRL_CMD_H
#define VECSEC_GW_CTRL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CTRL_LINE_MAX 4096              /* one request and its '\n' */
#define CTRL_MAX_WORDS (CTRL_LINE_MAX / 2)
#define CTRL_MAX_SUBS 8                 /* subscribers at once */

/* The request being served: its words, and scratch for its rule text. */
struct ctrl_req {
	const char *line;       /* the whole request, NUL-terminated */
	unsigned int n;
	const char *w[CTRL_MAX_WORDS];
	unsigned int off[CTRL_MAX_WORDS];       /* where w[i] starts in line */
	bool subs_full;         /* set by the server: CTRL_MAX_SUBS subscribers already */
	bool subscribe;         /* set by `subscribe` */
	bool subscribe_all;     /* `subscribe all`: every event, not only expire */
	bool spd;               /* set by an `sp` add: its answer waits for the commit */
	bool json;              /* `json <request>`: JSON answer lines */
	int pid;                /* the client's process (SO_PEERCRED), 0 unknown */
	char words[CTRL_LINE_MAX];
	char text[CTRL_LINE_MAX];
};

/*
 * Serve the request in r (words split, under gw_cp_begin()); answer lines
 * go to out. 0 (OK; "OK warning: <err>" when err was set) or a negative
 * errno with the reason in err.
 */
int gw_ctrl_dispatch(struct ctrl_req *r, FILE *out, char *err, size_t err_len);

#endif /* VECSEC_GW_CTRL_CMD_H */
