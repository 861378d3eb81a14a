/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw SPD: the rte_acl lookup the data path uses must give exactly
 * the rule the linear reference scan gives (gw_sp_lookup: highest priority,
 * then configuration order), for ipsec-secgw's sample configuration and for
 * seeded random rule sets full of overlaps and equal priorities, on random
 * IPv4/IPv6 tuples (prefix edges, port range edges, fragments, non-port
 * protocols), and after seeded sequences of run-time changes applied on the
 * published ACL (overlay and dead rules) as well as rebuilt from scratch.
 * The worker's SPD flow cache (fcache.h) gives the same answers: a tuple
 * looked up again is answered from it, and an entry of a list that has
 * since been replaced never answers (small caches, so entries collide).
 * Runs EAL with --no-pci --no-huge (rte_acl needs its memory).
 *
 *   test_gw_spd [EAL options] [-- SEED]
 */
#include "gw_dp.h"
#include "fcache.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>

#include "vecsec_eal.h"

struct gw_dp gw;
volatile bool gw_quit;

static uint64_t rng;

static uint32_t
rnd(void)
{
	/* xorshift64*: seeded, reproducible */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* A small pool of networks so that rules overlap and packets hit them. */
static const char *const pool4[] = { "10.0.0.0", "10.1.0.0", "10.1.2.0", "192.168.1.0",
	"172.16.0.0", "0.0.0.0", "10.1.2.128" };
static const char *const pool6[] = { "fd00::", "fd00:1::", "fd00:1:2::", "2001:db8::",
	"::", "fd00:1:2:3::80" };

/*
 * One random sp rule (with its newline) at buf; the length. shape 0: both
 * addresses drawn from the pools; 1: the destination nearly always pool[0]
 * (an inbound list of tunnels: sources tell the rules apart); 2: the
 * source likewise. The SPD builds its ACL with the addresses in either
 * order (acl_addr_order() in sp.c): both get checked.
 */
static size_t
random_sp(char *buf, size_t cap, unsigned int shape)
{
	size_t o = 0;

	{
		bool v6 = rnd() & 1;
		const char *dir = rnd() & 1 ? "out" : "in";
		unsigned int act = rnd() % 4;

		o += (size_t)snprintf(buf + o, cap - o, "sp ipv%c %s esp ", v6 ? '6' : '4', dir);
		if (act == 0)
			o += (size_t)snprintf(buf + o, cap - o, "bypass");
		else if (act == 1)
			o += (size_t)snprintf(buf + o, cap - o, "discard");
		else
			o += (size_t)snprintf(buf + o, cap - o, "protect %u", (v6 ? 5 : 1) + rnd() % 4);
		if (rnd() % 4 != 0)
			o += (size_t)snprintf(buf + o, cap - o, " pri %u", rnd() % 4);
		for (int a = 0; a < 2; a++) {
			bool fixed = shape == (a ? 1u : 2u) && rnd() % 16 != 0;

			if (fixed) {
				o += (size_t)snprintf(buf + o, cap - o, " %s %s/%u", a ? "dst" : "src",
					v6 ? pool6[0] : pool4[0], v6 ? 16 : 8);
				continue;
			}
			if (rnd() % 3 == 0)
				continue;
			if (v6)
				o += (size_t)snprintf(buf + o, cap - o, " %s %s/%u", a ? "dst" : "src",
					pool6[rnd() % RTE_DIM(pool6)], rnd() % 129);
			else
				o += (size_t)snprintf(buf + o, cap - o, " %s %s/%u", a ? "dst" : "src",
					pool4[rnd() % RTE_DIM(pool4)], rnd() % 33);
		}
		if (rnd() % 3 == 0) {
			unsigned int lo = rnd() % 20, hi = lo + rnd() % 3;

			o += (size_t)snprintf(buf + o, cap - o, " proto %u:%u", lo, hi);
		}
		for (int p = 0; p < 2; p++) {
			unsigned int lo = rnd() % 3 == 0 ? 0 : rnd() % 2000, hi = lo + rnd() % 1000;

			if (rnd() % 2 == 0)
				o += (size_t)snprintf(buf + o, cap - o, " %s %u:%u", p ? "dport" : "sport",
					lo, hi > 65535 ? 65535 : hi);
		}
		o += (size_t)snprintf(buf + o, cap - o, "\n");
	}
	return o;
}

static void
random_rules(char *buf, size_t cap, unsigned int nrules, unsigned int shape)
{
	size_t o = 0;
	static const char *const key36 =
		"01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14:15:16:17:18:"
		"19:1a:1b:1c:1d:1e:1f:20:21:22:23:24";

	/* SAs 1..4 carry IPv4, 5..8 IPv6, both directions */
	for (unsigned int spi = 1; spi <= 8; spi++)
		for (int d = 0; d < 2; d++)
			o += (size_t)snprintf(buf + o, cap - o, "sa %s %u aead_algo chacha20-poly1305 "
				"aead_key %s mode transport\n", d ? "out" : "in", spi, key36);
	for (unsigned int i = 0; i < nrules; i++)
		o += random_sp(buf + o, cap - o, shape);
}

/* A random IPv4/IPv6 header + 4 port bytes near the pool networks. */
static uint32_t
random_packet(uint8_t *p, bool v6, uint32_t *l3_len)
{
	static const uint8_t protos[] = { 6, 17, 132, 1, 50, 0, 2, 18, 255 };
	uint8_t proto = rnd() % 4 ? protos[rnd() % RTE_DIM(protos)] : (uint8_t)rnd();
	uint16_t ports[2];

	memset(p, 0, 64);
	for (int i = 0; i < 2; i++) {
		uint32_t r = rnd() % 4;

		ports[i] = r == 0 ? (uint16_t)rnd() : r == 1 ? (uint16_t)(rnd() % 3000) :
			(uint16_t)((rnd() % 3) * 1000 + (rnd() % 3) - 1);
	}
	if (v6) {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;

		h->vtc_flow = rte_cpu_to_be_32(6u << 28);
		h->proto = proto;
		for (int a = 0; a < 2; a++) {
			uint8_t *ad = a ? h->dst_addr : h->src_addr;

			inet_pton(AF_INET6, pool6[rnd() % RTE_DIM(pool6)], ad);
			for (int k = rnd() % 3; k > 0; k--)
				ad[rnd() % 16] ^= (uint8_t)(1u << (rnd() % 8));
		}
		*l3_len = sizeof(*h);
	} else {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;

		h->version_ihl = RTE_IPV4_VHL_DEF;
		h->next_proto_id = proto;
		if (rnd() % 10 == 0)
			h->fragment_offset = rte_cpu_to_be_16(1 + rnd() % 100);
		for (int a = 0; a < 2; a++) {
			uint8_t *ad = (uint8_t *)(a ? &h->dst_addr : &h->src_addr);

			inet_pton(AF_INET, pool4[rnd() % RTE_DIM(pool4)], ad);
			for (int k = rnd() % 3; k > 0; k--)
				ad[rnd() % 4] ^= (uint8_t)(1u << (rnd() % 8));
		}
		*l3_len = sizeof(*h);
	}
	p[*l3_len] = (uint8_t)(ports[0] >> 8);
	p[*l3_len + 1] = (uint8_t)ports[0];
	p[*l3_len + 2] = (uint8_t)(ports[1] >> 8);
	p[*l3_len + 3] = (uint8_t)ports[1];
	/* sometimes too short to hold the ports */
	return *l3_len + (rnd() % 8 == 0 ? 2 : 4);
}

static uint64_t total_hits, total_misses;
static unsigned int lists_dst_first, lists_src_first;

/* The configuration line of rule sp of list spd, -1 for none. */
static int
line_of(const struct gw_spd *spd, const struct gw_sp *sp)
{
	return sp != NULL ? spd->conf[sp - spd->rules].line : -1;
}

/* The action and SA copy a lookup gave match rule r's. */
static bool
same_val(const struct gw_sp *r, const struct gw_sp_val *v)
{
	return v->action == r->action && v->sa == r->sa;
}

/* A cache hit count that stays 0 means the cache was never used: a failure. */
static int
spc_used(const char *name, const struct gw_fc *c)
{
	uint64_t hit, miss;

	gw_fc_counts(c, &hit, &miss);
	printf("%s %s: SPD flow cache %" PRIu64 " hits, %" PRIu64 " misses\n",
	       hit != 0 && miss != 0 ? "ok  " : "FAIL", name, hit, miss);
	return hit == 0 || miss == 0;
}

static int
check_conf(const char *name, const struct gw_conf *conf, unsigned int npkts)
{
	static struct gw_dp dp;
	uint64_t hits = 0, misses = 0, bad = 0;
	/* 64 entries: bursts of up to 32 tuples collide in it */
	struct gw_fc *spc = gw_fc_create("spc", 64, SOCKET_ID_ANY);
	int rc;

	if (spc == NULL) {
		printf("FAIL %s: gw_fc_create\n", name);
		return 1;
	}

	memset(&dp, 0, sizeof(dp));
	dp.sa = calloc(conf->nb_sa + 1, sizeof(*dp.sa));
	if (dp.sa == NULL)
		return 1;
	for (unsigned int i = 0; i < conf->nb_sa; i++) {
		dp.sa[i].active = true;
		dp.sa[i].spi = conf->sa[i].spi;
		dp.sa[i].dir = conf->sa[i].dir;
	}
	dp.nb_sa = conf->nb_sa;
	if (gw_sp_build(&dp, conf, dp.spd) != 0) {
		printf("FAIL %s: gw_sp_build\n", name);
		free(dp.sa);
		return 1;
	}
	for (int v6 = 0; v6 < 2; v6++) {
		for (uint8_t dir = 0; dir < 2; dir++) {
			if (dp.spd[v6][dir]->n > 1) {
				lists_dst_first += dp.spd[v6][dir]->acl->dst_first;
				lists_src_first += !dp.spd[v6][dir]->acl->dst_first;
			}
			for (unsigned int done = 0; done < npkts; done += GW_BURST) {
				uint8_t pk[GW_BURST][64];
				const uint8_t *l3[GW_BURST];
				uint32_t l3_len[GW_BURST], pkt_len[GW_BURST];
				const struct gw_sp *got[GW_BURST], *got_c1[GW_BURST], *got_c2[GW_BURST];
				struct gw_sp_val v0[GW_BURST], v1[GW_BURST], v2[GW_BURST];
				uint16_t n = (uint16_t)(1 + rnd() % GW_BURST);

				for (uint16_t i = 0; i < n; i++) {
					pkt_len[i] = random_packet(pk[i], v6, &l3_len[i]);
					l3[i] = pk[i];
				}
				gw_sp_lookup_bulk(&dp, NULL, v6, dir, l3, l3_len, pkt_len, n, got, v0);
				/* the cache: a first look (misses), then again (hits) */
				gw_sp_lookup_bulk(&dp, spc, v6, dir, l3, l3_len, pkt_len, n, got_c1,
						  v1);
				gw_sp_lookup_bulk(&dp, spc, v6, dir, l3, l3_len, pkt_len, n, got_c2,
						  v2);
				for (uint16_t i = 0; i < n; i++) {
					const struct gw_sp *want = gw_sp_lookup(&dp, v6, dir, l3[i],
						l3_len[i], pkt_len[i]);

					/* the copies the data path reads instead of the rule */
					if (want != NULL && (!same_val(want, &v0[i]) ||
							     !same_val(want, &v1[i]) ||
							     !same_val(want, &v2[i])) && bad++ < 5)
						printf("FAIL %s: ipv%c %s: rule line %d: action/SA "
							"copies %u/%p %u/%p %u/%p, rule %u/%p\n", name,
							v6 ? '6' : '4', dir ? "out" : "in",
							line_of(dp.spd[v6][dir], want), v0[i].action,
							(void *)v0[i].sa, v1[i].action, (void *)v1[i].sa,
							v2[i].action, (void *)v2[i].sa, want->action,
							(void *)want->sa);

					if (want != got_c1[i] || want != got_c2[i]) {
						if (bad++ < 5)
							printf("FAIL %s: ipv%c %s: cached rule line %d "
								"then %d, linear rule line %d\n", name,
								v6 ? '6' : '4', dir ? "out" : "in",
								line_of(dp.spd[v6][dir], got_c1[i]),
								line_of(dp.spd[v6][dir], got_c2[i]),
								line_of(dp.spd[v6][dir], want));
					}
					if (want != got[i]) {
						if (bad++ < 5)
							printf("FAIL %s: ipv%c %s: acl rule line %d, "
								"linear rule line %d\n", name, v6 ? '6' : '4',
								dir ? "out" : "in",
								line_of(dp.spd[v6][dir], got[i]),
								line_of(dp.spd[v6][dir], want));
					}
					if (want != NULL)
						hits++;
					else
						misses++;
				}
			}
		}
	}
	printf("%s %s: %u SP rules, %" PRIu64 " tuples matched, %" PRIu64 " unmatched, %" PRIu64
		" differences\n", bad ? "FAIL" : "ok  ", name, conf->nb_sp, hits, misses, bad);
	gw_sp_free(dp.spd);
	free(dp.sa);
	total_hits += hits;
	total_misses += misses;
	rc = spc_used(name, spc);
	gw_fc_free(spc);
	return bad != 0 || rc != 0;
}

static bool
ref_prefix(const uint8_t *a, const uint8_t *net, unsigned int len)
{
	for (unsigned int b = 0; b < len; b++)
		if (((a[b / 8] ^ net[b / 8]) >> (7 - b % 8)) & 1)
			return false;
	return true;
}

/*
 * An independent reference for check_incremental: the configuration's rules
 * of (v6, dir) in rank order (priority, then line), the first that matches
 * random_packet()'s simple headers (no IPv6 extensions).
 */
static const struct gw_sp_conf *
ref_lookup(const struct gw_conf *conf, bool v6, uint8_t dir, const uint8_t *l3, uint32_t l3_len,
	   uint32_t pkt_len)
{
	const uint8_t *src = l3 + (v6 ? 8 : 12), *dst = l3 + (v6 ? 24 : 16);
	uint8_t proto = v6 ? l3[6] : l3[9];
	uint16_t sport = 0, dport = 0;
	const struct gw_sp_conf *best = NULL;
	bool first = v6 || (rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)l3)->fragment_offset) &
			    RTE_IPV4_HDR_OFFSET_MASK) == 0;

	if (first && (proto == 6 || proto == 17 || proto == 132) && pkt_len >= l3_len + 4) {
		sport = (uint16_t)(l3[l3_len] << 8 | l3[l3_len + 1]);
		dport = (uint16_t)(l3[l3_len + 2] << 8 | l3[l3_len + 3]);
	}
	for (unsigned int i = 0; i < conf->nb_sp; i++) {
		const struct gw_sp_conf *r = &conf->sp[i];

		if (r->v6 != v6 || r->dir != dir || proto < r->proto_lo || proto > r->proto_hi ||
				sport < r->sport_lo || sport > r->sport_hi || dport < r->dport_lo ||
				dport > r->dport_hi || !ref_prefix(src, r->src.b, r->src_len) ||
				!ref_prefix(dst, r->dst.b, r->dst_len))
			continue;
		if (best == NULL || r->pri > best->pri || (r->pri == best->pri && r->line < best->line))
			best = r;
	}
	return best;
}

