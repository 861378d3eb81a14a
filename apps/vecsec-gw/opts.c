/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway's options (after EAL's `--`): one table, opt_table[], that
 * getopt_long's option list, its short letters and --help are all made
 * from. Each row names the option, its letter, whether it takes an
 * argument, the handler that checks and stores it (grouped below by what
 * the options set) and its --help lines, in --help's order. The help text
 * is kept as it was written when the table was made (a printf format with
 * at most two numbers), so --help reads byte for byte as before.
 */
#include "gw_main.h"
#include "fcache.h"
#include "gw_log.h"
#include "ha.h"
#include "hasync.h"
#include "kernel_nh.h"
#include "metrics.h"
#include "seqstate.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_version.h>

#include "vecsec_version.h"

struct gw_opt;

/* checks the option's argument (NULL for a flag) and stores it; 0 or -1 with a message */
typedef int (*gw_opt_fn)(const struct gw_opt *d, const char *arg, struct opts *o);

struct gw_opt {
	const char *name;               /* long option; NULL: short letter only */
	int letter;                     /* short letter; 0: none */
	int has_arg;                    /* no_argument, required_argument */
	gw_opt_fn fn;                   /* NULL: a row of --help text only */
	const char *help;               /* its lines in --help, a printf format; NULL: none */
	unsigned long long harg[2];     /* the numbers help prints (%llu) */
};

static const char *usage_prog;  /* argv[0], for -h */

/* ---- ipsec-secgw's options, and where the rules are ---------------------- */

static int
opt_file(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->cfg_file = arg;
	return 0;
}

static int
opt_unprot(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;

	(void)d;
	o->unprot_mask = strtoull(arg, &end, 16);
	if (*end != '\0' || errno != 0) {
		fprintf(stderr, "vecsec-gw: -u %s: not a hex port mask\n", arg);
		return -1;
	}
	o->unprot_given = true;
	return 0;
}

/*
 * -p: ipsec-secgw's enabled-port mask: every port is used; -P: its
 * promiscuous mode: always on; -a: its atomic SQN: on with more than one
 * worker.
 */
static int
opt_secgw_ignored(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	return 0;
}

/* ipsec-secgw's --config (port,queue,lcore): one queue per worker */
static int
opt_secgw_config(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)o;
	fprintf(stderr,
		"vecsec-gw: --config %s ignored: every worker polls its own "
		"queue of every port\n",
		arg);
	return 0;
}

static int
opt_check(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->check_file = arg;
	return 0;
}

/* ---- SAs and their crypto ------------------------------------------------- */

static int
opt_window(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long w = strtoul(arg, &end, 10);

	(void)d;
	(void)o;
	if (*end != '\0' || errno != 0 || w > GW_MAX_WINDOW) {
		fprintf(stderr, "vecsec-gw: -w %s: window must be 0..%u\n",
			arg, GW_MAX_WINDOW);
		return -1;
	}
	gw.window = (uint32_t)w;
	return 0;
}

static int
opt_esn(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	gw.esn = true;
	return 0;
}

static int
opt_cpu_crypto(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	gw.force_cpu_crypto = true;
	return 0;
}

static int
opt_native(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	gw.force_native = true;
	return 0;
}

static int
opt_prefer(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)o;
	gw.prefer_driver = arg;
	return 0;
}

static int
opt_ipsec_telemetry(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)o;
	if (strcmp(arg, "all") != 0 && strcmp(arg, "marked") != 0) {
		fprintf(stderr, "vecsec-gw: --ipsec-telemetry %s: all or marked\n",
			arg);
		return -1;
	}
	gw.ipsec_telemetry_all = arg[0] == 'a';
	return 0;
}

/* ---- how long to run, and what to report ---------------------------------- */

