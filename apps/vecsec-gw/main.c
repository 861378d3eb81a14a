/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: IPsec ESP gateway on DPDK (rte_ipsec + any cryptodev).
 *
 *   vecsec-gw [EAL options] -- [-f FILE] [-u MASK] [-w N] [-e] ...
 *   vecsec-gw --check FILE [-- OPTIONS]   every check start makes before EAL
 *   vecsec-gw --version | --help    no EAL either
 *   vecsec-gw [EAL options] -- --demo [-f FILE] [--gen-pkts N] [--gen-size B]
 *                                     [--gen-pcap DIR]
 *
 * Every ethdev is a port; -u names the unprotected ones, where ESP flows
 * (RFC 4301's and ipsec-secgw's meaning); the others are protected, clear.
 * The main lcore is worker 0 and every other lcore of -l runs one more
 * worker, each with its own rx/tx queue per
 * port and its own queue pair on each cryptodev.
 *
 * This file is the life cycle, main(): parse / start / run / stop.
 * parse: the options (opts.c; --help and --check answered there). start,
 * in phases: the configuration, checked before EAL starts (preflight.c:
 * the checks --check makes too), then EAL (pmd_load.c, log.c), ports
 * (ports.c, or the demo's: demo.c), SAs (with only the cryptodevs they
 * need), SPD, routes, the workers' state, keys out of core dumps
 * (harden.c), the control socket (default ctrl_path.h), the management
 * thread (mgmt.c: rates, SIGUSR1, SIGHUP reload). run: READY=1 to
 * systemd, worker 0's poll loop; SIGTERM/SIGINT: the workers stop polling
 * rx, drain their crypto ops and transmit what comes out. stop: what start
 * built taken down; the gateway exits 0 and removes its socket and EAL's
 * runtime folder.
 */
#include "ctrl_path.h"
#include "gw_main.h"
#include "ha.h"
#include "hasync.h"
#include "fcache.h"
#include "gw_log.h"
#include "kernel_nh.h"
#include "metrics.h"
#include "seqstate.h"

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "vecsec_eal.h"

RTE_LOG_REGISTER(gw_logtype, vecsec.gw, INFO);

struct gw_dp gw;
volatile bool gw_quit;
static struct gw_conf *conf;   /* gw_secret_alloc(): keys, out of core dumps */

/* What start builds, run uses and stop takes down. */
struct gw_run {
	struct opts o;
	char **argv;                    /* main's */
	int dd;                         /* where "--" is in argv; argc without one */
	char **eal_argv;                /* argv, or a copy with what EAL gets added */
	int eal_argc;
	bool pmd_added;                 /* gw_pmd_autoload() added a -d */
	bool eal_up;                    /* EAL started: stop takes everything down */
	int ctrl_gid;                   /* --ctrl-group's id, -1: none */
	struct rte_mempool *mp;
	struct gw_gen_cfg gc;           /* --demo's generator */
	double load_t[5];       /* parse took [0]; SAs, SPD, routes: from [1] to [4] */
	uint64_t t_start, hz;           /* the run, from "ready" */
	double cpu_start;
	bool idle_seen;                 /* --idle-exit: every worker looked idle */
	uint64_t idle_polls[GW_MAX_WORKERS];   /* --idle-exit: polls of each worker at idle */
};

/*
 * A worker's flow cache (fcache.h) of `entries` (given by option), or with
 * -1 sized: twice the SA table's slots (the SPD: tunnel gateways have a
 * flow or more per SA; the SAD: a key per inbound SA), GW_FC_MIN..GW_FC_MAX.
 * If DPDK's memory cannot hold a default size the worker runs without that
 * cache (a notice); a size given by option must fit.
 */
static bool
fc_setup(struct gw_worker *wk, const char *what, const char *opt, int32_t entries,
	 struct gw_fc **out)
{
	bool set = entries >= 0;
	unsigned int n = set ? (unsigned int)entries :
		RTE_MIN(RTE_MAX(rte_align32pow2(2 * RTE_MAX(gw.max_sa, 1u)), GW_FC_MIN), GW_FC_MAX);
	char name[32];

