/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket commands for IKE daemons (the strongSwan plugin
 * kernel-vecsec, drivers/strongswan/): hello, spi alloc, query sa, flush
 * owner, bypass|natt udp, host; their state (SPI reservations, the ports'
 * owners) lives here, every SA and SP change goes to the change engine
 * (cp.c). The protocol: docs/control-protocol.md.
 */
#include "gw_dp.h"
#include "gw_pkt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include "cp.h"
#include "ctrl_ike.h"

struct spi_res {
	uint32_t spi;
	uint8_t owner;
	uint64_t expires_ms;    /* CLOCK_MONOTONIC; UINT64_MAX: never (--spi-timeout 0) */
};

/* inbound SPIs reserved by `spi alloc`, unordered, an array that grows; control thread only */
static struct spi_res *res;
static unsigned int nb_res, cap_res;
static uint64_t boot_id;
unsigned int gw_spi_timeout_s = GW_SPI_TIMEOUT_S_DEFAULT;

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Forget the reservations past --spi-timeout: a client that reserves and
 * never adds nor deletes (a daemon that died in an exchange, or one that
 * hoards) must not keep the table full for good. O(reservations), at each
 * 1.2 request: as cheap as the lookups spi alloc does anyway.
 */
static void
res_expire(void)
{
	uint64_t now = mono_ms();

	for (unsigned int i = 0; i < nb_res;) {
		if (res[i].expires_ms <= now)
			res[i] = res[--nb_res];
		else
			i++;
	}
}

/*
 * The registered ports' owners (0: none, such a port stays until deleted),
 * by slot of gw_host_bypass_ports and gw_natt_ports; control thread only.
 */
static uint8_t port_owner[2][GW_HOST_MAX_BYPASS > GW_NATT_MAX_PORTS ? GW_HOST_MAX_BYPASS :
			     GW_NATT_MAX_PORTS];

static int
res_find(uint32_t spi)
{
	for (unsigned int i = 0; i < nb_res; i++)
		if (res[i].spi == spi)
			return (int)i;
	return -1;
}

void
gw_ike_reset(void)
{
	nb_res = 0;
	memset(port_owner, 0, sizeof(port_owner));
}

bool
gw_ike_spi_release(uint8_t dir, uint32_t spi)
{
	int i = dir == GW_DIR_IN ? res_find(spi) : -1;

	if (i < 0)
		return false;
	res[i] = res[--nb_res];
	return true;
}

/*
 * The owner table is full: free the names nothing carries any more, so that
 * names tagged only on reservations that expired, or on SAs and rules since
 * deleted, do not fill it for good. Every holder of an owner id must be
 * marked here: the SAs and SP rules of the live configuration (the control
 * thread holds the control-plane lock: no reload is half-way), the
 * reservations and the bypass and NAT-T ports.
 */
static void
owner_sweep(void)
{
	const struct gw_conf *c = gw.conf;
	bool used[GW_MAX_OWNERS] = { false };

	for (unsigned int i = 0; i < c->nb_sa; i++)
		if (!c->sa[i].deleted)
			used[c->sa[i].owner] = true;
	for (unsigned int i = 0; i < gw.nb_sa; i++)
		if (gw.sa[i].active)
			used[gw.sa_cold[i].owner] = true;
	for (unsigned int j = 0; j < c->nb_sp; j++)
		used[c->sp[j].owner] = true;
	for (unsigned int i = 0; i < nb_res; i++)
		used[res[i].owner] = true;
	for (int k = 0; k < 2; k++)
		for (unsigned int i = 0; i < RTE_DIM(port_owner[k]); i++)
			used[port_owner[k][i]] = true;
	gw_owner_forget(used);
}

static bool
spi_free(uint32_t spi)
{
	return spi != 0 && res_find(spi) < 0 && gw_conf_find_sa(gw.conf, GW_DIR_IN, spi) == NULL;
}