/* --duration, --idle-exit: seconds, more than 0 */
static int
opt_stop_after(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end != '\0' || v <= 0) {
		fprintf(stderr, "vecsec-gw: --%s %s: not a positive number\n", d->name, arg);
		return -1;
	}
	if (d->name[0] == 'd')
		o->duration = v;
	else
		o->idle_exit = v;
	return 0;
}

static int
opt_stats_file(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->stats_file = arg;
	return 0;
}

static int
opt_no_pdump(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	o->no_pdump = true;
	return 0;
}

static int
opt_metrics(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	if (gw_metrics_parse(arg, NULL, NULL) != 0) {
		fprintf(stderr, "vecsec-gw: --metrics %s: not ADDR:PORT (e.g. 127.0.0.1:9466, "
			"[::1]:9466)\n", arg);
		return -1;
	}
	o->metrics = arg;
	return 0;
}

/* --stats-interval (0: off), --rate-interval */
static int
opt_interval(const struct gw_opt *d, const char *arg, struct opts *o)
{
	bool stats = d->name[0] == 's';
	char *end;
	double v = strtod(arg, &end);

	if (*end != '\0' || errno != 0 || !(v >= 0 && v <= 86400) ||
	    (!stats && v < 0.01)) {
		fprintf(stderr, "vecsec-gw: --%s %s: seconds, %s..86400\n",
			d->name, arg, stats ? "0 (off)" : "0.01");
		return -1;
	}
	if (stats)
		o->stats_interval = v;
	else
		o->rate_interval = v;
	return 0;
}

static int
opt_quiet(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	o->quiet = true;
	return 0;
}

static int
opt_help(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	gw_usage(usage_prog);
	exit(0);
}

static int
opt_version(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	gw_print_version();
	exit(0);
}

/* ---- the control socket ---------------------------------------------------- */

static int
opt_ctrl(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	if (strcmp(arg, "none") == 0) {
		o->ctrl_none = true;
		o->ctrl_path = NULL;
	} else {
		o->ctrl_none = false;
		o->ctrl_path = arg;
	}
	return 0;
}

static int
opt_ctrl_group(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->ctrl_group = arg;
	return 0;
}

/* --ctrl-idle, --spi-timeout: seconds, 0..86400 */
static int
opt_ctrl_seconds(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	(void)o;
	if (*end != '\0' || errno != 0 || arg[0] < '0' || arg[0] > '9' ||
	    n > 86400) {
		fprintf(stderr, "vecsec-gw: --%s %s: seconds, 0..86400\n", d->name,
			arg);
		return -1;
	}
	if (strcmp(d->name, "ctrl-idle") == 0)
		gw_ctrl_idle_s = (unsigned int)n;
	else
		gw_spi_timeout_s = (unsigned int)n;
	return 0;
}

/* ---- keys: who may write them, core dumps, sequence numbers --------------- */

static int
opt_allow_unprotected(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	o->conf_flags |= GW_CONF_ALLOW_UNPROTECTED;
	return 0;
}

static int
opt_no_coredump(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	o->no_coredump = true;
	return 0;
}

static int
opt_seq_state(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->seq_state_none = strcmp(arg, "none") == 0;
	o->seq_state = o->seq_state_none ? NULL : arg;
	if (!o->seq_state_none && arg[0] == '\0') {
		fprintf(stderr, "vecsec-gw: --seq-state FILE or none\n");
		return -1;
	}
	return 0;
}

static int
opt_cluster(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char err[200];

	(void)d;
	(void)o;
	if (gw_ha_parse(arg, err, sizeof(err)) != 0) {
		fprintf(stderr, "vecsec-gw: %s\n", err);
		return -1;
	}
	return 0;
}

static int
opt_cluster_sync(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char err[200];

	(void)d;
	(void)o;
	if (gw_hasync_parse(arg, err, sizeof(err)) != 0) {
		fprintf(stderr, "vecsec-gw: %s\n", err);
		return -1;
	}
	return 0;
}