	*out = NULL;
	if (n == 0)
		return true;
	snprintf(name, sizeof(name), "gw_%s%u", what, wk->id);
	*out = gw_fc_create(name, n, (int)rte_socket_id());     /* as the op pool */
	if (*out != NULL)
		return true;
	if (set) {
		fprintf(stderr, "vecsec-gw: out of DPDK memory for %s %u (%zu bytes per worker)\n",
			opt, n, (size_t)n * sizeof(struct gw_fc_ent));
		return false;
	}
	GW_LOG(NOTICE, "worker %u: no %s cache (%u entries do not fit in DPDK's memory)", wk->id,
	       what, n);
	return true;
}

static void
on_signal(int sig)
{
	if (sig == SIGUSR1 || sig == SIGHUP)
		gw_mgmt_signal(sig);
	else
		gw_quit = true;
}

static double
mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the whole process: unlike wall time, not inflated on a busy machine. */
static double
cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* EAL's file prefix, the last part of its runtime folder (the default socket's name) */
static const char *
eal_prefix(char *buf, size_t len)
{
	snprintf(buf, len, "%s", rte_eal_get_runtime_dir());
	return basename(buf);
}


/* ---- parse ------------------------------------------------------------------ */

/*
 * --check FILE needs no EAL: look for it (and --allow-unprotected-keys)
 * anywhere. Returns its exit status, or -1 when there is no --check.
 */
static int
parse_check(struct gw_run *l, int argc, char **argv)
{
	const char *check_file = NULL;

	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--check") == 0 && check_file == NULL)
			check_file = argv[i + 1];
	if (check_file == NULL)
		return -1;
	for (int j = 1; j < argc; j++)
		if (strcmp(argv[j], "--allow-unprotected-keys") == 0)
			l->o.conf_flags |= GW_CONF_ALLOW_UNPROTECTED;
	/* the options of a start after `--` are checked with the file */
	if (l->dd < argc) {
		argv[l->dd] = argv[0];
		if (gw_parse_args(argc - l->dd, argv + l->dd, &l->o) != 0)
			return 2;
	}
	return gw_check_only(conf, check_file, &l->o, l->dd < argc);
}

/* The options that go together, or not; 0 or the exit status 2. */
static int
parse_combinations(struct gw_run *l)
{
	const struct opts *o = &l->o;

	if (!o->demo && o->cfg_file == NULL && o->ctrl_path == NULL) {
		fprintf(stderr, "vecsec-gw: give -f FILE, --demo or --ctrl PATH (after --)\n");
		gw_usage(l->argv[0]);
		return 2;
	}
	if (o->gen_pcap != NULL && !o->demo) {
		fprintf(stderr, "vecsec-gw: --gen-pcap needs --demo\n");
		return 2;
	}
	if (o->ctrl_group != NULL && (o->ctrl_none ||
				      (l->ctrl_gid = gw_ctrl_group_id(o->ctrl_group)) < 0)) {
		if (o->ctrl_none)
			fprintf(stderr, "vecsec-gw: --ctrl-group with --ctrl none: no socket\n");
		return 2;
	}
	if (o->demo && o->cfg_file != NULL && o->demo_aead != NULL) {
		fprintf(stderr, "vecsec-gw: --demo-aead applies to the built-in config, not -f\n");
		return 2;
	}
	if (gw_knh_on && (!gw_host_on || o->demo)) {
		fprintf(stderr, "vecsec-gw: --kernel-nh needs --host-port (the kernel's routes and "
			"neighbours on the ports' taps), and no --demo\n");
		return 2;
	}
	if (gw_hasync_on() && gw_ha.count == 0) {
		fprintf(stderr, "vecsec-gw: --cluster-sync needs --cluster (the sync is between "
			"the two nodes of a cluster)\n");
		return 2;
	}
	return 0;
}

/*
 * The command line: --help, --version and --check answered here; a start's
 * options parsed and checked. Returns the exit status, or -1 to start.
 */
