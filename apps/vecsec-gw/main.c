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
 * Start: options and the configuration are checked before EAL starts
 * (preflight(): the checks --check makes too), then EAL, ports, SAs (with
 * only the cryptodevs they need), SPD, routes, the control socket
 * (default ctrl_path.h), the management thread (mgmt.c: rates, SIGUSR1,
 * SIGHUP reload), then READY=1 to systemd. SIGTERM/SIGINT: the workers
 * stop polling rx, drain their crypto ops and transmit what comes out;
 * then the gateway exits 0 and removes its socket and EAL's runtime
 * folder.
 */
#define _GNU_SOURCE             /* fopencookie(), dl_iterate_phdr() */

#include "ctrl_path.h"
#include "gen.h"
#include "gw_dp.h"
#include "fcache.h"
#include "gw_log.h"
#include "seqstate.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "vecsec_version.h"

#include "vecsec_eal.h"

#define GW_NB_MBUF 16384        /* the least; more with many ports and workers (mbufs_needed) */
#define GW_RX_DESC 1024
#define GW_TX_DESC 1024

RTE_LOG_REGISTER(gw_logtype, vecsec.gw, INFO);

struct gw_dp gw;
volatile bool gw_quit;
static struct gw_conf *conf;   /* gw_secret_alloc(): keys, out of core dumps */
static char demo_text[8192];

/* long options without a short letter */
enum { OPT_MAX_SA = 256, OPT_MAX_SP, OPT_MAX_RT, OPT_SPD_CACHE, OPT_SAD_CACHE };
enum { OPT_SEQ_STATE = 300, OPT_SEQ_RESERVE };
enum { OPT_HOST_DEFAULT = 320 };
enum { OPT_CTRL_IDLE = 330, OPT_SPI_TIMEOUT };

struct opts {
	const char *cfg_file;
	const char *check_file;
	const char *stats_file;
	const char *ctrl_path;          /* --ctrl PATH; NULL: the default (ctrl_path.h) */
	bool ctrl_none;                 /* --ctrl none */
	const char *ctrl_group;         /* --ctrl-group: may use the socket too */
	double stats_interval;          /* --stats-interval S: counters to the log, 0 off */
	unsigned int mbufs;             /* --mbufs N, 0: mbufs_needed() */
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
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
	       "       %s --check FILE [-- options]\n"
	       "       %s --version | --help\n"
	       "  -f FILE            ipsec-secgw style configuration (sp, sa, rt, neigh rules)\n"
	       "  -u MASK            unprotected ports, the ESP side (hex mask, as ipsec-secgw);\n"
	       "                     the others are protected (clear traffic)\n"
	       "  -w N               anti-replay window, 0..%u packets (default %u; 0 disables\n"
	       "                     it, except on ESN SAs, which need one: 64 there)\n"
	       "  -e                 ESN on every SA\n"
	       "  --cpu-crypto       process every SA with synchronous CPU crypto\n"
	       "  --prefer DRIVER    cryptodev driver tried first (default crypto_vecsec)\n"
	       "  --ipsec-telemetry all|marked\n"
	       "                     SAs in DPDK's /ipsec/sa/* telemetry: every one, or those\n"
	       "                     marked `telemetry` (default, as ipsec-secgw)\n"
	       "  --duration S       stop after S seconds\n"
	       "  --idle-exit S      stop once no packet moved for S seconds\n"
	       "  --stats-file PATH  write the counters as JSON on exit\n"
	       "  --stats-interval S the counters to the log every S seconds (default 0: off;\n"
	       "                     SIGUSR1 asks once)\n"
	       "  --rate-interval S  rates (packets, bytes per second) over S seconds (default 1)\n"
	       "  --mbufs N          packet buffers (default: what every rx and tx ring, the\n"
	       "                     crypto queues and reassembly of all ports and workers\n"
	       "                     can hold, at least 16384)\n"
	       "  --ctrl PATH|none   control socket: add and delete SAs and SPs at run time\n"
	       "                     (vecsec-ctl); default /run/vecsec-gw/ctrl.sock (root;\n"
	       "                     PREFIX.sock with EAL --file-prefix PREFIX), folder mode\n"
	       "                     0700. Root and this process's user may use it\n"
	       "  --ctrl-group NAME  members of group NAME (or GID) may use it too\n"
	       "                     (socket 0660, folder 0750, group NAME)\n"
	       "  --ctrl-idle S      close a control client idle for S seconds (default "
	       RTE_STR(GW_CTRL_IDLE_S_DEFAULT) ";\n"
	       "                     0: never; never a subscriber)\n"
	       "  --spi-timeout S    forget an `spi alloc` reservation no SA took after S\n"
	       "                     seconds (default " RTE_STR(GW_SPI_TIMEOUT_S_DEFAULT)
	       ", as Linux's larval SAs; 0: never)\n"
	       "  --allow-unprotected-keys\n"
	       "                     read -f FILE even when group or others can write it, or\n"
	       "                     another user owns it (refused otherwise: they could\n"
	       "                     change keys and policies); a warning instead\n"
	       "  --no-coredump      no core dump at all (prctl PR_SET_DUMPABLE 0); without\n"
	       "                     it, key tables and DPDK's memory stay out of core dumps\n"
	       "  --demo             built-in config, ring ports and traffic; checks every packet\n"
	       "  --gen-pkts N       demo packets (default 100000)\n"
	       "  --gen-size B       demo frame size, bytes without FCS (default 64)\n"
	       "  --demo-aead ALGO   every demo SA uses ALGO (chacha20-poly1305, aes-128-gcm, "
	       "...)\n"
	       "  --demo -f FILE     the demo's ring ports and traffic with your SAs and SPs\n"
	       "                     (ports 0, 3 protected, 1 -> 2 the ESP link; route ESP to\n"
	       "                     port 1, clear to port 3)\n"
	       "  --gen-pcap DIR     with --demo: write the generated clear packets to\n"
	       "                     DIR/clear.pcap and the valid ESP (and bypass) packets on\n"
	       "                     the link to DIR/esp.pcap, for replay (net_pcap); the\n"
	       "                     built-in config goes to DIR/demo.cfg\n"
	       "  --check FILE       check FILE as start would, print a summary, exit (no\n"
	       "                     EAL; options after -- are checked too; with\n"
	       "                     --allow-unprotected-keys anywhere, as -f takes it)\n"
	       "  --mtu N | P:N      largest IP packet sent on every port | on port P; bigger\n"
	       "                     ones are fragmented (default: the port's MTU, 1500)\n"
	       "  --reassemble NUM   reassembly table entries per worker (default %u, 0: off)\n"
	       "  --frag-ttl NS      fragments wait at most NS ns for their datagram\n"
	       "                     (default %llu)\n"
	       "  --host-port P:T[:IFNAME]\n"
	       "                     port T (net_tap, virtio-user) is the host stack's side of\n"
	       "                     port P: ARP, IKE and all but ESP for the addresses the host\n"
	       "                     gives IFNAME (T's kernel interface) go to the host, what\n"
	       "                     it sends leaves on P (exception path; repeatable)\n"
	       "  --host-default bypass|discard\n"
	       "                     the host's traffic across an unprotected port that no SP\n"
	       "                     rule matches: passes (default) or is dropped (fail closed\n"
	       "                     while no IKE daemon has installed its rules; its IKE,\n"
	       "                     ARP and IPv6 neighbour discovery still pass)\n"
	       "  --rx-burst N       packets per rx burst, 1..%u (default %u)\n"
	       "  --max-sa N         SA table size, in and out together (default: the\n"
	       "                     configuration's SAs; with a control socket a quarter\n"
	       "                     more, at least 4096 more, for it to add)\n"
	       "  --max-sp N         SP rules the control socket may reach (default: no limit)\n"
	       "  --max-rt N         routes each route table has room for (default: the\n"
	       "                     configuration's and a quarter more, at least 1024 more)\n"
	       "  --spd-cache N      SPD flow cache entries per worker (64 bytes each, rounded\n"
	       "                     up to a power of two; 0: none, every packet goes through\n"
	       "                     rte_acl; default: twice the SA table, %u..%u)\n"
	       "  --sad-cache N      SAD cache entries per worker, the same way (0: every ESP\n"
	       "                     packet goes through rte_ipsec_sad)\n"
	       "  --seq-state FILE|none\n"
	       "                     where outbound SAs with keys from -f FILE keep the highest\n"
	       "                     sequence number they may have sent, so that a restart\n"
	       "                     never sends a number (an IV) twice under the same key\n"
	       "                     (default " GW_SEQ_STATE_DEFAULT ", folder made 0700;\n"
	       "                     none with --demo); none: not kept (a warning)\n"
	       "  --seq-reserve N    sequence numbers reserved ahead per SA, written before\n"
	       "                     they are used (default 2^20)\n"
	       "  --quiet            no start-up summary (the gateway's INFO messages: as\n"
	       "                     EAL's --log-level vecsec.gw:notice)\n"
	       "  --version          print the version (also before --) and exit\n"
	       "  ipsec-secgw's -p MASK, -P, -a and --config are accepted (and not needed)\n"
	       "signals: SIGHUP reloads -f FILE (make-before-break), SIGUSR1 logs the counters,\n"
	       "SIGTERM/SIGINT drain and exit\n",
	       prog, prog, prog, GW_MAX_WINDOW, GW_DEFAULT_WINDOW, GW_FRAG_DEFAULT_TBL,
	       (unsigned long long)GW_FRAG_DEFAULT_TTL_NS, GW_BURST, GW_BURST, GW_FC_MIN,
	       GW_FC_MAX);
}