static bool
same_answer(const struct gw_spd *spd, const struct gw_sp *a, const struct gw_sp_conf *want)
{
	if (a == NULL || want == NULL)
		return a == NULL && want == NULL;
	return !a->dead && line_of(spd, a) == want->line && a->action == want->action &&
		(want->action != GW_SP_PROTECT || (a->sa != NULL && a->sa->spi == want->spi));
}

/*
 * Run-time changes on the published ACL (gw_sp_update: dead base rules and
 * an overlay instead of a rebuild): after each of a seeded sequence of
 * changes (rules added, removed, given another action or priority; a burst
 * of additions that outgrows the overlay; an idle compaction now and then),
 * the published lists answer every tuple as a plain scan of the
 * configuration does, through the ACL (bulk) and their own linear scan.
 */
static int
check_incremental(void)
{
	static struct gw_conf conf;
	static struct gw_dp dp;
	static char text[1 << 18];
	struct gw_spd *pub[2][2], *upd[2][2];
	unsigned int reused = 0, rebuilt = 0, steps = 150;
	uint64_t bad = 0, hits = 0;
	/*
	 * The same tuples after every change, through a cache kept across the
	 * changes: its entries from the lists before must not answer.
	 */
	static uint8_t fpk[2][GW_BURST][64];
	const uint8_t *fl3[2][GW_BURST];
	uint32_t fl3_len[2][GW_BURST], fpkt_len[2][GW_BURST];
	struct gw_fc *spc = gw_fc_create("spc", 128, SOCKET_ID_ANY);
	int rc;

	if (spc == NULL) {
		printf("FAIL incremental: gw_fc_create\n");
		return 1;
	}
	for (int v6 = 0; v6 < 2; v6++)
		for (uint16_t i = 0; i < GW_BURST; i++) {
			fpkt_len[v6][i] = random_packet(fpk[v6][i], v6, &fl3_len[v6][i]);
			fl3[v6][i] = fpk[v6][i];
		}
	int line = 100000;
	char err[512];

	memset(&conf, 0, sizeof(conf));
	memset(&dp, 0, sizeof(dp));
	random_rules(text, sizeof(text), 60, 0);
	if (gw_conf_parse_string(&conf, "<incr>", text, err, sizeof(err)) != 0) {
		printf("FAIL incremental: %s\n", err);
		return 1;
	}
	dp.sa = calloc(conf.nb_sa + 1, sizeof(*dp.sa));
	if (dp.sa == NULL)
		return 1;
	for (unsigned int i = 0; i < conf.nb_sa; i++) {
		dp.sa[i].active = true;
		dp.sa[i].spi = conf.sa[i].spi;
		dp.sa[i].dir = conf.sa[i].dir;
	}
	dp.nb_sa = conf.nb_sa;
	if (gw_sp_build(&dp, &conf, pub) != 0) {
		printf("FAIL incremental: gw_sp_build\n");
		return 1;
	}
	for (unsigned int step = 0; step < steps && bad == 0; step++) {
		unsigned int what = rnd() % 10, j = conf.nb_sp ? rnd() % conf.nb_sp : 0;
		unsigned int adds = step == steps / 2 ? 150 : what < 4 || conf.nb_sp < 20 ? 1 : 0;

		for (unsigned int a = 0; a < adds; a++) {
			random_sp(text, sizeof(text), 0);
			if (gw_conf_parse_string(&conf, "<incr>", text, err, sizeof(err)) != 0) {
				printf("FAIL incremental: %s\n", err);
				return 1;
			}
			conf.sp[conf.nb_sp - 1].line = ++line;
		}
		if (adds == 0 && what < 6) {                    /* remove */
			memmove(&conf.sp[j], &conf.sp[j + 1], (conf.nb_sp - j - 1) * sizeof(conf.sp[0]));
			conf.nb_sp--;
		} else if (adds == 0 && what < 9) {             /* replace sp: new action, same place */
			struct gw_sp_conf *r = &conf.sp[j];

			r->action = rnd() % 3 == 0 ? GW_SP_BYPASS : GW_SP_PROTECT;
			r->spi = r->action == GW_SP_PROTECT ? (r->v6 ? 5 : 1) + rnd() % 4 : 0;
		} else if (adds == 0) {                         /* another priority */
			conf.sp[j].pri = (int32_t)(rnd() % 4);
		}
		/* every 40th: the control thread's idle compaction (a build from scratch) */
		if (gw_sp_update(&dp, &conf, step % 40 == 39 ? NULL : pub, GW_SPD_ALL, upd) != 0) {
			printf("FAIL incremental step %u: build\n", step);
			return 1;
		}
		for (int v6 = 0; v6 < 2; v6++)
			for (int dir = 0; dir < 2; dir++) {
				if (upd[v6][dir]->n == 0)
					continue;
				if (upd[v6][dir]->acl == pub[v6][dir]->acl)
					reused++;
				else
					rebuilt++;
			}
		gw_sp_free(pub);
		memcpy(pub, upd, sizeof(pub));
		memcpy(dp.spd, pub, sizeof(pub));
		for (int v6 = 0; v6 < 2; v6++) {
			for (uint8_t dir = 0; dir < 2; dir++) {
				uint8_t pk[GW_BURST][64];
				const uint8_t *l3[GW_BURST];
				uint32_t l3_len[GW_BURST], pkt_len[GW_BURST];
				const struct gw_sp *got[GW_BURST], *got_c[GW_BURST];
				struct gw_sp_val vc[GW_BURST];

				for (uint16_t i = 0; i < GW_BURST; i++) {
					pkt_len[i] = random_packet(pk[i], v6, &l3_len[i]);
					l3[i] = pk[i];
				}
				gw_sp_lookup_bulk(&dp, NULL, v6, dir, l3, l3_len, pkt_len, GW_BURST, got,
						  NULL);
				/* the fixed tuples, twice, through the long-lived cache */
				for (int twice = 0; twice < 2; twice++) {
					gw_sp_lookup_bulk(&dp, spc, v6, dir, fl3[v6], fl3_len[v6],
							  fpkt_len[v6], GW_BURST, got_c, vc);
					for (uint16_t i = 0; i < GW_BURST; i++) {
						const struct gw_sp_conf *want = ref_lookup(&conf, v6,
							dir, fl3[v6][i], fl3_len[v6][i],
							fpkt_len[v6][i]);

						if ((!same_answer(dp.spd[v6][dir], got_c[i], want) ||
						     (got_c[i] != NULL &&
						      !same_val(got_c[i], &vc[i]))) && bad++ < 5)
							printf("FAIL incremental step %u ipv%c %s: "
								"cached line %d, reference line %d\n",
								step, v6 ? '6' : '4', dir ? "out" : "in",
								line_of(dp.spd[v6][dir], got_c[i]),
								want ? want->line : -1);
					}
				}
				for (uint16_t i = 0; i < GW_BURST; i++) {
					const struct gw_sp *mine = gw_sp_lookup(&dp, v6, dir, l3[i],
						l3_len[i], pkt_len[i]);
					const struct gw_sp_conf *want = ref_lookup(&conf, v6, dir, l3[i],
						l3_len[i], pkt_len[i]);

					hits += want != NULL;
					if (!same_answer(dp.spd[v6][dir], got[i], want) ||
					    !same_answer(dp.spd[v6][dir], mine, want)) {
						if (bad++ < 5)
							printf("FAIL incremental step %u ipv%c %s: bulk line %d, "
								"scan line %d, reference line %d\n", step,
								v6 ? '6' : '4', dir ? "out" : "in",
								line_of(dp.spd[v6][dir], got[i]),
								line_of(dp.spd[v6][dir], mine),
								want ? want->line : -1);
					}
				}
			}
		}
	}
	memset(dp.spd, 0, sizeof(dp.spd));
	gw_sp_free(pub);
	free(dp.sa);
	gw_conf_wipe(&conf);
	rc = spc_used("incremental", spc);
	gw_fc_free(spc);
	printf("%s incremental: %u changes, lists reused their ACL %u times, rebuilt %u, %" PRIu64
		" tuples matched, %" PRIu64 " differences\n",
		bad || reused == 0 || rebuilt == 0 ? "FAIL" : "ok  ", steps, reused, rebuilt, hits,
		bad);
	return bad != 0 || reused == 0 || rebuilt == 0 || rc != 0;
}

