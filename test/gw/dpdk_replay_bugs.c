/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK 22.11 rte_ipsec sequence number bugs, reproduced on the installed
 * DPDK with nothing but librte_ipsec (docs/dpdk-ipsec-replay.md):
 *
 *   1 replay:     esn_inb_update_sqn() keeps (uint64_t)1 << (sqn & 63) in a
 *                 uint32_t: numbers with sqn % 64 >= 32 are never marked.
 *   2 ESN:        the 64-bit number is rebuilt in prepare (the ICV is checked
 *                 with it) and again in process, from the window as the
 *                 burst's earlier packets left it; the second is recorded.
 *   3 W + 1:      esn_inb_check_sqn() accepts top - W.
 *   4 bitmap:     replay_num_bucket() gives W bits in a power of two of
 *                 words, no spare one: the oldest word of the window is
 *                 forgotten, and a late number marks one above the top.
 *   5 outbound:   with ESN the counter wraps past 2^64 - 1 (0, 1, 2 ...);
 *                 without, 2^32 - 1 is never sent.
 *
 * No cryptodev is needed: the ops prepare builds are never run (the
 * session is a dummy), every packet is taken as authenticated, and what
 * rte_ipsec decides is read from its return values, from the ESP header
 * and from the AAD it writes for AES-GCM (SPI || seq hi || seq lo).
 *
 * EXPECTED TO SHOW THE BUGS: exit 0 when DPDK still behaves as documented
 * (the line of each says "bug present"), 1 when one of them behaves
 * otherwise (fixed upstream? then vecsec-gw's workarounds can be revisited),
 * 2 on a setup error. With `-- fixed` (linked against rte_ipsec with the
 * patch of docs/dpdk-ipsec-replay.md, test/gw/dpdk-patch-check.sh) the
 * other way round: exit 0 when every case behaves as RFC 4303.
 *
 * usage: dpdk_replay_bugs [EAL options: --no-pci --no-huge -m 64 --no-shconf ...]
 *                         [-- fixed]
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_crypto.h>
#include <rte_eal.h>
#include <rte_esp.h>
#include <rte_ip.h>
#include <rte_ipsec.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#define TWO32 (UINT64_C(1) << 32)
#define BURST 8
#define ICV_LEN 16

static struct rte_mempool *mb_pool, *cop_pool;
static uint64_t dummy_ses[64];  /* a "session": rte_ipsec only stores the pointer */
static int differs;

static void
ops_free(struct rte_crypto_op *cop[], unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rte_crypto_op_free(cop[i]);
}

struct sa {
	struct rte_ipsec_sa *sa;
	struct rte_ipsec_session ss;
};

static int
sa_make(struct sa *s, bool inbound, bool esn, uint32_t win, uint64_t esn_value)
{
	static uint8_t key[16];
	struct rte_crypto_sym_xform xf = {
		.type = RTE_CRYPTO_SYM_XFORM_AEAD,
		.aead = {
			.op = inbound ? RTE_CRYPTO_AEAD_OP_DECRYPT : RTE_CRYPTO_AEAD_OP_ENCRYPT,
			.algo = RTE_CRYPTO_AEAD_AES_GCM,
			.key = { .data = key, .length = sizeof(key) },
			.iv = { .offset = sizeof(struct rte_crypto_op) +
				sizeof(struct rte_crypto_sym_op), .length = 12 },
			.digest_length = ICV_LEN,
			.aad_length = esn ? 12 : 8,
		},
	};
	struct rte_ipv4_hdr h = {
		.version_ihl = RTE_IPV4_VHL_DEF, .time_to_live = 64, .next_proto_id = IPPROTO_ESP,
		.src_addr = RTE_BE32(0x0a000001), .dst_addr = RTE_BE32(0x0a000002),
	};
	struct rte_ipsec_sa_prm prm;
	int sz;

	memset(&prm, 0, sizeof(prm));
	prm.ipsec_xform.spi = 0x1234;
	prm.ipsec_xform.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP;
	prm.ipsec_xform.mode = RTE_SECURITY_IPSEC_SA_MODE_TUNNEL;
	prm.ipsec_xform.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV4;
	prm.ipsec_xform.direction = inbound ? RTE_SECURITY_IPSEC_SA_DIR_INGRESS :
		RTE_SECURITY_IPSEC_SA_DIR_EGRESS;
	prm.ipsec_xform.options.esn = esn;
	prm.ipsec_xform.esn.value = esn_value;
	prm.ipsec_xform.replay_win_sz = win;
	prm.crypto_xform = &xf;
	prm.tun.next_proto = IPPROTO_IPIP;
	prm.tun.hdr = &h;
	prm.tun.hdr_len = sizeof(h);
	sz = rte_ipsec_sa_size(&prm);
	s->sa = sz > 0 ? calloc(1, (size_t)sz) : NULL;
	if (s->sa == NULL || rte_ipsec_sa_init(s->sa, &prm, (uint32_t)sz) < 0)
		return -1;
	memset(&s->ss, 0, sizeof(s->ss));
	s->ss.sa = s->sa;
	s->ss.type = RTE_SECURITY_ACTION_TYPE_NONE;
	s->ss.crypto.ses = (void *)dummy_ses;
	return rte_ipsec_session_prepare(&s->ss);
}

/* An inbound ESP packet (outer IPv4, ESP, IV, 28-byte inner packet, trailer, ICV). */
static struct rte_mbuf *
esp_in(uint32_t lo)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mb_pool);
	uint8_t *p;
	uint16_t len = 20 + 8 + 8 + 28 + 2 + 2 + ICV_LEN;   /* pad 2: 4-byte alignment */

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, len);
	p[0] = 0x45;
	p[9] = IPPROTO_ESP;
	*(rte_be16_t *)(p + 2) = rte_cpu_to_be_16(len);
	*(rte_be32_t *)(p + 20) = rte_cpu_to_be_32(0x1234);
	*(rte_be32_t *)(p + 24) = rte_cpu_to_be_32(lo);
	p[36] = 0x45;                   /* the inner IPv4 header */
	p[36 + 3] = 28;
	p[36 + 8] = 64;
	p[36 + 9] = IPPROTO_UDP;
	p[64] = 1;                      /* padding 1, 2; pad length; next header */
	p[65] = 2;
	p[66] = 2;
	p[67] = IPPROTO_IPIP;
	m->l2_len = 0;
	m->l3_len = 20;
	return m;
}