/* --version: this build, and the DPDK it runs with (no EAL needed) */
static void
print_version(void)
{
	printf("vecsec-gw %s (%s)\n", VECSEC_VERSION_STRING, rte_version());
}

static void
on_signal(int sig)
{
	if (sig == SIGUSR1 || sig == SIGHUP)
		gw_mgmt_signal(sig);
	else
		gw_quit = true;
}

/* --mtu N (every port) or P:N (port P); N is the largest IP packet sent */
static int
parse_mtu(const char *arg, struct opts *o)
{
	const char *colon = strchr(arg, ':');
	unsigned long p = GW_MAX_PORTS, n;
	char *end;

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
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "cpu-crypto", no_argument, NULL, 'C' },
		{ "prefer", required_argument, NULL, 'R' },
		{ "duration", required_argument, NULL, 'D' },
		{ "idle-exit", required_argument, NULL, 'I' },
		{ "stats-file", required_argument, NULL, 'S' },
		{ "ctrl", required_argument, NULL, 'T' },
		{ "ctrl-group", required_argument, NULL, 'O' },
		{ "ctrl-idle", required_argument, NULL, OPT_CTRL_IDLE },
		{ "spi-timeout", required_argument, NULL, OPT_SPI_TIMEOUT },
		{ "stats-interval", required_argument, NULL, 'i' },
		{ "rate-interval", required_argument, NULL, 'r' },
		{ "ipsec-telemetry", required_argument, NULL, 'y' },
		{ "mbufs", required_argument, NULL, 'b' },
		{ "allow-unprotected-keys", no_argument, NULL, 'Y' },
		{ "no-coredump", no_argument, NULL, 'Q' },
		{ "demo", no_argument, NULL, 'M' },
		{ "gen-pkts", required_argument, NULL, 'N' },
		{ "gen-size", required_argument, NULL, 'Z' },
		{ "demo-aead", required_argument, NULL, 'A' },
		{ "gen-pcap", required_argument, NULL, 'W' },
		{ "config", required_argument, NULL, 'G' },
		{ "check", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "mtu", required_argument, NULL, 'U' },
		{ "reassemble", required_argument, NULL, 'B' },
		{ "frag-ttl", required_argument, NULL, 'L' },
		{ "host-port", required_argument, NULL, 'H' },
		{ "host-default", required_argument, NULL, OPT_HOST_DEFAULT },
		{ "rx-burst", required_argument, NULL, 'X' },
		{ "max-sa", required_argument, NULL, OPT_MAX_SA },
		{ "max-sp", required_argument, NULL, OPT_MAX_SP },
		{ "max-rt", required_argument, NULL, OPT_MAX_RT },
		{ "spd-cache", required_argument, NULL, OPT_SPD_CACHE },
		{ "sad-cache", required_argument, NULL, OPT_SAD_CACHE },
		{ "seq-state", required_argument, NULL, OPT_SEQ_STATE },
		{ "seq-reserve", required_argument, NULL, OPT_SEQ_RESERVE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:u:w:p:eqhPa", lo, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'f':
			o->cfg_file = optarg;
			break;
		case 'u':
			o->unprot_mask = strtoull(optarg, &end, 16);
			if (*end != '\0' || errno != 0) {
				fprintf(stderr, "vecsec-gw: -u %s: not a hex port mask\n", optarg);
				return -1;
			}
			o->unprot_given = true;
			break;
		case 'p':       /* ipsec-secgw's enabled-port mask: every port is used */
		case 'P':       /* ipsec-secgw's promiscuous mode: always on */
		case 'a':       /* ipsec-secgw's atomic SQN: on with more than one worker */
			break;
		case 'G': /* ipsec-secgw's --config (port,queue,lcore): one queue per worker */
			fprintf(stderr,
				"vecsec-gw: --config %s ignored: every worker polls its own "
				"queue of every port\n",
				optarg);
			break;
		case 'w': {
			unsigned long w = strtoul(optarg, &end, 10);

			if (*end != '\0' || errno != 0 || w > GW_MAX_WINDOW) {
				fprintf(stderr, "vecsec-gw: -w %s: window must be 0..%u\n",
					optarg, GW_MAX_WINDOW);
				return -1;
			}
			gw.window = (uint32_t)w;
			break;
		}
		case 'e':
			gw.esn = true;
			break;
		case 'C':
			gw.force_cpu_crypto = true;
			break;
		case 'R':
			gw.prefer_driver = optarg;
			break;
		case 'D':
			o->duration = strtod(optarg, &end);
			if (*end != '\0' || o->duration <= 0) {
				fprintf(stderr, "vecsec-gw: --duration %s: not a positive number\n",
					optarg);
				return -1;
			}
			break;
		case 'I':
			o->idle_exit = strtod(optarg, &end);
			if (*end != '\0' || o->idle_exit <= 0) {
				fprintf(stderr,
					"vecsec-gw: --idle-exit %s: not a positive number\n",
					optarg);
				return -1;
			}
			break;
		case 'S':
			o->stats_file = optarg;
			break;
		case 'T':
			if (strcmp(optarg, "none") == 0) {
				o->ctrl_none = true;
				o->ctrl_path = NULL;
			} else {
				o->ctrl_none = false;
				o->ctrl_path = optarg;
			}
			break;
		case 'i':
		case 'r': {
			double v = strtod(optarg, &end);

			if (*end != '\0' || errno != 0 || !(v >= 0 && v <= 86400) ||
			    (c == 'r' && v < 0.01)) {
				fprintf(stderr, "vecsec-gw: --%s %s: seconds, %s..86400\n",
					c == 'i' ? "stats-interval" : "rate-interval", optarg,
					c == 'i' ? "0 (off)" : "0.01");
				return -1;
			}
			if (c == 'i')
				o->stats_interval = v;
			else
				o->rate_interval = v;
			break;
		}
		case 'b': {
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end != '\0' || errno != 0 || n < 4096 || n > (1ul << 26)) {
				fprintf(stderr, "vecsec-gw: --mbufs %s: 4096..67108864\n", optarg);
				return -1;
			}
			o->mbufs = (unsigned int)n;
			break;
		}
		case 'y':
			if (strcmp(optarg, "all") != 0 && strcmp(optarg, "marked") != 0) {
				fprintf(stderr, "vecsec-gw: --ipsec-telemetry %s: all or marked\n",
					optarg);
				return -1;
			}
			gw.ipsec_telemetry_all = optarg[0] == 'a';
			break;
		case 'O':
			o->ctrl_group = optarg;
			break;
		case 'Y':
			o->conf_flags |= GW_CONF_ALLOW_UNPROTECTED;
			break;
		case 'Q':
			o->no_coredump = true;
			break;
		case 'M':
			o->demo = true;
			break;
		case 'N':
			o->gen_pkts = strtoull(optarg, &end, 10);
			if (*end != '\0' || errno != 0 || o->gen_pkts == 0 ||
					o->gen_pkts > 1000000000ull) {
				fprintf(stderr, "vecsec-gw: --gen-pkts %s: 1..1e9\n", optarg);
				return -1;
			}
			break;
		case 'Z': {
			unsigned long z = strtoul(optarg, &end, 10);

			if (*end != '\0' || errno != 0 || z < 60 || z > 1400) {
				fprintf(stderr,
					"vecsec-gw: --gen-size %s: 60..1400 (room for ESP in a "
					"1500 MTU)\n",
					optarg);
				return -1;
			}
			o->gen_size = (uint16_t)z;
			break;
		}
		case 'K':
			o->check_file = optarg;
			break;
		case 'A':
			o->demo_aead = optarg;
			break;
		case 'W':
			o->gen_pcap = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'U':
			if (parse_mtu(optarg, o) != 0)
				return -1;
			break;
		case 'B': {
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end != '\0' || errno != 0 || n > 65536) {
				fprintf(stderr, "vecsec-gw: --reassemble %s: 0..65536\n", optarg);
				return -1;
			}
			gw.frag_tbl_sz = (uint32_t)n;
			break;
		}
		case 'L': {
			unsigned long long ns = strtoull(optarg, &end, 10);

			if (*end != '\0' || errno != 0 || ns == 0 || ns > 3600000000000ull) {
				fprintf(stderr, "vecsec-gw: --frag-ttl %s: 1..3.6e12 ns\n", optarg);
				return -1;
			}
			gw.frag_ttl_ns = ns;
			break;
		}
		case 'H':
			if (gw_host_parse(optarg) != 0)
				return -1;
			break;
		case OPT_HOST_DEFAULT:
			if (strcmp(optarg, "bypass") != 0 && strcmp(optarg, "discard") != 0) {
				fprintf(stderr, "vecsec-gw: --host-default %s: bypass or discard\n",
					optarg);
				return -1;
			}
			gw_host_discard = optarg[0] == 'd';
			break;
		case 'X': {
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end != '\0' || errno != 0 || n < 1 || n > GW_BURST) {
				fprintf(stderr, "vecsec-gw: --rx-burst %s: 1..%u\n", optarg,
					GW_BURST);
				return -1;
			}
			gw.rx_burst = (uint16_t)n;
			break;
		}
		case OPT_MAX_SA:
		case OPT_MAX_SP:
		case OPT_MAX_RT: {
			unsigned long n = strtoul(optarg, &end, 10);
			const char *name = c == OPT_MAX_SA ? "--max-sa" : c == OPT_MAX_SP ?
				"--max-sp" : "--max-rt";

			if (*end != '\0' || errno != 0 || optarg[0] < '0' || optarg[0] > '9' ||
			    n < 1 || n > GW_LIMIT_RULES) {
				fprintf(stderr, "vecsec-gw: %s %s: 1..%u\n", name, optarg,
					GW_LIMIT_RULES);
				return -1;
			}
			if (c == OPT_MAX_SA)
				gw.max_sa = (unsigned int)n;
			else if (c == OPT_MAX_SP)
				gw.max_sp = (unsigned int)n;
			else
				gw.max_rt = (unsigned int)n;
			break;
		}
		case OPT_CTRL_IDLE:
		case OPT_SPI_TIMEOUT: {
			unsigned long n = strtoul(optarg, &end, 10);
			const char *name = c == OPT_CTRL_IDLE ? "--ctrl-idle" : "--spi-timeout";

			if (*end != '\0' || errno != 0 || optarg[0] < '0' || optarg[0] > '9' ||
			    n > 86400) {
				fprintf(stderr, "vecsec-gw: %s %s: seconds, 0..86400\n", name,
					optarg);
				return -1;
			}
			if (c == OPT_CTRL_IDLE)
				gw_ctrl_idle_s = (unsigned int)n;
			else
				gw_spi_timeout_s = (unsigned int)n;
			break;
		}
		case OPT_SPD_CACHE:
		case OPT_SAD_CACHE: {
			unsigned long n = strtoul(optarg, &end, 10);
			const char *name = c == OPT_SPD_CACHE ? "--spd-cache" : "--sad-cache";

			if (*end != '\0' || errno != 0 || optarg[0] < '0' || optarg[0] > '9' ||
			    n > GW_FC_LIMIT) {
				fprintf(stderr, "vecsec-gw: %s %s: 0..%u\n", name, optarg,
					GW_FC_LIMIT);
				return -1;
			}
			o->fc_entries[c == OPT_SAD_CACHE] =
				n == 0 ? 0 : (int32_t)rte_align32pow2((uint32_t)n);
			break;
		}
		case OPT_SEQ_STATE:
			o->seq_state_none = strcmp(optarg, "none") == 0;
			o->seq_state = o->seq_state_none ? NULL : optarg;
			if (!o->seq_state_none && optarg[0] == '\0') {
				fprintf(stderr, "vecsec-gw: --seq-state FILE or none\n");
				return -1;
			}
			break;
		case OPT_SEQ_RESERVE:
			if (gw_parse_u64(optarg, GW_SEQ_RESERVE_MAX, &o->seq_reserve) != 0 ||
			    o->seq_reserve < 2) {
				fprintf(stderr, "vecsec-gw: --seq-reserve %s: 2..%llu\n", optarg,
					(unsigned long long)GW_SEQ_RESERVE_MAX);
				return -1;
			}
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		case 'V':
			print_version();
			exit(0);
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vecsec-gw: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
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

