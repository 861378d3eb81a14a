/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw change engine (cp.c): every change to the SAs and SP rules at
 * run time goes through here, whichever front end asks for it (the control
 * socket's commands, ctrl_ike.c's, a reload). The front ends parse and
 * answer; this module changes the live configuration, publishes the SPD,
 * reclaims what the workers may still hold and owns the control-plane
 * lock (gw_cp_lock(): cp_lock.c, declared in gw_dp.h).
 */
#ifndef VECSEC_GW_CP_H
#define VECSEC_GW_CP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gw.h"

struct gw_sa;

/*
 * `sa ...` or `sp ...`: one rule, parsed into the live configuration. An
 * SA is up when this returns; an SP rule joins the open batch (*spd set),
 * in force after gw_cp_commit(). 0 (err may hold a warning) or -errno.
 */
int gw_cp_add(const char *line, bool *spd, char *err, size_t err_len);
/* Remove an SA and the SP rules that protect with it (one SPD swap). */
int gw_cp_del_sa(uint8_t dir, uint32_t spi, char *err, size_t err_len);
/* Remove the first SP rule equal to the one rule of text. */
int gw_cp_del_sp(const char *rule, char *err, size_t err_len);
/*
 * Give the first SP rule equal to rule (text) the action of the words
 * action[0..n_action) (bypass | discard | protect SPI), in one SPD swap.
 */
int gw_cp_replace_sp(const char *rule, const char *const *action, unsigned int n_action,
		     char *err, size_t err_len);
/*
 * Remove every SA and SP rule of owner id in one SPD swap: *nsa and *nsp
 * count them; gone has room for gw.conf->nb_sa + 1 slots (the caller's, so
 * that it can fail before anything changes).
 */
int gw_cp_flush_owner(int id, uint32_t *gone, unsigned int *nsa, unsigned int *nsp,
		      char *err, size_t err_len);

/*
 * Routes and neighbours through the control socket (cp_rt.c): `rt <rule>`
 * and `neigh port N MAC` (replacing the same prefix's route, the port's
 * neighbour), `del rt <rule>`, `del neigh port N`; in force on return (0),
 * or nothing changed (-errno, err). `show rt` lists the rules and
 * --kernel-nh's tables.
 */
int gw_cp_rt_add(const char *text, char *err, size_t err_len);
int gw_cp_rt_del(const char *text, char *err, size_t err_len);
int gw_cp_neigh_del(unsigned int port, char *err, size_t err_len);
void gw_cp_rt_show(FILE *out);

/* Publish all four SP lists built from c (a reload's merged configuration). */
int gw_cp_spd_publish(const struct gw_conf *c, char *err, size_t err_len);
/* Free unpublished SA s once no worker can hold it; false if it had to be kept. */
bool gw_cp_reclaim_sa(struct gw_sa *s);

/*
 * The SP batch: `sp` adds since the last commit, in the configuration but
 * not yet in force. gw_cp_commit() rebuilds and publishes the lists they
 * changed (0, or -errno with err: the batch's rules are taken out again).
 */
bool gw_cp_batch_open(void);
int gw_cp_commit(char *err, size_t err_len);
/* The open batch is old enough to be committed now. */
bool gw_cp_batch_due(void);
/* How long (ms) an open batch waits for more requests before its commit. */
int gw_cp_dry_wait_ms(void);

/*
 * A front end's request: begin takes the lock (kept across an open batch)
 * and frees what is safe to free; end lets the lock go unless a batch is
 * open.
 */
void gw_cp_begin(void);
void gw_cp_end(void);
/* The control thread, each turn: reclamation, and compaction once idle. */
void gw_cp_idle(void);
/*
 * A control thread runs (it drives gw_cp_idle()); without one, the
 * management thread's gw_cp_housekeeping() sends the lifetime events to
 * the log and frees what a reload unpublished.
 */
void gw_cp_ctrl_thread(bool running);
void gw_cp_housekeeping(void);
/* At the end: what the engine keeps (the free slot list). */
void gw_cp_fini(void);

#endif /* VECSEC_GW_CP_H */