/*
 * One inbound burst: prepare, then (crypto taken as done) process.
 * acc[i]: packet i came out of process; hi[i]: the high half prepare put in
 * its AAD (UINT64_MAX if prepare refused it). Returns -1 on a setup error.
 */
static int
in_burst(struct sa *s, const uint32_t lo[], unsigned int n, bool acc[], uint64_t hi[])
{
	struct rte_mbuf *mb[BURST], *orig[BURST];
	struct rte_crypto_op *cop[BURST];
	uint16_t k, done;

	if (rte_crypto_op_bulk_alloc(cop_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC, cop, n) == 0)
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		orig[i] = mb[i] = esp_in(lo[i]);
		if (mb[i] == NULL)
			return -1;
		acc[i] = false;
		hi[i] = UINT64_MAX;
	}
	k = rte_ipsec_pkt_crypto_prepare(&s->ss, mb, cop, (uint16_t)n);
	for (uint16_t i = 0; i < k; i++) {
		const uint8_t *aad = cop[i]->sym->aead.aad.data;

		for (unsigned int j = 0; j < n; j++)
			if (orig[j] == mb[i])
				hi[j] = rte_be_to_cpu_32(*(const rte_be32_t *)(aad + 4));
	}
	done = rte_ipsec_pkt_process(&s->ss, mb, k);
	for (uint16_t i = 0; i < done; i++)
		for (unsigned int j = 0; j < n; j++)
			if (orig[j] == mb[i])
				acc[j] = true;
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(orig[i]);
	ops_free(cop, n);
	return 0;
}

/* One packet per burst; true if accepted. */
static bool
in_one(struct sa *s, uint32_t lo)
{
	bool acc;
	uint64_t hi;

	if (in_burst(s, &lo, 1, &acc, &hi) != 0) {
		fprintf(stderr, "setup error\n");
		exit(2);
	}
	return acc;
}