static int
parse(struct gw_run *l, int argc, char **argv)
{
	int rc;

	gw.window = GW_DEFAULT_WINDOW;
	gw.rx_burst = GW_BURST;
	gw.frag_tbl_sz = GW_FRAG_DEFAULT_TBL;
	gw.frag_ttl_ns = GW_FRAG_DEFAULT_TTL_NS;
	gw.prefer_driver = "crypto_vecsec";
	l->argv = argv;
	l->dd = argc;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			l->dd = i;
			break;
		}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		gw_usage(argv[0]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		gw_print_version();
		return 0;
	}
	rc = parse_check(l, argc, argv);
	if (rc >= 0)
		return rc;
	/* signals before EAL: a SIGTERM during start-up ends it cleanly too */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	signal(SIGHUP, on_signal);
	if (l->dd < argc) {
		argv[l->dd] = argv[0];
		if (gw_parse_args(argc - l->dd, argv + l->dd, &l->o) != 0)
			return 2;
	}
	rc = parse_combinations(l);
	return rc != 0 ? rc : -1;
}

/* ---- start: phases in order; each returns 0 or the exit status ------------- */

/* The configuration read (-f FILE or the demo's) and checked as --check does. */
static int
conf_load(struct gw_run *l)
{
	struct opts *o = &l->o;
	char err[512] = "";
	int rc;

	/* a file with more than the tables take stops at the rule that is too many */
	conf->max_sa = gw.max_sa;
	conf->max_sp = gw.max_sp;
	conf->max_rt = gw.max_rt;
	l->load_t[0] = mono_seconds();
	if (o->demo && o->cfg_file == NULL)
		rc = gw_demo_conf_parse(conf, o->demo_aead, err, sizeof(err));
	else if (o->cfg_file != NULL)
		rc = gw_conf_parse_file(conf, o->cfg_file, o->conf_flags, err, sizeof(err));
	else
		rc = 0;
	gw.conf = conf;
	l->load_t[0] = mono_seconds() - l->load_t[0];
	if (err[0] != '\0')
		fprintf(stderr, "vecsec-gw: %s\n", err);
	if (rc != 0)
		return 1;
	/* what --check checks, the same way: refused here, before EAL */
	rc = gw_preflight(o, conf, o->cfg_file != NULL ? o->cfg_file : "<demo>", true);
	if (rc != 0)
		return rc;
	/* run-time changes: the control socket, a reload of the file, the kernel's routes */
	gw.ctrl = !o->ctrl_none || (o->cfg_file != NULL && !o->demo) || gw_knh_on;
	return 0;
}

/*
 * The outbound SAs' sequence numbers (seqstate.c): read before anything is
 * built, written once the SAs are. The demo's packets never leave the
 * process: no state unless asked for.
 */
static int
seq_state_open(struct gw_run *l)
{
	const struct opts *o = &l->o;
	char err[512] = "";

	if (o->seq_state_none)
		fprintf(stderr, "vecsec-gw: warning: --seq-state none: outbound SAs with keys from "
			"the configuration file send the same sequence numbers and IVs again after "
			"a restart (nonce reuse)\n");
	else if (o->seq_state != NULL || !o->demo) {
		if (gw_seq_state_open(o->seq_state != NULL ? o->seq_state : GW_SEQ_STATE_DEFAULT,
				      o->seq_reserve, err, sizeof(err)) != 0) {
			fprintf(stderr, "vecsec-gw: %s; not started (--seq-state FILE elsewhere, "
				"or none)\n", err);
			return 1;
		}
	}
	return 0;
}

