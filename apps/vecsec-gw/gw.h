/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: shared types. The configuration (what parser.c produces from
 * ipsec-secgw's sp/sa/rt/neigh rules), the run-time SA, SPD and route
 * tables, the per-worker state and the drop counters.
 */
#ifndef VECSEC_GW_H
#define VECSEC_GW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_MAX_PORTS 16
/*
 * SA, SP and route tables are sized at run time (the configuration, the
 * control socket's headroom, --max-sa/--max-sp/--max-rt); this only bounds
 * indexes and what one file may ask for.
 */
#define GW_LIMIT_RULES (1u << 24)
#define GW_MAX_NEIGH GW_MAX_PORTS
#define GW_MAX_WORKERS 16
#define GW_MAX_CDEV 16
#define GW_BURST 32
#define GW_MAX_KEY 64
#define GW_DEFAULT_WINDOW 1024
#define GW_MAX_WINDOW 8128      /* crypto_vecsec's lookaside-protocol maximum */

/*
 * vecsec: crypto_vecsec's private algorithm ids (rte_pmd_vecsec.h:
 * RTE_PMD_VECSEC_AEAD_ARIA_GCM, RTE_PMD_VECSEC_CIPHER_ARIA_CTR; DPDK 22.11
 * has no ARIA). sa.c checks that they match the PMD's header.
 */
#define GW_AEAD_ARIA_GCM 0x5601
#define GW_CIPHER_ARIA_CTR 0x5602

/* ---- configuration (parser.c) ------------------------------------------ */

enum gw_dir { GW_DIR_IN = 0, GW_DIR_OUT = 1 };

enum gw_sa_mode { GW_MODE_TUN4, GW_MODE_TUN6, GW_MODE_TRANS };

enum gw_sa_action {
	GW_SA_LOOKASIDE_NONE,   /* cryptodev enqueue/dequeue (no-offload) */
	GW_SA_CPU_CRYPTO,       /* rte_cryptodev_sym_cpu_crypto_process */
	GW_SA_LOOKASIDE_PROTOCOL, /* rte_security ESP session on the cryptodev (crypto_vecsec) */
	GW_SA_NATIVE,           /* the gateway's own ESP, libvecsec's lanes engine (esp_native.c) */
};

enum gw_sp_action { GW_SP_DISCARD, GW_SP_BYPASS, GW_SP_PROTECT };

struct gw_addr {
	uint8_t b[16];          /* IPv4 in b[0..3], network order */
};

struct gw_sa_conf {
	uint32_t spi;
	uint8_t dir;            /* enum gw_dir */
	uint8_t mode;           /* enum gw_sa_mode */
	uint8_t action;         /* enum gw_sa_action */
	uint8_t owner;          /* `owner NAME`: gw_owner_name(), 0 = none */
	bool aead;
	int cipher_algo;        /* enum rte_crypto_cipher_algorithm */
	int auth_algo;          /* enum rte_crypto_auth_algorithm */
	int aead_algo;          /* enum rte_crypto_aead_algorithm */
	const char *algo_name;  /* keyword, for printing */
	const char *integ_name; /* auth_algo's keyword, "aead" for AEAD SAs */
	uint8_t cipher_key[GW_MAX_KEY];
	uint16_t cipher_key_len;        /* without the salt */
	uint8_t auth_key[GW_MAX_KEY];
	uint16_t auth_key_len;
	uint32_t salt;          /* as the 4 key bytes lie in memory */
	uint16_t iv_len;        /* crypto-op IV length */
	uint16_t digest_len;
	uint16_t aad_len;       /* 8; +4 with ESN */
	struct gw_addr src, dst; /* tunnel end points */
	bool esn;
	uint64_t esn_init;      /* `esn N` / `seq N`: outbound the first number, inbound the last seen */
	bool udp_encap;
	uint16_t natt_sport, natt_dport;        /* `udp-ports S:D`, 0 = GW_NATT_PORT */
	bool telemetry;
	int32_t window;         /* -1: the global default */
	int8_t inner;           /* family it carries: -1 from the SPs, 0 IPv4, 1 IPv6 */
	/* vecsec: lifetimes (lifetime-soft-bytes ...), 0 = none; GW_LIFE_* index */
	uint64_t life[4];
	bool deleted;           /* removed at run time; the slot may be reused */
	int line;               /* where it was defined */
};

enum gw_life { GW_LIFE_SOFT_BYTES, GW_LIFE_HARD_BYTES, GW_LIFE_SOFT_PKTS, GW_LIFE_HARD_PKTS };

struct gw_sp_conf {
	uint8_t v6;
	uint8_t dir;
	uint8_t action;         /* enum gw_sp_action */
	uint8_t owner;          /* `owner NAME` (in the padding: rule layout unchanged) */
	uint32_t spi;           /* PROTECT only */
	int32_t pri;
	struct gw_addr src, dst;
	uint8_t src_len, dst_len;
	uint8_t proto_lo, proto_hi;
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	int line;
	/* inbound PROTECT after `replace sp`: the SA it protected with before is
	 * still accepted until that SA is deleted; 0 none (SPI 0 is reserved) */
	uint32_t spi_prev;
};

struct gw_rt_conf {
	uint8_t v6;
	struct gw_addr dst;
	uint8_t dst_len;
	uint16_t port;
	int line;
};

struct gw_neigh_conf {
	uint16_t port;
	uint8_t mac[6];
	int line;
};

/*
 * ipsec-secgw keywords that are accepted and have no effect here (inline
 * offload and rte_flow settings): parser.c records the first line of each,
 * and gw_conf_ignored_text() says why, once per keyword.
 */
enum gw_ignored { GW_IGN_PORT_ID, GW_IGN_MSS, GW_IGN_FLOW_DIR, GW_IGN_REASSEMBLY, GW_IGN_FLOW,
		  GW_IGN_MAX };

/*
 * The rules, in arrays that grow as they are parsed (doubling). The SAs hold
 * keys: their array lives on pages left out of core dumps (gw_secret_alloc)
 * and is wiped when it moves or is freed. A zeroed struct is an empty
 * configuration; gw_conf_wipe() frees it back to that.
 */
struct gw_conf {
	struct gw_sa_conf *sa;          /* [nb_sa]: slots; deleted ones are kept */
	unsigned int nb_sa, cap_sa;
	struct gw_sp_conf *sp;
	unsigned int nb_sp, cap_sp;
	struct gw_rt_conf *rt;
	unsigned int nb_rt, cap_rt;
	struct gw_neigh_conf neigh[GW_MAX_NEIGH];
	unsigned int nb_neigh;
	unsigned int nb_ignored;        /* `flow` rules: no rte_flow here */
	/* at most this many of each (0: GW_LIMIT_RULES): --max-sa, --max-sp, --max-rt */
	unsigned int max_sa, max_sp, max_rt;
	/* (direction, SPI) -> slot + 1 of each SA not deleted: linear probing */
	uint32_t *sa_idx;
	unsigned int sa_idx_mask;       /* slots - 1, a power of two minus one */
	unsigned int nb_live_sa;        /* SAs not deleted */
	uint32_t ignored;               /* 1 << enum gw_ignored: keywords seen */
	int ignored_line[GW_IGN_MAX];   /* the first line of each */
};

/*
 * Parse a configuration text into conf (appending to what is there). name
 * is used in messages. Returns 0, or -EINVAL with "name:line: token 'x':
 * why" in err (-ENOMEM: "out of memory"); on failure conf is as it was.
 */
int gw_conf_parse_string(struct gw_conf *conf, const char *name, const char *text,
		char *err, size_t err_len);
/*
 * Same for a file; -errno with a message if it cannot be read. A file that
 * group or others can write, or that another user owns, is refused
 * (-EPERM): it could carry anyone's keys and policies. With
 * GW_CONF_ALLOW_UNPROTECTED that is a warning. A warning comes back as 0
 * with "warning: ..." in err (err is "" otherwise); one is also given
 * when the file holds keys and group or others can read it.
 */
#define GW_CONF_ALLOW_UNPROTECTED 1u
int gw_conf_parse_file(struct gw_conf *conf, const char *path, unsigned int flags, char *err,
		size_t err_len);
/*
 * How an error message shows token tok (prev: the token before it, or
 * NULL): tok itself, or "<hidden key>" / "<hidden>" when it could be key
 * material. Every error that quotes configuration or request text goes
 * through it (parser.c explains the rule).
 */
const char *gw_token_quote(const char *tok, const char *prev);
/* s as an unsigned number (decimal, or hex after 0x) of at most max: 0, else -1. */
int gw_parse_u64(const char *s, uint64_t max, uint64_t *v);
/*
 * len bytes of zeroed memory on pages of their own that are left out of
 * core dumps (MADV_DONTDUMP), for tables that hold keys; NULL if none.
 * gw_secret_free() wipes and releases them.
 */
void *gw_secret_alloc(size_t len);
void gw_secret_free(void *p, size_t len);
/* Zero every SA, keys included, free every rule: conf is empty again. */
void gw_conf_wipe(struct gw_conf *conf);
/* Zero the key material of every SA, keep the rest. */
void gw_conf_wipe_keys(struct gw_conf *conf);
/*
 * The warning for ignored keyword k (enum gw_ignored) if conf has it:
 * "name:line: 'keyword' ignored: why" into buf, returns 1; else 0.
 */
int gw_conf_ignored_text(const struct gw_conf *conf, const char *name, unsigned int k, char *buf,
		size_t len);
/*
 * Owner tags (`owner NAME` on sa and sp rules): whoever installs rules
 * through the control socket (an IKE daemon) can find and flush its own
 * after a restart. Id 0 is "no owner"; at most GW_MAX_OWNERS names,
 * [A-Za-z0-9_.-], up to GW_OWNER_LEN - 1 characters.
 */
#define GW_MAX_OWNERS 32
#define GW_OWNER_LEN 32
/* The id of name (added if new), or -1 if invalid or the table is full. */
int gw_owner_id(const char *name);
/* The id of name if it is known (never added): -EINVAL if invalid, -ENOENT if unknown. */
int gw_owner_find(const char *name);
/*
 * Free every id i (1 .. GW_MAX_OWNERS - 1) with !used[i]: nothing carries it
 * any more (the caller knows every holder); a later gw_owner_id() reuses it.
 */
void gw_owner_forget(const bool *used);
/* The name of id, "" for 0 or unknown. */
const char *gw_owner_name(uint8_t id);
/* Find an SA (not deleted) by direction and SPI, NULL if none; O(1). */
const struct gw_sa_conf *gw_conf_find_sa(const struct gw_conf *conf, uint8_t dir, uint32_t spi);
/* Mark slot i deleted (its SPI may be defined again); its keys are wiped. */
void gw_conf_del_sa(struct gw_conf *conf, unsigned int i);
/* Move the last slot into deleted slot to (the control socket reuses slots). */
void gw_conf_move_last_sa(struct gw_conf *conf, unsigned int to);
/*
 * A deep copy of src into dst (which is overwritten, not freed: empty it
 * first): its own arrays and SA index; 0 or -ENOMEM (dst then empty).
 */
int gw_conf_copy(struct gw_conf *dst, const struct gw_conf *src);
/*
 * Put SA c into slot (a deleted slot, or nb_sa: the array grows), indexed
 * by its SPI; 0, -ENOMEM, or -EEXIST when slot is live.
 */
int gw_conf_put_sa(struct gw_conf *conf, unsigned int slot, const struct gw_sa_conf *c);
/* Room for nb_sp SP rules in all (the array grows); 0 or -ENOMEM. */
int gw_conf_reserve_sp(struct gw_conf *conf, unsigned int nb_sp);
/*
 * conf_check.c. The family (0 IPv4, 1 IPv6) an SA carries: its `inner`, or
 * that of the SP rules protecting with it, or its tunnel's; -1 when its SP
 * rules send both.
 */
int gw_sa_family(const struct gw_conf *conf, const struct gw_sa_conf *c);
/* Every slot's family into fam[nb_sa] (-1: both); -EINVAL if a live SA has -1. */
int gw_conf_families(const struct gw_conf *conf, int8_t *fam);
/*
 * Every check of a parsed configuration that needs no device: `--check`,
 * start and reload call it alike. 0, or -errno with the reason in err.
 */
int gw_conf_validate(const struct gw_conf *conf, char *err, size_t err_len);

/* ---- drop reasons and counters (stats.c) ------------------------------- */

#define GW_DROP_LIST(X) \
	X(MALFORMED, "malformed") \
	X(NO_SA, "no_sa") \
	X(AUTH, "auth_failed") \
	X(REPLAY, "replay") \
	X(POLICY, "policy") \
	X(NO_ROUTE, "no_route") \
	X(RING_FULL, "ring_full") \
	X(CRYPTO, "crypto_error") \
	X(NO_MBUF, "no_mbuf") \
	X(TOO_BIG, "too_big") \
	X(EXPIRED, "expired") \
	X(KEEPALIVE, "natt_keepalive") \
	X(FRAG, "frag") \
	X(DUMMY, "dummy") \
	X(SEQ_UNRESERVED, "seq_unreserved") \
	X(NO_NEIGH, "no_neigh") \
	X(SEGMENT, "inactive_segment") \
	X(HA_SEQ_WAIT, "ha_seq_wait")

enum gw_drop {
#define GW_X(n, s) GW_DROP_##n,
	GW_DROP_LIST(GW_X)
#undef GW_X
	GW_DROP_MAX
};

extern const char *const gw_drop_names[GW_DROP_MAX];

struct gw_port_stats {
	uint64_t rx, tx;
};

/*
 * One SA's packet counters in one worker (gw_worker.sa_st[slot]): 32 bytes,
 * two to a cache line and never across one (the worker prefetches it with
 * the SA's other state). Its drops by reason, written only for a dropped
 * packet, are in another array (gw_worker.sa_drops[slot]).
 */
struct gw_sa_ctr {
	uint64_t pkts, bytes;   /* packets through ESP processing */
	/* TSC of the last packet through ESP (the control socket's `query sa`); 0 none */
	uint64_t last_tsc;
	uint64_t seq_used;      /* outbound: sequence numbers given out (never reset) */
} __attribute__((aligned(32)));

/* One SA's counters, all workers' together (gw_stats_sa_sum): last_tsc the latest. */
struct gw_sa_stats {
	uint64_t pkts, bytes;
	uint64_t last_tsc;
	uint64_t seq_used;
	uint64_t drops[GW_DROP_MAX];
};

struct gw_stats {
	struct gw_port_stats port[GW_MAX_PORTS];
	uint64_t drops[GW_DROP_MAX];
	uint64_t bypass, esp_in, esp_out;
	/* fragments (frag.c): datagrams reassembled and the fragments they took; */
	/* packets fragmented on tx and the fragments made */
	uint64_t reassembled, reasm_frags, fragmented, frags_out;
	/* exception path (host.c): frames handed to the host stack, and sent for it */
	uint64_t host_in, host_out;
};

#endif /* VECSEC_GW_H */
