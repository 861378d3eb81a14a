/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw sequence-number state (--seq-state FILE): a high-water mark per
 * outbound SA whose keys come from the configuration file, so that a
 * restart with the same keys never sends a (key, sequence number, IV)
 * again (RFC 4106 8.1, RFC 7634 4). seqstate.c says how.
 */
#ifndef VECSEC_GW_SEQSTATE_H
#define VECSEC_GW_SEQSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw.h"

#define GW_SEQ_STATE_DEFAULT "/var/lib/vecsec-gw/seq-state"
#define GW_SEQ_RESERVE_DEFAULT (1ull << 20)
#define GW_SEQ_RESERVE_MAX (1ull << 40)

struct gw_dp;
struct gw_sa;

/*
 * Start (before the SAs are set up): path NULL is off (--seq-state none);
 * else its folder is made (0700) if missing and the file read if there.
 * reserve: numbers reserved ahead (--seq-reserve). 0, or -errno with the
 * reason, naming the file and the option, in err.
 */
int gw_seq_state_open(const char *path, uint64_t reserve, char *err, size_t err_len);
bool gw_seq_state_on(void);
/*
 * Write every mark durably (new file, fsync, rename, fsync the folder),
 * then let the SAs use their numbers up to them. Start calls it once the
 * SAs are set up (and refuses to start if it fails), a reload once its new
 * SAs are up and before any SP rule points at them. 0 or -errno (err).
 */
int gw_seq_state_commit(char *err, size_t err_len);
/* Marks reserved in memory and not written yet (a reload's new SAs, a failed write). */
bool gw_seq_state_pending(void);
void gw_seq_state_close(void);
/* Whether SA c's numbers are kept: outbound, from the file, the state on. */
bool gw_seq_state_kept(const struct gw_sa_conf *c);
/*
 * sa.c, an outbound SA coming up in slot: the first number it sends. With
 * the state kept for it, max(its configured first, the stored mark + 1),
 * and a mark R above reserved (in memory until the next commit); last: the
 * highest number the SA may send (2^32 - 2 without ESN).
 */
uint64_t gw_seq_state_bind(unsigned int slot, const struct gw_sa_conf *c, uint64_t last);
/* sa.c, once s->hard_pkts holds its real limit: cap it at the reservation. */
void gw_seq_state_cap(struct gw_sa *s);
/*
 * hard_pkts from hard_real (0: not capped), the numbers reserved here and
 * the cluster partner's acks (--cluster-sync); under the control-plane lock.
 */
void gw_seq_state_recap(struct gw_sa *s);
/* sa.c: slot's SA is gone. */
void gw_seq_state_unbind(unsigned int slot);
/* The first number of the outbound SA in slot (stats: the last one sent). */
uint64_t gw_seq_state_first(unsigned int slot, const struct gw_sa_conf *c);
/*
 * A worker (esp_out.c), for an outbound SA whose burst left it within
 * half a reservation of its cap (gw.seq_gap): the next tick looks at it.
 * No lock; a write only when the SA is not noted already.
 */
void gw_seq_state_note(unsigned int slot);
/*
 * mgmt.c, every tick: extend the marks of the SAs noted, and of a slice of
 * all kept SAs in turn, write them, raise the caps.
 */
void gw_seq_state_poll(void);

#endif /* VECSEC_GW_SEQSTATE_H */