/* EAL, with crypto_vecsec from the build tree and the demo's --no-pci */
static int
eal_start(struct gw_run *l)
{
	l->eal_argv = l->argv;
	l->eal_argc = l->dd;
#ifdef GW_BUILD_PMD
	l->eal_argv = gw_pmd_autoload(&l->eal_argc, l->argv, &l->pmd_added);
#endif
	if (l->o.demo)
		l->eal_argv = gw_demo_no_pci(&l->eal_argc, l->eal_argv, l->argv);
	gw_vdev_note(l->dd, l->argv);
	if (rte_eal_init(l->eal_argc, l->eal_argv) < 0) {
		fprintf(stderr, "vecsec-gw: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	l->eal_up = true;
	gw_journal_log();
	if (l->o.quiet && rte_log_get_level((uint32_t)gw_logtype) > (int)RTE_LOG_NOTICE)
		rte_log_set_level((uint32_t)gw_logtype, RTE_LOG_NOTICE);
#ifdef GW_BUILD_PMD
	if (l->pmd_added)
		GW_LOG(DEBUG, "EAL loads %s (-d)", l->eal_argv[2]);
#endif
	gw_pmd_duplicates();
	if (gw_vdev_check() != 0)
		return 1;
	gw_pmd_missing(gw.prefer_driver);
	gw.nb_workers = rte_lcore_count();
	if (gw.nb_workers > GW_MAX_WORKERS) {
		GW_LOG(ERR, "at most %d lcores", GW_MAX_WORKERS);
		return 1;
	}
	return 0;
}

/* The packet buffers, and the ports: EAL's, or the demo's own */
static int
ports_start(struct gw_run *l)
{
	struct opts *o = &l->o;

	gw_thp_advise();
	if (o->mbufs == 0)
		o->mbufs = gw_mbufs_needed(o->demo ? 4 : RTE_MIN(rte_eth_dev_count_avail(),
								 GW_MAX_PORTS), gw.nb_workers);
	l->mp = rte_pktmbuf_pool_create("gw_mbuf", o->mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (l->mp == NULL) {
		GW_LOG(ERR, "cannot create the pool of %u mbufs: %s (EAL -m/--socket-mem, or "
		       "--mbufs)", o->mbufs, rte_strerror(rte_errno));
		return 1;
	}
	if (o->demo && gw_demo_start(o, &l->gc) != 0)
		return 1;
	return gw_ports_start(o, conf, l->mp);
}

/* SAs, SPD and routes from the configuration; the state that follows them */
static int
tables_start(struct gw_run *l)
{
	char err[512] = "";
	int rc;

	l->load_t[1] = mono_seconds();
	gw_hasync_set_seq_move(gw_sa_out_seq_set);     /* a takeover's jump (hasync.c) */
	rc = gw_sa_setup(&gw, conf);
	l->load_t[2] = mono_seconds();
	if (rc == 0)
		rc = gw_sp_setup(&gw, conf);
	l->load_t[3] = mono_seconds();
	if (rc == 0)
		rc = gw_rt_setup(&gw, conf);
	l->load_t[4] = mono_seconds();
	if (rc != 0)
		return 1;
	/* before any packet: the numbers the SAs may use are on disk */
	if (gw_seq_state_commit(err, sizeof(err)) != 0) {
		GW_LOG(ERR, "%s; not started (--seq-state FILE elsewhere, or none)", err);
		return 1;
	}
	/* sized by the SA table (gw.max_sa, set by gw_sa_setup) */
	if (gw_stats_init() != 0 || gw_reload_init(l->o.demo ? NULL : l->o.cfg_file,
						   l->o.conf_flags) != 0) {
		GW_LOG(ERR, "out of memory");
		return 1;
	}
	return 0;
}

/* Each worker's crypto op pool, SA state and flow caches; reassembly; the host path */
static int
workers_start(struct gw_run *l)
{
	for (unsigned int w = 0; w < gw.nb_workers; w++) {
		struct gw_worker *wk = &gw.worker[w];
		char name[32];

		wk->id = w;
		wk->qp = (uint16_t)w;
		snprintf(name, sizeof(name), "gw_cop%u", w);
		wk->cop_pool = rte_crypto_op_pool_create(name, RTE_CRYPTO_OP_TYPE_SYMMETRIC, 8192,
			128, GW_COP_PRIV, rte_socket_id());
		wk->sa_st = rte_zmalloc("gw_sa_st", (size_t)gw.max_sa * sizeof(*wk->sa_st),
					RTE_CACHE_LINE_SIZE);
		wk->sa_drops = rte_zmalloc("gw_sa_drops", (size_t)gw.max_sa *
					   sizeof(*wk->sa_drops), RTE_CACHE_LINE_SIZE);
		if (wk->cop_pool == NULL || wk->sa_st == NULL || wk->sa_drops == NULL) {
			fprintf(stderr, "vecsec-gw: out of memory for worker %u\n", w);
			return 1;
		}
		if (!fc_setup(wk, "spd", "--spd-cache", l->o.fc_entries[0], &wk->spc) ||
		    !fc_setup(wk, "sad", "--sad-cache", l->o.fc_entries[1], &wk->sadc))
			return 1;
	}
	if (gw_frag_setup(&gw) != 0)
		return 1;
	if (gw_host_setup(&gw, l->o.quiet) != 0)
		return 1;
	return 0;
}

/* What was loaded, said; then the keys out of the configuration and of core dumps */
static int
keys_start(struct gw_run *l)
{
	const double *load_t = l->load_t;

	GW_LOG(INFO, "%u SA, %u SP, %u routes, %u ports, %u worker(s), %u mbufs", gw.nb_sa,
	       conf->nb_sp, conf->nb_rt, gw.nb_ports, gw.nb_workers, l->o.mbufs);
	/* the tables scale: say what loading them took */
	GW_LOG(INFO, "loaded in %.2f s (%.2f s CPU): parse %.2f, SAs %.2f, SPD %.2f, routes %.2f "
	       "(SA table %u)", load_t[4] - load_t[1] + load_t[0], cpu_seconds(), load_t[0],
	       load_t[2] - load_t[1], load_t[3] - load_t[2], load_t[4] - load_t[3], gw.max_sa);
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++)
		if (gw.cdev[id].used)
			GW_LOG(INFO, "cryptodev %u: %s (driver %s%s)", id, gw.cdev[id].name,
			       gw.cdev[id].driver, gw.cdev[id].cpu_crypto ? ", cpu-crypto" : "");
	/* reload tells unchanged SAs by their keys' fingerprints: taken before the wipe */
	for (unsigned int i = 0; i < conf->nb_sa; i++)
		gw_sa_fp_set(i, &conf->sa[i]);
	gw_conf_wipe_keys(conf);       /* the keys now live in the cryptodev sessions only */
	gw_keys_out_of_dumps(l->o.no_coredump);
	return 0;
}

/* Run-time changes: RCU, the control socket, telemetry, the management thread */
static int
ctrl_start(struct gw_run *l)
{
	const struct opts *o = &l->o;
	char err[512] = "", ctrl_path[108];

	if (gw.ctrl) {
		size_t sz = rte_rcu_qsbr_get_memsize(gw.nb_workers);

		gw.rcu = rte_zmalloc("gw_rcu", sz, RTE_CACHE_LINE_SIZE);
		if (gw.rcu == NULL || rte_rcu_qsbr_init(gw.rcu, gw.nb_workers) != 0) {
			GW_LOG(ERR, "cannot set up RCU");
			return 1;
		}
		rte_rcu_qsbr_thread_register(gw.rcu, 0);
		rte_rcu_qsbr_thread_online(gw.rcu, 0);
	}
	if (gw_knh_start() != 0)
		return 1;
	if (!o->ctrl_none) {
		bool own_dir = o->ctrl_path == NULL;

		if (own_dir && gw_ctrl_default_path(ctrl_path, sizeof(ctrl_path),
						    eal_prefix(err, sizeof(err))) != 0) {
			GW_LOG(ERR, "no default control socket for EAL file prefix %s: give --ctrl "
			       "PATH or --ctrl none", err);
			return 1;
		}
		if (!own_dir)
			snprintf(ctrl_path, sizeof(ctrl_path), "%s", o->ctrl_path);
		if (gw_ctrl_start(ctrl_path, l->ctrl_gid, own_dir) != 0)
			return 1;
		GW_LOG(INFO, "control socket %s", ctrl_path);
	}
	if (gw_telemetry_register() != 0)
		GW_LOG(WARNING, "telemetry commands not registered");
	if (gw_mgmt_start(o->rate_interval, o->stats_interval) != 0)
		return 1;
	if (gw_hasync_start(err, sizeof(err)) != 0) {
		GW_LOG(ERR, "%s", err);
		return 1;
	}
	if (o->metrics != NULL && gw_metrics_start(o->metrics) != 0)
		return 1;
	if (!o->no_pdump && gw_capture_init() != 0)
		return 1;
	return 0;
}

/* --demo: the generator's flows and packets */
static int
demo_traffic(struct gw_run *l)
{
	if (l->o.demo && gw_demo_traffic(&l->o, &l->gc, l->mp) != 0)
		return 1;
	return 0;
}

/* Every lcore but the main one runs a worker; the main lcore is worker 0 (run()) */
static int
workers_launch(struct gw_run *l)
{
	unsigned int w = 1, lc;

	(void)l;
	gw.worker[0].lcore = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lc) {
		gw.worker[w].lcore = lc;
		rte_eal_remote_launch(gw_worker_loop, &gw.worker[w], lc);
		w++;
	}
	return 0;
}

static int
start(struct gw_run *l)
{
	static int (*const phase[])(struct gw_run *l) = {
		conf_load, seq_state_open, eal_start, ports_start, tables_start,
		workers_start, keys_start, ctrl_start, demo_traffic, workers_launch,
	};
	int rc = 0;

	for (unsigned int i = 0; rc == 0 && i < RTE_DIM(phase); i++)
		rc = phase[i](l);
	return rc;
}

/* ---- run ---------------------------------------------------------------------- */

/*
 * --idle-exit: true once no packet moved for S seconds. Idle only once
 * every worker has polled again since it looked idle: on a loaded machine
 * a worker (or this thread) held back by the OS for S seconds has not
 * moved packets, but it is not done with its queues either. Poll counts
 * first: a poll that moved packets counts only after its last_rx_tsc is
 * stored.
 */
static bool
idle_done(struct gw_run *l, uint64_t now)
{
	const struct gw_worker *w0 = &gw.worker[0];
	uint64_t last = 0;
	uint64_t polls[GW_MAX_WORKERS];
	uint32_t inflight = 0;
	bool polled;

	for (unsigned int w = 0; w < gw.nb_workers; w++)
		polls[w] = __atomic_load_n(&gw.worker[w].polls, __ATOMIC_ACQUIRE);
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		last = RTE_MAX(last, __atomic_load_n(&gw.worker[w].last_rx_tsc,
						     __ATOMIC_RELAXED));
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++)
		inflight += w0->inflight[id];
	if (inflight != 0 || (double)gw_tsc_since(now, last) <= l->o.idle_exit * (double)l->hz) {
		l->idle_seen = false;
		return false;
	}
	polled = l->idle_seen;
	for (unsigned int w = 0; w < gw.nb_workers; w++) {
		polled = polled && polls[w] > l->idle_polls[w];
		if (!l->idle_seen)
			l->idle_polls[w] = polls[w];
	}
	l->idle_seen = true;
	return polled;
}

