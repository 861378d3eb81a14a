/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw built-in traffic generator and checker (gen.c): UDP flows, one
 * per outbound protect/bypass SP rule, numbered packets whose every byte is
 * a function of (flow, number, size), so that each packet coming back is
 * rebuilt and compared byte for byte, and counted exactly once.
 */
#ifndef VECSEC_GW_GEN_H
#define VECSEC_GW_GEN_H

#include "gw_dp.h"

#include <stdio.h>

#include <rte_ring.h>

/*
 * The demo's configuration (ports 0 and 3 protected, clear; 1 and 2 unprotected, ESP)
 * into buf; aead, when not NULL, replaces every SA's algorithm. 0 or -1.
 */
int gw_demo_conf(char *buf, size_t cap, const char *aead);

struct gw_gen_cfg {
	struct rte_mempool *mp;
	struct rte_ring *in[GW_MAX_WORKERS];    /* clear packets in, one ring per rx queue */
	unsigned int nb_in;
	struct rte_ring *out[GW_MAX_WORKERS];   /* what should come back, decrypted */
	unsigned int nb_out;
	struct rte_ring *sink[2 * GW_MAX_WORKERS];      /* anything here was misrouted */
	unsigned int nb_sink;
	uint64_t count;
	uint16_t frame_size;            /* Ethernet frame without FCS */
	uint32_t max_inflight;
	/*
	 * --gen-pcap: when wire_in[0] is set, the ESP side's link is two rings per
	 * queue, and gw_gen_wire() moves what port 1 sent (wire_in) to port 2's
	 * rx (wire_out), writing every packet to esp.pcap on the way; generated
	 * clear packets go to clear.pcap. NULL files: no capture.
	 */
	struct rte_ring *wire_in[GW_MAX_WORKERS];
	struct rte_ring *wire_out[GW_MAX_WORKERS];
	FILE *clear_pcap, *esp_pcap;
};

int gw_gen_init(const struct gw_conf *conf, const struct gw_gen_cfg *cfg);
/* Inject up to one burst; returns how many. */
unsigned int gw_gen_push(const struct gw_dp *dp);
/* Take back and check what came out; returns how many. */
unsigned int gw_gen_pull(void);
/* True once every packet is back, or lost for good (counted drops). */
bool gw_gen_done(const struct gw_dp *dp);
/* Print the verdict and the rates; 0 only if every packet came back intact. */
int gw_gen_report(const struct gw_dp *dp, double seconds, uint64_t busy_cycles,
		double cpu_seconds);
void gw_gen_free(void);

/*
 * --gen-pcap: open DIR/clear.pcap and DIR/esp.pcap for writing into cfg
 * (classic pcap, Ethernet, microsecond stamps); 0 or -errno with a message.
 */
int gw_gen_capture_open(struct gw_gen_cfg *cfg, const char *dir);
/* Move what is on the ESP link to port 2, recording it; returns how many. */
unsigned int gw_gen_wire(void);
/* Flush and close the capture files; -1 if a write failed. */
int gw_gen_capture_close(struct gw_gen_cfg *cfg);

#endif /* VECSEC_GW_GEN_H */