/*
 * Cryptodev driver names --prefer may give: DPDK 22.11's (the names their
 * devices report) and crypto_vecsec. Checked before EAL, which loads the
 * drivers: a typo is refused, not silently never preferred.
 */
static const char *const known_drivers[] = {
	"crypto_vecsec", "crypto_aesni_mb", "crypto_aesni_gcm", "crypto_chacha20_poly1305",
	"crypto_openssl", "crypto_null", "crypto_scheduler", "crypto_kasumi", "crypto_snow3g",
	"crypto_zuc", "crypto_armv8", "crypto_bcmfs", "crypto_caam_jr", "crypto_ccp",
	"crypto_cn9k", "crypto_cn10k", "crypto_dpaa_sec", "crypto_dpaa2_sec", "crypto_mlx5",
	"crypto_mvsam", "crypto_nitrox_sym", "crypto_octeontx", "crypto_qat", "crypto_uadk",
	"crypto_virtio",
};

/* How many protect rules the configuration has (with its SAs: ESP to send or take) */
static unsigned int
conf_protect_rules(const struct gw_conf *c)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->nb_sp; i++)
		n += c->sp[i].action == GW_SP_PROTECT;
	return n;
}

/*
 * Every check that needs no EAL, for start and --check alike: the
 * configuration (gw_conf_validate()) and what the options say about it.
 * Messages name the option or the file's line. Returns 0, or the exit
 * status: 1 for the configuration, 2 for an option.
 */
