/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What main.c's life cycle (parse / start / run / stop) takes from the
 * files around it: the options and --help (opts.c), the checks before EAL
 * (preflight.c), crypto_vecsec's loading (pmd_load.c), logging under
 * systemd (log.c), the ports (ports.c), memory hardening (harden.c) and
 * the demo (demo.c). Nothing here is on the data path.
 */
#ifndef GW_MAIN_H
#define GW_MAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "gen.h"
#include "gw_dp.h"

struct rte_mempool;

struct opts {
	const char *cfg_file;
	const char *check_file;
	const char *stats_file;
	const char *metrics;            /* --metrics ADDR:PORT: Prometheus, NULL: off */
	bool no_pdump;                  /* --no-pdump: no rte_pdump_init() (capture.c) */
	const char *ctrl_path;          /* --ctrl PATH; NULL: the default (ctrl_path.h) */
	bool ctrl_none;                 /* --ctrl none */
	const char *ctrl_group;         /* --ctrl-group: may use the socket too */
	double stats_interval;          /* --stats-interval S: counters to the log, 0 off */
	unsigned int mbufs;             /* --mbufs N, 0: gw_mbufs_needed() */
	double rate_interval;           /* --rate-interval S: rates over this */
	unsigned int conf_flags;        /* GW_CONF_ALLOW_UNPROTECTED */
	bool no_coredump;
	uint64_t unprot_mask;
	bool unprot_given;
	bool demo;
	uint64_t gen_pkts;
	uint16_t gen_size;
	double duration;
	double idle_exit;
	const char *demo_aead;
	const char *gen_pcap;
	bool quiet;
	uint16_t mtu[GW_MAX_PORTS];     /* --mtu, 0: the port's own */
	int32_t fc_entries[2];          /* --spd-cache, --sad-cache; -1: sized from the SA table */
	const char *seq_state;          /* --seq-state FILE; NULL: the default (none with --demo) */
	bool seq_state_none;            /* --seq-state none */
	uint64_t seq_reserve;           /* --seq-reserve N, 0: GW_SEQ_RESERVE_DEFAULT */
};

/* opts.c */
void gw_usage(const char *prog);
void gw_print_version(void);
int gw_parse_args(int argc, char **argv, struct opts *o);
int gw_ctrl_group_id(const char *name);

/* preflight.c */
int gw_preflight(const struct opts *o, const struct gw_conf *c, const char *name,
		 bool options);
int gw_check_only(struct gw_conf *c, const char *file, const struct opts *o, bool options);

/* capture.c: rte_pdump_init() for dpdk-dumpcap; 0 or -1 (said) */
int gw_capture_init(void);
void gw_capture_fini(void);

/* pmd_load.c */
char **gw_pmd_autoload(int *argc, char **argv, bool *added);
void gw_pmd_duplicates(void);
bool gw_pmd_missing(const char *prefer);

/* vdev_check.c: every --vdev port EAL was asked for exists, or why not */
void gw_vdev_note(int argc, char **argv);
int gw_vdev_check(void);

/* log.c */
void gw_journal_log(void);

/* ports.c */
unsigned int gw_mbufs_needed(unsigned int ports, unsigned int workers);
int gw_ports_start(struct opts *o, const struct gw_conf *c, struct rte_mempool *mp);
void gw_ports_stop(void);

/* harden.c */
void gw_thp_advise(void);
void gw_keys_out_of_dumps(bool no_coredump);

/* demo.c */
int gw_demo_conf_parse(struct gw_conf *c, const char *aead, char *err, size_t len);
char **gw_demo_no_pci(int *argc, char **cur, char **orig);
int gw_demo_start(struct opts *o, struct gw_gen_cfg *gc);
int gw_demo_traffic(const struct opts *o, struct gw_gen_cfg *gc, struct rte_mempool *mp);
int gw_demo_report(const struct opts *o, struct gw_gen_cfg *gc, double seconds,
		   uint64_t busy, double cpu);
void gw_demo_stop(const struct opts *o, struct gw_gen_cfg *gc);

#endif /* GW_MAIN_H */