/* Worker 0's poll loop (and the demo's generator) until a signal or a limit */
static void
poll_loop(struct gw_run *l)
{
	const struct opts *o = &l->o;

	for (uint64_t iter = 0; !gw_quit; iter++) {
		struct gw_worker *w0 = &gw.worker[0];
		uint64_t t0, t1;

		if (o->demo)
			gw_gen_push(&gw);
		t0 = rte_rdtsc();
		if (gw_worker_poll(w0) != 0) {
			t1 = rte_rdtsc();
			w0->busy_cycles += t1 - t0;
			w0->last_rx_tsc = t1;
		}
		if (o->demo) {
			if (o->gen_pcap != NULL)
				gw_gen_wire();
			gw_gen_pull();
			if (gw_gen_done(&gw))
				gw_quit = true;
		}
		if ((iter & 1023) != 0)
			continue;
		t1 = rte_get_tsc_cycles();
		if (o->duration > 0 && (double)(t1 - l->t_start) > o->duration * (double)l->hz)
			gw_quit = true;
		if (o->idle_exit > 0 && idle_done(l, t1))
			gw_quit = true;
	}
}

/*
 * Ready, the poll loop, then the drain: no rx polled any more; what the
 * cryptodevs still hold is taken back, finished and sent (each worker,
 * gw_worker_drain()). Then the counters and the demo's verdict. Returns
 * the exit status.
 */