static int
opt_cluster_sync_block(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char err[200];

	(void)d;
	(void)o;
	if (gw_hasync_block_parse(arg, err, sizeof(err)) != 0) {
		fprintf(stderr, "vecsec-gw: %s\n", err);
		return -1;
	}
	return 0;
}

static int
opt_seq_reserve(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	if (gw_parse_u64(arg, GW_SEQ_RESERVE_MAX, &o->seq_reserve) != 0 ||
	    o->seq_reserve < 2) {
		fprintf(stderr, "vecsec-gw: --seq-reserve %s: 2..%llu\n", arg,
			(unsigned long long)GW_SEQ_RESERVE_MAX);
		return -1;
	}
	return 0;
}

/* ---- the demo ---------------------------------------------------------------- */

static int
opt_demo(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	o->demo = true;
	return 0;
}

static int
opt_gen_pkts(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;

	(void)d;
	o->gen_pkts = strtoull(arg, &end, 10);
	if (*end != '\0' || errno != 0 || o->gen_pkts == 0 ||
			o->gen_pkts > 1000000000ull) {
		fprintf(stderr, "vecsec-gw: --gen-pkts %s: 1..1e9\n", arg);
		return -1;
	}
	return 0;
}

static int
opt_gen_size(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long z = strtoul(arg, &end, 10);

	(void)d;
	if (*end != '\0' || errno != 0 || z < 60 || z > 1400) {
		fprintf(stderr,
			"vecsec-gw: --gen-size %s: 60..1400 (room for ESP in a "
			"1500 MTU)\n",
			arg);
		return -1;
	}
	o->gen_size = (uint16_t)z;
	return 0;
}

static int
opt_demo_aead(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->demo_aead = arg;
	return 0;
}

static int
opt_gen_pcap(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	o->gen_pcap = arg;
	return 0;
}

/* ---- ports, packets, fragments, the host's side ---------------------------- */

/* --mtu N (every port) or P:N (port P); N is the largest IP packet sent */
static int
opt_mtu(const struct gw_opt *d, const char *arg, struct opts *o)
{
	const char *colon = strchr(arg, ':');
	unsigned long p = GW_MAX_PORTS, n;
	char *end;

	(void)d;
	errno = 0;
	if (colon != NULL) {
		p = strtoul(arg, &end, 10);
		if (end != colon || errno != 0 || p >= GW_MAX_PORTS)
			goto bad;
		arg = colon + 1;
	}
	n = strtoul(arg, &end, 10);
	if (*end != '\0' || errno != 0 || n < RTE_ETHER_MIN_MTU || n > 16384)
		goto bad;
	for (unsigned int i = 0; i < GW_MAX_PORTS; i++)
		if (p == GW_MAX_PORTS || p == i)
			o->mtu[i] = (uint16_t)n;
	return 0;
bad:
	fprintf(stderr, "vecsec-gw: --mtu %s: N or PORT:N, N in %u..16384\n", arg,
		RTE_ETHER_MIN_MTU);
	return -1;
}

static int
opt_mbufs(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	(void)d;
	if (*end != '\0' || errno != 0 || n < 4096 || n > (1ul << 26)) {
		fprintf(stderr, "vecsec-gw: --mbufs %s: 4096..67108864\n", arg);
		return -1;
	}
	o->mbufs = (unsigned int)n;
	return 0;
}

static int
opt_reassemble(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	(void)d;
	(void)o;
	if (*end != '\0' || errno != 0 || n > 65536) {
		fprintf(stderr, "vecsec-gw: --reassemble %s: 0..65536\n", arg);
		return -1;
	}
	gw.frag_tbl_sz = (uint32_t)n;
	return 0;
}

static int
opt_frag_ttl(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long long ns = strtoull(arg, &end, 10);

	(void)d;
	(void)o;
	if (*end != '\0' || errno != 0 || ns == 0 || ns > 3600000000000ull) {
		fprintf(stderr, "vecsec-gw: --frag-ttl %s: 1..3.6e12 ns\n", arg);
		return -1;
	}
	gw.frag_ttl_ns = ns;
	return 0;
}