static bool expect_fixed;      /* `-- fixed`: a patched rte_ipsec, every case as RFC 4303 */

static void
report(const char *what, bool bug, const char *detail)
{
	if (expect_fixed)
		printf("%-10s %s: %s\n", what, bug ? "STILL BROKEN" : "fixed", detail);
	else
		printf("%-10s %s: %s\n", what, bug ? "bug present" : "BEHAVES DIFFERENTLY", detail);
	if (bug == expect_fixed)
		differs = 1;
}

static void
bug_replay(void)
{
	struct sa s;
	bool a100, a31;

	if (sa_make(&s, true, false, 1024, 0) != 0)
		exit(2);
	in_one(&s, 100);
	in_one(&s, 101);
	a100 = in_one(&s, 100);         /* 100 % 64 = 36: never marked */
	in_one(&s, 31);
	a31 = in_one(&s, 31);           /* 31 % 64 = 31: marked */
	report("1 replay", a100 && !a31, a100 ? "window 1024: 100, 101, 100 -> the second 100 "
	       "is accepted (31, 31: the second 31 is refused)" :
	       "window 1024: 100, 101, 100 -> the second 100 is refused");
	free(s.sa);
}

static void
bug_esn(void)
{
	const uint32_t lo[2] = { 100, (uint32_t)(TWO32 - 16) };
	bool acc[2];
	uint64_t hi[2], hi3[1];
	uint32_t lo3 = 101;
	bool acc3;
	char d[256];
	struct sa s;

	/* window 64, highest seen 2^32 - 10; one burst: P1 = 2^32 + 100, P2 = 2^32 - 16 */
	if (sa_make(&s, true, true, 64, TWO32 - 10) != 0 || in_burst(&s, lo, 2, acc, hi) != 0)
		exit(2);
	/* P3 = 2^32 + 101: prepare authenticates it with the high half it rebuilds */
	if (in_burst(&s, &lo3, 1, &acc3, hi3) != 0)
		exit(2);
	snprintf(d, sizeof(d), "window 64, top 2^32 - 10, one burst P1 = 2^32 + 100, "
		 "P2 = 2^32 - 16: prepare gives them high halves %" PRIu64 " and %" PRIu64 ", process takes P2: "
		 "%s; then P3 = 2^32 + 101 gets high half %" PRIu64 " (RFC 4303: 1; 2 means P2 "
		 "went in as 2^33 - 16 and every later ICV fails)", hi[0], hi[1],
		 acc[1] ? "yes" : "no", hi3[0]);
	report("2 ESN", hi[0] == 1 && hi[1] == 0 && hi3[0] == 2, d);
	free(s.sa);
}

static void
bug_window(void)
{
	struct sa s;
	bool a;

	if (sa_make(&s, true, false, 64, 0) != 0)
		exit(2);
	in_one(&s, 200);
	a = in_one(&s, 136);            /* 200 - 64: RFC 4303's window is 137..200 */
	report("3 W + 1", a, a ? "window 64, top 200: 136 (top - W) is accepted" :
	       "window 64, top 200: 136 (top - W) is refused");
	free(s.sa);
}

static void
bug_bitmap(void)
{
	struct sa s;
	bool forgot, alias;
	char d[160];

	/* window 128: two 64-bit words; the window 73..200 spans three */
	if (sa_make(&s, true, false, 128, 0) != 0)
		exit(2);
	for (uint32_t q = 1; q <= 200; q++)
		if (q != 80 && q != 208)
			in_one(&s, q);
	in_one(&s, 80);                 /* word 1, the same slot as word 3 (192..255) */
	forgot = in_one(&s, 90);        /* 90 % 64 = 26 (low half): seen, but forgotten */
	in_one(&s, 210);
	alias = !in_one(&s, 208);       /* never received; 80 marked its bit */
	snprintf(d, sizeof(d), "window 128 after 1..200 (80 late): 90 (seen, in the window) %s "
		 "again; 208 (never seen) %s", forgot ? "is accepted" : "is refused",
		 alias ? "is refused" : "is accepted");
	report("4 bitmap", forgot && alias, d);
	free(s.sa);
}