static int
run(struct gw_run *l)
{
	uint64_t t_end, busy = 0;
	int ret;

	/*
	 * Ports started, SAs, SPD and routes set up, the control socket
	 * listening, telemetry registered, workers launched: what a script
	 * waits for before it talks to us (printed even with --quiet).
	 */
	printf("vecsec-gw: ready\n");
	l->hz = rte_get_tsc_hz();
	l->cpu_start = cpu_seconds();
	l->t_start = rte_get_tsc_cycles();
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		gw.worker[w].last_rx_tsc = l->t_start;
	gw_notify("READY=1");
	poll_loop(l);
	gw_notify("STOPPING=1");
	gw_worker_drain(&gw.worker[0]);
	if (gw.rcu != NULL)
		rte_rcu_qsbr_thread_offline(gw.rcu, 0);
	gw_metrics_stop();
	gw_hasync_stop();
	gw_mgmt_stop();
	gw_ctrl_stop();
	rte_eal_mp_wait_lcore();
	if (l->o.demo)
		gw_gen_pull();
	t_end = rte_get_tsc_cycles();
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		busy += gw.worker[w].busy_cycles;
	gw_stats_log(&gw, gw_stats_since(), RTE_LOG_NOTICE);
	ret = gw_demo_report(&l->o, &l->gc, (double)(t_end - l->t_start) / (double)l->hz,
			     busy, cpu_seconds() - l->cpu_start);
	if (l->o.stats_file != NULL && gw_stats_write_json(&gw, l->o.stats_file) != 0) {
		GW_LOG(ERR, "cannot write %s", l->o.stats_file);
		ret = 1;
	}
	return ret;
}

