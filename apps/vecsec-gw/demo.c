/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --demo: the built-in configuration (or -f FILE's SAs and SPs), its four
 * ring ports, EAL without PCI, the generator's traffic and its report,
 * and --gen-pcap's files. The generator and checker themselves are gen.c.
 */
#include "gw_main.h"
#include "gw_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

static char demo_text[8192];    /* the built-in configuration, made-up keys */

/*
 * The built-in configuration, with --demo-aead's algorithm on every SA,
 * parsed into c. 0, or not with a message in err.
 */
int
gw_demo_conf_parse(struct gw_conf *c, const char *aead, char *err, size_t len)
{
	int rc = gw_demo_conf(demo_text, sizeof(demo_text), aead);

	if (rc != 0)
		snprintf(err, len, "--demo-aead %s: chacha20-poly1305, "
			"aes-{128,192,256}-gcm or aria-{128,192,256}-gcm", aead);
	else
		rc = gw_conf_parse_string(c, "<demo>", demo_text, err, len);
	return rc;
}

/*
 * --demo runs on the ports it makes itself and refuses any other: it never
 * needs a PCI device, and EAL probing PCI would take every NIC bound to a
 * DPDK driver away from whoever uses it. Its EAL gets --no-pci unless the
 * command line has it. Returns the argv for EAL (orig, cur, or a copy of
 * cur with --no-pci at the end; a copy replaces cur, which is freed if it
 * is not orig), *argc adjusted.
 */
char **
gw_demo_no_pci(int *argc, char **cur, char **orig)
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

/*
 * The demo's ports instead of EAL's (which must have none), --gen-pcap's
 * files opened, and -u: ESP on ports 1 and 2. 0 or -1 (logged).
 */
int
gw_demo_start(struct opts *o, struct gw_gen_cfg *gc)
{
	if (rte_eth_dev_count_avail() != 0) {
		GW_LOG(ERR, "--demo makes its own ports; give no net vdev");
		return -1;
	}
	if (demo_ports(gc, o->gen_pcap != NULL) != 0)
		return -1;
	if (o->gen_pcap != NULL && (gw_gen_capture_open(gc, o->gen_pcap) != 0 ||
			(o->cfg_file == NULL && write_demo_cfg(o->gen_pcap) != 0)))
		return -1;
	o->unprot_mask = 0x6;   /* ESP on ports 1 and 2 */
	o->unprot_given = true;
	return 0;
}

/*
 * The generator set up: its flows come from the outbound SPs, parsed again
 * (the keys are gone from the configuration the gateway runs). 0 or -1.
 */
int
gw_demo_traffic(const struct opts *o, struct gw_gen_cfg *gc, struct rte_mempool *mp)
{
	struct gw_conf *demo_conf = gw_secret_alloc(sizeof(*demo_conf));
	char err[512] = "";

	gc->mp = mp;
	gc->count = o->gen_pkts;
	gc->frame_size = o->gen_size;
	gc->max_inflight = 2048 * gw.nb_workers;
	if (demo_conf == NULL ||
			(o->cfg_file != NULL ? gw_conf_parse_file(demo_conf, o->cfg_file,
				o->conf_flags, err, sizeof(err)) :
				gw_conf_parse_string(demo_conf, "<demo>", demo_text, err,
				sizeof(err))) != 0 ||
			gw_gen_init(demo_conf, gc) != 0) {
		if (demo_conf != NULL)
			gw_conf_wipe(demo_conf);
		gw_secret_free(demo_conf, sizeof(*demo_conf));
		return -1;
	}
	/* the rule arrays grow on the heap: wiped and freed with the struct */
	gw_conf_wipe(demo_conf);
	gw_secret_free(demo_conf, sizeof(*demo_conf));
	return 0;
}

/*
 * After the run: the demo's verdict and rates (with --demo), --gen-pcap's
 * files written. 0, or 1 when a packet was wrong or a file failed.
 */
int
gw_demo_report(const struct opts *o, struct gw_gen_cfg *gc, double seconds, uint64_t busy,
	       double cpu)
{
	int ret = 0;

	if (o->demo && gw_gen_report(&gw, seconds, busy, cpu) != 0)
		ret = 1;
	if (o->gen_pcap != NULL) {
		if (gw_gen_capture_close(gc) != 0) {
			GW_LOG(ERR, "--gen-pcap: writing %s failed", o->gen_pcap);
			ret = 1;
		} else {
			GW_LOG(INFO, "wrote %s/clear.pcap and %s/esp.pcap%s", o->gen_pcap,
			       o->gen_pcap, o->cfg_file == NULL ? " and demo.cfg" : "");
		}
	}
	return ret;
}

/* the built-in configuration's keys wiped; the generator and its files gone */
void
gw_demo_stop(const struct opts *o, struct gw_gen_cfg *gc)
{
	explicit_bzero(demo_text, sizeof(demo_text));
	if (o->demo) {
		gw_gen_capture_close(gc);
		gw_gen_free();
	}
}
