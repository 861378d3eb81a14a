/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw built-in traffic generator and checker, and the demo's
 * configuration. Packet n of flow f is Ethernet / IPv4 or IPv6 / UDP with a
 * payload of n (8 bytes), f (4 bytes) and bytes derived from n; the checker
 * reads n and f back, rebuilds the packet and compares it byte for byte.
 */
#include "gen.h"
#include "gw_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_udp.h>

/*
 * The demo: clear packets enter port 0, leave port 1 as ESP, come back in
 * on port 2 (a ring joins 1 to 2), leave port 3 in clear. The same SPI is
 * used outbound and inbound so one gateway is both ends of each SA. Keys are
 * made up for the demo (a byte pattern from the SPI), never for real traffic.
 */
struct demo_sa {
	unsigned int spi;
	const char *aead;       /* the default; --demo-aead replaces it */
	const char *mode;       /* "ipv4-tunnel ...", "ipv6-tunnel ...", "transport" */
	const char *fam, *net;  /* protected traffic */
	const char *extra;
	const char *comment;
};

static const struct demo_sa demo_sas[] = {
	{ 10, "chacha20-poly1305", "ipv4-tunnel src 172.16.1.1 dst 172.16.2.1", "ipv4",
		"10.10.0.0/16", "", "IPv4 in IPv4 tunnel" },
	{ 11, "chacha20-poly1305", "ipv6-tunnel src fd00:ffff::1 dst fd00:ffff::2", "ipv6",
		"fd00:11::/32", "", "IPv6 in IPv6 tunnel" },
	{ 12, "chacha20-poly1305", "transport", "ipv4", "10.12.0.0/16", "", "IPv4 transport" },
	{ 13, "aes-128-gcm", "transport", "ipv6", "fd00:13::/32", "", "IPv6 transport" },
	{ 14, "aes-256-gcm", "ipv4-tunnel src 172.16.1.14 dst 172.16.2.14", "ipv4",
		"10.14.0.0/16", " esn 4294967280", "IPv4 tunnel, ESN crossing 2^32" },
	{ 15, "chacha20-poly1305", "ipv4-tunnel src 172.16.1.15 dst 172.16.2.15", "ipv6",
		"fd00:15::/32", "", "IPv6 in IPv4 tunnel" },
};

static const char demo_tail[] =
	"# clear traffic that bypasses IPsec both ways\n"
	"sp ipv4 out esp bypass pri 1 dst 10.20.0.0/16\n"
	"sp ipv4 in esp bypass pri 1 dst 10.20.0.0/16\n"
	"# routes: towards ESP-side port 1 (ESP, bypass) and protected port 3\n"
	"rt ipv4 dst 172.16.2.0/24 port 1\n"
	"rt ipv6 dst fd00:ffff::/64 port 1\n"
	"rt ipv4 dst 10.12.0.0/16 port 1\n"
	"rt ipv6 dst fd00:13::/32 port 1\n"
	"rt ipv4 dst 10.20.0.0/16 port 1\n"
	"rt ipv4 dst 10.0.0.0/8 port 3\n"
	"rt ipv6 dst fd00::/16 port 3\n"
	"neigh port 1 02:00:00:00:00:21\n"
	"neigh port 3 02:00:00:00:00:23\n";

int
gw_demo_conf(char *buf, size_t cap, const char *aead)
{
	size_t o = 0;

	for (unsigned int i = 0; i < RTE_DIM(demo_sas); i++) {
		const struct demo_sa *d = &demo_sas[i];
		const char *alg = aead != NULL ? aead : d->aead;
		/* key + salt bytes for the algorithm */
		unsigned int klen = strcmp(alg, "aes-128-gcm") == 0 ? 20 :
			strcmp(alg, "aes-192-gcm") == 0 ? 28 :
			strcmp(alg, "aria-128-gcm") == 0 ? 20 :
			strcmp(alg, "aria-192-gcm") == 0 ? 28 : 36;
		char key[36 * 3];

		if (aead != NULL && strcmp(alg, "chacha20-poly1305") != 0 &&
				strncmp(alg, "aes-", 4) != 0 && strncmp(alg, "aria-", 5) != 0)
			return -1;
		for (unsigned int k = 0; k < klen; k++)
			snprintf(key + 3 * k, sizeof(key) - 3 * k, "%02x%s",
				(d->spi * 37 + k * 11 + 1) & 0xff, k + 1 < klen ? ":" : "");
		for (int dir = 0; dir < 2 && o < cap; dir++) {
			if (dir == 0)
				o += (size_t)snprintf(buf + o, cap - o, "# %s, %s\n", d->comment,
						      alg);
			o += (size_t)snprintf(buf + o, cap - o,
					      "sp %s %s esp protect %u pri 1 dst %s\n"
					      "sa %s %u aead_algo %s aead_key %s mode %s%s\n",
					      d->fam, dir ? "in" : "out", d->spi, d->net,
					      dir ? "in" : "out", d->spi, alg, key, d->mode,
					      d->extra);
		}
	}
	if (o < cap)
		o += (size_t)snprintf(buf + o, cap - o, "%s", demo_tail);
	return o < cap ? 0 : -1;
}