static int
opt_host_port(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)o;
	return gw_host_parse(arg) != 0 ? -1 : 0;
}

static int
opt_host_default(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)o;
	if (strcmp(arg, "bypass") != 0 && strcmp(arg, "discard") != 0) {
		fprintf(stderr, "vecsec-gw: --host-default %s: bypass or discard\n",
			arg);
		return -1;
	}
	gw_host_discard = arg[0] == 'd';
	return 0;
}

static int
opt_kernel_nh(const struct gw_opt *d, const char *arg, struct opts *o)
{
	(void)d;
	(void)arg;
	(void)o;
	gw_knh_on = true;
	return 0;
}

static int
opt_rx_burst(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	(void)d;
	(void)o;
	if (*end != '\0' || errno != 0 || n < 1 || n > GW_BURST) {
		fprintf(stderr, "vecsec-gw: --rx-burst %s: 1..%u\n", arg,
			GW_BURST);
		return -1;
	}
	gw.rx_burst = (uint16_t)n;
	return 0;
}

/* ---- table sizes ------------------------------------------------------------- */

/* --max-sa, --max-sp, --max-rt: 1..GW_LIMIT_RULES */
static int
opt_max(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	(void)o;
	if (*end != '\0' || errno != 0 || arg[0] < '0' || arg[0] > '9' ||
	    n < 1 || n > GW_LIMIT_RULES) {
		fprintf(stderr, "vecsec-gw: --%s %s: 1..%u\n", d->name, arg,
			GW_LIMIT_RULES);
		return -1;
	}
	if (strcmp(d->name, "max-sa") == 0)
		gw.max_sa = (unsigned int)n;
	else if (strcmp(d->name, "max-sp") == 0)
		gw.max_sp = (unsigned int)n;
	else
		gw.max_rt = (unsigned int)n;
	return 0;
}

/* --spd-cache, --sad-cache: 0..GW_FC_LIMIT, rounded up to a power of two */
static int
opt_flow_cache(const struct gw_opt *d, const char *arg, struct opts *o)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (*end != '\0' || errno != 0 || arg[0] < '0' || arg[0] > '9' ||
	    n > GW_FC_LIMIT) {
		fprintf(stderr, "vecsec-gw: --%s %s: 0..%u\n", d->name, arg,
			GW_FC_LIMIT);
		return -1;
	}
	o->fc_entries[d->name[1] == 'a'] =
		n == 0 ? 0 : (int32_t)rte_align32pow2((uint32_t)n);
	return 0;
}

/* ---- the table ------------------------------------------------------------- */

#define NA no_argument
#define RA required_argument

