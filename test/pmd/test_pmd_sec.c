/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec's rte_security lookaside-protocol ESP sessions through
 * DPDK's public API only (rte_security, rte_cryptodev enqueue/dequeue):
 * capabilities; egress -> ingress round trips for every inner payload
 * length 0..300 and some large ones, tunnel IPv4/IPv6 (both inner
 * families) and transport IPv4/IPv6, ChaCha20-Poly1305 (RFC 7634) and
 * ARIA-GCM (RFC 4106 layout); every egress packet is checked field by
 * field (RFC 4303 header, IV, padding 1, 2, 3 ..., trailer) and decrypted
 * by OpenSSL's EVP, and ingress is also fed packets OpenSSL sealed with
 * random IVs; ESN across 2^32 (egress AAD high half, ingress RFC 4303 A.2
 * recovery both sides of the boundary); anti-replay (duplicate, too old,
 * inside the window, duplicates in one burst, window untouched by
 * forgeries); tampered ICV, ciphertext and header; truncated and malformed
 * packets; sequence number overflow with and without ESN; stats; keys
 * wiped on destroy.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <rte_byteorder.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_security.h>

#include "vecsec/vecsec_aead.h"
#include "rte_pmd_vecsec.h"
#include "vecsec_eal.h"
#include "vecsec_heap.h"
#include "vt.h"

#define DEV_NAME "crypto_vecsec0"
#define NB_MBUFS 1023
#define MBUF_ROOM 10240
#define NB_OPS 511
#define BURST 32u
#define MAX_PKT 65536            /* up to the largest IPv4 datagram */

static struct {
	uint8_t dev_id;
	int socket;
	struct rte_security_ctx *ctx;
	struct rte_mempool *sess_mp, *op_mp, *mbuf_mp;
	uint64_t replay_flag, dummy_flag;
	uint64_t seed;
	bool aria;
} g;

enum mode { M_TUN4, M_TUN6, M_TRS };

/* One SA, both ends: the same key, SPI and salt for the egress and ingress sessions. */
struct tsa {
	enum rte_crypto_aead_algorithm algo;
	uint8_t key[32];
	uint16_t key_len;
	uint8_t salt[4];
	uint32_t spi;
	enum mode mode;
	bool esn;
	uint64_t esn_value;      /* egress: first number; ingress: highest seen */
	uint32_t win;
	bool no_stats;           /* session without options.stats */
	uint8_t src[16], dst[16];
	void *out, *in;
};

/* ---------------- helpers ---------------- */

static void *
session(struct tsa *a, bool egress)
{
	struct rte_crypto_sym_xform x = { .type = RTE_CRYPTO_SYM_XFORM_AEAD };
	struct rte_security_session_conf c = {
		.action_type = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL,
		.protocol = RTE_SECURITY_PROTOCOL_IPSEC,
	};
	uint32_t salt;

	x.aead.op = egress ? RTE_CRYPTO_AEAD_OP_ENCRYPT : RTE_CRYPTO_AEAD_OP_DECRYPT;
	x.aead.algo = a->algo;
	x.aead.key.data = a->key;
	x.aead.key.length = a->key_len;
	x.aead.iv.length = 8;
	x.aead.digest_length = 16;
	x.aead.aad_length = a->esn ? 12 : 8;
	memcpy(&salt, a->salt, 4);
	c.ipsec.spi = a->spi;
	c.ipsec.salt = salt;
	c.ipsec.options.esn = a->esn;
	c.ipsec.options.stats = !a->no_stats;
	c.ipsec.direction = egress ? RTE_SECURITY_IPSEC_SA_DIR_EGRESS :
		RTE_SECURITY_IPSEC_SA_DIR_INGRESS;
	c.ipsec.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP;
	c.ipsec.mode = a->mode == M_TRS ? RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT :
		RTE_SECURITY_IPSEC_SA_MODE_TUNNEL;
	if (a->mode == M_TUN4) {
		c.ipsec.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV4;
		memcpy(&c.ipsec.tunnel.ipv4.src_ip, a->src, 4);
		memcpy(&c.ipsec.tunnel.ipv4.dst_ip, a->dst, 4);
		c.ipsec.tunnel.ipv4.ttl = 64;
	} else if (a->mode == M_TUN6) {
		c.ipsec.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV6;
		memcpy(&c.ipsec.tunnel.ipv6.src_addr, a->src, 16);
		memcpy(&c.ipsec.tunnel.ipv6.dst_addr, a->dst, 16);
		c.ipsec.tunnel.ipv6.hlimit = 64;
	}
	c.ipsec.replay_win_sz = egress ? 0 : a->win;
	c.ipsec.esn.value = a->esn_value;
	c.crypto_xform = &x;
	return rte_security_session_create(g.ctx, &c, g.sess_mp);
}

static bool
tsa_init(struct tsa *a, enum rte_crypto_aead_algorithm algo, uint16_t key_len, enum mode mode,
	 uint64_t seed)
{
	memset(a, 0, sizeof(*a));
	a->algo = algo;
	a->key_len = key_len;
	vt_rand(a->key, sizeof(a->key), seed);
	vt_rand(a->salt, sizeof(a->salt), seed + 1);
	a->spi = 0x1000 + (uint32_t)(seed & 0xffff);
	a->mode = mode;
	a->win = 64;
	vt_rand(a->src, 16, seed + 2);
	vt_rand(a->dst, 16, seed + 3);
	return true;
}

static bool
tsa_open(struct tsa *a)
{
	a->out = session(a, true);
	a->in = session(a, false);
	VT_EXPECT(a->out != NULL && a->in != NULL, "session create: %s",
		  rte_strerror(rte_errno));
	return a->out != NULL && a->in != NULL;
}

static void
tsa_close(struct tsa *a)
{
	if (a->out != NULL)
		VT_EXPECT(rte_security_session_destroy(g.ctx, a->out) == 0, "destroy out");
	if (a->in != NULL)
		VT_EXPECT(rte_security_session_destroy(g.ctx, a->in) == 0, "destroy in");
	a->out = a->in = NULL;
}

/* An IPv4 or IPv6 UDP packet with plen payload bytes; returns its length. */
static uint32_t
make_ip(uint8_t *b, bool v6, uint32_t plen, uint64_t seed)
{
	if (!v6) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)b;

		memset(h, 0, sizeof(*h));
		h->version_ihl = RTE_IPV4_VHL_DEF;
		h->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*h) + plen));
		h->time_to_live = 33;
		h->next_proto_id = IPPROTO_UDP;
		h->src_addr = rte_cpu_to_be_32(0x0a000001);
		h->dst_addr = rte_cpu_to_be_32(0x0a000002 + (uint32_t)(seed & 0xff));
		h->hdr_checksum = rte_ipv4_cksum(h);
		vt_rand(b + sizeof(*h), plen, seed);
		return sizeof(*h) + plen;
	}
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)b;

	memset(h, 0, sizeof(*h));
	h->vtc_flow = rte_cpu_to_be_32(6u << 28);
	h->payload_len = rte_cpu_to_be_16((uint16_t)plen);
	h->proto = IPPROTO_UDP;
	h->hop_limits = 33;
	h->src_addr[0] = 0xfd;
	h->dst_addr[0] = 0xfd;
	h->dst_addr[15] = (uint8_t)seed;
	vt_rand(b + sizeof(*h), plen, seed);
	return sizeof(*h) + plen;
}