static int
cmd_spi_alloc(const char *line, FILE *out, char *err, size_t err_len)
{
	unsigned long long lo, hi;
	char owner[GW_OWNER_LEN + 1] = "", tail[2] = "";
	int n, id = 0;
	uint32_t spi = 0;

	n = sscanf(line, "spi alloc %llu %llu owner %32s %1s", &lo, &hi, owner, tail);
	if (n < 2 || n == 4 || (n == 2 && sscanf(line, "spi alloc %*u %*u %1s", tail) == 1) ||
			lo == 0 || hi > UINT32_MAX || lo > hi) {
		snprintf(err, err_len, "usage: spi alloc MIN MAX [owner NAME], 1 <= MIN <= MAX "
			 "<= 4294967295");
		return -EINVAL;
	}
	if (n == 3 && (id = gw_owner_id(owner)) < 0) {
		owner_sweep();          /* full? names nothing carries come free */
		id = gw_owner_id(owner);
	}
	if (n == 3 && id < 0) {
		snprintf(err, err_len, "bad owner name (or too many owners)");
		return -EINVAL;
	}
	/* as many reservations as the SA table has slots (each is for an SA to come) */
	if (nb_res >= RTE_MAX(gw.max_sa, 4096u)) {
		snprintf(err, err_len, "%u SPIs reserved already", nb_res);
		return -ENOSPC;
	}
	if (nb_res == cap_res) {
		unsigned int ncap = cap_res != 0 ? 2 * cap_res : 256;
		struct spi_res *n = realloc(res, ncap * sizeof(*n));

		if (n == NULL) {
			snprintf(err, err_len, "out of memory");
			return -ENOMEM;
		}
		res = n;
		cap_res = ncap;
	}
	/* random first (unpredictable SPIs), then a scan from a random start */
	for (unsigned int t = 0; t < 64 && spi == 0; t++) {
		uint32_t c = (uint32_t)(lo + rte_rand_max(hi - lo + 1));

		if (spi_free(c))
			spi = c;
	}
	if (spi == 0) {
		uint64_t span = hi - lo + 1, start = rte_rand_max(span);

		/* nb_res + 1 + the inbound SAs candidates in a row hold a free one, if any */
		uint64_t tries = (uint64_t)nb_res + gw.conf->nb_live_sa + 2;

		for (uint64_t k = 0; k < span && k < tries && spi == 0; k++) {
			uint32_t c = (uint32_t)(lo + (start + k) % span);

			if (spi_free(c))
				spi = c;
		}
	}
	if (spi == 0) {
		snprintf(err, err_len, "no free SPI in %llu..%llu", lo, hi);
		return -ENOSPC;
	}
	res[nb_res].spi = spi;
	res[nb_res].owner = (uint8_t)id;
	res[nb_res].expires_ms = gw_spi_timeout_s == 0 ? UINT64_MAX :
		mono_ms() + (uint64_t)gw_spi_timeout_s * 1000;
	nb_res++;
	fprintf(out, "spi %u\n", spi);
	return 0;
}

static int
cmd_query_sa(const char *line, FILE *out, char *err, size_t err_len)
{
	char dir[4] = "", tail[2] = "";
	unsigned long long spi;
	const struct gw_sa_conf *sc;
	const struct gw_sa *s;
	struct gw_sa_stats st;
	uint64_t last, now_tsc, last_s = 0;
	struct timespec ts;

	if (sscanf(line, "query sa %3s %llu %1s", dir, &spi, tail) != 2 ||
			(strcmp(dir, "in") != 0 && strcmp(dir, "out") != 0) || spi > UINT32_MAX) {
		snprintf(err, err_len, "usage: query sa in|out SPI");
		return -EINVAL;
	}
	sc = gw_conf_find_sa(gw.conf, dir[0] == 'i' ? GW_DIR_IN : GW_DIR_OUT, (uint32_t)spi);
	s = sc != NULL ? &gw.sa[sc - gw.conf->sa] : NULL;
	if (s == NULL || !s->active) {
		snprintf(err, err_len, "no SA %s %llu", dir, spi);
		return -ENOENT;
	}
	gw_stats_sa_sum(&gw, (unsigned int)(sc - gw.conf->sa), &st);
	last = st.last_tsc;
	now_tsc = rte_rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (last != 0) {
		uint64_t ago = now_tsc > last ? (now_tsc - last) / rte_get_tsc_hz() : 0;

		last_s = (uint64_t)ts.tv_sec > ago ? (uint64_t)ts.tv_sec - ago : 1;
	}
	fprintf(out, "sa %s %llu packets %" PRIu64 " bytes %" PRIu64 " last-use %" PRIu64
		" soft-expired %u hard-expired %u\n", dir, spi, st.pkts, st.bytes, last_s,
		__atomic_load_n(&s->soft_sent, __ATOMIC_RELAXED),
		__atomic_load_n(&s->hard_sent, __ATOMIC_RELAXED));
	return 0;
}

static unsigned int ports_flush(int id);

/* Everything tagged with one owner, out in one SPD swap and one grace period. */
static int
cmd_flush(const char *line, FILE *out, char *err, size_t err_len)
{
	char name[GW_OWNER_LEN + 1] = "", tail[2] = "";
	unsigned int nsa = 0, nsp = 0, nres = 0;
	uint32_t *gone;
	int id, rc;

	if (sscanf(line, "flush owner %32s %1s", name, tail) != 1) {
		snprintf(err, err_len, "usage: flush owner NAME");
		return -EINVAL;
	}
	/* only a known name: flushing must not fill the owner table */
	id = gw_owner_find(name);
	if (id == -EINVAL) {
		snprintf(err, err_len, "bad owner name");
		return -EINVAL;
	}
	if (id < 0) {           /* nothing was ever tagged with it: nothing to flush */
		fprintf(out, "flushed 0 SA, 0 SP, 0 SPI\n");
		return 0;
	}
	gone = malloc(((size_t)gw.conf->nb_sa + 1) * sizeof(*gone));
	if (gone == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nb_res;) {
		if (res[i].owner == id) {
			res[i] = res[--nb_res];
			nres++;
		} else {
			i++;
		}
	}
	rc = gw_cp_flush_owner(id, gone, &nsa, &nsp, err, err_len);
	free(gone);
	if (rc == 0) {
		unsigned int nport = ports_flush(id);

		/* the answer as 1.2 had it (the ports: `host` lists what is left) */
		fprintf(out, "flushed %u SA, %u SP, %u SPI\n", nsa, nsp, nres);
		printf("vecsec-gw: control: flushed owner %s: %u SA, %u SP, %u SPI, %u UDP port\n",
		       name, nsa, nsp, nres, nport);
	}
	return rc;
}