static int
preflight(const struct opts *o, const struct gw_conf *c, const char *name, bool options)
{
	char err[512], warn[512];
	unsigned int prot = conf_protect_rules(c), esp = c->nb_sa + prot;
	struct stat st;

	for (unsigned int k = 0; k < GW_IGN_MAX; k++)
		if (gw_conf_ignored_text(c, name, k, warn, sizeof(warn)))
			fprintf(stderr, "vecsec-gw: warning: %s\n", warn);
	if (gw_conf_validate(c, err, sizeof(err)) != 0) {
		fprintf(stderr, "vecsec-gw: %s: %s\n", name, err);
		return 1;
	}
	if (!options)
		return 0;
	if (gw.prefer_driver != NULL) {
		unsigned int k;

		for (k = 0; k < RTE_DIM(known_drivers); k++)
			if (strcmp(known_drivers[k], gw.prefer_driver) == 0)
				break;
		if (k == RTE_DIM(known_drivers)) {
			fprintf(stderr, "vecsec-gw: --prefer %s: no such cryptodev driver "
				"(crypto_vecsec, crypto_aesni_mb, crypto_aesni_gcm, "
				"crypto_chacha20_poly1305, crypto_openssl, crypto_null, "
				"crypto_qat, ... as DPDK names them)\n", gw.prefer_driver);
			return 2;
		}
	}
	if (!o->demo && esp != 0 && !o->unprot_given) {
		fprintf(stderr, "vecsec-gw: -u MASK missing: %s has %u SA(s) and %u protect "
			"rule(s), and without -u no port is unprotected: ESP could neither "
			"leave nor arrive (-u names the ESP-side ports, as in ipsec-secgw)\n",
			name, c->nb_sa, prot);
		return 2;
	}
	if (!o->demo && esp != 0 && o->unprot_mask == 0) {
		fprintf(stderr, "vecsec-gw: -u 0: names no port, and %s has %u SA(s) and %u "
			"protect rule(s)\n", name, c->nb_sa, prot);
		return 2;
	}
	if (o->gen_pcap != NULL && (stat(o->gen_pcap, &st) != 0 || !S_ISDIR(st.st_mode) ||
				    access(o->gen_pcap, W_OK | X_OK) != 0)) {
		fprintf(stderr, "vecsec-gw: --gen-pcap %s: %s\n", o->gen_pcap,
			stat(o->gen_pcap, &st) != 0 ? "no such folder (make it first)" :
			!S_ISDIR(st.st_mode) ? "not a folder" : "cannot write into it");
		return 2;
	}
	return 0;
}

/*
 * --check FILE: parse and check FILE as start would (preflight(); with the
 * options given after `--`, those too) and print a summary. What needs
 * EAL is not checked: whether the ports of -u and of the routes exist, and
 * which cryptodevs can run the SAs.
 */
static int
check_only(const char *file, const struct opts *o, bool options)
{
	char err[512];
	int rc = gw_conf_parse_file(conf, file, o->conf_flags, err, sizeof(err));

	if (err[0] != '\0')
		fprintf(stderr, "vecsec-gw: %s\n", err);
	if (rc != 0) {
		gw_conf_wipe(conf);     /* a failed parse keeps its grown arrays */
		return 1;
	}
	rc = preflight(o, conf, file, options);
	if (rc != 0) {
		gw_conf_wipe(conf);
		return rc;
	}
	printf("%s: OK: %u SA, %u SP, %u routes, %u neigh", file, conf->nb_sa, conf->nb_sp,
		conf->nb_rt, conf->nb_neigh);
	if (conf->nb_ignored != 0)
		printf(", %u flow rules ignored", conf->nb_ignored);
	printf("\n");
	gw_conf_wipe(conf);
	return 0;
}

/* ---- crypto_vecsec: one copy, from the plugin folder or the build tree ---- */

#ifdef GW_BUILD_PMD
/*
 * The gateway does not link crypto_vecsec in: installed, EAL loads it from
 * DPDK's plugin folder (meson install puts it there) like any PMD. Run
 * from the build tree (this binary is the one meson built), EAL gets
 * `-d <the build's librte_crypto_vecsec.so>` before the other options,
 * unless the command line loads a crypto_vecsec itself. Returns the argv
 * for EAL (argv itself, or a copy with the -d), *argc adjusted.
 */
static char **
pmd_autoload(int *argc, char **argv, bool *added)
{
	char self[PATH_MAX], built[PATH_MAX];
	char **nv;

	*added = false;
	if (realpath("/proc/self/exe", self) == NULL || realpath(GW_BUILD_EXE, built) == NULL ||
	    strcmp(self, built) != 0 || access(GW_BUILD_PMD, R_OK) != 0)
		return argv;
	for (int i = 1; i + 1 < *argc; i++)
		if (strcmp(argv[i], "-d") == 0 && strstr(argv[i + 1], "crypto_vecsec") != NULL)
			return argv;
	nv = calloc((size_t)*argc + 3, sizeof(*nv));
	if (nv == NULL)
		return argv;
	nv[0] = argv[0];
	nv[1] = (char *)(uintptr_t)"-d";
	nv[2] = (char *)(uintptr_t)GW_BUILD_PMD;
	memcpy(nv + 3, argv + 1, (size_t)(*argc - 1) * sizeof(*nv));
	*argc += 2;
	*added = true;
	return nv;
}
#endif /* GW_BUILD_PMD */

/*
 * --demo runs on the ports it makes itself and refuses any other: it never
 * needs a PCI device, and EAL probing PCI would take every NIC bound to a
 * DPDK driver away from whoever uses it. Its EAL gets --no-pci unless the
 * command line has it. Returns the argv for EAL (orig, cur, or a copy of
 * cur with --no-pci at the end; a copy replaces cur, which is freed if it
 * is not orig), *argc adjusted.
 */
static char **
demo_no_pci(int *argc, char **cur, char **orig)
{
	char **nv;

	for (int i = 1; i < *argc; i++)
		if (strcmp(cur[i], "--no-pci") == 0)
			return cur;
	nv = calloc((size_t)*argc + 2, sizeof(*nv));
	if (nv == NULL)
		return cur;     /* the demo's scripts pass --no-pci themselves */
	memcpy(nv, cur, (size_t)*argc * sizeof(*nv));
	nv[(*argc)++] = (char *)(uintptr_t)"--no-pci";
	if (cur != orig)
		free(cur);
	return nv;
}

struct pmd_copies {
	unsigned int n;
	char path[2][PATH_MAX];
};

static int
pmd_copy(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pmd_copies *c = arg;
	const char *base;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
		return 0;
	base = strrchr(info->dlpi_name, '/');
	base = base != NULL ? base + 1 : info->dlpi_name;
	if (strncmp(base, "librte_crypto_vecsec.so", strlen("librte_crypto_vecsec.so")) != 0)
		return 0;
	if (c->n < 2)
		snprintf(c->path[c->n], sizeof(c->path[0]), "%s", info->dlpi_name);
	c->n++;
	return 0;
}

/*
 * Two copies of crypto_vecsec in the process (a -d naming one while DPDK's
 * plugin folder holds another: EAL loads both, and both register the
 * driver): the first loaded serves every crypto_vecsec device. Said once.
 */
static void
pmd_duplicates(void)
{
	struct pmd_copies c = { .n = 0 };

	dl_iterate_phdr(pmd_copy, &c);
	if (c.n > 1)
		GW_LOG(WARNING, "crypto_vecsec is loaded %u times: %s serves its devices, %s%s is "
		       "registered in vain (a -d or a build tree's PMD next to the one in DPDK's "
		       "plugin folder: drop the -d, or uninstall one)", c.n, c.path[0], c.path[1],
		       c.n > 2 ? " and more" : "");
}