/*
 * `replace sp` (ctrl.c) leaves an inbound rule's previous SA in spi_prev:
 * the build resolves it to that SA while it is up (the data path accepts
 * both), to NULL once it is gone or for outbound rules, never an error.
 */
static int
check_prev(void)
{
	static struct gw_conf conf;
	static struct gw_dp dp;
#define PREV_KEY "01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14:15:16:17:18:" \
	"19:1a:1b:1c:1d:1e:1f:20:21:22:23:24"
	static const char *const text =
		"sa in 5 aead_algo chacha20-poly1305 aead_key " PREV_KEY " mode transport\n"
		"sa in 6 aead_algo chacha20-poly1305 aead_key " PREV_KEY " mode transport\n"
		"sa out 5 aead_algo chacha20-poly1305 aead_key " PREV_KEY " mode transport\n"
		"sa out 6 aead_algo chacha20-poly1305 aead_key " PREV_KEY " mode transport\n"
		"sp ipv4 in esp protect 5 pri 1 dst 10.0.0.0/8\n"
		"sp ipv4 out esp protect 5 pri 1 dst 10.0.0.0/8\n";
	char err[512];
	int fails = 0;

	memset(&conf, 0, sizeof(conf));
	memset(&dp, 0, sizeof(dp));
	if (gw_conf_parse_string(&conf, "<prev>", text, err, sizeof(err)) != 0) {
		printf("FAIL prev: %s\n", err);
		return 1;
	}
	dp.sa = calloc(4, sizeof(*dp.sa));
	if (dp.sa == NULL)
		return 1;
	/* SAs in 5, in 6, out 5, out 6 (the configuration's slots); both rules now */
	/* protect with 6, had 5 */
	for (unsigned int i = 0; i < 4; i++) {
		dp.sa[i].active = true;
		dp.sa[i].spi = 5 + (i & 1);
		dp.sa[i].dir = i < 2 ? GW_DIR_IN : GW_DIR_OUT;
	}
	dp.nb_sa = 4;
	for (unsigned int j = 0; j < conf.nb_sp; j++) {
		conf.sp[j].spi = 6;
		conf.sp[j].spi_prev = 5;
	}
	for (int round = 0; round < 3; round++) {
		const struct gw_sa *want_prev = round == 0 ? &dp.sa[0] : NULL;
		const struct gw_sp *in, *out;

		if (round == 1)
			dp.sa[0].active = false;        /* `del sa in 5` */
		if (round == 2)
			conf.sp[0].spi_prev = 99;       /* an SA that never was */
		if (gw_sp_build(&dp, &conf, dp.spd) != 0) {
			printf("FAIL prev round %d: gw_sp_build\n", round);
			fails++;
			continue;
		}
		in = &dp.spd[0][GW_DIR_IN]->rules[0];
		out = &dp.spd[0][GW_DIR_OUT]->rules[0];
		if (in->sa != &dp.sa[1] || in->sa_prev != want_prev || out->sa != &dp.sa[3] ||
				out->sa_prev != NULL) {
			printf("FAIL prev round %d: in sa %p prev %p, out sa %p prev %p\n", round,
				(const void *)in->sa, (const void *)in->sa_prev, (const void *)out->sa,
				(const void *)out->sa_prev);
			fails++;
		}
		gw_sp_free(dp.spd);
	}
	printf("%s prev: inbound rule accepts the previous SA while it is up, not after, "
		"outbound never\n", fails ? "FAIL" : "ok  ");
	free(dp.sa);
	gw_conf_wipe(&conf);
	return fails;
}