#define GEN_MAX_FLOWS 64
#define GEN_HDR 12              /* payload: number (8) + flow (4) */

struct gen_flow {
	bool v6;
	struct gw_addr src, dst;
	uint16_t sport, dport;
	uint32_t spi;           /* 0: bypass */
	uint64_t sent;
};

static struct {
	struct gw_gen_cfg c;
	struct gen_flow flow[GEN_MAX_FLOWS];
	unsigned int nb_flow;
	uint64_t sent, back, corrupt, dup, misrouted, bad_size;
	uint64_t *seen;         /* bitmap of packet numbers */
	uint64_t idle_since, last_acc;
} g;

/* A host address inside net/len: the network with its lowest byte set to host. */
static void
host_in(struct gw_addr *a, const struct gw_addr *net, uint8_t len, bool v6, uint8_t host)
{
	unsigned int last = v6 ? 15 : 3;

	*a = *net;
	if (len <= last * 8)
		a->b[last] = host;
}

static void pcap_record(FILE *f, const struct rte_mbuf *m);

int
gw_gen_init(const struct gw_conf *conf, const struct gw_gen_cfg *cfg)
{
	memset(&g, 0, sizeof(g));
	g.c = *cfg;
	for (unsigned int i = 0; i < conf->nb_sp && g.nb_flow < GEN_MAX_FLOWS; i++) {
		const struct gw_sp_conf *sp = &conf->sp[i];
		struct gen_flow *f;

		if (sp->dir != GW_DIR_OUT || sp->action == GW_SP_DISCARD)
			continue;
		if (sp->proto_lo > IPPROTO_UDP || sp->proto_hi < IPPROTO_UDP)
			continue;
		f = &g.flow[g.nb_flow++];
		f->v6 = sp->v6;
		host_in(&f->src, &sp->src, sp->src_len, sp->v6, 1);
		host_in(&f->dst, &sp->dst, sp->dst_len, sp->v6, 2);
		f->sport = sp->sport_lo > 1024 ? sp->sport_lo : (sp->sport_hi >= 1024 ? 1024 :
			sp->sport_lo);
		f->dport = sp->dport_lo > 4789 ? sp->dport_lo : (sp->dport_hi >= 4789 ? 4789 :
			sp->dport_lo);
		f->spi = sp->action == GW_SP_PROTECT ? sp->spi : 0;
	}
	if (g.nb_flow == 0) {
		GW_LOG(ERR, "generator: no outbound UDP SP rule to make flows from");
		return -1;
	}
	g.seen = calloc(cfg->count / 64 + 1, sizeof(uint64_t));
	if (g.seen == NULL)
		return -1;
	return 0;
}

void
gw_gen_free(void)
{
	free(g.seen);
	g.seen = NULL;
}

static uint16_t
l3_size(const struct gen_flow *f)
{
	unsigned int min = (f->v6 ? 40 : 20) + 8 + GEN_HDR;
	unsigned int want = g.c.frame_size > RTE_ETHER_HDR_LEN ?
		g.c.frame_size - RTE_ETHER_HDR_LEN : 0;

	return (uint16_t)(want > min ? want : min);
}

/* Write packet number n of flow fi (L3 and up, len bytes) at p. */
static void
build_l3(uint8_t *p, unsigned int fi, uint64_t n, uint16_t len)
{
	const struct gen_flow *f = &g.flow[fi];
	struct rte_udp_hdr *u;
	uint8_t *pl;
	unsigned int hl = f->v6 ? 40 : 20;

	if (f->v6) {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;

		h->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)(n & 0xfffff));
		h->payload_len = rte_cpu_to_be_16((uint16_t)(len - hl));
		h->proto = IPPROTO_UDP;
		h->hop_limits = 64;
		memcpy(h->src_addr, f->src.b, 16);
		memcpy(h->dst_addr, f->dst.b, 16);
	} else {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;

		h->version_ihl = RTE_IPV4_VHL_DEF;
		h->type_of_service = 0;
		h->total_length = rte_cpu_to_be_16(len);
		h->packet_id = rte_cpu_to_be_16((uint16_t)n);
		h->fragment_offset = 0;
		h->time_to_live = 64;
		h->next_proto_id = IPPROTO_UDP;
		memcpy(&h->src_addr, f->src.b, 4);
		memcpy(&h->dst_addr, f->dst.b, 4);
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	u = (struct rte_udp_hdr *)(p + hl);
	u->src_port = rte_cpu_to_be_16(f->sport);
	u->dst_port = rte_cpu_to_be_16(f->dport);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)(len - hl));
	u->dgram_cksum = 0;
	pl = (uint8_t *)(u + 1);
	memcpy(pl, &n, 8);
	memcpy(pl + 8, &(uint32_t){ fi }, 4);
	for (unsigned int i = hl + 8 + GEN_HDR; i < len; i++)
		p[i] = (uint8_t)(n * 131 + i * 7 + fi);
}