static struct rte_mbuf *
mbuf_of(const uint8_t *b, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(g.mbuf_mp);
	char *d;

	if (m == NULL)
		return NULL;
	d = rte_pktmbuf_append(m, (uint16_t)len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(d, b, len);
	return m;
}

/*
 * Run n mbufs through a session: one enqueue of the whole burst. Returns
 * the op statuses in st[] (mbufs stay in m[], changed in place).
 */
static bool run_qp(void *sess, uint16_t qp, struct rte_mbuf *m[], unsigned int n, uint8_t st[]);

static bool
run(void *sess, struct rte_mbuf *m[], unsigned int n, uint8_t st[])
{
	return run_qp(sess, 0, m, n, st);
}

static bool
run_qp(void *sess, uint16_t qp, struct rte_mbuf *m[], unsigned int n, uint8_t st[])
{
	struct rte_crypto_op *ops[BURST], *back[BURST];
	unsigned int got = 0;

	if (rte_crypto_op_bulk_alloc(g.op_mp, RTE_CRYPTO_OP_TYPE_SYMMETRIC, ops, n) != n) {
		VT_EXPECT(false, "op alloc");
		return false;
	}
	for (unsigned int i = 0; i < n; i++) {
		ops[i]->sym->m_src = m[i];
		rte_security_attach_session(ops[i], sess);
	}
	VT_EXPECT(rte_cryptodev_enqueue_burst(g.dev_id, qp, ops, (uint16_t)n) == n, "enqueue");
	for (int spin = 0; got < n && spin < 1000; spin++)
		got += rte_cryptodev_dequeue_burst(g.dev_id, qp, back + got, (uint16_t)(n - got));
	VT_EXPECT(got == n, "dequeued %u of %u", got, n);
	for (unsigned int i = 0; i < got; i++) {
		VT_EXPECT(back[i] == ops[i], "order kept");
		st[i] = back[i]->status;
	}
	rte_mempool_put_bulk(g.op_mp, (void **)ops, n);
	return got == n;
}

static bool
failed_flag(const struct rte_mbuf *m)
{
	return m != NULL && (m->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED) != 0;
}

static bool
replay_flag(const struct rte_mbuf *m)
{
	return m != NULL && g.replay_flag != 0 && (m->ol_flags & g.replay_flag) != 0;
}

/* Big-endian fields at any alignment. */
static uint64_t
be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* ---------------- the independent oracle: OpenSSL ---------------- */

static const EVP_CIPHER *
ossl_cipher(const struct tsa *a)
{
	if (a->algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305)
		return EVP_chacha20_poly1305();
	return a->key_len == 16 ? EVP_aria_128_gcm() :
	       a->key_len == 24 ? EVP_aria_192_gcm() : EVP_aria_256_gcm();
}

/* RFC 7634 2.1 / RFC 4106 5: SPI || [seq hi] || seq lo */
static size_t
esp_aad(uint8_t aad[12], const struct tsa *a, uint64_t seq)
{
	uint32_t w[3] = { rte_cpu_to_be_32(a->spi), rte_cpu_to_be_32((uint32_t)(seq >> 32)),
			  rte_cpu_to_be_32((uint32_t)seq) };

	if (a->esn) {
		memcpy(aad, w, 12);
		return 12;
	}
	memcpy(aad, w, 4);
	memcpy(aad + 4, &w[2], 4);
	return 8;
}

static bool
ossl_aead(const struct tsa *a, bool enc, const uint8_t iv[8], const uint8_t *aad, size_t aad_len,
	  const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[16])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t nonce[12];
	int outl = 0, ok;

	memcpy(nonce, a->salt, 4);
	memcpy(nonce + 4, iv, 8);
	ok = c != NULL && EVP_CipherInit_ex(c, ossl_cipher(a), NULL, NULL, NULL, enc) == 1;
	ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) == 1;
	ok = ok && EVP_CipherInit_ex(c, NULL, NULL, a->key, nonce, enc) == 1;
	if (ok && !enc)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, tag) == 1;
	ok = ok && EVP_CipherUpdate(c, NULL, &outl, aad, (int)aad_len) == 1;
	if (ok && len != 0)
		ok = EVP_CipherUpdate(c, out, &outl, in, (int)len) == 1;
	ok = ok && EVP_CipherFinal_ex(c, out + len, &outl) == 1;
	if (ok && enc)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1;
	EVP_CIPHER_CTX_free(c);
	return ok;
}

static bool
ip4_cksum_ok(const uint8_t *p)
{
	struct rte_ipv4_hdr h;

	memcpy(&h, p, sizeof(h));
	h.hdr_checksum = 0;
	return rte_ipv4_cksum(&h) == ((const struct rte_ipv4_hdr *)p)->hdr_checksum;
}

/*
 * Check an egress packet against RFC 4303/7634 and the clear packet it
 * came from: outer (or transport) header, SPI, sequence number, IV ==
 * 64-bit number, minimal padding 1, 2, 3 ..., next header, and OpenSSL
 * must open it to exactly the clear payload.
 */
static void
check_esp(const struct tsa *a, const uint8_t *p, uint32_t len, const uint8_t *clear,
	  uint32_t clen, uint64_t seq)
{
	static uint8_t pt[MAX_PKT];
	uint32_t hl, pl, ct_len;
	const uint8_t *esp;
	uint8_t aad[12], tag[16], nh, pad;
	size_t aad_len;
	bool v6 = (clear[0] >> 4) == 6;
	const uint8_t *payload;

	if (a->mode == M_TUN4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)p;

		hl = 20;
		VT_EXPECT(p[0] == 0x45 && h->next_proto_id == 50 && h->time_to_live == 64 &&
			  rte_be_to_cpu_16(h->total_length) == len &&
			  memcmp(&h->src_addr, a->src, 4) == 0 &&
			  memcmp(&h->dst_addr, a->dst, 4) == 0 && ip4_cksum_ok(p),
			  "outer IPv4 header");
		nh = v6 ? 41 : 4;
		payload = clear;
		pl = clen;
	} else if (a->mode == M_TUN6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)p;

		hl = 40;
		VT_EXPECT((p[0] >> 4) == 6 && h->proto == 50 && h->hop_limits == 64 &&
			  rte_be_to_cpu_16(h->payload_len) == len - 40 &&
			  memcmp(h->src_addr, a->src, 16) == 0 &&
			  memcmp(h->dst_addr, a->dst, 16) == 0, "outer IPv6 header");
		nh = v6 ? 41 : 4;
		payload = clear;
		pl = clen;
	} else {
		hl = v6 ? 40 : 20;
		nh = v6 ? clear[6] : clear[9];
		VT_EXPECT((v6 ? p[6] : p[9]) == 50, "transport: next header ESP");
		if (v6) {
			VT_EXPECT(rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)p)->payload_len) ==
				  len - 40 && memcmp(p + 8, clear + 8, 32) == 0, "IPv6 header");
		} else {
			const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)p;

			VT_EXPECT(rte_be_to_cpu_16(h->total_length) == len &&
				  memcmp(p + 12, clear + 12, 8) == 0 && p[8] == clear[8],
				  "IPv4 header");
			VT_EXPECT(ip4_cksum_ok(p), "IPv4 checksum");
		}
		payload = clear + hl;
		pl = clen - hl;
	}
	if (len < hl + 16 + 16 + 4) {
		VT_EXPECT(false, "too short: %u", len);
		return;
	}
	esp = p + hl;
	VT_EXPECT(be(esp, 4) == a->spi, "SPI");
	VT_EXPECT(be(esp + 4, 4) == (uint32_t)seq, "seq %llx", (unsigned long long)seq);
	VT_EXPECT(be(esp + 8, 8) == seq, "IV = 64-bit sequence number");
	ct_len = len - hl - 16 - 16;
	VT_EXPECT((ct_len & 3) == 0, "4-byte alignment, ct_len %u", ct_len);
	aad_len = esp_aad(aad, a, seq);
	memcpy(tag, p + len - 16, 16);
	VT_EXPECT(ossl_aead(a, false, esp + 8, aad, aad_len, esp + 16, ct_len, pt, tag),
		  "OpenSSL opens the ESP packet (mode %d len %u seq %llx)", a->mode, clen,
		  (unsigned long long)seq);
	pad = pt[ct_len - 2];
	VT_EXPECT(pad < 4 && pl + pad + 2 == ct_len, "minimal padding: pad %u pl %u ct %u",
		  pad, pl, ct_len);
	for (unsigned int i = 0; i < pad && i < ct_len; i++)
		VT_EXPECT(pt[pl + i] == i + 1, "pad byte %u", i);
	VT_EXPECT(pt[ct_len - 1] == nh, "next header %u want %u", pt[ct_len - 1], nh);
	VT_EXPECT_MEM(pt, payload, RTE_MIN(pl, ct_len), "payload (len %u)", clen);
}

/*
 * An ESP packet sealed by OpenSSL with a random IV: what ingress must
 * accept from any peer. Returns its length.
 */