static const struct gw_opt opt_table[] = {
	{ NULL, 'f', RA, opt_file,
	  "  -f FILE            ipsec-secgw style configuration (sp, sa, rt, neigh rules)\n",
	  { 0, 0 } },
	{ NULL, 'u', RA, opt_unprot,
	  "  -u MASK            unprotected ports, the ESP side (hex mask, as ipsec-secgw);\n"
	  "                     the others are protected (clear traffic)\n", { 0, 0 } },
	{ NULL, 'w', RA, opt_window,
	  "  -w N               anti-replay window, 0..%llu packets (default %llu; 0 disables\n"
	  "                     it, except on ESN SAs, which need one: 64 there)\n",
	  { GW_MAX_WINDOW, GW_DEFAULT_WINDOW } },
	{ NULL, 'e', NA, opt_esn,
	  "  -e                 ESN on every SA\n", { 0, 0 } },
	{ "cpu-crypto", 0, NA, opt_cpu_crypto,
	  "  --cpu-crypto       process every SA with synchronous CPU crypto\n", { 0, 0 } },
	{ "native", 0, NA, opt_native,
	  "  --native           the gateway's own ESP (type native) for every SA libvecsec\n"
	  "                     runs (ChaCha20-Poly1305, ARIA-GCM) but lookaside-protocol ones,\n"
	  "                     those of the control socket (strongSwan) too\n", { 0, 0 } },
	{ "prefer", 0, RA, opt_prefer,
	  "  --prefer DRIVER    cryptodev driver tried first (default crypto_vecsec)\n",
	  { 0, 0 } },
	{ "ipsec-telemetry", 0, RA, opt_ipsec_telemetry,
	  "  --ipsec-telemetry all|marked\n"
	  "                     SAs in DPDK's /ipsec/sa/* telemetry: every one, or those\n"
	  "                     marked `telemetry` (default, as ipsec-secgw)\n", { 0, 0 } },
	{ "duration", 0, RA, opt_stop_after,
	  "  --duration S       stop after S seconds\n", { 0, 0 } },
	{ "idle-exit", 0, RA, opt_stop_after,
	  "  --idle-exit S      stop once no packet moved for S seconds\n", { 0, 0 } },
	{ "stats-file", 0, RA, opt_stats_file,
	  "  --stats-file PATH  write the counters as JSON on exit (a new file renamed\n"
	  "                     over PATH)\n", { 0, 0 } },
	{ "no-pdump", 0, NA, opt_no_pdump,
	  "  --no-pdump         no rte_pdump_init(): dpdk-dumpcap cannot capture\n",
	  { 0, 0 } },
	{ "metrics", 0, RA, opt_metrics,
	  "  --metrics ADDR:PORT\n"
	  "                     serve Prometheus metrics at http://ADDR:PORT/metrics\n",
	  { 0, 0 } },
	{ "stats-interval", 0, RA, opt_interval,
	  "  --stats-interval S the counters to the log every S seconds (default 0: off;\n"
	  "                     SIGUSR1 asks once)\n", { 0, 0 } },
	{ "rate-interval", 0, RA, opt_interval,
	  "  --rate-interval S  rates (packets, bytes per second) over S seconds (default 1)\n",
	  { 0, 0 } },
	{ "mbufs", 0, RA, opt_mbufs,
	  "  --mbufs N          packet buffers (default: what every rx and tx ring, the\n"
	  "                     crypto queues and reassembly of all ports and workers\n"
	  "                     can hold, at least 16384)\n", { 0, 0 } },
	{ "ctrl", 0, RA, opt_ctrl,
	  "  --ctrl PATH|none   control socket: add and delete SAs and SPs at run time\n"
	  "                     (vecsec-ctl); default /run/vecsec-gw/ctrl.sock (root;\n"
	  "                     PREFIX.sock with EAL --file-prefix PREFIX), folder mode\n"
	  "                     0700. Root and this process's user may use it\n", { 0, 0 } },
	{ "ctrl-group", 0, RA, opt_ctrl_group,
	  "  --ctrl-group NAME  members of group NAME (or GID) may use it too\n"
	  "                     (socket 0660, folder 0750, group NAME)\n", { 0, 0 } },
	{ "ctrl-idle", 0, RA, opt_ctrl_seconds,
	  "  --ctrl-idle S      close a control client idle for S seconds (default "
	  RTE_STR(GW_CTRL_IDLE_S_DEFAULT) ";\n"
	  "                     0: never; never a subscriber)\n", { 0, 0 } },
	{ "spi-timeout", 0, RA, opt_ctrl_seconds,
	  "  --spi-timeout S    forget an `spi alloc` reservation no SA took after S\n"
	  "                     seconds (default " RTE_STR(GW_SPI_TIMEOUT_S_DEFAULT)
	  ", as Linux's larval SAs; 0: never)\n", { 0, 0 } },
	{ "allow-unprotected-keys", 0, NA, opt_allow_unprotected,
	  "  --allow-unprotected-keys\n"
	  "                     read -f FILE even when group or others can write it, or\n"
	  "                     another user owns it (refused otherwise: they could\n"
	  "                     change keys and policies); a warning instead\n", { 0, 0 } },
	{ "no-coredump", 0, NA, opt_no_coredump,
	  "  --no-coredump      no core dump at all (prctl PR_SET_DUMPABLE 0); without\n"
	  "                     it, key tables and DPDK's memory stay out of core dumps\n",
	  { 0, 0 } },
	{ "demo", 0, NA, opt_demo,
	  "  --demo             built-in config, ring ports and traffic; checks every packet\n",
	  { 0, 0 } },
	{ "gen-pkts", 0, RA, opt_gen_pkts,
	  "  --gen-pkts N       demo packets (default 100000)\n", { 0, 0 } },
	{ "gen-size", 0, RA, opt_gen_size,
	  "  --gen-size B       demo frame size, bytes without FCS (default 64)\n", { 0, 0 } },
	{ "demo-aead", 0, RA, opt_demo_aead,
	  "  --demo-aead ALGO   every demo SA uses ALGO (chacha20-poly1305, aes-128-gcm, "
	  "...)\n", { 0, 0 } },
	{ NULL, 0, NA, NULL,
	  "  --demo -f FILE     the demo's ring ports and traffic with your SAs and SPs\n"
	  "                     (ports 0, 3 protected, 1 -> 2 the ESP link; route ESP to\n"
	  "                     port 1, clear to port 3)\n", { 0, 0 } },
	{ "gen-pcap", 0, RA, opt_gen_pcap,
	  "  --gen-pcap DIR     with --demo: write the generated clear packets to\n"
	  "                     DIR/clear.pcap and the valid ESP (and bypass) packets on\n"
	  "                     the link to DIR/esp.pcap, for replay (net_pcap); the\n"
	  "                     built-in config goes to DIR/demo.cfg\n", { 0, 0 } },
	{ "check", 0, RA, opt_check,
	  "  --check FILE       check FILE as start would, print a summary, exit (no\n"
	  "                     EAL; options after -- are checked too; with\n"
	  "                     --allow-unprotected-keys anywhere, as -f takes it)\n", { 0, 0 } },
	{ "mtu", 0, RA, opt_mtu,
	  "  --mtu N | P:N      largest IP packet sent on every port | on port P; bigger\n"
	  "                     ones are fragmented (default: the port's MTU, 1500)\n", { 0, 0 } },
	{ "reassemble", 0, RA, opt_reassemble,
	  "  --reassemble NUM   reassembly table entries per worker (default %llu, 0: off)\n",
	  { GW_FRAG_DEFAULT_TBL, 0 } },
	{ "frag-ttl", 0, RA, opt_frag_ttl,
	  "  --frag-ttl NS      fragments wait at most NS ns for their datagram\n"
	  "                     (default %llu)\n", { GW_FRAG_DEFAULT_TTL_NS, 0 } },
	{ "host-port", 0, RA, opt_host_port,
	  "  --host-port P:T[:IFNAME]\n"
	  "                     port T (net_tap, virtio-user) is the host stack's side of\n"
	  "                     port P: ARP, IKE and all but ESP for the addresses the host\n"
	  "                     gives IFNAME (T's kernel interface) go to the host, what\n"
	  "                     it sends leaves on P (exception path; repeatable)\n", { 0, 0 } },
	{ "host-default", 0, RA, opt_host_default,
	  "  --host-default bypass|discard\n"
	  "                     the host's traffic across an unprotected port that no SP\n"
	  "                     rule matches: passes (default) or is dropped (fail closed\n"
	  "                     while no IKE daemon has installed its rules; its IKE,\n"
	  "                     ARP and IPv6 neighbour discovery still pass)\n", { 0, 0 } },
	{ "kernel-nh", 0, NA, opt_kernel_nh,
	  "  --kernel-nh        routes and neighbours of the host ports from the host's\n"
	  "                     kernel (netlink, live): a packet no rt rule routes takes\n"
	  "                     the kernel's route on a tap, and a port without a neigh\n"
	  "                     line sends to the kernel's neighbour of its next hop\n"
	  "                     (ARP/ND are the kernel's; needs --host-port)\n", { 0, 0 } },
	{ "rx-burst", 0, RA, opt_rx_burst,
	  "  --rx-burst N       packets per rx burst, 1..%llu (default %llu)\n",
	  { GW_BURST, GW_BURST } },
	{ "max-sa", 0, RA, opt_max,
	  "  --max-sa N         SA table size, in and out together (default: the\n"
	  "                     configuration's SAs; with a control socket a quarter\n"
	  "                     more, at least 4096 more, for it to add)\n", { 0, 0 } },
	{ "max-sp", 0, RA, opt_max,
	  "  --max-sp N         SP rules the control socket may reach (default: no limit)\n",
	  { 0, 0 } },
	{ "max-rt", 0, RA, opt_max,
	  "  --max-rt N         routes each route table has room for (default: the\n"
	  "                     configuration's and a quarter more, at least 1024 more)\n",
	  { 0, 0 } },
	{ "spd-cache", 0, RA, opt_flow_cache,
	  "  --spd-cache N      SPD flow cache entries per worker (64 bytes each, rounded\n"
	  "                     up to a power of two; 0: none, every packet goes through\n"
	  "                     rte_acl; default: twice the SA table, %llu..%llu)\n",
	  { GW_FC_MIN, GW_FC_MAX } },
	{ "sad-cache", 0, RA, opt_flow_cache,
	  "  --sad-cache N      SAD cache entries per worker, the same way (0: every ESP\n"
	  "                     packet goes through rte_ipsec_sad)\n", { 0, 0 } },
	{ "seq-state", 0, RA, opt_seq_state,
	  "  --seq-state FILE|none\n"
	  "                     where outbound SAs with keys from -f FILE keep the highest\n"
	  "                     sequence number they may have sent, so that a restart\n"
	  "                     never sends a number (an IV) twice under the same key\n"
	  "                     (default " GW_SEQ_STATE_DEFAULT ", folder made 0700;\n"
	  "                     none with --demo); none: not kept (a warning)\n", { 0, 0 } },
	{ "seq-reserve", 0, RA, opt_seq_reserve,
	  "  --seq-reserve N    sequence numbers reserved ahead per SA, written before\n"
	  "                     they are used (default 2^20)\n", { 0, 0 } },
	{ "cluster", 0, RA, opt_cluster,
	  "  --cluster COUNT@ADDR[,ADDR...][:SEGMENTS]\n"
	  "                     one node of a strongSwan ha cluster (docs/ha.md): COUNT\n"
	  "                     segments (1..16), the cluster IPv4 address(es), the\n"
	  "                     segments active at start (1,2 | all | none, the default);\n"
	  "                     `segment +N|-N` on the control socket moves them\n", { 0, 0 } },
	{ "cluster-sync", 0, RA, opt_cluster_sync,
	  "  --cluster-sync LOCAL_IP[:PORT],REMOTE_IP[:PORT]\n"
	  "                     with --cluster: sequence numbers and replay windows\n"
	  "                     reserved with the other node over a dedicated, trusted\n"
	  "                     UDP link (port 4511; IPv6 as [ADDR]:PORT; docs/ha.md)\n",
	  { 0, 0 } },
	{ "cluster-sync-block", 0, RA, opt_cluster_sync_block,
	  "  --cluster-sync-block N\n"
	  "                     outbound numbers reserved per advertisement (default\n"
	  "                     65536, 256..2^30)\n", { 0, 0 } },
	{ "quiet", 'q', NA, opt_quiet,
	  "  --quiet            no start-up summary (the gateway's INFO messages: as\n"
	  "                     EAL's --log-level vecsec.gw:notice)\n", { 0, 0 } },
	{ "version", 0, NA, opt_version,
	  "  --version          print the version (also before --) and exit\n", { 0, 0 } },
	{ NULL, 'p', RA, opt_secgw_ignored,
	  "  ipsec-secgw's -p MASK, -P, -a and --config are accepted (and not needed)\n",
	  { 0, 0 } },
	{ NULL, 'P', NA, opt_secgw_ignored, NULL, { 0, 0 } },
	{ NULL, 'a', NA, opt_secgw_ignored, NULL, { 0, 0 } },
	{ "config", 0, RA, opt_secgw_config, NULL, { 0, 0 } },
	{ "help", 'h', NA, opt_help, NULL, { 0, 0 } },
};

