/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw run-time state: SAs bound to rte_ipsec and a cryptodev, the SPD,
 * the route tables, ports and workers. Built once from struct gw_conf by
 * sa.c, sp.c and rt.c before the workers start; read-only afterwards except
 * for the rte_ipsec SA's sequence and replay state, which only the worker
 * owning the packet touches (outbound: SQN_ATOM when there is more than one
 * worker; inbound: under the SA's rw_lock).
 */
#ifndef VECSEC_GW_DP_H
#define VECSEC_GW_DP_H

#include "gw.h"

#include <stdio.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_cryptodev.h>
#include <rte_ether.h>
#include <rte_ipsec.h>
#include <rte_ipsec_sad.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>
#include <rte_rwlock.h>
#include <rte_spinlock.h>

#include <vecsec/vecsec_esp.h>

struct rte_fib;
struct rte_fib6;

/*
 * A native SA's own ESP state (type native: sa_native.c builds it,
 * esp_native*.c read it); no other SA type reads it.
 *
 * Line 0 of struct gw_sa, in place of the rte_ipsec session a native SA
 * never has (struct gw_nsa0; its first 8 bytes stay zero where ss.sa is,
 * so code that asks whether an SA has an rte_ipsec SA sees none): the
 * outbound sequence counter (lib/esp: reserved per burst with one atomic
 * when workers share the SA), an IPv4 tunnel's template with NAT-T's UDP
 * header, and where the rest is. Line 0 is fetched with line 1 for every
 * SA (gw_sa_prefetch), so an outbound IPv4 packet's counter and template
 * cost no line of their own.
 *
 * The rest (struct gw_nsa) opens the SA's block (cold->blk), so that only
 * native SAs pay for it: its first line a whole ChaCha20-Poly1305 key
 * object (header with the salt, then the 32-byte key:
 * vecsec_aead_key_size() is one line; the header names the algorithm, so
 * a ChaCha20 packet needs no pointer to it); an ARIA key's round keys do
 * not fit a line, so that line stays zero and its object follows struct
 * gw_nsa in the block. The second line: the key's address and an IPv6
 * tunnel's template. Then, inbound, the exact replay window (rw).
 */
#define GW_NSA0_TMPL_MAX 28     /* IPv4 20 + UDP 8 */
#define GW_NSA_TMPL_MAX 48      /* IPv6 40 + UDP 8 */
struct gw_nsa;
struct gw_nsa0 {
	void *zero;                             /* where ss.sa is: NULL */
	struct vecsec_esp_seq seq;              /* outbound numbers (lib/esp) */
	uint8_t esn;
	uint8_t tmpl_len;                       /* 0 (transport), 20/28 IPv4, 40/48 IPv6 */
	uint8_t udp_ofs;                        /* NAT-T tunnel: its UDP header in the template */
	uint8_t pad;
	uint8_t tmpl4[GW_NSA0_TMPL_MAX];        /* an IPv4 tunnel's template */
	struct gw_nsa *nsa;                     /* the key and the rest, in the SA's block */
};
struct gw_nsa {
	uint8_t key_line[64] __rte_aligned(64); /* ChaCha20's key object */
	const struct vecsec_aead_key *key;      /* &key_line, or the ARIA object after this */
	uint8_t tmpl6[GW_NSA_TMPL_MAX];         /* an IPv6 tunnel's template */
};

/*
 * TSC cycles from @then to @now, 0 when @then is later. Two readings taken
 * on different CPUs (a worker's timestamp read by the main thread) or by a
 * thread the OS moved between them need not be ordered: on a VM the
 * counters of two vCPUs were seen up to a millisecond apart, and an
 * unsigned difference then wraps to centuries.
 */
static inline uint64_t
gw_tsc_since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Where rte_ipsec puts the per-op IV: right after the symmetric op. */
#define GW_IV_OFFSET (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define GW_COP_PRIV 32
/*
 * Where the worker keeps an op's SA (struct gw_sa *), after the IV (16 bytes
 * at most): completions are grouped by it, whatever the session type.
 */
#define GW_COP_SA_OFFSET (GW_IV_OFFSET + 16)
_Static_assert(GW_COP_SA_OFFSET + sizeof(void *) <= GW_IV_OFFSET + GW_COP_PRIV,
	       "an op's private area has no room for its SA");
#define GW_NATT_PORT 4500

/*
 * An SA, split by what a packet needs. struct gw_sa is the hot part, in one
 * array of DPDK memory (dp->sa[], stable for the whole run, slots reused):
 * line 0 the rte_ipsec session, line 1 every field the worker reads for
 * each burst, line 2 the lifetimes other than the hard packet limit (read
 * only by SAs that have such limits: life_more); a native SA's line 0 is
 * its struct gw_nsa0 instead of an rte_ipsec session. Its rte_ipsec SA and
 * replay window share one allocation (blk, cold part); the rest (addresses,
 * names, lookaside-protocol xform, where it was defined) is in struct
 * gw_sa_cold, never read by a packet.
 */
struct gw_sa {
	union {                                 /* line 0 (cache aligned) */
		struct rte_ipsec_session ss;
		struct gw_nsa0 nsa0;            /* type native (struct gw_nsa0) */
	};
	/* line 1 */
	/*
	 * vecsec: anti-replay of inbound rte_ipsec SAs (lookaside-none, CPU
	 * crypto) with a window or ESN: an exact RFC 4303 window (lib/esp) in
	 * front of rte_ipsec's (esp_in.h, replay_pre/replay_post). NULL: none
	 * (lookaside-protocol SAs: the PMD's window is exact).
	 */
	struct vecsec_esp_replay *rw;
	/*
	 * Lifetimes. Workers reserve a burst's packets (and bytes, with byte
	 * limits) with one atomic add per SA group; the worker whose add
	 * crosses a limit queues the expire event. Past the hard limit:
	 * GW_DROP_EXPIRED. hard_pkts: life[GW_LIFE_HARD_PKTS], and outbound
	 * also the sequence numbers the SA has left (its numbers never wrap:
	 * RFC 4303 3.3.3), whichever is lower; 0 = none.
	 */
	uint64_t used_pkts;                     /* reserved so far, atomic */
	uint64_t hard_pkts;
	uint32_t spi;
	uint32_t idx;                           /* slot in dp->sa[] and the stats arrays */
	uint32_t rw_recover;                    /* W rte_ipsec reconstructs ESNs with */
	rte_rwlock_t rw_lock;                   /* read: replay_pre + prepare; write: process */
	uint16_t esp_fixed;                     /* ESP header + IV + ICV bytes */
	uint16_t pad_align;
	uint16_t tail_need;                     /* tailroom rte_ipsec needs for AAD/ESN */
	uint16_t nh_from_end;   /* inbound: the trailer's next header, this far from the */
				/* end when rte_ipsec is done with it (ICV, ESN high half) */
	uint8_t dir;                            /* enum gw_dir */
	uint8_t mode;                           /* enum gw_sa_mode */
	uint8_t inner_v6;                       /* family of the protected traffic */
	uint8_t action;                         /* enum gw_sa_action */
	uint8_t cdev_id;
	bool active;
	bool natt;              /* ESP in UDP (RFC 3948), port GW_NATT_PORT */
	bool rw_esn;
	bool rw_shared;                         /* more than one worker: take rw_lock */
	bool has_life;                          /* any lifetime limit configured */
	bool life_more;                         /* soft or byte limits: line 2 is read */
	uint8_t soft_sent, hard_sent;           /* atomic exchange: one event each */
	/*
	 * Lookaside-protocol SA not listed in rte_ipsec's telemetry: the worker
	 * builds its ops and checks their outcome itself (what rte_ipsec does
	 * for such SAs), so a packet never reads the rte_ipsec SA or the
	 * rte_security session's header (gw_sa_telemetry() sets it; atomic)
	 */
	bool direct;
	/* the SA's cluster segment (ha.h, gw_ha_sa_seg): 0 none, 1..16, GW_HA_SEG_PKT */
	uint8_t ha_seg;
	/*
	 * --cluster-sync (hasync.c): an SA whose numbers are gated (inbound:
	 * accepted only up to ha_in_lim, line 2, read only when this is set;
	 * outbound: hard_pkts capped with ha_out_allow by the control side)
	 */
	uint8_t ha_gate;
	/* line 2 */
	uint64_t life[4] __rte_cache_aligned;   /* enum gw_life, 0 = none */
	uint64_t used_bytes;                    /* reserved so far, atomic */
	/*
	 * outbound SA under --seq-state (seqstate.c): its real hard packet
	 * limit, while hard_pkts is capped at the numbers durably reserved
	 * (raised by the management thread, atomic); 0: not capped
	 */
	uint64_t hard_real;
	uint16_t natt_sport, natt_dport;        /* outbound NAT-T UDP ports, host order */
	/*
	 * --cluster-sync (hasync.c): outbound, set when the cap in hard_pkts
	 * is the partner's ack rather than --seq-state's
	 */
	uint8_t cap_by_ha;
	union {
		/* inbound, ha_gate set: the highest number the partner has acked (atomic) */
		uint64_t ha_in_lim;
		/*
		 * outbound, ha_gate set: the numbers the partner has acked, counted
		 * from the SA's first (UINT64_MAX: not gated; atomic); seqstate.c
		 * caps hard_pkts with it
		 */
		uint64_t ha_out_allow;
	};
} __rte_cache_aligned;

/*
 * Stage 1 of a packet's SA state (esp_crypto.h, "per-SA state, fetched
 * early"): its two hot lines, requested where the SPD (sp.c) or SAD
 * (esp_in.h) names it.
 */
static inline void
gw_sa_prefetch(const struct gw_sa *sa)
{
	rte_prefetch0(sa);
	rte_prefetch0((const uint8_t *)sa + RTE_CACHE_LINE_SIZE);
}

/*
 * What the views (stats, telemetry, the control socket) name as an SA's
 * cryptodev and its driver: a native SA has none, libvecsec runs it.
 */
#define gw_sa_cdev_name(dp, s) \
	((s)->action == GW_SA_NATIVE ? "none" : (dp)->cdev[(s)->cdev_id].name)
#define gw_sa_cdev_driver(dp, s) \
	((s)->action == GW_SA_NATIVE ? "libvecsec" : (dp)->cdev[(s)->cdev_id].driver)

/* The parts of an SA no packet reads (dp->sa_cold[], same slots). */
struct gw_sa_cold {
	struct gw_addr src, dst;                /* tunnel end points */
	const char *algo_name;
	const char *integ_name;                 /* gw_sa_conf's */
	int line;
	uint8_t owner;                          /* gw_sa_conf's */
	void *cses;                             /* cryptodev or rte_security session */
	void *blk;                              /* rte_ipsec SA + replay window */
	size_t blk_size;
	size_t sess_size;                       /* its session's mempool object */
	struct rte_security_ipsec_xform sa_ix;  /* lookaside-protocol: for the rte_security session */
	/*
	 * the AEAD salt rte_ipsec's SA holds (blk) too: the conf's copy is wiped
	 * once the SA is up, and gw_sa_out_seq_set() inits the SA again
	 */
	uint32_t salt;
};

/* An SA lifetime event, queued by a worker, sent by the control thread. */
struct gw_event {
	uint8_t hard;
	uint8_t dir;
	uint8_t by_pkts;                /* which limit: packets, else bytes */
	uint32_t spi;
	uint64_t limit;
	uint64_t tsc;                   /* when (the drain turns it into Unix time) */
};

#define GW_EVQ_SIZE 256

/*
 * An SP rule as the data path sees it: 32 bytes, two to a cache line and
 * never across one; the selectors are in the list's conf[].
 */
struct gw_sp {
	struct gw_sa *sa;       /* PROTECT */
	struct gw_sa *sa_prev;  /* inbound: spi_prev's SA while it is up, else NULL */
	uint8_t action;         /* enum gw_sp_action */
	bool dead;              /* a base rule no longer configured (see struct gw_spd) */
} __attribute__((aligned(32)));

/* An rte_acl context, shared by the SPD lists built on it (control thread only). */
struct gw_acl {
	struct rte_acl_ctx *ctx;
	unsigned int refcnt;
	bool dst_first;                 /* its trie has the destination first */
	size_t mem;                     /* bytes of DPDK heap it takes */
};

/*
 * One SPD list: rules ordered by priority (highest first), then by
 * configuration order. Immutable once published: the control socket builds
 * a new one, swaps the pointer and frees the old one after an RCU grace
 * period. rules[] is the data path's; conf[] (the same order) holds the
 * selectors, for the reference scan (gw_sp_lookup), the dead-rule fallback
 * and the tests. An ACL build takes tens of ms with a thousand rules, so a
 * run-time change reuses the published ACL where it can (sp.c,
 * gw_sp_update): the base rules[0..n) are the ACL's, in its order (a changed
 * action keeps its place); rules removed since are marked dead (a packet
 * whose ACL answer is dead is looked up again, linearly, among the live base
 * rules); rules added since are the overlay rules[n..n+no), in order,
 * scanned linearly. The better of the two answers wins. The control thread
 * rebuilds the ACL from scratch (compaction) when idle or when the overlay
 * or the dead grow; many rules at once (a batch) are one rebuild.
 */
struct gw_spd {
	uint64_t gen;                   /* unique to this list, never reused (SPD flow caches) */
	struct gw_acl *acl;             /* over the base; NULL when n == 0 */
	unsigned int n;                 /* base rules */
	unsigned int no;                /* overlay rules, after the base */
	unsigned int nb_dead;           /* dead base rules */
	size_t mem;                     /* bytes: the list (its ACL: acl->mem) */
	struct gw_sp_conf *conf;        /* [n + no] */
	struct gw_sp rules[];
};

struct gw_port {
	bool used;
	bool esp_side;                  /* unprotected (RFC 4301, ipsec-secgw -u): ESP here */
	bool tx_shared;                 /* fewer tx queues than workers: take tx_lock */
	uint16_t nb_txq;
	uint16_t mtu;                   /* largest IP packet sent (frag.c splits bigger) */
	rte_spinlock_t tx_lock[GW_MAX_WORKERS];
	struct rte_ether_addr mac;
	/*
	 * The next hop's MAC: a `neigh` line's, or 02:00:00:00:00:<port>, in
	 * bytes 0-5; byte 6 is 1 when a `neigh` line set it (it then wins over
	 * --kernel-nh's neighbours). One word, so that a reload changes it
	 * under the workers: gw_port_peer(), gw_port_peer_set().
	 */
	uint64_t peer;
};

static inline bool
gw_port_peer(const struct gw_port *p, struct rte_ether_addr *mac)
{
	uint64_t v = __atomic_load_n(&p->peer, __ATOMIC_RELAXED);

	memcpy(mac->addr_bytes, &v, RTE_ETHER_ADDR_LEN);
	return ((const uint8_t *)&v)[6] != 0;
}

static inline void
gw_port_peer_set(struct gw_port *p, const uint8_t mac[6], bool from_neigh)
{
	uint64_t v = 0;

	memcpy(&v, mac, RTE_ETHER_ADDR_LEN);
	((uint8_t *)&v)[6] = from_neigh;
	__atomic_store_n(&p->peer, v, __ATOMIC_RELAXED);
}

struct gw_cdev {
	bool used;              /* an SA picked it; started once sess_pool is set */
	bool made;              /* a software PMD the gateway created for an SA */
	uint8_t id;
	bool cpu_crypto;        /* RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO */
	struct rte_mempool *sess_pool;  /* its sessions (sized for this driver) */
	char name[RTE_CRYPTODEV_NAME_MAX_LEN];
	char driver[64];
};

struct gw_rxq {
	uint16_t port, queue;
};

struct gw_txbuf {
	uint16_t n;
	struct rte_mbuf *m[GW_BURST * 4];
};

struct gw_fc;

/*
 * A worker's flow cache (fcache.h, fcache.c): entries is a power of two
 * (NULL if it is not, or out of DPDK memory). Declared here for code that
 * does not look up (fcache.h pulls in rte_hash_crc.h's constructor).
 */
struct gw_fc *gw_fc_create(const char *name, unsigned int entries, int socket);
void gw_fc_free(struct gw_fc *c);
size_t gw_fc_mem(const struct gw_fc *c);
void gw_fc_counts(const struct gw_fc *c, uint64_t *hit, uint64_t *miss);

/* flow cache entries per worker (fcache.h): the defaults' range, the options' limit */
#define GW_FC_MIN 4096u
#define GW_FC_MAX (1u << 19)
#define GW_FC_LIMIT (1u << 24)

struct gw_worker {
	unsigned int id;
	unsigned int lcore;
	uint16_t qp;                    /* cryptodev queue pair of this worker */
	unsigned int nb_rxq;
	struct gw_rxq rxq[GW_MAX_PORTS];
	struct rte_mempool *cop_pool;
	uint32_t inflight[GW_MAX_CDEV];
	struct gw_txbuf tx[GW_MAX_PORTS];
	struct gw_stats st;
	struct gw_sa_ctr *sa_st;        /* [max_sa] packet counters (hot) */
	uint64_t (*sa_drops)[GW_DROP_MAX];      /* [max_sa] drops by reason (cold) */
	uint32_t inflight_total;
	uint64_t drained;               /* polls that ended with nothing in a cryptodev */
	uint64_t busy_cycles;           /* spent in iterations that moved packets */
	uint64_t last_rx_tsc;
	uint64_t now_tsc;               /* TSC at the start of this poll (SAs' last use) */
	uint64_t polls;                 /* polls done (--idle-exit waits for one more of each) */
	struct gw_frag_w *frag;         /* reassembly table and fragment IDs (frag.c) */
	struct gw_fc *spc;              /* SPD flow cache (fcache.h), NULL: none (--spd-cache 0) */
	struct gw_fc *sadc;             /* SAD cache (esp_in.h), NULL: none (--sad-cache 0) */
};

struct gw_dp {
	struct gw_sa *sa;               /* [max_sa], DPDK memory */
	struct gw_sa_cold *sa_cold;     /* [max_sa] */
	unsigned int nb_sa;             /* slots in use or used: the highest + 1 */
	unsigned int max_sa;            /* --max-sa, or sized from the configuration */
	unsigned int max_sp;            /* --max-sp: SP rules the control socket may reach */
	unsigned int max_rt;            /* --max-rt: routes each table has room for */
	/*
	 * The SADs' generation: bumped after every add and delete (sa.c), so a
	 * worker's SAD cache entry from before a change never answers
	 */
	uint64_t sad_gen;
	size_t mem_blk;                 /* bytes of the SAs' rte_ipsec SAs and windows */
	size_t mem_sad;                 /* bytes of the two SADs */
	struct gw_spd *spd[2][2];       /* [v6][dir], read with __atomic_load_n */
	struct gw_conf *conf;           /* live configuration, keys wiped */
	struct rte_rcu_qsbr *rcu;       /* workers report quiescence each poll */
	bool ctrl;                      /* run-time changes possible (--ctrl) */
	struct rte_ipsec_sad *sad4, *sad6;
	struct rte_fib *fib4[2];        /* [to an ESP-side port] */
	struct rte_fib6 *fib6[2];
	struct gw_port port[GW_MAX_PORTS];
	uint16_t nb_ports;
	struct gw_cdev cdev[GW_MAX_CDEV];
	struct gw_worker worker[GW_MAX_WORKERS];
	unsigned int nb_workers;
	/*
	 * --seq-state (seqstate.c): half the numbers reserved at a time, 0: off.
	 * An outbound SA's burst that leaves fewer than this below hard_pkts
	 * takes gw_life_admit_rest(), which notes the SA for the management
	 * thread (gw_seq_state_note()): the compare life_admit() makes anyway
	 */
	uint64_t seq_gap;
	uint32_t window;                /* default replay window */
	uint16_t rx_burst;              /* packets per rx burst, 1..GW_BURST (--rx-burst) */
	bool esn;                       /* ESN on every SA (-e) */
	bool force_cpu_crypto;
	bool force_native;              /* --native: every SA libvecsec's engine can run is native */
	bool ipsec_telemetry_all;       /* every SA in /ipsec/sa/... (--ipsec-telemetry all) */
	const char *prefer_driver;      /* cryptodev driver tried first */
	uint32_t frag_tbl_sz;           /* reassembly entries per worker, 0: none */
	uint64_t frag_ttl_ns;           /* a datagram's fragments wait this long */
	struct rte_mempool *frag_indirect;      /* indirect mbufs of tx fragments */
};

extern struct gw_dp gw;
extern volatile bool gw_quit;

/* evq.c: queue an event (workers; rare, takes a spinlock, never blocks long) */
void gw_event_post(const struct gw_sa *s, bool hard, bool by_pkts, uint64_t limit);

/* sa.c */
/* crypto_vecsec's dynamic mbuf flag for replayed ESP (lookaside-protocol SAs), or 0 */
extern uint64_t gw_sec_replay_flag;
/* mbuf dynamic field: an inbound packet's full sequence number (struct gw_sa rw) */
extern int gw_seq_dynfield;
/* the same for dummy packets (next header 59), or 0 */
extern uint64_t gw_sec_dummy_flag;
int gw_sa_setup(struct gw_dp *dp, const struct gw_conf *conf);
void gw_sa_teardown(struct gw_dp *dp);
/* Control path: bring up conf->sa[i] in slot i / retire slot i (after a grace period). */
/* fam: the SA's family, < 0: none given (its `inner`, else its tunnel's) */
int gw_sa_add(struct gw_dp *dp, const struct gw_conf *conf, unsigned int i, int fam, char *err,
		size_t err_len);
int gw_sa_sad_del(struct gw_dp *dp, struct gw_sa *s);
void gw_sa_free(struct gw_dp *dp, struct gw_sa *s);
/* --cluster-sync: outbound SA s sends next as its next number (sa.c); 0 or -errno */
int gw_sa_out_seq_set(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c,
		      uint64_t first, uint64_t next);
/* Memory of the SA table and what its SAs hold (the control socket's `mem`). */
struct gw_mem {
	unsigned int max_sa, nb_sa;     /* table size, SAs up */
	unsigned int nb_chacha;         /* of them ChaCha20-Poly1305 on rte_ipsec */
	unsigned int nb_sessions;       /* sessions the pools hold, used or not */
	size_t sa_hot, sa_cold;         /* the two SA arrays (max_sa slots) */
	size_t stats;                   /* per-worker SA counters (max_sa slots) */
	size_t ipsec_sa;                /* rte_ipsec SAs and replay windows of the SAs up */
	size_t session;                 /* sessions of the SAs up (mempool objects) */
	size_t session_heap;            /* their key schedules the PMD keeps in DPDK's heap */
	size_t session_obj, sec_session_obj;    /* one cryptodev / rte_security session */
	size_t session_pools;           /* every session the pools hold */
};
void gw_sa_mem(const struct gw_dp *dp, struct gw_mem *m);
/* List s in DPDK's rte_ipsec telemetry when marked (or --ipsec-telemetry all), else not. */
void gw_sa_telemetry(const struct gw_dp *dp, struct gw_sa *s, bool marked);
/*
 * ctrl.c: the control socket at path; gid >= 0: members of that group may
 * use it too; own_dir: path is the default one (ctrl_path.h), whose folder
 * is made (0700, 0750 with gid) and checked.
 */
int gw_ctrl_start(const char *path, int gid, bool own_dir);
void gw_ctrl_stop(void);
/*
 * --ctrl-idle S (ctrl.c): a client that sent nothing and had nothing to
 * receive for S seconds is closed (never a subscriber, never one whose
 * answer is on its way); 0: never. --spi-timeout S (ctrl_ike.c): an `spi
 * alloc` reservation is forgotten S seconds after it was made (an SA added
 * with its SPI holds the SPI on its own); 0: never.
 */
#define GW_CTRL_IDLE_S_DEFAULT 60
#define GW_SPI_TIMEOUT_S_DEFAULT 30
extern unsigned int gw_ctrl_idle_s;
extern unsigned int gw_spi_timeout_s;
/* Rules added through the control socket get "lines" from here on (cp.c; reload.c keeps them). */
#define GW_CTRL_LINE_BASE (1 << 30)
/* inline: the layers under the change engine ask it too (seqstate.c) */
static inline bool
gw_ctrl_origin(int line)
{
	return line >= GW_CTRL_LINE_BASE;
}
/*
 * ctrl.c's protocol without a socket (the fuzzer, tests): a client whose
 * answers go to sink. gw_ctrl_feed() hands it bytes the client sent (eof:
 * it ended the connection after them) and serves every request they
 * complete; false once the connection would be closed (the rest is not
 * looked at). Not to be mixed with a running gw_ctrl_start().
 */
struct gw_ctrl_client;
struct gw_ctrl_client *gw_ctrl_client_new(void (*sink)(void *arg, const char *p, size_t n),
		void *arg);
bool gw_ctrl_feed(struct gw_ctrl_client *c, const void *p, size_t n, bool eof);
void gw_ctrl_client_free(struct gw_ctrl_client *c);
/* sp.c */
int gw_sp_setup(struct gw_dp *dp, const struct gw_conf *conf);
/* Build the four lists from conf; *out[v6][dir]; -errno. */
int gw_sp_build(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *out[2][2]);
/* Lists are named by bits: GW_SPD_BIT(v6, dir). */
#define GW_SPD_BIT(v6, dir) (1u << ((v6) * 2 + (dir)))
#define GW_SPD_ALL 0xfu
/*
 * The lists of mask, reusing the ACLs of prev (the published lists; NULL:
 * none) where the change is small: an overlay and dead rules instead of a
 * rebuild. The lists not in mask are NULL in out (the published ones stay).
 */
int gw_sp_update(const struct gw_dp *dp, const struct gw_conf *conf, struct gw_spd *const prev[2][2],
		unsigned int mask, struct gw_spd *out[2][2]);
/* The lists of t with an overlay or dead rules (a full build would drop them): a mask. */
unsigned int gw_sp_fragmented(struct gw_spd *const t[2][2]);
void gw_sp_free(struct gw_spd *t[2][2]);
void gw_sp_teardown(struct gw_dp *dp);
const struct gw_sp *gw_sp_lookup(const struct gw_dp *dp, bool v6, uint8_t dir,
		const uint8_t *l3, uint32_t l3_len, uint32_t pkt_len);
/*
 * What the data path reads of a rule found: its action and SA (a copy: a
 * cache hit carries them, so the rule's own line is not read).
 */
struct gw_sp_val {
	struct gw_sa *sa;
	uint8_t action;
};

/*
 * The same answer as gw_sp_lookup() for n <= GW_BURST packets (and, with
 * val, each rule's action and SA; unset where out[i] is NULL): from the
 * worker's SPD flow cache c (fcache.h; NULL: none) where it holds the
 * packet's 5-tuple for the list in force (the list's generation), else
 * through rte_acl (and then cached).
 */
void gw_sp_lookup_bulk(const struct gw_dp *dp, struct gw_fc *c, bool v6, uint8_t dir,
		const uint8_t *const l3[], const uint32_t l3_len[], const uint32_t pkt_len[],
		uint16_t n, const struct gw_sp *out[], struct gw_sp_val val[]);
/* rt.c */
int gw_rt_setup(struct gw_dp *dp, const struct gw_conf *conf);
void gw_rt_teardown(struct gw_dp *dp);
/*
 * A reload's routes and neighbours (rt.c): prepare builds new route
 * tables (0, or -errno with err; nothing published), commit publishes
 * them and conf's neighbours to the workers and frees the old tables after
 * an RCU grace period, abort frees what prepare built.
 */
struct gw_rt_set {
	struct rte_fib *fib4[2];
	struct rte_fib6 *fib6[2];
};
int gw_rt_prepare(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s, char *err,
		  size_t err_len);
void gw_rt_commit(struct gw_dp *dp, const struct gw_conf *conf, struct gw_rt_set *s);
void gw_rt_abort(struct gw_rt_set *s);
/* every port's next-hop MAC from conf's neigh lines (the default where none) */
void gw_rt_neigh_apply(struct gw_dp *dp, const struct gw_conf *conf);
int gw_rt_lookup(const struct gw_dp *dp, bool to_esp_side, const uint8_t *l3, bool v6);
/* worker.c */
int gw_worker_loop(void *arg);
unsigned int gw_worker_poll(struct gw_worker *w);
void gw_worker_drain(struct gw_worker *w);
/* frag.c */
#define GW_FRAG_MAX_OUT 64              /* fragments of one packet on tx */
#define GW_FRAG_DEFAULT_TBL 256
#define GW_FRAG_DEFAULT_TTL_NS 10000000000ull   /* 10 s, as ipsec-secgw */
int gw_frag_setup(struct gw_dp *dp);
void gw_frag_teardown(struct gw_dp *dp);
/*
 * rx: *m starts with a checked IP header (parse_l3). Returns 0: not a
 * fragment, go on; -1: a fragment, taken (kept for its datagram, or dropped
 * and counted); 1: *m is now a whole datagram (or an IPv6 atomic fragment
 * without its Fragment header) to parse again.
 */
int gw_frag_in(struct gw_worker *w, struct rte_mbuf **m, int v6, uint8_t proto);
/* each poll: expire what waited past --frag-ttl (counted as GW_DROP_FRAG) */
void gw_frag_poll(struct gw_worker *w);
/* at stop: drop (count) every fragment still waiting */
void gw_frag_flush(struct gw_worker *w);
/*
 * tx: split m (IP header first) into fragments of at most mtu bytes; m is
 * consumed on success. Returns the count, or -errno with m untouched
 * (-ENOTSUP: IPv4 DF; -EINVAL: cannot be fragmented; -ENOMEM).
 */
int gw_frag_split(struct gw_worker *w, struct rte_mbuf *m, uint16_t mtu, bool v6,
		struct rte_mbuf *out[GW_FRAG_MAX_OUT]);
/* natt.c: UDP encapsulation for transport-mode NAT-T SAs (RFC 3948) */
int gw_natt_trs_decap(struct rte_mbuf *m);
/* after rte_ipsec: transport SAs get their UDP header (ports of s), IPv6 its checksum */
int gw_natt_outb(struct rte_mbuf *m, const struct gw_sa *s);
/* the NAT-T ports (gw_natt_ports, gw_natt_port()): gw_pkt.h */
void gw_natt_trs_l4_fix(struct rte_mbuf *m, uint8_t proto);
/*
 * host.c: the exception path to the host stack (--host-port P:T[:IFNAME]).
 * gw_host_tap[P] = T and gw_host_of[T] = P, -1 where a port has none.
 */
extern int8_t gw_host_tap[GW_MAX_PORTS], gw_host_of[GW_MAX_PORTS];
/* T's kernel interface name (IF_NAMESIZE 16), set by gw_host_setup() */
extern char gw_host_ifname[GW_MAX_PORTS][16];
extern bool gw_host_on;
/* --host-default discard: host traffic across the boundary that no rule matches is dropped */
extern bool gw_host_discard;
#define GW_HOST_MAX_BYPASS 8
/*
 * UDP source ports of the host's IKE sockets (`bypass udp PORT`), network
 * order, 0 = a free slot (anywhere in the set: readers scan it all); the
 * control thread's ctrl_ike.c alone changes it and gw_natt_ports.
 */
extern uint16_t gw_host_bypass_ports[GW_HOST_MAX_BYPASS];
int gw_host_parse(const char *arg);
int gw_host_setup(struct gw_dp *dp, bool quiet);
void gw_host_teardown(void);
void gw_host_list(FILE *out);
/*
 * The data path asks host.c at four points, always through
 * gw_host_classify() (p->at says which), and does what the answer says;
 * host.c sends what it takes through the port I/O layer (port_io.h).
 */
enum gw_host_at {
	GW_HOST_AT_L2,          /* rx on a P or T port, the frame with its Ethernet header */
	GW_HOST_AT_L3,          /* rx on a P or T port, the IP datagram (after parse_l3, reassembly) */
	GW_HOST_AT_SPD,         /* after the SPD: a datagram AT_L3 answered GW_HOST_SPD_* for */
	GW_HOST_AT_ROUTE,       /* before routing to a protected port: the gateway's own address? */
};
enum gw_host_verdict {
	GW_HOST_NO,             /* not the host's: the gateway's data path goes on */
	GW_HOST_TAKEN,          /* sent on (to the host, or from it) or dropped and counted */
	GW_HOST_SPD_IN,         /* clear for the host (P port): the inbound SPD first, then AT_SPD */
	GW_HOST_SPD_OUT,        /* from the host (T port): the outbound SPD, then AT_SPD */
	GW_HOST_SPD_STRICT,     /* the same, and no rule is a drop (--host-default discard) */
};
#define GW_HOST_SP_NONE 0xff    /* gw_host_pkt.sp: no rule matched */
struct gw_host_pkt {
	uint8_t at;             /* enum gw_host_at */
	uint8_t v6;
	uint8_t proto;          /* AT_L3: the datagram's protocol */
	uint8_t frag;           /* AT_L3: a fragment (--reassemble 0) */
	uint8_t l3;             /* AT_SPD: what AT_L3 answered */
	uint8_t sp;             /* AT_SPD: the rule's action (GW_SP_*) or GW_HOST_SP_NONE */
};
enum gw_host_verdict gw_host_classify(struct gw_worker *w, uint16_t port, struct rte_mbuf *m,
				      const struct gw_host_pkt *p);
/* stats.c */
void gw_stats_print(const struct gw_dp *dp, double seconds, FILE *f);
void gw_stats_sum(const struct gw_dp *dp, struct gw_stats *out);
void gw_stats_sa_sum(const struct gw_dp *dp, unsigned int sa, struct gw_sa_stats *out);
int gw_stats_write_json(const struct gw_dp *dp, const char *path);
void gw_stats_json(const struct gw_dp *dp, FILE *f);
/* the same lines into the log, at level (RTE_LOG_INFO, ...) */
void gw_stats_log(const struct gw_dp *dp, double seconds, uint32_t level);
/* telemetry.c: /vecsec_gw/stats, /vecsec_gw/sa, /vecsec_gw/reload */
int gw_telemetry_register(void);
/* baselines and rate samples, for dp->max_sa slots; gw_stats_fini() frees them */
int gw_stats_init(void);
void gw_stats_fini(void);
/* bytes of those baselines and samples (the control socket's `mem`) */
size_t gw_stats_mem(void);
/* seconds since start, since the last `reset` (or start), the last sampling interval */
double gw_stats_uptime(void);
double gw_stats_since(void);
double gw_stats_interval(void);
/* counters since the last reset: totals, one SA slot's */
void gw_stats_total(const struct gw_dp *dp, struct gw_stats *out);
void gw_stats_sa(const struct gw_dp *dp, unsigned int slot, struct gw_sa_stats *out);
void gw_stats_reset_all(const struct gw_dp *dp);
void gw_stats_reset_sa(const struct gw_dp *dp, unsigned int slot);
/* slot now holds a new SA: its baseline and rate samples from 0 */
void gw_stats_sa_new(unsigned int slot);
/* take a rate sample (mgmt.c, every --rate-interval) */
void gw_stats_sample(const struct gw_dp *dp);
/* the first active SA slot >= from with this SPI (dir -1: either direction), or -1 */
int gw_stats_find_sa(const struct gw_dp *dp, int dir, uint32_t spi, int from);
/* `show sa`: every SA (all), or those of spi (and dir >= 0); text or JSON; how many */
int gw_stats_show_sa(const struct gw_dp *dp, int dir, uint32_t spi, bool all, bool json,
		FILE *f);

/* cp_lock.c: control-plane lock (control socket, reload, telemetry, samples; never workers) */
void gw_cp_lock(void);
bool gw_cp_trylock(void);      /* the lock if free now (the cluster sync's heartbeat) */
void gw_cp_unlock(void);
/* the management thread: rates every rate_interval s, the counters every stats_interval (0: off) */
int gw_mgmt_start(double rate_interval, double stats_interval);
void gw_mgmt_stop(void);
/* from a signal handler: SIGUSR1 (counters to the log), SIGHUP (reload) */
void gw_mgmt_signal(int sig);
/* notify.c: sd_notify(3) state ("READY=1", ...) to $NOTIFY_SOCKET, if set */
void gw_notify(const char *state);

/* reload.c */
struct gw_reload_status {
	uint64_t ok, failed;            /* reloads done, refused */
	bool last_ok;
	char message[512];              /* what the last one did, or why it was refused */
};
/* remember the -f file and its flags (GW_CONF_*); 0 or -ENOMEM */
int gw_reload_init(const char *path, unsigned int conf_flags);
void gw_reload_fini(void);
bool gw_reloadable(void);
/* reload the -f file, make-before-break; under gw_cp_lock(); 0, or -errno (msg: why) */
int gw_reload(char *msg, size_t len);
void gw_reload_status(struct gw_reload_status *out);
/* sa_fp.c: the key fingerprint of the SA in slot (keys still in c): reload tells kept SAs by it */
void gw_sa_fp_set(unsigned int slot, const struct gw_sa_conf *c);

#endif /* VECSEC_GW_DP_H */