static uint32_t
ossl_esp(const struct tsa *a, uint8_t *out, const uint8_t *clear, uint32_t clen, uint64_t seq,
	 uint64_t ivseed)
{
	static uint8_t pt[MAX_PKT];
	bool v6 = (clear[0] >> 4) == 6;
	uint32_t hl, pl, pad, ct_len, len;
	uint8_t aad[12], *esp, nh;
	size_t aad_len;

	if (a->mode == M_TRS) {
		hl = v6 ? 40 : 20;
		nh = v6 ? clear[6] : clear[9];
		memcpy(out, clear, hl);
		out[v6 ? 6 : 9] = 50;
		memcpy(pt, clear + hl, clen - hl);
		pl = clen - hl;
	} else {
		hl = a->mode == M_TUN4 ? 20 : 40;
		nh = v6 ? 41 : 4;
		memset(out, 0, hl);
		if (a->mode == M_TUN4) {
			out[0] = 0x45;
			out[8] = 64;
			out[9] = 50;
			memcpy(out + 12, a->src, 4);
			memcpy(out + 16, a->dst, 4);
		} else {
			out[0] = 0x60;
			out[6] = 50;
			out[7] = 64;
			memcpy(out + 8, a->src, 16);
			memcpy(out + 24, a->dst, 16);
		}
		memcpy(pt, clear, clen);
		pl = clen;
	}
	pad = (4 - ((pl + 2) & 3)) & 3;
	for (uint32_t i = 0; i < pad; i++)
		pt[pl + i] = (uint8_t)(i + 1);
	pt[pl + pad] = (uint8_t)pad;
	pt[pl + pad + 1] = nh;
	ct_len = pl + pad + 2;
	esp = out + hl;
	put32(esp, a->spi);
	put32(esp + 4, (uint32_t)seq);
	vt_rand(esp + 8, 8, ivseed);
	aad_len = esp_aad(aad, a, seq);
	VT_EXPECT(ossl_aead(a, true, esp + 8, aad, aad_len, pt, ct_len, esp + 16,
			    esp + 16 + ct_len), "OpenSSL seal");
	len = hl + 16 + ct_len + 16;
	if (hl == 20) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)out;

		h->total_length = rte_cpu_to_be_16((uint16_t)len);
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		((struct rte_ipv6_hdr *)out)->payload_len = rte_cpu_to_be_16((uint16_t)(len - 40));
	}
	return len;
}

/* What ingress must give back: the inner packet (tunnel) or the clear one (transport). */
static void
check_clear(const struct tsa *a, struct rte_mbuf *m, const uint8_t *clear, uint32_t clen,
	    const char *what)
{
	VT_EXPECT(m->pkt_len == clen && rte_pktmbuf_is_contiguous(m), "%s: length %u want %u",
		  what, m->pkt_len, clen);
	if (m->pkt_len == clen)
		VT_EXPECT_MEM(rte_pktmbuf_mtod(m, uint8_t *), clear, clen, "%s: mode %d len %u",
			      what, a->mode, clen);
	VT_EXPECT(!failed_flag(m), "%s: no failure flag", what);
}

/* ---------------- tests ---------------- */

static void
test_caps(void)
{
	struct rte_cryptodev_info info;
	const struct rte_security_capability *c;
	unsigned int n = 0;

	rte_cryptodev_info_get(g.dev_id, &info);
	VT_EXPECT((info.feature_flags & RTE_CRYPTODEV_FF_SECURITY) != 0, "FF_SECURITY");
	VT_EXPECT(g.ctx != NULL, "security context");
	for (int mode = 0; mode < 2; mode++) {
		for (int dir = 0; dir < 2; dir++) {
			struct rte_security_capability_idx idx = {
				.action = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL,
				.protocol = RTE_SECURITY_PROTOCOL_IPSEC,
				.ipsec = {
					.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP,
					.mode = mode ? RTE_SECURITY_IPSEC_SA_MODE_TUNNEL :
						RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT,
					.direction = dir ? RTE_SECURITY_IPSEC_SA_DIR_EGRESS :
						RTE_SECURITY_IPSEC_SA_DIR_INGRESS,
				},
			};

			c = rte_security_capability_get(g.ctx, &idx);
			VT_EXPECT(c != NULL && c->ipsec.options.esn == 1 &&
				  c->ipsec.options.udp_encap == 0 &&
				  c->ipsec.replay_win_sz_max >= 1024, "capability mode %d dir %d",
				  mode, dir);
			if (c == NULL)
				continue;
			for (const struct rte_cryptodev_capabilities *cc = c->crypto_capabilities;
			     cc->op != RTE_CRYPTO_OP_TYPE_UNDEFINED; cc++) {
				n += cc->sym.aead.algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305;
				g.aria |= cc->sym.aead.algo == RTE_PMD_VECSEC_AEAD_ARIA_GCM;
			}
		}
	}
	VT_EXPECT(n == 4, "ChaCha20-Poly1305 in every ESP capability");
	/* what is refused: no ESP, UDP encapsulation, a wrong key */
	struct tsa a;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 31, M_TUN4, g.seed);
	VT_EXPECT(session(&a, true) == NULL, "31-byte ChaCha key refused");
	tsa_init(&a, RTE_CRYPTO_AEAD_AES_GCM, 16, M_TUN4, g.seed);
	VT_EXPECT(session(&a, false) == NULL, "AES-GCM refused (not offered)");
}

/*
 * Round trips: egress of a burst, each packet checked by OpenSSL, then
 * ingress of the same burst gives back the clear packets; and ingress of
 * OpenSSL-sealed packets.
 */
static void
roundtrip(struct tsa *a, const uint32_t *lens, unsigned int nb_lens, uint64_t seed)
{
	static uint8_t clear[BURST][MAX_PKT], sealed[MAX_PKT];
	struct rte_mbuf *m[BURST];
	uint32_t clen[BURST];
	uint8_t st[BURST];
	uint64_t seq = a->esn_value > 1 ? a->esn_value : 1;
	uint64_t oseq = 0;
	void *in2 = session(a, false);   /* its own window for the OpenSSL-sealed packets */

	VT_EXPECT(in2 != NULL, "second ingress session");
	if (in2 == NULL)
		return;

	for (unsigned int base = 0; base < nb_lens; base += BURST) {
		unsigned int n = RTE_MIN(BURST, nb_lens - base);

		for (unsigned int i = 0; i < n; i++) {
			bool v6 = a->mode == M_TRS ? (a->src[0] & 1) : ((base + i) & 1);

			clen[i] = make_ip(clear[i], v6, lens[base + i], seed + base + i);
			m[i] = mbuf_of(clear[i], clen[i]);
			VT_EXPECT(m[i] != NULL, "mbuf");
			if (m[i] == NULL)
				return;
		}
		run(a->out, m, n, st);
		for (unsigned int i = 0; i < n; i++) {
			VT_EXPECT(st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS && !failed_flag(m[i]),
				  "egress status %u len %u", st[i], clen[i]);
			check_esp(a, rte_pktmbuf_mtod(m[i], uint8_t *), m[i]->pkt_len, clear[i],
				  clen[i], seq + base + i);
		}
		run(a->in, m, n, st);
		for (unsigned int i = 0; i < n; i++) {
			VT_EXPECT(st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS, "ingress status %u", st[i]);
			check_clear(a, m[i], clear[i], clen[i], "round trip");
			rte_pktmbuf_free(m[i]);
		}
		/* the same clear packets sealed by OpenSSL with random IVs */
		if (a->esn)
			continue;   /* ESN: test_esn covers what OpenSSL seals */
		for (unsigned int i = 0; i < n; i++) {
			uint32_t len = ossl_esp(a, sealed, clear[i], clen[i], ++oseq, seed + 7 * i);

			m[i] = mbuf_of(sealed, len);
		}
		run(in2, m, n, st);
		for (unsigned int i = 0; i < n; i++) {
			VT_EXPECT(st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS, "ingress of OpenSSL ESP %u",
				  st[i]);
			check_clear(a, m[i], clear[i], clen[i], "OpenSSL-sealed");
			rte_pktmbuf_free(m[i]);
		}
	}
	VT_EXPECT(rte_security_session_destroy(g.ctx, in2) == 0, "destroy");
}

static void
test_roundtrip(void)
{
	static uint32_t lens[301 + 6];
	static const uint32_t big[] = { 512, 1000, 1400, 1500, 4000, 9000 };
	static const struct {
		enum rte_crypto_aead_algorithm algo;
		uint16_t key_len;
	} algs[] = {
		{ RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32 },
		{ RTE_PMD_VECSEC_AEAD_ARIA_GCM, 16 },
		{ RTE_PMD_VECSEC_AEAD_ARIA_GCM, 24 },
		{ RTE_PMD_VECSEC_AEAD_ARIA_GCM, 32 },
	};
	unsigned int nb = 0;

	for (uint32_t l = 0; l <= 300; l++)
		lens[nb++] = l;
	for (unsigned int i = 0; i < RTE_DIM(big); i++)
		lens[nb++] = big[i];
	for (unsigned int k = 0; k < RTE_DIM(algs); k++) {
		if (algs[k].algo == RTE_PMD_VECSEC_AEAD_ARIA_GCM && !g.aria)
			continue;
		for (int mode = M_TUN4; mode <= M_TRS + 1; mode++) {
			struct tsa a;
			uint64_t seed = g.seed + 1000 * k + 100 * (uint64_t)mode;

			tsa_init(&a, algs[k].algo, algs[k].key_len,
				 mode > M_TRS ? M_TRS : (enum mode)mode, seed);
			/* transport twice: IPv4 then IPv6 clear packets */
			a.src[0] = (uint8_t)(mode > M_TRS ? 1 : 0);
			a.win = 1024;
			if (k == 0 && mode == M_TUN6)
				a.esn = true;   /* ESN low numbers: the 12-byte AAD */
			if (!tsa_open(&a))
				return;
			roundtrip(&a, lens, nb, seed);
			tsa_close(&a);
		}
	}
}