/* Outbound: n packets from esn.value first; seq[] the full numbers (hi from the AAD). */
static int
out_burst(struct sa *s, unsigned int n, uint64_t seq[])
{
	struct rte_mbuf *mb[BURST];
	struct rte_crypto_op *cop[BURST];
	uint16_t k;

	if (rte_crypto_op_bulk_alloc(cop_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC, cop, n) == 0)
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *p;

		mb[i] = rte_pktmbuf_alloc(mb_pool);
		if (mb[i] == NULL)
			return -1;
		p = (uint8_t *)rte_pktmbuf_append(mb[i], 28);
		if (p == NULL)
			return -1;
		memset(p, 0, 28);
		p[0] = 0x45;
		p[3] = 28;
		p[9] = IPPROTO_UDP;
		mb[i]->l2_len = 0;
		mb[i]->l3_len = 20;
	}
	k = rte_ipsec_pkt_crypto_prepare(&s->ss, mb, cop, (uint16_t)n);
	for (uint16_t i = 0; i < k; i++) {
		const uint8_t *esp = rte_pktmbuf_mtod_offset(mb[i], const uint8_t *, 20);
		const uint8_t *aad = cop[i]->sym->aead.aad.data;

		seq[i] = (uint64_t)rte_be_to_cpu_32(*(const rte_be32_t *)(aad + 4)) << 32 |
			rte_be_to_cpu_32(*(const rte_be32_t *)(esp + 4));
	}
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(mb[i]);
	ops_free(cop, n);
	return k;
}

static void
bug_outbound(void)
{
	uint64_t seq[BURST];
	struct sa s;
	char d[256];
	int k, k32;

	if (sa_make(&s, false, true, 0, UINT64_MAX - 1) != 0 || (k = out_burst(&s, 4, seq)) < 0)
		exit(2);
	snprintf(d, sizeof(d), "ESN from 2^64 - 2, 4 packets: %d numbered", k);
	for (int i = 0; i < k; i++)
		snprintf(d + strlen(d), sizeof(d) - strlen(d), " %#" PRIx64, seq[i]);
	report("5a ESN out", k == 4 && seq[2] == 0 && seq[3] == 1, d);
	free(s.sa);
	if (sa_make(&s, false, false, 0, TWO32 - 3) != 0 || (k32 = out_burst(&s, 3, seq)) < 0)
		exit(2);
	snprintf(d, sizeof(d), "32-bit from 2^32 - 3: %d of 3 packets numbered (2^32 - 1 is the "
		 "last one RFC 4303 allows)", k32);
	report("5b 32-bit", k32 == 2, d);
	free(s.sa);
}

int
main(int argc, char **argv)
{
	char rundir[PATH_MAX];
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 2;
	}
	expect_fixed = argc - n > 1 && strcmp(argv[n + 1], "fixed") == 0;
	mb_pool = rte_pktmbuf_pool_create("bugs_mb", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					  SOCKET_ID_ANY);
	cop_pool = rte_crypto_op_pool_create("bugs_cop", RTE_CRYPTO_OP_TYPE_SYMMETRIC, 255, 0, 64,
					     SOCKET_ID_ANY);
	if (mb_pool == NULL || cop_pool == NULL) {
		fprintf(stderr, "pool creation failed\n");
		return 2;
	}
	printf("rte_ipsec of %s; each line expects %s (see docs/dpdk-ipsec-replay.md)\n",
	       rte_version(), expect_fixed ? "RFC 4303 behaviour (patched)" : "the bug");
	bug_replay();
	bug_esn();
	bug_window();
	bug_bitmap();
	bug_outbound();
	rte_mempool_free(cop_pool);
	rte_mempool_free(mb_pool);
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(rundir);          /* EAL leaves its (with --no-shconf empty) runtime folder */
	if (expect_fixed)
		printf("%s\n", differs ? "FAIL: the patch leaves a case broken" :
		       "PASS (the patched rte_ipsec behaves as RFC 4303 in every case)");
	else
		printf("%s\n", differs ?
		       "FAIL: rte_ipsec behaves differently from what is documented" :
		       "PASS (every documented rte_ipsec bug is still there)");
	return differs;
}
