/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: IPsec ESP gateway on DPDK (rte_ipsec + any cryptodev).
 *
 *   vecsec-gw [EAL options] -- [-f FILE] [-u MASK] [-w N] [-e] ...
 *   vecsec-gw --check FILE          parse a configuration, no EAL
 *   vecsec-gw --version | --help    no EAL either
 *   vecsec-gw [EAL options] -- --demo [-f FILE] [--gen-pkts N] [--gen-size B]
 *                                     [--gen-pcap DIR]
 *
 * Every ethdev is a port; -u names the unprotected ones, where ESP flows
 * (RFC 4301's and ipsec-secgw's meaning); the others are protected, clear.
 * The main lcore is worker 0 and every other lcore of -l runs one more
 * worker, each with its own rx/tx queue per
 * port and its own queue pair on each cryptodev.
 */
#include "gen.h"
#include "gw_dp.h"

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

#define GW_NB_MBUF 16384
#define GW_RX_DESC 1024
#define GW_TX_DESC 1024

struct gw_dp gw;
volatile bool gw_quit;
static volatile bool print_now;
static struct gw_conf *conf;   /* gw_secret_alloc(): keys, out of core dumps */
static char demo_text[8192];

struct opts {
	const char *cfg_file;
	const char *check_file;
	const char *stats_file;
	const char *ctrl_path;
	const char *ctrl_group;         /* --ctrl-group: may use the socket too */
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
	unsigned int nb_mbuf;           /* --mbufs */
};

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [options]\n"
	       "       %s --check FILE\n"
	       "       %s --version | --help\n"
	       "  -f FILE            ipsec-secgw style configuration (sp, sa, rt, neigh rules)\n"
	       "  -u MASK            unprotected ports, the ESP side (hex mask, as ipsec-secgw);\n"
	       "                     the others are protected (clear traffic)\n"
	       "  -w N               anti-replay window, 0..%u packets (default %u; 0 disables\n"
	       "                     it, except on ESN SAs, which need one: 64 there)\n"
	       "  -e                 ESN on every SA\n"
	       "  --cpu-crypto       process every SA with synchronous CPU crypto\n"
	       "  --prefer DRIVER    cryptodev driver tried first (default crypto_vecsec)\n"
	       "  --duration S       stop after S seconds\n"
	       "  --idle-exit S      stop once no packet moved for S seconds\n"
	       "  --stats-file PATH  write the counters as JSON on exit\n"
	       "  --ctrl PATH        control socket: add and delete SAs and SPs at run time\n"
	       "                     (vecsec-ctl); -f is then optional. Root and this\n"
	       "                     process's user may use it\n"
	       "  --ctrl-group NAME  members of group NAME (or GID) may use it too\n"
	       "                     (the socket becomes mode 0660, group NAME)\n"
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
	       "  --check FILE       parse FILE, print a summary, exit (no EAL needed; with\n"
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
	       "  --rx-burst N       packets per rx burst, 1..%u (default %u)\n"
	       "  --max-sa N         SA table size, in and out together (default: the\n"
	       "                     configuration's SAs; with --ctrl as many again, at\n"
	       "                     least 4096 more, for the control socket)\n"
	       "  --max-sp N         SP rules the control socket may reach (default: no limit)\n"
	       "  --max-rt N         routes each route table has room for (default: the\n"
	       "                     configuration's and a quarter more, at least 1024 more)\n"
	       "  --mbufs N          packet buffers in the pool (default %u)\n"
	       "  --version          print the version (also before --) and exit\n"
	       "  ipsec-secgw's -p MASK, -P, -a and --config are accepted (and not needed)\n",
	       prog, prog, prog, GW_MAX_WINDOW, GW_DEFAULT_WINDOW, GW_FRAG_DEFAULT_TBL,
	       (unsigned long long)GW_FRAG_DEFAULT_TTL_NS, GW_BURST, GW_BURST, GW_NB_MBUF);
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
	if (sig == SIGUSR1)
		print_now = true;
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
		{ "rx-burst", required_argument, NULL, 'X' },
		{ "max-sa", required_argument, NULL, 's' },
		{ "max-sp", required_argument, NULL, 'o' },
		{ "max-rt", required_argument, NULL, 'r' },
		{ "mbufs", required_argument, NULL, 'm' },
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
			o->ctrl_path = optarg;
			gw.ctrl = true;
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
		case 's':
		case 'o':
		case 'r':
		case 'm': {
			unsigned long n = strtoul(optarg, &end, 10);
			const char *name = c == 's' ? "--max-sa" : c == 'o' ? "--max-sp" :
				c == 'r' ? "--max-rt" : "--mbufs";

			if (*end != '\0' || errno != 0 || optarg[0] < '0' || optarg[0] > '9' ||
			    n < 1 || n > GW_LIMIT_RULES) {
				fprintf(stderr, "vecsec-gw: %s %s: 1..%u\n", name, optarg,
					GW_LIMIT_RULES);
				return -1;
			}
			if (c == 's')
				gw.max_sa = (unsigned int)n;
			else if (c == 'o')
				gw.max_sp = (unsigned int)n;
			else if (c == 'r')
				gw.max_rt = (unsigned int)n;
			else
				o->nb_mbuf = (unsigned int)n;
			break;
		}
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