/* Egress/ingress of one packet each; returns the status of ingress. */
static uint8_t
one_in(struct tsa *a, const uint8_t *pkt, uint32_t len, struct rte_mbuf **keep)
{
	struct rte_mbuf *m = mbuf_of(pkt, len);
	uint8_t st = 0xff;

	if (keep != NULL)
		*keep = NULL;
	if (m == NULL) {
		VT_EXPECT(false, "mbuf");
		return st;
	}
	run(a->in, &m, 1, &st);
	if (keep != NULL)
		*keep = m;
	else
		rte_pktmbuf_free(m);
	return st;
}

static void
test_esn(void)
{
	static uint8_t clear[MAX_PKT], pkt[MAX_PKT];
	struct rte_mbuf *m[8];
	uint8_t st[8];
	uint32_t clen, len;
	struct tsa a;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 77);
	a.esn = true;
	a.esn_value = (UINT64_C(1) << 32) - 3;   /* egress: first number */
	a.win = 64;
	a.out = session(&a, true);
	a.esn_value = (UINT64_C(1) << 32) - 10;  /* ingress: highest seen */
	a.in = session(&a, false);
	VT_EXPECT(a.out != NULL && a.in != NULL, "ESN sessions");
	if (a.out == NULL || a.in == NULL)
		goto out;
	clen = make_ip(clear, false, 100, g.seed);
	for (unsigned int i = 0; i < 6; i++)
		m[i] = mbuf_of(clear, clen);
	run(a.out, m, 6, st);
	for (unsigned int i = 0; i < 6; i++) {
		VT_EXPECT(st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS, "ESN egress");
		/* 2^32-3 .. 2^32+2: the AAD's high half goes 0 -> 1 (OpenSSL checks it) */
		check_esp(&a, rte_pktmbuf_mtod(m[i], uint8_t *), m[i]->pkt_len, clear, clen,
			  (UINT64_C(1) << 32) - 3 + i);
	}
	/* ingress out of order across the boundary: 2^32+1 first, then the rest */
	struct rte_mbuf *ord[6] = { m[4], m[0], m[5], m[1], m[3], m[2] };

	run(a.in, ord, 6, st);
	for (unsigned int i = 0; i < 6; i++) {
		VT_EXPECT(st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS, "ESN ingress %u: %u", i, st[i]);
		check_clear(&a, ord[i], clear, clen, "ESN");
		rte_pktmbuf_free(ord[i]);
	}
	/*
	 * Top is now 2^32+2, window 64 (RFC 4303 A.2 case B): a low half at or
	 * above 2^32+2-63 (mod 2^32) belongs to high half 0, the rest to 1.
	 */
	len = ossl_esp(&a, pkt, clear, clen, (UINT64_C(1) << 32) - 3, 1);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR,
		  "duplicate below 2^32 after the boundary");
	len = ossl_esp(&a, pkt, clear, clen, (UINT64_C(1) << 32) - 20, 2);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS,
		  "inside the window below 2^32: high half recovered as 0");
	len = ossl_esp(&a, pkt, clear, clen, (UINT64_C(1) << 32) - 70, 3);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_AUTH_FAILED,
		  "left of the window: taken as high half 1, the ICV fails");
	len = ossl_esp(&a, pkt, clear, clen, (UINT64_C(1) << 32) + 5, 4);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "2^32+5 new");
	/* sealed with the wrong high half (as 5, not 2^32+5+...): the ICV cannot match */
	len = ossl_esp(&a, pkt, clear, clen, 6, 5);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_AUTH_FAILED,
		  "wrong high half fails authentication");
	len = ossl_esp(&a, pkt, clear, clen, (UINT64_C(1) << 32) + 6, 6);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS,
		  "window untouched by the forgery");
out:
	tsa_close(&a);
}

static void
test_replay(void)
{
	static uint8_t clear[MAX_PKT], pkt[MAX_PKT];
	struct rte_mbuf *m[4], *k;
	uint8_t st[4];
	uint32_t clen, len;
	struct tsa a;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN6, g.seed + 99);
	a.win = 64;
	if (!tsa_open(&a))
		return;
	clen = make_ip(clear, true, 60, g.seed);
	for (uint64_t s = 1; s <= 10; s++) {
		len = ossl_esp(&a, pkt, clear, clen, s, s);
		VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "seq %llu",
			  (unsigned long long)s);
	}
	len = ossl_esp(&a, pkt, clear, clen, 5, 100);
	VT_EXPECT(one_in(&a, pkt, len, &k) == RTE_CRYPTO_OP_STATUS_ERROR, "duplicate");
	VT_EXPECT(failed_flag(k) && replay_flag(k), "duplicate: failed + replay flags");
	rte_pktmbuf_free(k);
	len = ossl_esp(&a, pkt, clear, clen, 200, 101);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "jump to 200");
	len = ossl_esp(&a, pkt, clear, clen, 100, 102);
	VT_EXPECT(one_in(&a, pkt, len, &k) == RTE_CRYPTO_OP_STATUS_ERROR, "too old");
	VT_EXPECT(replay_flag(k), "too old: replay flag");
	rte_pktmbuf_free(k);
	len = ossl_esp(&a, pkt, clear, clen, 136, 103);   /* 200 - 64: left edge, out */
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "left edge");
	len = ossl_esp(&a, pkt, clear, clen, 137, 104);   /* first inside */
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "inside");
	len = ossl_esp(&a, pkt, clear, clen, 150, 105);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "inside, unseen");
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "inside, seen");
	/* seq 0 never valid without ESN */
	len = ossl_esp(&a, pkt, clear, clen, 0, 106);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "seq 0");
	/* the same number twice in one burst: the first passes, the second not */
	len = ossl_esp(&a, pkt, clear, clen, 300, 107);
	m[0] = mbuf_of(pkt, len);
	m[1] = mbuf_of(pkt, len);
	len = ossl_esp(&a, pkt, clear, clen, 299, 108);
	m[2] = mbuf_of(pkt, len);
	run(a.in, m, 3, st);
	VT_EXPECT(st[0] == RTE_CRYPTO_OP_STATUS_SUCCESS && st[1] == RTE_CRYPTO_OP_STATUS_ERROR &&
		  st[2] == RTE_CRYPTO_OP_STATUS_SUCCESS, "burst duplicate: %u %u %u",
		  st[0], st[1], st[2]);
	VT_EXPECT(replay_flag(m[1]) && !failed_flag(m[0]) && !failed_flag(m[2]), "flags");
	for (int i = 0; i < 3; i++)
		rte_pktmbuf_free(m[i]);
	/* a big jump clears the whole window: old bits must not survive */
	len = ossl_esp(&a, pkt, clear, clen, 300 + 64 * 200, 109);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "big jump");
	len = ossl_esp(&a, pkt, clear, clen, 300 + 64 * 200 - 40, 110);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "after big jump");
	tsa_close(&a);

	/* window 0: no replay protection */
	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 98);
	a.win = 0;
	if (!tsa_open(&a))
		return;
	clen = make_ip(clear, false, 10, g.seed);
	len = ossl_esp(&a, pkt, clear, clen, 7, 1);
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "win 0");
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "win 0 again");
	tsa_close(&a);
}