/*
 * The flow cache's two ways (fcache.h), on a cache of one set: two keys of a
 * set both answer; a third drops the older; a refill of the key in way 0
 * keeps the other; an answer of an older generation answers nothing, and
 * taking its place does not push out a current one.
 */
static int
check_fc_ways(void)
{
	struct gw_fc *c = gw_fc_create("fcw", 2, SOCKET_ID_ANY);
	uint64_t k[4][GW_FC_KEY / 8];
	int a = 0x11, b = 0x22, d = 0x33, bad = 0;
	struct gw_fc_ent *set;
	const struct gw_fc_ent *h;

	if (c == NULL) {
		printf("FAIL fc ways: gw_fc_create\n");
		return 1;
	}
	memset(k, 0, sizeof(k));
	for (int i = 0; i < 4; i++)
		k[i][0] = 0x1000 + (uint64_t)i;
	set = gw_fc_slot(c, k[0]);
	for (int i = 1; i < 4; i++)
		bad += gw_fc_slot(c, k[i]) != set;     /* one set: every key lands in it */
	gw_fc_fill(set, 5, k[0], &a, 1);
	gw_fc_fill(set, 5, k[1], &b, 2);
	h = gw_fc_hit(set, 5, k[0]);
	bad += h == NULL || h->ans != &a || h->aux != 1;
	h = gw_fc_hit(set, 5, k[1]);
	bad += h == NULL || h->ans != &b || h->aux != 2;
	gw_fc_fill(set, 5, k[1], &b, 3);                /* refill of way 0: k0 stays */
	h = gw_fc_hit(set, 5, k[0]);
	bad += h == NULL || h->ans != &a;
	h = gw_fc_hit(set, 5, k[1]);
	bad += h == NULL || h->aux != 3;
	gw_fc_fill(set, 5, k[2], &d, 4);                /* k0, the older, goes */
	bad += gw_fc_hit(set, 5, k[0]) != NULL;
	bad += gw_fc_hit(set, 5, k[1]) == NULL || gw_fc_hit(set, 5, k[2]) == NULL;
	bad += gw_fc_hit(set, 6, k[1]) != NULL || gw_fc_hit(set, 6, k[2]) != NULL;
	/* generation 6: k2's stale answer in way 0 is replaced, k3 stays with k1 */
	gw_fc_fill(set, 6, k[1], &b, 5);
	gw_fc_fill(set, 6, k[3], &d, 6);
	h = gw_fc_hit(set, 6, k[1]);
	bad += h == NULL || h->aux != 5;
	h = gw_fc_hit(set, 6, k[3]);
	bad += h == NULL || h->aux != 6;
	bad += gw_fc_hit(set, 6, k[2]) != NULL || gw_fc_hit(set, 6, k[0]) != NULL;
	bad += gw_fc_mem(c) < 2 * sizeof(struct gw_fc_ent);
	gw_fc_free(c);
	printf("%s fc ways: two keys of a set answer, the older of three goes, stale answers "
	       "do not (%d wrong)\n", bad ? "FAIL" : "ok  ", bad);
	return bad != 0;
}