/* ---- logging under systemd ------------------------------------------------ */

/*
 * Under systemd (JOURNAL_STREAM set: stderr goes to the journal) every
 * DPDK message, the gateway's included, goes to stderr once, with its
 * syslog level as a "<N>" prefix the journal stores: EAL's default stream
 * would write it to stderr and to syslog, and the journal would get it
 * twice.
 */
static ssize_t
journal_write(void *cookie, const char *buf, size_t size)
{
	int lvl = rte_log_cur_msg_loglevel() - 1;

	(void)cookie;
	if (lvl < 0 || lvl > 7)
		lvl = 6;
	dprintf(STDERR_FILENO, "<%d>%.*s", lvl, (int)size, buf);
	return (ssize_t)size;
}

static void
journal_log(void)
{
	static cookie_io_functions_t fns = { .write = journal_write };
	FILE *f;

	if (getenv("JOURNAL_STREAM") == NULL)
		return;
	f = fopencookie(NULL, "w", fns);
	if (f != NULL)
		rte_openlog_stream(f);  /* rte_vlog() flushes each message: one write */
}

static int
port_init(uint16_t port, struct rte_mempool *mp, bool esp_side)
{
	struct rte_eth_conf pc;
	struct rte_eth_dev_info info;
	uint16_t nq = (uint16_t)gw.nb_workers, nrx, ntx;
	int rc;

	memset(&pc, 0, sizeof(pc));
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	nrx = RTE_MIN(nq, info.max_rx_queues);
	/* fewer tx queues than workers (net_pcap: one per tx file): workers share them */
	ntx = RTE_MIN(nq, info.max_tx_queues);
	if (ntx == 0) {
		GW_LOG(ERR, "port %u has no tx queue", port);
		return -ENOTSUP;
	}
	/* the NIC's IPv4 header checksum verdict where it has one (the worker checks the rest) */
	pc.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	/*
	 * One rx queue per worker: RSS spreads the packets over them by IP
	 * addresses only, so every packet of a tunnel (outer addresses) and every
	 * fragment of a datagram reaches the same worker, in order: per-SA
	 * ordering and one worker per inbound SA window (docs/operations.md).
	 */
	if (nrx > 1) {
		pc.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP & info.flow_type_rss_offloads;
		if (pc.rx_adv_conf.rss_conf.rss_hf != 0)
			pc.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		else
			GW_LOG(INFO, "port %u: no RSS on IP addresses: its %u rx queues get what "
			       "the device puts there (net_pcap: one file each)", port, nrx);
	}
	rc = rte_eth_dev_configure(port, nrx, ntx, &pc);
	for (uint16_t q = 0; rc == 0 && q < nrx; q++)
		rc = rte_eth_rx_queue_setup(port, q, GW_RX_DESC, rte_eth_dev_socket_id(port), NULL,
			mp);
	for (uint16_t q = 0; rc == 0 && q < ntx; q++)
		rc = rte_eth_tx_queue_setup(port, q, GW_TX_DESC, rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0) {
		GW_LOG(ERR, "port %u: cannot start: %s", port, strerror(-rc));
		return rc;
	}
	rte_eth_promiscuous_enable(port);
	gw.port[port].used = true;
	gw.port[port].esp_side = esp_side;
	gw.port[port].nb_txq = ntx;
	if (rte_eth_dev_get_mtu(port, &gw.port[port].mtu) != 0 || gw.port[port].mtu == 0)
		gw.port[port].mtu = RTE_ETHER_MTU;
	gw.port[port].tx_shared = ntx < nq;
	for (uint16_t q = 0; q < ntx; q++)
		rte_spinlock_init(&gw.port[port].tx_lock[q]);
	rte_eth_macaddr_get(port, &gw.port[port].mac);
	memset(&gw.port[port].peer, 0, sizeof(gw.port[port].peer));
	gw.port[port].peer.addr_bytes[0] = 0x02;
	gw.port[port].peer.addr_bytes[5] = (uint8_t)port;
	for (uint16_t w = 0; w < gw.nb_workers; w++) {
		struct gw_worker *wk = &gw.worker[w];

		if (w < nrx) {
			wk->rxq[wk->nb_rxq].port = port;
			wk->rxq[wk->nb_rxq].queue = w;
			wk->nb_rxq++;
		}
	}
	return 0;
}

/*
 * The demo's four ring ports, one ring per queue and worker: port 0 rx is
 * fed by the generator, port 1 tx is port 2 rx (the loop), port 3 tx goes
 * to the checker; port 0 and 2 tx must stay empty.
 */
static int
demo_ports(struct gw_gen_cfg *gc, bool wire)
{
	unsigned int nq = gw.nb_workers;
	struct rte_ring *r[8][GW_MAX_WORKERS];
	static const char *const role[8] = {
		"p0rx", "p0tx", "p1rx", "link", "p2tx", "p3tx", "p3rx", "wire",
	};

	for (unsigned int k = 0; k < (wire ? 8u : 7u); k++) {
		for (unsigned int q = 0; q < nq; q++) {
			char name[RTE_RING_NAMESIZE];
			/* port 1 and port 3 rx rings get nothing: keep them small */
			unsigned int size = k == 2 || k == 6 ? 64 : 8192;

			snprintf(name, sizeof(name), "gw_%s_%u", role[k], q);
			r[k][q] = rte_ring_create(name, size, SOCKET_ID_ANY,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (r[k][q] == NULL)
				return -ENOMEM;
		}
	}
	/* --gen-pcap: port 2 reads the "wire" rings, which gw_gen_wire() fills from "link" */
	if (rte_eth_from_rings("net_gw_p0", r[0], nq, r[1], nq, SOCKET_ID_ANY) != 0 ||
			rte_eth_from_rings("net_gw_p1", r[2], nq, r[3], nq, SOCKET_ID_ANY) != 1 ||
			rte_eth_from_rings("net_gw_p2", r[wire ? 7 : 3], nq, r[4], nq,
				SOCKET_ID_ANY) != 2 ||
			rte_eth_from_rings("net_gw_p3", r[6], nq, r[5], nq, SOCKET_ID_ANY) != 3) {
		GW_LOG(ERR, "demo: cannot create ring ports (is another ethdev given with "
		       "--vdev?)");
		return -EINVAL;
	}
	for (unsigned int q = 0; q < nq; q++) {
		gc->in[q] = r[0][q];
		gc->out[q] = r[5][q];
		gc->sink[2 * q] = r[1][q];
		gc->sink[2 * q + 1] = r[4][q];
		if (wire) {
			gc->wire_in[q] = r[3][q];
			gc->wire_out[q] = r[7][q];
		}
	}
	gc->nb_in = gc->nb_out = nq;
	gc->nb_sink = 2 * nq;
	return 0;
}

/* --gen-pcap with the built-in config: DIR/demo.cfg (made-up demo keys), 0600 */
static int
write_demo_cfg(const char *dir)
{
	char path[4096];
	FILE *f;
	int fd, ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/demo.cfg", dir) >= sizeof(path))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		if (fd >= 0)
			close(fd);
		GW_LOG(ERR, "--gen-pcap: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	ok = fputs("# vecsec-gw built-in demo configuration (made-up keys: never for real "
		"traffic)\n", f) >= 0 && fputs(demo_text, f) >= 0;
	if (fclose(f) != 0 || !ok) {
		GW_LOG(ERR, "--gen-pcap: cannot write %s", path);
		return -1;
	}
	return 0;
}

/* --ctrl-group NAME or GID: the group's id, or -1 with a message */
static int
ctrl_group_id(const char *name)
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

static int
mem_dontdump(const struct rte_memseg_list *msl, void *arg)
{
	unsigned int *failed = arg;

	if (msl->base_va != NULL && msl->len != 0 &&
			madvise(msl->base_va, msl->len, MADV_DONTDUMP) != 0)
		(*failed)++;
	return 0;
}

static int
mem_hugepage(const struct rte_memseg_list *msl, void *arg)
{
	(void)arg;
	if (msl->base_va != NULL && msl->len != 0)
		(void)madvise(msl->base_va, msl->len, MADV_HUGEPAGE);
	return 0;
}

/*
 * Without hugepages (--no-huge) DPDK's memory is ordinary 4 KiB pages, and
 * with many SAs nearly every per-SA line a packet reads is also a TLB
 * miss. Ask for transparent huge pages there, before the pools are
 * filled. Best effort, and often without effect: DPDK 22.11 maps --no-huge
 * memory from a memfd, which is shared memory, so the kernel honours the
 * advice only where transparent huge pages are enabled for shared memory
 * (/sys/kernel/mm/transparent_hugepage/shmem_enabled `advise` or `always`;
 * Debian's default is `never`). Production runs on hugepages
 * (docs/operations.md).
 */
static void
thp_advise(void)
{
	if (!rte_eal_has_hugepages())
		rte_memseg_list_walk(mem_hugepage, NULL);
}

/*
 * Keep key material out of core dumps. The configuration tables are on
 * pages of their own already (gw_secret_alloc()). The cryptodev and
 * rte_security sessions, which hold the keys (and their schedules) from
 * now on, live in DPDK's memory, as do the packets: every memory segment
 * list EAL has at this point (the session pools were made by
 * gw_sa_setup(), sessions added later come from them) is marked
 * MADV_DONTDUMP. --no-coredump gives up core dumps altogether.
 */
static void
keys_out_of_dumps(bool no_coredump)
{
	unsigned int failed = 0;

	rte_memseg_list_walk(mem_dontdump, &failed);
	if (failed != 0)
		GW_LOG(WARNING, "%u DPDK memory areas could not be left out of core dumps", failed);
	if (no_coredump) {
		struct rlimit rl = { 0, 0 };

		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || setrlimit(RLIMIT_CORE, &rl) != 0)
			GW_LOG(ERR, "--no-coredump: %s", strerror(errno));
	}
}