static void
test_tamper(void)
{
	static uint8_t clear[MAX_PKT], pkt[MAX_PKT], bad[MAX_PKT];
	struct rte_mbuf *k;
	uint32_t clen, len;
	struct tsa a;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 55);
	if (!tsa_open(&a))
		return;
	clen = make_ip(clear, false, 77, g.seed);
	len = ossl_esp(&a, pkt, clear, clen, 42, 9);
	/* a flipped bit anywhere authenticated: ICV, ciphertext, IV, sequence number */
	const uint32_t where[] = { len - 1, len - 16, 20 + 16, len - 17, 20 + 8, 20 + 15, 20 + 7 };

	for (unsigned int i = 0; i < RTE_DIM(where); i++) {
		memcpy(bad, pkt, len);
		bad[where[i]] ^= 0x10;
		VT_EXPECT(one_in(&a, bad, len, &k) == RTE_CRYPTO_OP_STATUS_AUTH_FAILED,
			  "flip at %u", where[i]);
		VT_EXPECT(failed_flag(k) && !replay_flag(k), "auth failure flags");
		rte_pktmbuf_free(k);
	}
	/* wrong SPI: not this session's packet */
	memcpy(bad, pkt, len);
	bad[20] ^= 1;
	VT_EXPECT(one_in(&a, bad, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "wrong SPI");
	/* none of that moved the window: the genuine packet still passes */
	VT_EXPECT(one_in(&a, pkt, len, &k) == RTE_CRYPTO_OP_STATUS_SUCCESS, "genuine after forgeries");
	check_clear(&a, k, clear, clen, "genuine");
	rte_pktmbuf_free(k);
	tsa_close(&a);
}

static void
test_truncated(void)
{
	static uint8_t clear[MAX_PKT], pkt[MAX_PKT], bad[MAX_PKT];
	struct rte_mbuf *k;
	uint32_t clen, len;
	struct tsa a;
	uint64_t s = 1;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 33);
	a.win = 0;
	if (!tsa_open(&a))
		return;
	clen = make_ip(clear, false, 40, g.seed);
	len = ossl_esp(&a, pkt, clear, clen, s, 1);
	/* every shorter length, IP length fixed to match or left as it was */
	for (uint32_t l = 0; l < len; l++) {
		for (int fix = 0; fix < 2; fix++) {
			uint8_t st;

			memcpy(bad, pkt, l);
			if (fix && l >= 20) {
				struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)bad;

				h->total_length = rte_cpu_to_be_16((uint16_t)l);
			}
			st = one_in(&a, bad, l, &k);
			VT_EXPECT(failed_flag(k), "flag, len %u", l);
			rte_pktmbuf_free(k);
			VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_ERROR ||
				  st == RTE_CRYPTO_OP_STATUS_AUTH_FAILED, "truncated to %u: %u", l,
				  st);
		}
	}
	VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS, "untruncated");
	/* not ESP, IPv4 fragment, version 5 */
	memcpy(bad, pkt, len);
	bad[9] = 17;
	VT_EXPECT(one_in(&a, bad, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "not ESP");
	memcpy(bad, pkt, len);
	bad[6] = 0x20;
	VT_EXPECT(one_in(&a, bad, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "fragment");
	memcpy(bad, pkt, len);
	bad[0] = 0x55;
	VT_EXPECT(one_in(&a, bad, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR, "version 5");
	/* egress of garbage */
	{
		uint8_t st;

		memset(bad, 0, 64);
		k = mbuf_of(bad, 64);
		run(a.out, &k, 1, &st);
		VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_ERROR && failed_flag(k), "egress garbage");
		rte_pktmbuf_free(k);
	}
	tsa_close(&a);
}

/* Bad padding and next headers, sealed with a valid ICV: refused after authentication. */
static void
test_bad_trailer(void)
{
	static uint8_t pt[256], pkt[512];
	uint8_t aad[12];
	struct tsa a;
	const struct {
		uint8_t pl, pad, nh, badpad;
	} cases[] = {
		{ 20, 2, 4, 0 },    /* inner too short to be IPv4: version mismatch */
		{ 2, 3, 4, 0 },     /* pad longer than the rest */
		{ 21, 1, 59, 0 },   /* dummy packet (RFC 4303 2.6) */
		{ 20, 2, 4, 1 },    /* padding bytes not 1, 2 */
		{ 20, 2, 99, 0 },   /* unknown next header in a tunnel */
	};

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 11);
	a.win = 0;
	if (!tsa_open(&a))
		return;
	for (unsigned int c = 0; c < RTE_DIM(cases); c++) {
		uint32_t pl = cases[c].pl, pad = cases[c].pad, ct = pl + pad + 2, len;

		if (c == 1) {
			pl = 0;
			ct = 4;
		}
		make_ip(pt, false, pl >= 20 ? pl - 20 : 0, c);
		if (c == 0)
			pt[0] = 0x65;
		for (uint32_t i = 0; i < pad && c != 1; i++)
			pt[pl + i] = (uint8_t)(i + 1 + cases[c].badpad);
		pt[ct - 2] = pad;
		pt[ct - 1] = cases[c].nh;
		memset(pkt, 0, 20);
		pkt[0] = 0x45;
		pkt[8] = 64;
		pkt[9] = 50;
		put32(pkt + 20, a.spi);
		put32(pkt + 24, c + 1);
		vt_rand(pkt + 28, 8, c);
		VT_EXPECT(ossl_aead(&a, true, pkt + 28, aad, esp_aad(aad, &a, c + 1), pt, ct,
				    pkt + 36, pkt + 36 + ct), "seal");
		len = 36 + ct + 16;
		pkt[2] = (uint8_t)(len >> 8);
		pkt[3] = (uint8_t)len;
		VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_ERROR,
			  "bad trailer case %u", c);
	}
	tsa_close(&a);
}

static void
test_overflow(void)
{
	static uint8_t clear[MAX_PKT];
	struct rte_mbuf *m[4];
	uint8_t st[4];
	uint32_t clen;
	struct tsa a;

	for (int esn = 0; esn < 2; esn++) {
		tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 5 + esn);
		a.esn = esn;
		a.esn_value = esn ? UINT64_MAX - 1 : UINT32_MAX - 1;
		if (!tsa_open(&a))
			return;
		clen = make_ip(clear, false, 30, g.seed);
		for (int i = 0; i < 4; i++)
			m[i] = mbuf_of(clear, clen);
		run(a.out, m, 4, st);
		VT_EXPECT(st[0] == RTE_CRYPTO_OP_STATUS_SUCCESS &&
			  st[1] == RTE_CRYPTO_OP_STATUS_SUCCESS &&
			  st[2] == RTE_CRYPTO_OP_STATUS_ERROR && st[3] == RTE_CRYPTO_OP_STATUS_ERROR,
			  "esn %d: last two numbers, then errors: %u %u %u %u", esn, st[0], st[1],
			  st[2], st[3]);
		VT_EXPECT(failed_flag(m[2]) && failed_flag(m[3]) && !failed_flag(m[1]), "flags");
		check_esp(&a, rte_pktmbuf_mtod(m[1], uint8_t *), m[1]->pkt_len, clear, clen,
			  esn ? UINT64_MAX : UINT32_MAX);
		for (int i = 0; i < 4; i++)
			rte_pktmbuf_free(m[i]);
		tsa_close(&a);
	}
}

static void
test_stats_and_wipe(void)
{
	static uint8_t clear[MAX_PKT];
	struct rte_security_stats st;
	struct rte_mbuf *m[3];
	uint8_t s[3];
	uint32_t clen;
	struct tsa a;
	const uint8_t *priv;
	unsigned int sz;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 3);
	if (!tsa_open(&a))
		return;
	clen = make_ip(clear, false, 30, g.seed);
	for (int i = 0; i < 3; i++)
		m[i] = mbuf_of(clear, clen);
	run(a.out, m, 3, s);
	VT_EXPECT(rte_security_session_stats_get(g.ctx, a.out, &st) == 0 &&
		  st.ipsec.opackets == 3 && st.ipsec.oerrors == 0, "egress stats");
	rte_pktmbuf_mtod(m[1], uint8_t *)[40] ^= 1;
	run(a.in, m, 3, s);
	VT_EXPECT(rte_security_session_stats_get(g.ctx, a.in, &st) == 0 &&
		  st.ipsec.ipackets == 2 && st.ipsec.ierrors == 1 &&
		  st.ipsec.ibytes == 2 * clen, "ingress stats");
	for (int i = 0; i < 3; i++)
		rte_pktmbuf_free(m[i]);
	{
		struct tsa b;

		tsa_init(&b, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 4);
		b.no_stats = true;
		if (tsa_open(&b))
			VT_EXPECT(rte_security_session_stats_get(g.ctx, b.out, &st) == -ENOTSUP,
				  "no stats without options.stats");
		tsa_close(&b);
	}
	/* destroy wipes: the object goes back to the pool with zeroed private data */
	priv = (const uint8_t *)a.out;
	sz = rte_security_session_get_size(g.ctx);
	tsa_close(&a);
	{
		size_t nz = 0;

		for (unsigned int i = 64; i < sz; i++)
			nz += priv[i] != 0;
		VT_EXPECT(nz == 0, "%zu private bytes left after destroy", nz);
	}
}