int
main(int argc, char **argv)
{
	static struct gw_conf conf;
	static char text[1 << 20];
	char err[512];
	uint64_t seed = 1;
	int n, fails = 0;

	/* before EAL, which may reorder argv */
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			seed = strtoull(argv[i + 1], NULL, 0);
	n = rte_eal_init(argc, argv);
	if (n < 0) {
		printf("FAIL: EAL init\n");
		return 1;
	}
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	printf("seed %" PRIu64 "\n", seed);

	if (gw_conf_parse_file(&conf, "/usr/share/dpdk/examples/ipsec-secgw/ep0.cfg", 0, err,
			sizeof(err)) != 0) {
		printf("FAIL: %s\n", err);
		fails++;
	} else {
		fails += check_conf("ep0.cfg", &conf, 4000);
	}
	gw_conf_wipe(&conf);
	for (unsigned int round = 0; round < 6; round++) {
		char name[32];

		random_rules(text, sizeof(text), round == 0 ? 3 : 40 + 120 * round, round % 3);
		if (gw_conf_parse_string(&conf, "<random>", text, err, sizeof(err)) != 0) {
			printf("FAIL: generated rules do not parse: %s\n", err);
			fails++;
			continue;
		}
		snprintf(name, sizeof(name), "random-%u", round);
		fails += check_conf(name, &conf, 4000);
		gw_conf_wipe(&conf);
	}
	fails += check_prev();
	fails += check_incremental();
	fails += check_fc_ways();
	vecsec_eal_cleanup();
	/* both address orders of the ACL were built and checked */
	if (lists_dst_first == 0 || lists_src_first == 0) {
		printf("FAIL: ACLs with the destination first %u, the source first %u\n",
		       lists_dst_first, lists_src_first);
		fails++;
	}
	/* tuples that never match (or always do) would prove nothing */
	if (total_hits == 0 || total_misses == 0) {
		printf("FAIL: %" PRIu64 " matched, %" PRIu64 " unmatched in all\n", total_hits,
			total_misses);
		fails++;
	}
	printf("%s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