/* ---- stop: undoes what start did (each step a no-op where it did not) ------- */

/*
 * The tables, under the control-plane lock: telemetry callbacks run until
 * rte_eal_cleanup(), and see empty tables from here.
 */
static void
tables_stop(void)
{
	gw_cp_lock();
	gw_frag_teardown(&gw);
	gw_rt_teardown(&gw);
	gw_sp_teardown(&gw);
	gw_sa_teardown(&gw);
	gw_seq_state_close();
	for (unsigned int w = 0; w < gw.nb_workers; w++) {
		rte_mempool_free(gw.worker[w].cop_pool);
		rte_free(gw.worker[w].sa_st);
		rte_free(gw.worker[w].sa_drops);
		gw_fc_free(gw.worker[w].spc);
		gw_fc_free(gw.worker[w].sadc);
	}
	gw_stats_fini();
	gw_reload_fini();
	gw.nb_ports = 0;
	gw_cp_unlock();
	rte_free(gw.rcu);
}

/*
 * Not quite start's order backwards: the management thread and the control
 * socket go first (they reach into everything else), the ports before the
 * tables their packets used, and EAL last.
 */
static void
stop(struct gw_run *l)
{
	if (!l->eal_up) {
		gw_conf_wipe(conf);     /* before EAL nothing else was built */
		return;
	}
	gw_metrics_stop();
	gw_capture_fini();
	gw_hasync_stop();
	gw_mgmt_stop();
	if (gw.rcu != NULL)
		rte_rcu_qsbr_thread_offline(gw.rcu, 0);
	gw_ctrl_stop();
	gw_knh_stop();
	gw_host_teardown();
	gw_conf_wipe(conf);
	gw_ports_stop();
	gw_demo_stop(&l->o, &l->gc);
	tables_stop();
	/* every mbuf back in the pool: nothing leaked on any path (fragments included) */
	if (l->mp != NULL && rte_mempool_in_use_count(l->mp) != 0)
		GW_LOG(ERR, "%u mbufs still in use at exit", rte_mempool_in_use_count(l->mp));
	vecsec_eal_cleanup();       /* the runtime folder too */
	gw_secret_free(conf, sizeof(*conf));
	if (l->eal_argv != l->argv)
		free(l->eal_argv);
}

int
main(int argc, char **argv)
{
	struct gw_run l = {
		.o = { .gen_pkts = 100000, .gen_size = 64, .rate_interval = 1,
		       .fc_entries = { -1, -1 } },
		.gc = { .max_inflight = 2048 },
		.ctrl_gid = -1,
	};
	int rc;

	/* line by line even into a file or pipe: tests and scripts wait for lines */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a control client or a stdout reader that goes away is an error, not our end */
	signal(SIGPIPE, SIG_IGN);
	conf = gw_secret_alloc(sizeof(*conf));
	if (conf == NULL) {
		fprintf(stderr, "vecsec-gw: out of memory\n");
		return 1;
	}
	rc = parse(&l, argc, argv);
	if (rc >= 0)
		return rc;
	rc = start(&l);
	if (rc == 0)
		rc = run(&l);
	stop(&l);
	return rc;
}