/*
 * Session keys sized by algorithm: ARIA-GCM keys live in rte_malloc memory
 * while the session exists (a ChaCha20-Poly1305 key inline), and a loop of
 * ARIA sessions created, used and destroyed gives every heap byte back.
 */
static void
test_key_heap(void)
{
	static uint8_t clear[MAX_PKT];
	size_t heap0 = vecsec_heap_used();
	struct tsa a;

	printf("\n    crypto_vecsec security session private data: %u bytes\n",
	       rte_security_session_get_size(g.ctx));
	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 70);
	if (tsa_open(&a))
		VT_EXPECT(vecsec_heap_used() == heap0, "ChaCha20-Poly1305 keys took heap memory");
	tsa_close(&a);
	if (!g.aria) {
		printf("\n    SKIP pmd-sec key_heap ARIA part: no ARIA-GCM\n");
		return;
	}
	for (unsigned int round = 0; round < 60; round++) {
		uint16_t kl = (uint16_t)(16 + 8 * (round % 3));
		struct rte_mbuf *m[2];
		uint8_t st[2];
		uint32_t clen;

		tsa_init(&a, RTE_PMD_VECSEC_AEAD_ARIA_GCM, kl, M_TUN4, g.seed + 80 + round);
		if (!tsa_open(&a))
			break;
		VT_EXPECT(vecsec_heap_used() >= heap0 + 2 * vecsec_aead_key_size(VECSEC_AEAD_ARIA_GCM,
									       kl),
			  "ARIA keys not in rte_malloc memory");
		if (round % 10 == 0) {
			/* they work: out, then back in */
			clen = make_ip(clear, false, 40 + round, g.seed + round);
			m[0] = mbuf_of(clear, clen);
			m[1] = mbuf_of(clear, clen);
			run(a.out, m, 2, st);
			VT_EXPECT(st[0] == RTE_CRYPTO_OP_STATUS_SUCCESS &&
					  st[1] == RTE_CRYPTO_OP_STATUS_SUCCESS,
				  "ARIA egress");
			run(a.in, m, 2, st);
			VT_EXPECT(st[0] == RTE_CRYPTO_OP_STATUS_SUCCESS &&
					  st[1] == RTE_CRYPTO_OP_STATUS_SUCCESS,
				  "ARIA ingress");
			check_clear(&a, m[0], clear, clen, "ARIA key heap");
			rte_pktmbuf_free(m[0]);
			rte_pktmbuf_free(m[1]);
		}
		tsa_close(&a);
		VT_EXPECT(vecsec_heap_used() == heap0, "round %u: heap %zu, before %zu", round,
			  vecsec_heap_used(), heap0);
	}
}

/*
 * Two lcores, one queue pair each, one session: egress numbers are never
 * handed out twice, and of two copies of every packet arriving on both
 * lcores exactly one passes ingress.
 */
#define MT_PKTS 1024
#define MT_LEN 100

static struct {
	struct tsa a;
	uint8_t esp[MT_PKTS][MT_LEN + 64];
	uint32_t esp_len[MT_PKTS];
	uint64_t seq[2][MT_PKTS / 2];
	unsigned int ok[2];
	bool ingress;            /* phase 2 */
	bool bad[2];             /* a failure that was not a replay */
} mt;

static int
mt_worker(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	struct rte_mbuf *m[BURST];
	uint8_t st[BURST], clear[MT_LEN];
	uint32_t clen = make_ip(clear, false, MT_LEN - 20, 1);

	if (mt.ingress)   /* every packet on both lcores, in opposite orders */
		goto ingress;
	for (unsigned int b = 0; b < MT_PKTS / 2; b += BURST) {
		for (unsigned int i = 0; i < BURST; i++)
			m[i] = mbuf_of(clear, clen);
		if (!run_qp(mt.a.out, (uint16_t)id, m, BURST, st))
			return -1;
		for (unsigned int i = 0; i < BURST; i++) {
			const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
			unsigned int k = id * (MT_PKTS / 2) + b + i;

			mt.ok[id] += st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS;
			mt.seq[id][b + i] = be(p + 24, 4);
			mt.esp_len[k] = m[i]->pkt_len;
			memcpy(mt.esp[k], p, RTE_MIN(m[i]->pkt_len, (uint32_t)sizeof(mt.esp[k])));
			rte_pktmbuf_free(m[i]);
		}
	}
	return 0;
ingress:
	for (unsigned int b = 0; b < MT_PKTS; b += BURST) {
		for (unsigned int i = 0; i < BURST; i++) {
			unsigned int k = id ? MT_PKTS - 1 - (b + i) : b + i;

			m[i] = mbuf_of(mt.esp[k], mt.esp_len[k]);
		}
		if (!run_qp(mt.a.in, (uint16_t)id, m, BURST, st))
			return -1;
		for (unsigned int i = 0; i < BURST; i++) {
			mt.ok[id] += st[i] == RTE_CRYPTO_OP_STATUS_SUCCESS;
			if (st[i] != RTE_CRYPTO_OP_STATUS_SUCCESS && !replay_flag(m[i]))
				mt.bad[id] = true;
			rte_pktmbuf_free(m[i]);
		}
	}
	return 0;
}

static void
test_two_lcores(void)
{
	unsigned int other = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	static uint8_t seen[MT_PKTS + 1];

	if (other >= RTE_MAX_LCORE) {
		printf("SKIP pmd_sec/test_two_lcores: EAL has one lcore (give it -l 0,1)\n");
		VT_EXPECT(getenv("VT_PMD_SEC_NEED_MT") == NULL, "two lcores required");
		return;
	}
	tsa_init(&mt.a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TUN4, g.seed + 71);
	mt.a.win = 2048;
	if (!tsa_open(&mt.a))
		return;
	for (int phase = 0; phase < 2; phase++) {
		mt.ok[0] = mt.ok[1] = 0;
		mt.bad[0] = mt.bad[1] = false;
		mt.ingress = phase == 1;
		rte_eal_remote_launch(mt_worker, (void *)(uintptr_t)1, other);
		VT_EXPECT(mt_worker((void *)(uintptr_t)0) == 0, "lcore 0");
		VT_EXPECT(rte_eal_wait_lcore(other) == 0, "lcore 1");
		if (phase == 0) {
			memset(seen, 0, sizeof(seen));
			for (int w = 0; w < 2; w++)
				for (unsigned int i = 0; i < MT_PKTS / 2; i++)
					if (mt.seq[w][i] >= 1 && mt.seq[w][i] <= MT_PKTS)
						seen[mt.seq[w][i]]++;
			unsigned int once = 0;

			for (unsigned int i = 1; i <= MT_PKTS; i++)
				once += seen[i] == 1;
			VT_EXPECT(mt.ok[0] + mt.ok[1] == MT_PKTS && once == MT_PKTS,
				  "egress from two lcores: %u ok, %u numbers used once", mt.ok[0] + mt.ok[1],
				  once);
		} else {
			VT_EXPECT(mt.ok[0] + mt.ok[1] == MT_PKTS,
				  "ingress of two copies: %u + %u passed, want %u in all", mt.ok[0],
				  mt.ok[1], MT_PKTS);
			VT_EXPECT(!mt.bad[0] && !mt.bad[1], "every other failure is a replay");
		}
	}
	tsa_close(&mt.a);
}

/* A chain of segments of the given sizes (the rest in the last) holding b. */
static struct rte_mbuf *
chain_of(const uint8_t *b, uint32_t len, const uint32_t *sizes, unsigned int nb)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	for (unsigned int i = 0; i < nb; i++) {
		uint32_t take = i + 1 == nb ? len - off : RTE_MIN(sizes[i], len - off);
		struct rte_mbuf *m = mbuf_of(b + off, take);

		if (m == NULL || (head != NULL && rte_pktmbuf_chain(head, m) != 0)) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		if (head == NULL)
			head = m;
		off += take;
	}
	return head;
}

/*
 * Chained mbufs: egress with the payload over several segments (trailer
 * and ICV into the last one's tailroom), ingress with the ciphertext, the
 * trailer and the ICV split anywhere across segments.
 */