/*
 * Packet buffers for the rings that can hold them all at once: every rx
 * and tx descriptor of every port's queues, each worker's cryptodev queue
 * pairs and reassembly table, and a burst's worth in each worker's hands.
 */
static unsigned int
mbufs_needed(unsigned int ports, unsigned int workers)
{
	unsigned int n = ports * workers * (GW_RX_DESC + GW_TX_DESC) +
		workers * (2048 + 8 * gw.frag_tbl_sz + 4 * GW_BURST) + 2048;

	return RTE_MAX(n, (unsigned int)GW_NB_MBUF);
}

/* EAL's file prefix, the last part of its runtime folder (the default socket's name) */
static const char *
eal_prefix(char *buf, size_t len)
{
	snprintf(buf, len, "%s", rte_eal_get_runtime_dir());
	return basename(buf);
}

int
main(int argc, char **argv)
{
	struct opts o = { .gen_pkts = 100000, .gen_size = 64, .rate_interval = 1,
			  .fc_entries = { -1, -1 } };
	struct rte_mempool *mp = NULL;
	struct gw_gen_cfg gc = { .max_inflight = 2048 };
	char err[512] = "", ctrl_path[108];
	char **eal_argv = argv;
	int dd = argc, rc, ret = 1, nargs, ctrl_gid = -1, eal_argc;
	uint64_t t_start, t_end, hz, busy = 0;
	uint64_t idle_polls[GW_MAX_WORKERS];   /* --idle-exit: polls of each worker at idle */
	double load_t[5];       /* parse took [0]; SAs, SPD, routes: from [1] to [4] */
	bool idle_seen = false, pmd_added = false;
	const char *check_file = NULL;
	double cpu_start;

	/* line by line even into a file or pipe: tests and scripts wait for lines */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a control client or a stdout reader that goes away is an error, not our end */
	signal(SIGPIPE, SIG_IGN);
	conf = gw_secret_alloc(sizeof(*conf));
	if (conf == NULL) {
		fprintf(stderr, "vecsec-gw: out of memory\n");
		return 1;
	}
	gw.window = GW_DEFAULT_WINDOW;
	gw.rx_burst = GW_BURST;
	gw.frag_tbl_sz = GW_FRAG_DEFAULT_TBL;
	gw.frag_ttl_ns = GW_FRAG_DEFAULT_TTL_NS;
	gw.prefer_driver = "crypto_vecsec";
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dd = i;
			break;
		}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(argv[0]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		print_version();
		return 0;
	}
	/* --check needs no EAL: look for it (and --allow-unprotected-keys) anywhere */
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--check") == 0 && check_file == NULL)
			check_file = argv[i + 1];
	if (check_file != NULL) {
		for (int j = 1; j < argc; j++)
			if (strcmp(argv[j], "--allow-unprotected-keys") == 0)
				o.conf_flags |= GW_CONF_ALLOW_UNPROTECTED;
		/* the options of a start after `--` are checked with the file */
		if (dd < argc) {
			argv[dd] = argv[0];
			if (parse_args(argc - dd, argv + dd, &o) != 0)
				return 2;
		}
		return check_only(check_file, &o, dd < argc);
	}
	/* signals before EAL: a SIGTERM during start-up ends it cleanly too */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	signal(SIGHUP, on_signal);
	if (dd < argc) {
		argv[dd] = argv[0];
		if (parse_args(argc - dd, argv + dd, &o) != 0)
			return 2;
	}
	if (!o.demo && o.cfg_file == NULL && o.ctrl_path == NULL) {
		fprintf(stderr, "vecsec-gw: give -f FILE, --demo or --ctrl PATH (after --)\n");
		usage(argv[0]);
		return 2;
	}
	if (o.gen_pcap != NULL && !o.demo) {
		fprintf(stderr, "vecsec-gw: --gen-pcap needs --demo\n");
		return 2;
	}
	if (o.ctrl_group != NULL && (o.ctrl_none ||
				     (ctrl_gid = ctrl_group_id(o.ctrl_group)) < 0)) {
		if (o.ctrl_none)
			fprintf(stderr, "vecsec-gw: --ctrl-group with --ctrl none: no socket\n");
		return 2;
	}
	if (o.demo && o.cfg_file != NULL && o.demo_aead != NULL) {
		fprintf(stderr, "vecsec-gw: --demo-aead applies to the built-in config, not -f\n");
		return 2;
	}
	/* a file with more than the tables take stops at the rule that is too many */
	conf->max_sa = gw.max_sa;
	conf->max_sp = gw.max_sp;
	conf->max_rt = gw.max_rt;
	load_t[0] = mono_seconds();
	if (o.demo && o.cfg_file == NULL) {
		rc = gw_demo_conf(demo_text, sizeof(demo_text), o.demo_aead);
		if (rc != 0)
			snprintf(err, sizeof(err), "--demo-aead %s: chacha20-poly1305, "
				"aes-{128,192,256}-gcm or aria-{128,192,256}-gcm", o.demo_aead);
		else
			rc = gw_conf_parse_string(conf, "<demo>", demo_text, err, sizeof(err));
	}
	else if (o.cfg_file != NULL)
		rc = gw_conf_parse_file(conf, o.cfg_file, o.conf_flags, err, sizeof(err));
	else
		rc = 0;
	gw.conf = conf;
	load_t[0] = mono_seconds() - load_t[0];
	if (err[0] != '\0')
		fprintf(stderr, "vecsec-gw: %s\n", err);
	if (rc != 0) {
		gw_conf_wipe(conf);
		return 1;
	}
	/* what --check checks, the same way: refused here, before EAL */
	rc = preflight(&o, conf, o.cfg_file != NULL ? o.cfg_file : "<demo>", true);
	if (rc != 0) {
		gw_conf_wipe(conf);
		return rc;
	}
	/* run-time changes: the control socket, or a reload of the file */
	gw.ctrl = !o.ctrl_none || (o.cfg_file != NULL && !o.demo);
	/*
	 * The outbound SAs' sequence numbers (seqstate.c): read before
	 * anything is built, written once the SAs are. The demo's packets never
	 * leave the process: no state unless asked for.
	 */
	if (o.seq_state_none)
		fprintf(stderr, "vecsec-gw: warning: --seq-state none: outbound SAs with keys from "
			"the configuration file send the same sequence numbers and IVs again after "
			"a restart (nonce reuse)\n");
	else if (o.seq_state != NULL || !o.demo) {
		rc = gw_seq_state_open(o.seq_state != NULL ? o.seq_state : GW_SEQ_STATE_DEFAULT,
				       o.seq_reserve, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "vecsec-gw: %s; not started (--seq-state FILE elsewhere, "
				"or none)\n", err);
			gw_conf_wipe(conf);
			return 1;
		}
	}

	eal_argc = dd;