unsigned int
gw_gen_push(const struct gw_dp *dp)
{
	struct rte_mbuf *mb[GW_BURST], *grp[GW_BURST];
	unsigned int n = GW_BURST;
	uint64_t inflight = g.sent - g.back - g.corrupt - g.dup - g.misrouted - g.bad_size;
	struct gw_stats t;

	if (g.sent >= g.c.count)
		return 0;
	if (g.c.count - g.sent < n)
		n = (unsigned int)(g.c.count - g.sent);
	if (inflight + n > g.c.max_inflight) {  /* what the gateway dropped is not in flight */
		gw_stats_sum(dp, &t);
		for (unsigned int d = 0; d < GW_DROP_MAX; d++)
			inflight -= t.drops[d];
		if (inflight + n > g.c.max_inflight)
			return 0;
	}
	/* we are the only producer: with room for a burst in every ring, nothing fails */
	for (unsigned int r = 0; r < g.c.nb_in; r++)
		if (rte_ring_free_count(g.c.in[r]) < n)
			return 0;
	if (rte_pktmbuf_alloc_bulk(g.c.mp, mb, n) != 0)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t num = g.sent + i;
		unsigned int fi = (unsigned int)(num % g.nb_flow);
		uint16_t len = l3_size(&g.flow[fi]);
		struct rte_ether_hdr *eh = (struct rte_ether_hdr *)rte_pktmbuf_append(mb[i],
			(uint16_t)(len + RTE_ETHER_HDR_LEN));

		if (eh == NULL) {       /* frame larger than the mbuf: give up this burst */
			for (unsigned int j = 0; j < i; j++)
				g.flow[(g.sent + j) % g.nb_flow].sent--;
			rte_pktmbuf_free_bulk(mb, n);
			return 0;
		}
		memset(eh, 0, sizeof(*eh));
		eh->dst_addr.addr_bytes[0] = 0x02;
		eh->src_addr.addr_bytes[0] = 0x02;
		eh->src_addr.addr_bytes[5] = 0x10;
		eh->ether_type = rte_cpu_to_be_16(g.flow[fi].v6 ? RTE_ETHER_TYPE_IPV6 :
			RTE_ETHER_TYPE_IPV4);
		build_l3((uint8_t *)(eh + 1), fi, num, len);
		g.flow[fi].sent++;
		if (g.c.clear_pcap != NULL)
			pcap_record(g.c.clear_pcap, mb[i]);
	}
	/* a flow always enters the same rx queue: one worker keeps its order */
	for (unsigned int r = 0; r < g.c.nb_in; r++) {
		unsigned int k = 0;

		for (unsigned int i = 0; i < n; i++)
			if ((g.sent + i) % g.nb_flow % g.c.nb_in == r)
				grp[k++] = mb[i];
		if (k != 0)
			rte_ring_enqueue_bulk(g.c.in[r], (void **)grp, k, NULL);
	}
	g.sent += n;
	return n;
}

static void
check_one(struct rte_mbuf *m)
{
	uint8_t want[2048];
	const uint8_t *p;
	uint64_t n;
	uint32_t fi;
	uint16_t type, len;
	unsigned int hl;

	if (!rte_pktmbuf_is_contiguous(m) || m->pkt_len < RTE_ETHER_HDR_LEN + 20 + 8 + GEN_HDR) {
		g.bad_size++;
		return;
	}
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	type = (uint16_t)(p[12] << 8 | p[13]);
	p += RTE_ETHER_HDR_LEN;
	hl = type == RTE_ETHER_TYPE_IPV6 ? 40 : 20;
	if (m->pkt_len < RTE_ETHER_HDR_LEN + hl + 8 + GEN_HDR) {
		g.bad_size++;
		return;
	}
	memcpy(&n, p + hl + 8, 8);
	memcpy(&fi, p + hl + 16, 4);
	if (fi >= g.nb_flow || n >= g.c.count || (g.flow[fi].v6 != (hl == 40))) {
		g.corrupt++;
		return;
	}
	len = l3_size(&g.flow[fi]);
	if (m->pkt_len != (uint32_t)len + RTE_ETHER_HDR_LEN || len > sizeof(want)) {
		g.bad_size++;
		return;
	}
	build_l3(want, fi, n, len);
	if (memcmp(want, p, len) != 0) {
		g.corrupt++;
		return;
	}
	if (g.seen[n / 64] & (1ull << (n % 64))) {
		g.dup++;
		return;
	}
	g.seen[n / 64] |= 1ull << (n % 64);
	g.back++;
}