static void
test_chained(void)
{
	static uint8_t clear[MAX_PKT], flat[MAX_PKT], pkt[MAX_PKT];
	static const uint32_t splits[][4] = {
		{ 20, 1, 7, 0 }, { 24, 100, 3, 0 }, { 40, 500, 600, 0 }, { 30, 13, 17, 0 },
	};

	for (int mode = M_TUN4; mode <= M_TRS; mode++) {
		struct tsa a;

		tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, (enum mode)mode, g.seed + 200);
		a.win = 1024;
		if (!tsa_open(&a))
			return;
		for (unsigned int sp = 0; sp < RTE_DIM(splits); sp++) {
			for (uint32_t pl = 0; pl < 1200; pl += 97) {
				uint32_t clen = make_ip(clear, false, pl, pl + sp);
				struct rte_mbuf *m = chain_of(clear, clen, splits[sp], 4);
				uint8_t st;
				uint32_t len;

				if (m == NULL)
					continue;
				run(a.out, &m, 1, &st);
				VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_SUCCESS, "chained egress %u", st);
				len = m->pkt_len;
				VT_EXPECT(rte_pktmbuf_read(m, 0, len, flat) != NULL, "read");
				check_esp(&a, rte_pktmbuf_read(m, 0, len, flat), len, clear, clen,
					  ++a.esn_value);
				rte_pktmbuf_free(m);
				/* the same ESP bytes split elsewhere: ICV over 2 segments */
				memcpy(pkt, flat, len);
				{
					/* the first segment holds IP header, ESP header and IV */
					uint32_t cut[3] = { (mode == M_TUN6 ? 40 : 20) + 16 + 3, 1, 0 };

					cut[2] = len - cut[0] - cut[1] > 9 ? len - cut[0] - cut[1] - 9 : 1;
					m = chain_of(pkt, len, cut, 4);
				}
				if (m == NULL)
					continue;
				run(a.in, &m, 1, &st);
				VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_SUCCESS, "chained ingress %u", st);
				VT_EXPECT(m->pkt_len == clen, "length %u want %u", m->pkt_len, clen);
				if (m->pkt_len == clen)
					VT_EXPECT_MEM(rte_pktmbuf_read(m, 0, clen, flat), clear, clen,
						      "chained round trip mode %d len %u", mode, clen);
				VT_EXPECT(rte_pktmbuf_lastseg(m)->next == NULL, "chain end");
				rte_pktmbuf_free(m);
			}
		}
		tsa_close(&a);
	}
}

static bool
dummy_flag(const struct rte_mbuf *m)
{
	return m != NULL && g.dummy_flag != 0 && (m->ol_flags & g.dummy_flag) != 0;
}

/*
 * Dummy packets (next header 59, RFC 4303 2.6) sealed by OpenSSL with a
 * valid ICV: discarded in transport mode (IPv4 and IPv6) as in tunnel
 * mode, with status ERROR, the failure and dummy flags, counted in ierrors
 * and not in ipackets; the window still moves (the same number again is a
 * replay) and the packets around them pass.
 */
static void
test_dummy(void)
{
	static uint8_t clear[MAX_PKT], pkt[MAX_PKT], pt[64];
	struct rte_security_stats st;
	struct rte_mbuf *k;
	uint8_t aad[12];
	uint32_t clen, len;

	for (int c = 0; c < 3; c++) {
		struct tsa a;
		bool v6 = c == 1;

		tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, c == 2 ? M_TUN4 : M_TRS,
			 g.seed + 400 + c);
		a.win = 64;
		if (!tsa_open(&a))
			return;
		clen = make_ip(clear, v6, 33, g.seed + c);
		len = ossl_esp(&a, pkt, clear, clen, 1, 1);
		VT_EXPECT(one_in(&a, pkt, len, NULL) == RTE_CRYPTO_OP_STATUS_SUCCESS,
			  "case %d: a packet before the dummy", c);
		if (c < 2) {
			/* transport: the trailer's next header is what the clear header names */
			if (v6) {
				clear[6] = 59;
			} else {
				struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)clear;

				h->next_proto_id = 59;
				h->hdr_checksum = 0;
				h->hdr_checksum = rte_ipv4_cksum(h);
			}
			len = ossl_esp(&a, pkt, clear, clen, 2, 2);
		} else {
			/* tunnel: no inner packet, 10 bytes of dummy payload, pad 0 */
			memset(pkt, 0, 20);
			pkt[0] = 0x45;
			pkt[8] = 64;
			pkt[9] = 50;
			put32(pkt + 20, a.spi);
			put32(pkt + 24, 2);
			vt_rand(pkt + 28, 8, 2);
			vt_rand(pt, 10, 3);
			pt[10] = 0;
			pt[11] = 59;
			VT_EXPECT(ossl_aead(&a, true, pkt + 28, aad, esp_aad(aad, &a, 2), pt, 12,
					    pkt + 36, pkt + 36 + 12), "seal");
			len = 36 + 12 + 16;
			pkt[3] = (uint8_t)len;
		}
		VT_EXPECT(one_in(&a, pkt, len, &k) == RTE_CRYPTO_OP_STATUS_ERROR,
			  "case %d (%s): dummy packet discarded", c,
			  c == 2 ? "tunnel" : v6 ? "transport IPv6" : "transport IPv4");
		VT_EXPECT(failed_flag(k) && dummy_flag(k) && !replay_flag(k),
			  "case %d: dummy: failure and dummy flags, not replay", c);
		rte_pktmbuf_free(k);
		VT_EXPECT(one_in(&a, pkt, len, &k) == RTE_CRYPTO_OP_STATUS_ERROR &&
			  replay_flag(k) && !dummy_flag(k),
			  "case %d: its number is spent: the copy is a replay", c);
		rte_pktmbuf_free(k);
		clen = make_ip(clear, v6, 40, g.seed + c + 10);
		len = ossl_esp(&a, pkt, clear, clen, 3, 3);
		VT_EXPECT(one_in(&a, pkt, len, &k) == RTE_CRYPTO_OP_STATUS_SUCCESS &&
			  !dummy_flag(k), "case %d: the packet after the dummy", c);
		rte_pktmbuf_free(k);
		VT_EXPECT(rte_security_session_stats_get(g.ctx, a.in, &st) == 0 &&
			  st.ipsec.ipackets == 2 && st.ipsec.ierrors == 2,
			  "case %d: stats: %" PRIu64 " ipackets %" PRIu64 " ierrors, want 2 2", c,
			  st.ipsec.ipackets, st.ipsec.ierrors);
		tsa_close(&a);
	}
}

/*
 * Transport mode rewrites the IPv4 header (protocol, length): its checksum
 * is updated incrementally (RFC 1624), so a header that came with a wrong
 * one leaves with one exactly as wrong, egress and ingress; valid ones
 * stay valid (the round trips check those byte for byte).
 */
static void
test_ip4_cksum(void)
{
	static uint8_t clear[MAX_PKT], pkt[MAX_PKT];
	struct rte_ipv4_hdr *h;
	struct rte_mbuf *m;
	uint32_t clen, len;
	uint8_t st;
	struct tsa a;

	tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, M_TRS, g.seed + 500);
	a.win = 64;
	if (!tsa_open(&a))
		return;
	/* egress of a clear packet whose checksum is off by 0x0100 */
	clen = make_ip(clear, false, 50, g.seed);
	h = (struct rte_ipv4_hdr *)clear;
	h->hdr_checksum ^= rte_cpu_to_be_16(0x0100);
	m = mbuf_of(clear, clen);
	VT_EXPECT(m != NULL, "mbuf");
	if (m == NULL)
		goto out;
	run(a.out, &m, 1, &st);
	VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_SUCCESS, "egress %u", st);
	VT_EXPECT(!ip4_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *)),
		  "egress: a wrong clear checksum must not come out valid");
	rte_pktmbuf_free(m);
	/* ingress of an ESP packet whose outer checksum is wrong */
	clen = make_ip(clear, false, 50, g.seed + 1);
	len = ossl_esp(&a, pkt, clear, clen, 1, 1);
	h = (struct rte_ipv4_hdr *)pkt;
	h->hdr_checksum ^= rte_cpu_to_be_16(0x0010);
	VT_EXPECT(one_in(&a, pkt, len, &m) == RTE_CRYPTO_OP_STATUS_SUCCESS, "ingress");
	if (m != NULL && m->pkt_len == clen) {
		VT_EXPECT(!ip4_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *)),
			  "ingress: a wrong outer checksum must not come out valid");
		VT_EXPECT(memcmp(rte_pktmbuf_mtod(m, uint8_t *) + 12, clear + 12, clen - 12) == 0,
			  "ingress: addresses and payload");
	}
	rte_pktmbuf_free(m);
out:
	tsa_close(&a);
}