#ifdef GW_BUILD_PMD
	eal_argv = pmd_autoload(&eal_argc, argv, &pmd_added);
#endif
	if (o.demo)
		eal_argv = demo_no_pci(&eal_argc, eal_argv, argv);
	nargs = rte_eal_init(eal_argc, eal_argv);
	if (nargs < 0) {
		fprintf(stderr, "vecsec-gw: EAL init failed: %s\n", rte_strerror(rte_errno));
		gw_conf_wipe(conf);
		return 1;
	}
	journal_log();
	if (o.quiet && rte_log_get_level((uint32_t)gw_logtype) > (int)RTE_LOG_NOTICE)
		rte_log_set_level((uint32_t)gw_logtype, RTE_LOG_NOTICE);
	if (pmd_added)
		GW_LOG(DEBUG, "run from the build tree: EAL loads %s", GW_BUILD_PMD);
	pmd_duplicates();
	gw.nb_workers = rte_lcore_count();
	if (gw.nb_workers > GW_MAX_WORKERS) {
		GW_LOG(ERR, "at most %d lcores", GW_MAX_WORKERS);
		goto out;
	}
	thp_advise();
	if (o.mbufs == 0)
		o.mbufs = mbufs_needed(o.demo ? 4 : RTE_MIN(rte_eth_dev_count_avail(),
							    GW_MAX_PORTS), gw.nb_workers);
	mp = rte_pktmbuf_pool_create("gw_mbuf", o.mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (mp == NULL) {
		GW_LOG(ERR, "cannot create the pool of %u mbufs: %s (EAL -m/--socket-mem, or "
		       "--mbufs)", o.mbufs, rte_strerror(rte_errno));
		goto out;
	}
	if (o.demo) {
		if (rte_eth_dev_count_avail() != 0) {
			GW_LOG(ERR, "--demo makes its own ports; give no net vdev");
			goto out;
		}
		if (demo_ports(&gc, o.gen_pcap != NULL) != 0)
			goto out;
		if (o.gen_pcap != NULL && (gw_gen_capture_open(&gc, o.gen_pcap) != 0 ||
				(o.cfg_file == NULL && write_demo_cfg(o.gen_pcap) != 0)))
			goto out;
		o.unprot_mask = 0x6;    /* ESP on ports 1 and 2 */
		o.unprot_given = true;
	}
	gw.nb_ports = (uint16_t)RTE_MIN(rte_eth_dev_count_avail(), GW_MAX_PORTS);
	if (gw.nb_ports == 0) {
		GW_LOG(ERR, "no ports: add some with --vdev (net_pcap, net_tap, net_ring), or bind "
		       "NICs to vfio-pci (docs/operations.md)");
		goto out;
	}
	/* the one check that needs EAL's ports: after it, but before anything is built */
	if (o.unprot_mask >> gw.nb_ports != 0) {
		GW_LOG(ERR, "-u %#" PRIx64 ": port %u does not exist (%u port%s: 0..%u)",
		       o.unprot_mask, (unsigned int)rte_bsf64(o.unprot_mask >> gw.nb_ports) +
		       gw.nb_ports, gw.nb_ports, gw.nb_ports > 1 ? "s" : "", gw.nb_ports - 1);
		ret = 2;
		goto out;
	}
	for (uint16_t p = 0; p < gw.nb_ports; p++)
		if (port_init(p, mp, (o.unprot_mask >> p & 1) != 0) != 0)
			goto out;
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		if (o.mtu[p] == 0)
			continue;
		/* the device's own MTU where it has one; what we send is bounded here anyway */
		rc = rte_eth_dev_set_mtu(p, o.mtu[p]);
		if (rc != 0 && rc != -ENOTSUP)
			GW_LOG(INFO, "port %u: device MTU not set to %u: %s", p, o.mtu[p],
			       strerror(-rc));
		gw.port[p].mtu = o.mtu[p];
	}
	for (unsigned int i = 0; i < conf->nb_neigh; i++)
		if (conf->neigh[i].port < gw.nb_ports)
			memcpy(gw.port[conf->neigh[i].port].peer.addr_bytes, conf->neigh[i].mac, 6);

	load_t[1] = mono_seconds();
	rc = gw_sa_setup(&gw, conf);
	load_t[2] = mono_seconds();
	if (rc == 0)
		rc = gw_sp_setup(&gw, conf);
	load_t[3] = mono_seconds();
	if (rc == 0)
		rc = gw_rt_setup(&gw, conf);
	load_t[4] = mono_seconds();
	if (rc != 0)
		goto out;
	/* before any packet: the numbers the SAs may use are on disk */
	rc = gw_seq_state_commit(err, sizeof(err));
	if (rc != 0) {
		GW_LOG(ERR, "%s; not started (--seq-state FILE elsewhere, or none)", err);
		goto out;
	}
	/* sized by the SA table (gw.max_sa, set by gw_sa_setup) */
	if (gw_stats_init() != 0 || gw_reload_init(o.demo ? NULL : o.cfg_file, o.conf_flags) != 0) {
		GW_LOG(ERR, "out of memory");
		goto out;
	}

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
			goto out;
		}
		if (!fc_setup(wk, "spd", "--spd-cache", o.fc_entries[0], &wk->spc) ||
		    !fc_setup(wk, "sad", "--sad-cache", o.fc_entries[1], &wk->sadc))
			goto out;
	}
	if (gw_frag_setup(&gw) != 0)
		goto out;
	if (gw_host_setup(&gw, o.quiet) != 0)
		goto out;
	GW_LOG(INFO, "%u SA, %u SP, %u routes, %u ports, %u worker(s), %u mbufs", gw.nb_sa,
	       conf->nb_sp, conf->nb_rt, gw.nb_ports, gw.nb_workers, o.mbufs);
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
	keys_out_of_dumps(o.no_coredump);
	if (gw.ctrl) {
		size_t sz = rte_rcu_qsbr_get_memsize(gw.nb_workers);

		gw.rcu = rte_zmalloc("gw_rcu", sz, RTE_CACHE_LINE_SIZE);
		if (gw.rcu == NULL || rte_rcu_qsbr_init(gw.rcu, gw.nb_workers) != 0) {
			GW_LOG(ERR, "cannot set up RCU");
			goto out;
		}
		rte_rcu_qsbr_thread_register(gw.rcu, 0);
		rte_rcu_qsbr_thread_online(gw.rcu, 0);
	}
	if (!o.ctrl_none) {
		bool own_dir = o.ctrl_path == NULL;

		if (own_dir && gw_ctrl_default_path(ctrl_path, sizeof(ctrl_path),
						    eal_prefix(err, sizeof(err))) != 0) {
			GW_LOG(ERR, "no default control socket for EAL file prefix %s: give --ctrl "
			       "PATH or --ctrl none", err);
			goto out;
		}
		if (!own_dir)
			snprintf(ctrl_path, sizeof(ctrl_path), "%s", o.ctrl_path);
		if (gw_ctrl_start(ctrl_path, ctrl_gid, own_dir) != 0)
			goto out;
		GW_LOG(INFO, "control socket %s", ctrl_path);
	}
	if (gw_telemetry_register() != 0)
		GW_LOG(WARNING, "telemetry commands not registered");
	if (gw_mgmt_start(o.rate_interval, o.stats_interval) != 0)
		goto out;

	if (o.demo) {
		struct gw_conf *demo_conf = gw_secret_alloc(sizeof(*demo_conf));

		gc.mp = mp;
		gc.count = o.gen_pkts;
		gc.frame_size = o.gen_size;
		gc.max_inflight = 2048 * gw.nb_workers;
		/* the flows come from the outbound SPs: parse again, keys are gone from conf */
		if (demo_conf == NULL ||
				(o.cfg_file != NULL ? gw_conf_parse_file(demo_conf, o.cfg_file,
					o.conf_flags, err, sizeof(err)) :
					gw_conf_parse_string(demo_conf, "<demo>", demo_text, err,
					sizeof(err))) != 0 ||
				gw_gen_init(demo_conf, &gc) != 0) {
			if (demo_conf != NULL)
				gw_conf_wipe(demo_conf);
			gw_secret_free(demo_conf, sizeof(*demo_conf));
			goto out;
		}
		/* the rule arrays grow on the heap: wiped and freed with the struct */
		gw_conf_wipe(demo_conf);
		gw_secret_free(demo_conf, sizeof(*demo_conf));
	}

	gw.worker[0].lcore = rte_get_main_lcore();
	{
		unsigned int w = 1, lc;

		RTE_LCORE_FOREACH_WORKER(lc) {
			gw.worker[w].lcore = lc;
			rte_eal_remote_launch(gw_worker_loop, &gw.worker[w], lc);
			w++;
		}
	}
	/*
	 * Ports started, SAs, SPD and routes set up, the control socket
	 * listening, telemetry registered, workers launched: what a script
	 * waits for before it talks to us (printed even with --quiet).
	 */
	printf("vecsec-gw: ready\n");
	hz = rte_get_tsc_hz();
	cpu_start = cpu_seconds();
	t_start = rte_get_tsc_cycles();
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		gw.worker[w].last_rx_tsc = t_start;
	gw_notify("READY=1");
	for (uint64_t iter = 0; !gw_quit; iter++) {
		struct gw_worker *w0 = &gw.worker[0];
		uint64_t t0, t1;

		if (o.demo)
			gw_gen_push(&gw);
		t0 = rte_rdtsc();
		if (gw_worker_poll(w0) != 0) {
			t1 = rte_rdtsc();
			w0->busy_cycles += t1 - t0;
			w0->last_rx_tsc = t1;
		}
		if (o.demo) {
			if (o.gen_pcap != NULL)
				gw_gen_wire();
			gw_gen_pull();
			if (gw_gen_done(&gw))
				gw_quit = true;
		}
		if ((iter & 1023) != 0)
			continue;
		t1 = rte_get_tsc_cycles();
		if (o.duration > 0 && (double)(t1 - t_start) > o.duration * (double)hz)
			gw_quit = true;
		if (o.idle_exit > 0) {
			uint64_t last = 0;
			uint64_t polls[GW_MAX_WORKERS];
			uint32_t inflight = 0;

			/*
			 * Idle only once every worker has polled again since it looked
			 * idle: on a loaded machine a worker (or this thread) held back
			 * by the OS for S seconds has not moved packets, but it is not
			 * done with its queues either. Poll counts first: a poll that
			 * moved packets counts only after its last_rx_tsc is stored.
			 */
			for (unsigned int w = 0; w < gw.nb_workers; w++)
				polls[w] = __atomic_load_n(&gw.worker[w].polls, __ATOMIC_ACQUIRE);
			for (unsigned int w = 0; w < gw.nb_workers; w++)
				last = RTE_MAX(last, __atomic_load_n(&gw.worker[w].last_rx_tsc,
								     __ATOMIC_RELAXED));
			for (unsigned int id = 0; id < GW_MAX_CDEV; id++)
				inflight += w0->inflight[id];
			if (inflight == 0 &&
			    (double)gw_tsc_since(t1, last) > o.idle_exit * (double)hz) {
				bool polled = idle_seen;

				for (unsigned int w = 0; w < gw.nb_workers; w++) {
					polled = polled && polls[w] > idle_polls[w];
					if (!idle_seen)
						idle_polls[w] = polls[w];
				}
				idle_seen = true;
				if (polled)
					gw_quit = true;
			} else {
				idle_seen = false;
			}
		}
	}
	/*
	 * Stop: no rx polled any more; what the cryptodevs still hold is taken
	 * back, finished and sent (each worker, gw_worker_drain()).
	 */
	gw_notify("STOPPING=1");
	gw_worker_drain(&gw.worker[0]);
	if (gw.rcu != NULL)
		rte_rcu_qsbr_thread_offline(gw.rcu, 0);
	gw_mgmt_stop();
	gw_ctrl_stop();
	rte_eal_mp_wait_lcore();
	if (o.demo) {
		gw_gen_pull();
	}
	t_end = rte_get_tsc_cycles();
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		busy += gw.worker[w].busy_cycles;
	gw_stats_log(&gw, gw_stats_since(), RTE_LOG_NOTICE);
	ret = 0;
	if (o.demo && gw_gen_report(&gw, (double)(t_end - t_start) / (double)hz, busy,
			cpu_seconds() - cpu_start) != 0)
		ret = 1;
	if (o.gen_pcap != NULL) {
		if (gw_gen_capture_close(&gc) != 0) {
			GW_LOG(ERR, "--gen-pcap: writing %s failed", o.gen_pcap);
			ret = 1;
		} else {
			GW_LOG(INFO, "wrote %s/clear.pcap and %s/esp.pcap%s", o.gen_pcap,
			       o.gen_pcap, o.cfg_file == NULL ? " and demo.cfg" : "");
		}
	}
	if (o.stats_file != NULL && gw_stats_write_json(&gw, o.stats_file) != 0) {
		GW_LOG(ERR, "cannot write %s", o.stats_file);
		ret = 1;
	}
out:
	explicit_bzero(demo_text, sizeof(demo_text));
	gw_mgmt_stop();
	if (gw.rcu != NULL)
		rte_rcu_qsbr_thread_offline(gw.rcu, 0);
	gw_ctrl_stop();
	gw_host_teardown();
	gw_conf_wipe(conf);
	for (uint16_t p = 0; p < gw.nb_ports; p++) {
		if (gw.port[p].used) {
			rte_eth_dev_stop(p);
			rte_eth_dev_close(p);
		}
	}
	if (o.demo) {
		gw_gen_capture_close(&gc);
		gw_gen_free();
	}
	/* telemetry callbacks run until rte_eal_cleanup(): they see empty tables from here */
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
	/* every mbuf back in the pool: nothing leaked on any path (fragments included) */
	if (mp != NULL && rte_mempool_in_use_count(mp) != 0)
		GW_LOG(ERR, "%u mbufs still in use at exit", rte_mempool_in_use_count(mp));
	vecsec_eal_cleanup();       /* the runtime folder too */
	gw_secret_free(conf, sizeof(*conf));
	if (eal_argv != argv)
		free(eal_argv);
	return ret;
}