unsigned int
gw_gen_pull(void)
{
	struct rte_mbuf *mb[GW_BURST * 2];
	unsigned int n, total = 0;

	for (unsigned int r = 0; r < g.c.nb_out; r++) {
		do {
			n = rte_ring_dequeue_burst(g.c.out[r], (void **)mb, RTE_DIM(mb), NULL);
			for (unsigned int i = 0; i < n; i++) {
				check_one(mb[i]);
				rte_pktmbuf_free(mb[i]);
			}
			total += n;
		} while (n == RTE_DIM(mb));
	}
	for (unsigned int s = 0; s < g.c.nb_sink; s++) {
		n = rte_ring_dequeue_burst(g.c.sink[s], (void **)mb, RTE_DIM(mb), NULL);
		g.misrouted += n;
		for (unsigned int i = 0; i < n; i++)
			rte_pktmbuf_free(mb[i]);
		total += n;
	}
	return total;
}

bool
gw_gen_done(const struct gw_dp *dp)
{
	struct gw_stats t;
	uint64_t drops = 0, now = rte_get_tsc_cycles();
	uint64_t accounted;

	if (g.sent < g.c.count)
		return false;
	gw_stats_sum(dp, &t);
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		drops += t.drops[d];
	accounted = g.back + g.corrupt + g.dup + g.misrouted + g.bad_size + drops;
	if (accounted >= g.c.count)
		return true;
	/* something is stuck: give up after a second without progress */
	if (g.idle_since == 0 || accounted != g.last_acc) {
		g.last_acc = accounted;
		g.idle_since = now;
	}
	return now - g.idle_since > rte_get_tsc_hz();
}

/*
 * The demo's verdict and rates go to stdout, not to the log: they are the
 * result --demo was asked for (scripts read the "rate:" and "demo:" lines),
 * as --check's summary is.
 */
int
gw_gen_report(const struct gw_dp *dp, double seconds, uint64_t busy_cycles, double cpu_seconds)
{
	struct gw_stats t;
	uint64_t drops = 0, prot = 0, byp = 0;
	double busy_s = (double)busy_cycles / (double)rte_get_tsc_hz();
	int bad = 0;

	gw_stats_sum(dp, &t);
	for (unsigned int d = 0; d < GW_DROP_MAX; d++)
		drops += t.drops[d];
	for (unsigned int f = 0; f < g.nb_flow; f++) {
		if (g.flow[f].spi != 0)
			prot += g.flow[f].sent;
		else
			byp += g.flow[f].sent;
	}
	printf("generator: %" PRIu64 " packets of %u bytes (Ethernet, no FCS) in %u flows\n",
		g.sent, g.c.frame_size, g.nb_flow);
	printf("checker: back intact %" PRIu64 ", corrupt %" PRIu64 ", duplicate %" PRIu64
		", misrouted %" PRIu64 ", wrong size %" PRIu64 ", missing %" PRIu64 ", drops %"
		PRIu64 "\n", g.back, g.corrupt, g.dup, g.misrouted, g.bad_size,
		g.sent - g.back, drops);
	/* exact counters: each protected packet is encrypted once and decrypted once */
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		struct gw_sa_stats s;
		uint64_t want = 0;

		if (!dp->sa[i].active)
			continue;
		for (unsigned int f = 0; f < g.nb_flow; f++)
			if (g.flow[f].spi == dp->sa[i].spi)
				want += g.flow[f].sent;
		gw_stats_sa_sum(dp, i, &s);
		if (s.pkts != want) {
			printf("checker: SA %s %u counted %" PRIu64 " packets, expected %" PRIu64
			       "\n",
			       dp->sa[i].dir == GW_DIR_IN ? "in" : "out", dp->sa[i].spi, s.pkts,
			       want);
			bad = 1;
		}
	}
	if (t.esp_out != prot || t.esp_in != prot || t.bypass != 2 * byp) {
		printf("checker: esp_out %" PRIu64 " esp_in %" PRIu64 " bypass %" PRIu64
			", expected %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t.esp_out, t.esp_in,
			t.bypass, prot, prot, 2 * byp);
		bad = 1;
	}
	if (g.back != g.c.count || g.sent != g.c.count || drops != 0)
		bad = 1;
	printf("rate: %.3f Mpps end to end (generator + gateway + checker on one lcore), "
	       "%.3f Mpps gateway only (%.3f s busy); each packet is encrypted and decrypted "
	       "once\n",
	       seconds > 0 ? (double)g.back / seconds / 1e6 : 0.0,
	       busy_s > 0 ? (double)g.back / busy_s / 1e6 : 0.0, busy_s);
	/* wall clocks count the time other processes had the CPU; CPU time does not */
	printf("rate: %.3f Mpps per CPU second of the whole process (%.3f s CPU for %.3f s wall)\n",
		cpu_seconds > 0 ? (double)g.back / cpu_seconds / 1e6 : 0.0, cpu_seconds, seconds);
	printf("demo: %s\n", bad ? "FAIL" : "PASS: every packet came back intact, counters exact");
	return bad ? -1 : 0;
}