/* The first hlen bytes in one mbuf of mp, then one byte per mbuf: a chain. */
static struct rte_mbuf *
chain_bytes(struct rte_mempool *mp, const uint8_t *b, uint32_t len, uint32_t hlen)
{
	struct rte_mbuf *head = rte_pktmbuf_alloc(mp), *last = head;

	if (head == NULL)
		return NULL;
	memcpy(rte_pktmbuf_append(head, (uint16_t)hlen), b, hlen);
	for (uint32_t off = hlen; off < len; off++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		if (m == NULL || head->nb_segs == UINT16_MAX) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		*(uint8_t *)rte_pktmbuf_append(m, 1) = b[off];
		last->next = m;   /* no rte_pktmbuf_chain(): it walks the chain every time */
		last = m;
		head->nb_segs++;
		head->pkt_len++;
	}
	return head;
}

/*
 * Packets of up to 65k in one-byte segments (the headers in the first):
 * egress gives exactly what a second session with the same key and
 * numbers gives for the same packet in one linear mbuf (and OpenSSL opens
 * it), ingress of the chain gives the clear packet back; tunnel and
 * transport. More than the 1024 segments the old scratch took.
 */
static void
test_long_chains(void)
{
	static uint8_t clear[MAX_PKT], flat[MAX_PKT];
	static const struct {
		enum mode mode;
		uint32_t pl;    /* UDP payload: the ESP packet stays within one 64k mbuf */
	} cases[] = { { M_TRS, 65300 }, { M_TUN4, 65280 }, { M_TUN6, 65260 }, { M_TRS, 1100 } };
	struct rte_mempool *segs, *lin;

	segs = rte_pktmbuf_pool_create("vt_sec_long", UINT16_MAX + 64, 0, 0,
				       RTE_PKTMBUF_HEADROOM + 64, g.socket);
	lin = rte_pktmbuf_pool_create("vt_sec_64k", 4, 0, 0, UINT16_MAX, g.socket);
	VT_EXPECT(segs != NULL && lin != NULL, "pools: %s", rte_strerror(rte_errno));
	if (segs == NULL || lin == NULL)
		goto out;
	for (unsigned int c = 0; c < RTE_DIM(cases); c++) {
		struct tsa a, b;
		struct rte_mbuf *m, *l;
		uint32_t clen = make_ip(clear, false, cases[c].pl, g.seed + c), len;
		uint8_t st, stl;

		tsa_init(&a, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, cases[c].mode,
			 g.seed + 600 + c);
		a.win = 64;
		b = a;
		if (!tsa_open(&a))
			goto out;
		if (!tsa_open(&b)) {
			tsa_close(&a);
			goto out;
		}
		m = chain_bytes(segs, clear, clen, 20);
		l = rte_pktmbuf_alloc(lin);
		VT_EXPECT(m != NULL && l != NULL, "case %u: mbufs", c);
		if (m == NULL || l == NULL) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(l);
			tsa_close(&a);
			tsa_close(&b);
			goto out;
		}
		memcpy(rte_pktmbuf_append(l, (uint16_t)clen), clear, clen);
		run(a.out, &m, 1, &st);
		run(b.out, &l, 1, &stl);
		VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_SUCCESS && stl == RTE_CRYPTO_OP_STATUS_SUCCESS,
			  "case %u: egress of %u segments: status %u (linear %u)", c, m->nb_segs,
			  st, stl);
		len = m->pkt_len;
		VT_EXPECT(len == l->pkt_len && rte_pktmbuf_read(m, 0, len, flat) != NULL &&
			  memcmp(rte_pktmbuf_read(m, 0, len, flat), rte_pktmbuf_mtod(l, uint8_t *),
				 len) == 0,
			  "case %u: chained egress == linear egress (%u bytes)", c, len);
		if (len <= MAX_PKT && rte_pktmbuf_read(m, 0, len, flat) != NULL)
			check_esp(&a, rte_pktmbuf_read(m, 0, len, flat), len, clear, clen, 1);
		run(a.in, &m, 1, &st);
		VT_EXPECT(st == RTE_CRYPTO_OP_STATUS_SUCCESS && m->pkt_len == clen,
			  "case %u: ingress of the chain: status %u, %u bytes want %u", c, st,
			  m->pkt_len, clen);
		if (m->pkt_len == clen)
			VT_EXPECT_MEM(rte_pktmbuf_read(m, 0, clen, flat), clear, clen,
				      "case %u: round trip over one-byte segments", c);
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(l);
		tsa_close(&a);
		tsa_close(&b);
	}
out:
	if (segs != NULL)
		VT_EXPECT(rte_mempool_full(segs), "long chains: mbufs leaked");
	rte_mempool_free(segs);
	rte_mempool_free(lin);
}

static const struct vt_test tests[] = {
	VT_TEST(test_chained),
	VT_TEST(test_two_lcores),
	VT_TEST(test_caps),
	VT_TEST(test_roundtrip),
	VT_TEST(test_esn),
	VT_TEST(test_replay),
	VT_TEST(test_tamper),
	VT_TEST(test_truncated),
	VT_TEST(test_bad_trailer),
	VT_TEST(test_overflow),
	VT_TEST(test_stats_and_wipe),
	VT_TEST(test_key_heap),
	VT_TEST(test_dummy),
	VT_TEST(test_ip4_cksum),
	VT_TEST(test_long_chains),
};

static int
setup(void)
{
	struct rte_cryptodev_config conf = { .nb_queue_pairs = 2 };
	struct rte_cryptodev_qp_conf qc = { .nb_descriptors = 256 };
	int id = rte_cryptodev_get_dev_id(DEV_NAME);
	int bit;

	if (id < 0) {
		printf("no %s: pass --vdev %s\n", DEV_NAME, DEV_NAME);
		return -1;
	}
	g.dev_id = (uint8_t)id;
	g.socket = (int)rte_socket_id();
	g.seed = vt_seed();
	g.ctx = rte_cryptodev_get_sec_ctx(g.dev_id);
	if (g.ctx == NULL) {
		printf("%s has no rte_security context\n", DEV_NAME);
		return -1;
	}
	bit = rte_mbuf_dynflag_lookup(RTE_PMD_VECSEC_DYNFLAG_REPLAY_NAME, NULL);
	g.replay_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
	if (g.replay_flag == 0)
		printf("replay dynflag not registered\n");
	bit = rte_mbuf_dynflag_lookup(RTE_PMD_VECSEC_DYNFLAG_DUMMY_NAME, NULL);
	g.dummy_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
	if (g.dummy_flag == 0)
		printf("dummy dynflag not registered\n");
	g.sess_mp = rte_mempool_create("vt_sec_sess", 63, rte_security_session_get_size(g.ctx),
				       0, 0, NULL, NULL, NULL, NULL, g.socket, 0);
	g.op_mp = rte_crypto_op_pool_create("vt_sec_ops", RTE_CRYPTO_OP_TYPE_SYMMETRIC, NB_OPS,
					    0, 32, g.socket);
	g.mbuf_mp = rte_pktmbuf_pool_create("vt_sec_mbuf", NB_MBUFS, 0, 0,
					    MBUF_ROOM + RTE_PKTMBUF_HEADROOM, g.socket);
	if (g.sess_mp == NULL || g.op_mp == NULL || g.mbuf_mp == NULL) {
		printf("mempools: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	conf.socket_id = g.socket;
	if (rte_cryptodev_configure(g.dev_id, &conf) != 0 ||
	    rte_cryptodev_queue_pair_setup(g.dev_id, 0, &qc, g.socket) != 0 ||
	    rte_cryptodev_queue_pair_setup(g.dev_id, 1, &qc, g.socket) != 0 ||
	    rte_cryptodev_start(g.dev_id) != 0) {
		printf("device setup failed\n");
		return -1;
	}
	return g.replay_flag != 0 && g.dummy_flag != 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	bool no_pci = false;
	int rc;

	for (int i = 1; i < argc; i++)
		no_pci |= strcmp(argv[i], "--no-pci") == 0;
	if (!no_pci) {
		printf("refusing to start EAL without --no-pci\n");
		return 2;
	}
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (setup() != 0) {
		vecsec_eal_cleanup();
		return 1;
	}
	rc = vt_main("pmd_sec", tests, VT_ARRAY_SIZE(tests));
	rte_cryptodev_stop(g.dev_id);
	rte_cryptodev_close(g.dev_id);
	rte_mempool_free(g.sess_mp);
	rte_mempool_free(g.op_mp);
	rte_mempool_free(g.mbuf_mp);
	vecsec_eal_cleanup();
	return rc;
}