static int
check_only(const char *file, unsigned int flags)
{
	char err[512];
	int rc = gw_conf_parse_file(conf, file, flags, err, sizeof(err));

	if (err[0] != '\0')
		fprintf(stderr, "vecsec-gw: %s\n", err);
	if (rc != 0)
		return 1;
	printf("%s: OK: %u SA, %u SP, %u routes, %u neigh", file, conf->nb_sa, conf->nb_sp,
		conf->nb_rt, conf->nb_neigh);
	if (conf->nb_ignored != 0)
		printf(", %u flow rules ignored", conf->nb_ignored);
	printf("\n");
	gw_conf_wipe(conf);
	return 0;
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
		fprintf(stderr, "vecsec-gw: port %u has no tx queue\n", port);
		return -ENOTSUP;
	}
	/* the NIC's IPv4 header checksum verdict where it has one (the worker checks the rest) */
	pc.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	rc = rte_eth_dev_configure(port, nrx, ntx, &pc);
	for (uint16_t q = 0; rc == 0 && q < nrx; q++)
		rc = rte_eth_rx_queue_setup(port, q, GW_RX_DESC, rte_eth_dev_socket_id(port), NULL,
			mp);
	for (uint16_t q = 0; rc == 0 && q < ntx; q++)
		rc = rte_eth_tx_queue_setup(port, q, GW_TX_DESC, rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0) {
		fprintf(stderr, "vecsec-gw: port %u: cannot start: %s\n", port, strerror(-rc));
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
		fprintf(stderr, "vecsec-gw: demo: cannot create ring ports (is another ethdev "
			"given with --vdev?)\n");
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
		fprintf(stderr, "vecsec-gw: --gen-pcap: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	ok = fputs("# vecsec-gw built-in demo configuration (made-up keys: never for real "
		"traffic)\n", f) >= 0 && fputs(demo_text, f) >= 0;
	if (fclose(f) != 0 || !ok) {
		fprintf(stderr, "vecsec-gw: --gen-pcap: cannot write %s\n", path);
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
 * miss. Ask for transparent huge pages there (best effort: the kernel's
 * `madvise` mode honours it), before the pools are filled.
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
keys_out_of_dumps(bool no_coredump, bool quiet)
{
	unsigned int failed = 0;

	rte_memseg_list_walk(mem_dontdump, &failed);
	if (failed != 0 && !quiet)
		printf("vecsec-gw: %u DPDK memory areas could not be left out of core dumps\n",
		       failed);
	if (no_coredump) {
		struct rlimit rl = { 0, 0 };

		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || setrlimit(RLIMIT_CORE, &rl) != 0)
			fprintf(stderr, "vecsec-gw: --no-coredump: %s\n", strerror(errno));
	}
}

int
main(int argc, char **argv)
{
	struct opts o = { .gen_pkts = 100000, .gen_size = 64, .nb_mbuf = GW_NB_MBUF };
	struct rte_mempool *mp = NULL;
	struct gw_gen_cfg gc = { .max_inflight = 2048 };
	char err[512] = "";
	int dd = argc, rc, ret = 1, nargs, ctrl_gid = -1;
	uint64_t t_start, t_end, hz, busy = 0, last_print;
	uint64_t idle_polls[GW_MAX_WORKERS];   /* --idle-exit: polls of each worker at idle */
	double load_t[5];       /* parse took [0]; SAs, SPD, routes: from [1] to [4] */
	bool idle_seen = false;
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
		if (strcmp(argv[i], "--check") == 0) {
			unsigned int flags = 0;

			for (int j = 1; j < argc; j++)
				if (strcmp(argv[j], "--allow-unprotected-keys") == 0)
					flags |= GW_CONF_ALLOW_UNPROTECTED;
			return check_only(argv[i + 1], flags);
		}
	if (dd < argc) {
		argv[dd] = argv[0];
		if (parse_args(argc - dd, argv + dd, &o) != 0)
			return 2;
	}
	if (!o.demo && o.cfg_file == NULL && !gw.ctrl) {
		fprintf(stderr, "vecsec-gw: give -f FILE or --demo (after --)\n");
		usage(argv[0]);
		return 2;
	}
	if (o.gen_pcap != NULL && !o.demo) {
		fprintf(stderr, "vecsec-gw: --gen-pcap needs --demo\n");
		return 2;
	}
	if (o.ctrl_group != NULL && (!gw.ctrl || (ctrl_gid = ctrl_group_id(o.ctrl_group)) < 0)) {
		if (!gw.ctrl)
			fprintf(stderr, "vecsec-gw: --ctrl-group needs --ctrl\n");
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
	if (rc != 0)
		return 1;

	nargs = rte_eal_init(dd, argv);
	if (nargs < 0) {
		fprintf(stderr, "vecsec-gw: EAL init failed: %s\n", rte_strerror(rte_errno));
		gw_conf_wipe(conf);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	gw.nb_workers = rte_lcore_count();
	if (gw.nb_workers > GW_MAX_WORKERS) {
		fprintf(stderr, "vecsec-gw: at most %d lcores\n", GW_MAX_WORKERS);
		goto out;
	}
	thp_advise();
	mp = rte_pktmbuf_pool_create("gw_mbuf", o.nb_mbuf, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "vecsec-gw: cannot create the mbuf pool: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (o.demo) {
		if (rte_eth_dev_count_avail() != 0) {
			fprintf(stderr,
				"vecsec-gw: --demo makes its own ports; give no net vdev\n");
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
		fprintf(stderr, "vecsec-gw: no ports: add some with --vdev (net_pcap, net_tap, "
			"net_ring; with --no-pci where DPDK must not take the host's NICs)\n");
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
		if (rc != 0 && rc != -ENOTSUP && !o.quiet)
			printf("vecsec-gw: port %u: device MTU not set to %u: %s\n", p, o.mtu[p],
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
		if (wk->cop_pool == NULL || wk->sa_st == NULL) {
			fprintf(stderr, "vecsec-gw: out of memory for worker %u\n", w);
			goto out;
		}
	}
	if (gw_frag_setup(&gw) != 0)
		goto out;
	if (gw_host_setup(&gw, o.quiet) != 0)
		goto out;
	if (!o.quiet) {
		printf("vecsec-gw: %u SA, %u SP, %u routes, %u ports, %u worker(s)\n", gw.nb_sa,
			conf->nb_sp, conf->nb_rt, gw.nb_ports, gw.nb_workers);
		/* the tables scale: say what loading them took */
		printf("vecsec-gw: loaded in %.2f s (%.2f s CPU): parse %.2f, SAs %.2f, SPD %.2f, "
		       "routes %.2f (SA table %u)\n", load_t[4] - load_t[1] + load_t[0],
		       cpu_seconds(), load_t[0], load_t[2] - load_t[1], load_t[3] - load_t[2],
		       load_t[4] - load_t[3], gw.max_sa);
		for (unsigned int id = 0; id < GW_MAX_CDEV; id++)
			if (gw.cdev[id].used)
				printf("vecsec-gw: cryptodev %u: %s (driver %s%s)\n", id,
				       gw.cdev[id].name, gw.cdev[id].driver,
				       gw.cdev[id].cpu_crypto ? ", cpu-crypto" : "");
	}
	gw_conf_wipe_keys(conf);       /* the keys now live in the cryptodev sessions only */
	keys_out_of_dumps(o.no_coredump, o.quiet);
	if (gw.ctrl) {
		size_t sz = rte_rcu_qsbr_get_memsize(gw.nb_workers);

		gw.rcu = rte_zmalloc("gw_rcu", sz, RTE_CACHE_LINE_SIZE);
		if (gw.rcu == NULL || rte_rcu_qsbr_init(gw.rcu, gw.nb_workers) != 0) {
			fprintf(stderr, "vecsec-gw: cannot set up RCU\n");
			goto out;
		}
		rte_rcu_qsbr_thread_register(gw.rcu, 0);
		rte_rcu_qsbr_thread_online(gw.rcu, 0);
		if (gw_ctrl_start(o.ctrl_path, ctrl_gid) != 0)
			goto out;
		if (!o.quiet)
			printf("vecsec-gw: control socket %s\n", o.ctrl_path);
	}
	if (gw_telemetry_register() != 0 && !o.quiet)
		printf("vecsec-gw: telemetry commands not registered\n");

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
			gw_secret_free(demo_conf, sizeof(*demo_conf));
			goto out;
		}
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
	last_print = t_start;
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		gw.worker[w].last_rx_tsc = t_start;
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
			if (inflight == 0 && (double)(t1 - last) > o.idle_exit * (double)hz) {
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
		if (print_now || (!o.quiet && !o.demo && t1 - last_print > 10 * hz)) {
			print_now = false;
			last_print = t1;
			gw_stats_print(&gw, (double)(t1 - t_start) / (double)hz, stdout);
		}
	}
	gw_worker_drain(&gw.worker[0]);
	if (gw.rcu != NULL)
		rte_rcu_qsbr_thread_offline(gw.rcu, 0);
	gw_ctrl_stop();
	rte_eal_mp_wait_lcore();
	if (o.demo) {
		gw_gen_pull();
	}
	t_end = rte_get_tsc_cycles();
	for (unsigned int w = 0; w < gw.nb_workers; w++)
		busy += gw.worker[w].busy_cycles;
	gw_stats_print(&gw, (double)(t_end - t_start) / (double)hz, stdout);
	ret = 0;
	if (o.demo && gw_gen_report(&gw, (double)(t_end - t_start) / (double)hz, busy,
			cpu_seconds() - cpu_start) != 0)
		ret = 1;
	if (o.gen_pcap != NULL) {
		if (gw_gen_capture_close(&gc) != 0) {
			fprintf(stderr, "vecsec-gw: --gen-pcap: writing %s failed\n", o.gen_pcap);
			ret = 1;
		} else {
			printf("vecsec-gw: wrote %s/clear.pcap and %s/esp.pcap%s\n", o.gen_pcap,
				o.gen_pcap, o.cfg_file == NULL ? " and demo.cfg" : "");
		}
	}
	if (o.stats_file != NULL && gw_stats_write_json(&gw, o.stats_file) != 0) {
		fprintf(stderr, "vecsec-gw: cannot write %s\n", o.stats_file);
		ret = 1;
	}
out:
	explicit_bzero(demo_text, sizeof(demo_text));
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
	gw_frag_teardown(&gw);
	gw_rt_teardown(&gw);
	gw_sp_teardown(&gw);
	gw_sa_teardown(&gw);
	for (unsigned int w = 0; w < gw.nb_workers; w++) {
		rte_mempool_free(gw.worker[w].cop_pool);
		rte_free(gw.worker[w].sa_st);
	}
	rte_free(gw.rcu);
	/* every mbuf back in the pool: nothing leaked on any path (fragments included) */
	if (mp != NULL && rte_mempool_in_use_count(mp) != 0)
		fprintf(stderr, "vecsec-gw: %u mbufs still in use at exit\n",
			rte_mempool_in_use_count(mp));
	vecsec_eal_cleanup();       /* the runtime folder too */
	gw_secret_free(conf, sizeof(*conf));
	return ret;
}