#undef NA
#undef RA

#define OPT_N RTE_DIM(opt_table)
#define OPT_VAL_BASE 256        /* getopt_long's value of a row without a letter: this + row */

void
gw_usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
	       "       %s --check FILE [-- options]\n"
	       "       %s --version | --help\n", prog, prog, prog);
	for (unsigned int i = 0; i < OPT_N; i++)
		if (opt_table[i].help != NULL)
			printf(opt_table[i].help, opt_table[i].harg[0], opt_table[i].harg[1]);
	printf("signals: SIGHUP reloads -f FILE (make-before-break), SIGUSR1 logs the counters,\n"
	       "SIGTERM/SIGINT drain and exit\n");
}

/* --version: this build, and the DPDK it runs with (no EAL needed) */
void
gw_print_version(void)
{
	printf("vecsec-gw %s (%s)\n", VECSEC_VERSION_STRING, rte_version());
}

/* getopt_long's short letters and long options, from the table */
static void
opt_getopt_lists(char *letters, struct option *lo)
{
	unsigned int nl = 0, n = 0;

	for (unsigned int i = 0; i < OPT_N; i++) {
		const struct gw_opt *d = &opt_table[i];
		int val = d->letter != 0 ? d->letter : OPT_VAL_BASE + (int)i;

		if (d->fn == NULL)
			continue;
		if (d->letter != 0) {
			letters[nl++] = (char)d->letter;
			if (d->has_arg == required_argument)
				letters[nl++] = ':';
		}
		if (d->name != NULL)
			lo[n++] = (struct option){ d->name, d->has_arg, NULL, val };
	}
	letters[nl] = '\0';
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* the row getopt_long's value c stands for, NULL for none */
static const struct gw_opt *
opt_row(int c)
{
	if (c >= OPT_VAL_BASE && c < OPT_VAL_BASE + (int)OPT_N)
		return &opt_table[c - OPT_VAL_BASE];
	for (unsigned int i = 0; i < OPT_N; i++)
		if (opt_table[i].letter != 0 && opt_table[i].letter == c)
			return &opt_table[i];
	return NULL;
}

int
gw_parse_args(int argc, char **argv, struct opts *o)
{
	static struct option lo[OPT_N + 1];
	static char letters[2 * OPT_N + 1];
	int c;

	opt_getopt_lists(letters, lo);
	usage_prog = argv[0];
	optind = 1;
	while ((c = getopt_long(argc, argv, letters, lo, NULL)) != -1) {
		const struct gw_opt *d = opt_row(c);

		errno = 0;
		if (d == NULL || d->fn == NULL) {
			gw_usage(argv[0]);
			return -1;
		}
		if (d->fn(d, optarg, o) != 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "vecsec-gw: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* --ctrl-group NAME or GID: the group's id, or -1 with a message */
int
gw_ctrl_group_id(const char *name)
{
	const struct group *g = getgrnam(name);
	unsigned long id;
	char *end;

	if (g != NULL)
		return (int)g->gr_gid;
	errno = 0;
	id = strtoul(name, &end, 10);
	if (name[0] >= '0' && name[0] <= '9' && *end == '\0' && errno == 0 && id < INT32_MAX)
		return (int)id;
	fprintf(stderr, "vecsec-gw: --ctrl-group %s: no such group\n", name);
	return -1;
}