static uint16_t *
port_set(bool natt, unsigned int *max)
{
	*max = natt ? GW_NATT_MAX_PORTS : GW_HOST_MAX_BYPASS;
	return natt ? gw_natt_ports : gw_host_bypass_ports;
}

/* The ports of owner id out of both sets; how many. */
static unsigned int
ports_flush(int id)
{
	unsigned int n = 0, max;

	for (int k = 0; k < 2 && id > 0; k++) {
		uint16_t *set = port_set(k, &max);

		for (unsigned int i = 0; i < max; i++)
			if (set[i] != 0 && port_owner[k][i] == id) {
				/* a hole: the workers read the whole set */
				__atomic_store_n(&set[i], 0, __ATOMIC_RELEASE);
				port_owner[k][i] = 0;
				n++;
			}
	}
	return n;
}

/* bypass|natt udp PORT [owner NAME] | bypass|natt udp PORT del */
static int
cmd_port(const char *line, bool natt, char *err, size_t err_len)
{
	const char *what = natt ? "natt" : "bypass";
	char w0[8], w3[8] = "", name[GW_OWNER_LEN + 1] = "", tail[2] = "";
	unsigned long port;
	unsigned int max;
	uint16_t *set = port_set(natt, &max), be;
	int n, id = 0, at = -1;

	n = sscanf(line, "%7s udp %lu %7s %32s %1s", w0, &port, w3, name, tail);
	if ((n == 3 && strcmp(w3, "del") != 0) || (n == 4 && strcmp(w3, "owner") != 0) ||
			n < 2 || n > 4 || port == 0 || port > UINT16_MAX) {
		snprintf(err, err_len, "usage: %s udp PORT [owner NAME] | %s udp PORT del", what,
			 what);
		return -EINVAL;
	}
	be = rte_cpu_to_be_16((uint16_t)port);
	for (unsigned int i = 0; i < max; i++)
		if (set[i] == be)
			at = (int)i;
	if (n == 3) {                   /* del */
		if (natt && port == GW_NATT_PORT) {
			snprintf(err, err_len, "NAT-T port %d is built in", GW_NATT_PORT);
			return -EINVAL;
		}
		if (at < 0) {
			snprintf(err, err_len, "no %s port %lu", what, port);
			return -ENOENT;
		}
		__atomic_store_n(&set[at], 0, __ATOMIC_RELEASE);
		port_owner[natt][at] = 0;
		return 0;
	}
	if (n == 4 && (id = gw_owner_id(name)) < 0) {
		owner_sweep();          /* full? names nothing carries come free */
		id = gw_owner_id(name);
	}
	if (n == 4 && id < 0) {
		snprintf(err, err_len, "bad owner name (or too many owners)");
		return -EINVAL;
	}
	if (at >= 0) {
		/* a second owner (or none, or the built-in 4500): nobody's, kept until deleted */
		if (port_owner[natt][at] != id)
			port_owner[natt][at] = 0;
		return 0;
	}
	for (unsigned int i = 0; i < max; i++)
		if (set[i] == 0) {
			port_owner[natt][i] = (uint8_t)id;
			__atomic_store_n(&set[i], be, __ATOMIC_RELEASE);
			return 0;
		}
	snprintf(err, err_len, "too many %s ports (%u)", natt ? "NAT-T" : "bypass", max);
	return -ENOSPC;
}

bool
gw_ctrl_ike(const char *w0, const char *w1, const char *line, FILE *out, char *err,
	    size_t err_len, int *rc)
{
	if (boot_id == 0)
		boot_id = rte_rand() | 1;
	res_expire();
	if (strcmp(w0, "hello") == 0) {
		fprintf(out, "version %s\nboot %016" PRIx64 "\nhost %s\n", GW_CTRL_VERSION, boot_id,
			gw_host_on ? "on" : "off");
		*rc = 0;
	} else if (strcmp(w0, "spi") == 0 && strcmp(w1, "alloc") == 0) {
		*rc = cmd_spi_alloc(line, out, err, err_len);
	} else if (strcmp(w0, "query") == 0 && strcmp(w1, "sa") == 0) {
		*rc = cmd_query_sa(line, out, err, err_len);
	} else if (strcmp(w0, "flush") == 0 && strcmp(w1, "owner") == 0) {
		*rc = cmd_flush(line, out, err, err_len);
	} else if ((strcmp(w0, "bypass") == 0 || strcmp(w0, "natt") == 0) &&
		   strcmp(w1, "udp") == 0) {
		*rc = cmd_port(line, w0[0] == 'n', err, err_len);
	} else if (strcmp(w0, "host") == 0) {
		gw_host_list(out);
		*rc = 0;
	} else {
		return false;
	}
	return true;
}