/*
 * --gen-pcap. Classic pcap (the format libpcap, tcpdump, scapy and DPDK's
 * net_pcap read): a 24-byte file header, then per packet a 16-byte record
 * header and the frame. Written host-endian, as the magic number tells
 * readers. Stamps are the real time of writing.
 */
#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_LINKTYPE_ETHERNET 1u

static int
pcap_open(const char *dir, const char *name, FILE **fp)
{
	const uint32_t hdr[6] = {
		PCAP_MAGIC_US, 2u | 4u << 16,   /* version 2.4 */
		0, 0,                           /* GMT offset, accuracy */
		65535, PCAP_LINKTYPE_ETHERNET,  /* snap length, link type */
	};
	char path[4096];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "wb");
	if (f == NULL || fwrite(hdr, sizeof(hdr), 1, f) != 1) {
		int e = errno != 0 ? errno : EIO;

		GW_LOG(ERR, "--gen-pcap: cannot write %s: %s", path, strerror(e));
		if (f != NULL)
			fclose(f);
		return -e;
	}
	*fp = f;
	return 0;
}

static void
pcap_record(FILE *f, const struct rte_mbuf *m)
{
	struct timespec ts;
	uint32_t rec[4];

	clock_gettime(CLOCK_REALTIME, &ts);
	rec[0] = (uint32_t)ts.tv_sec;
	rec[1] = (uint32_t)(ts.tv_nsec / 1000);
	rec[2] = rec[3] = m->pkt_len;
	fwrite(rec, sizeof(rec), 1, f);
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next)
		fwrite(rte_pktmbuf_mtod(s, const void *), s->data_len, 1, f);
}

int
gw_gen_capture_open(struct gw_gen_cfg *cfg, const char *dir)
{
	int rc = pcap_open(dir, "clear.pcap", &cfg->clear_pcap);

	if (rc == 0)
		rc = pcap_open(dir, "esp.pcap", &cfg->esp_pcap);
	if (rc != 0)
		gw_gen_capture_close(cfg);
	return rc;
}

unsigned int
gw_gen_wire(void)
{
	struct rte_mbuf *mb[GW_BURST * 2];
	unsigned int total = 0;

	for (unsigned int q = 0; q < GW_MAX_WORKERS && g.c.wire_in[q] != NULL; q++) {
		/* take only what the far side has room for: the wire loses nothing */
		unsigned int room = rte_ring_free_count(g.c.wire_out[q]);
		unsigned int n = rte_ring_dequeue_burst(g.c.wire_in[q], (void **)mb,
			RTE_MIN(room, (unsigned int)RTE_DIM(mb)), NULL);

		for (unsigned int i = 0; i < n; i++)
			pcap_record(g.c.esp_pcap, mb[i]);
		if (n != 0)
			rte_ring_enqueue_bulk(g.c.wire_out[q], (void **)mb, n, NULL);
		total += n;
	}
	return total;
}

int
gw_gen_capture_close(struct gw_gen_cfg *cfg)
{
	FILE *f[2] = { cfg->clear_pcap, cfg->esp_pcap };
	int rc = 0;

	for (unsigned int i = 0; i < 2; i++) {
		if (f[i] == NULL)
			continue;
		if (ferror(f[i]))
			rc = -1;
		if (fclose(f[i]) != 0)
			rc = -1;
	}
	cfg->clear_pcap = cfg->esp_pcap = NULL;
	return rc;
}
