/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw's cluster table (ha.h): the `--cluster` option, the active
 * segment mask and its control requests (`segments`, `segment +N`,
 * `segment -N`), each change noted as an event (`subscribe all`,
 * `vecsec-ctl monitor`). The per-packet filter that reads the mask is in
 * the data path; docs/ha.md tells the whole design.
 */
#include "ha.h"
#include "evq.h"
#include "gw_log.h"
#include "hasync.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct gw_ha gw_ha;

const char *
gw_ha_mask_text(uint16_t mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int s = 1; s <= GW_HA_SEG_MAX && n < len; s++)
		if (mask & gw_ha_seg_bit(s))
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "," : "", s);
	if (buf[0] == '\0')
		snprintf(buf, len, "none");
	return buf;
}

/* A segment number 1..count from s, else 0. */
static unsigned int
seg_num(const char *s, unsigned int count)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > count)
		return 0;
	return (unsigned int)v;
}

/* "1,2", "all" or "none" into *mask; false when not a list of segments 1..count */
static bool
parse_mask(char *s, unsigned int count, uint16_t *mask)
{
	char *save = NULL;

	*mask = 0;
	if (strcmp(s, "none") == 0)
		return true;
	if (strcmp(s, "all") == 0) {
		*mask = (uint16_t)((1u << count) - 1);
		return true;
	}
	for (char *t = strtok_r(s, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		unsigned int seg = seg_num(t, count);

		if (seg == 0)
			return false;
		*mask |= gw_ha_seg_bit(seg);
	}
	return *mask != 0;
}

int
gw_ha_parse(const char *arg, char *err, size_t err_len)
{
	char buf[256], *at, *colon, *save = NULL;
	uint16_t mask = 0;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	at = strchr(buf, '@');
	if (at == NULL)
		goto bad;
	*at++ = '\0';
	gw_ha.count = seg_num(buf, GW_HA_SEG_MAX);
	if (gw_ha.count == 0)
		goto bad;
	colon = strchr(at, ':');
	if (colon != NULL) {
		*colon++ = '\0';
		if (!parse_mask(colon, gw_ha.count, &mask))
			goto bad;
	}
	gw_ha.nb_vip = 0;
	for (char *t = strtok_r(at, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		struct in_addr a;

		if (gw_ha.nb_vip == GW_HA_MAX_VIP || inet_pton(AF_INET, t, &a) != 1)
			goto bad;
		gw_ha.vip4[gw_ha.nb_vip++] = ntohl(a.s_addr);
	}
	if (gw_ha.nb_vip == 0)
		goto bad;
	gw_ha.mask = mask;
	return 0;
bad:
	gw_ha.count = 0;
	snprintf(err, err_len, "--cluster COUNT@ADDR[,ADDR...][:SEGMENTS]: COUNT 1..%d, up to %d "
		 "IPv4 cluster addresses, SEGMENTS a list like 1,2 or all or none, each 1..COUNT",
		 GW_HA_SEG_MAX, GW_HA_MAX_VIP);
	return -1;
}

/* `segments`: the count, the cluster addresses, the active segments, the changes */
static void
ha_show(bool json, FILE *out)
{
	char m[48], a[INET_ADDRSTRLEN];
	uint16_t mask = gw_ha_active();

	gw_ha_mask_text(mask, m, sizeof(m));
	fprintf(out, json ? "{\"count\": %u, \"active\": \"%s\", \"mask\": %u, \"changes\": %" PRIu64
		", \"address\": [" : "segments count %u active %s mask 0x%04x changes %" PRIu64
		" address", gw_ha.count, m, mask, gw_ha.changes);
	for (unsigned int i = 0; i < gw_ha.nb_vip; i++) {
		struct in_addr ia = { .s_addr = htonl(gw_ha.vip4[i]) };

		inet_ntop(AF_INET, &ia, a, sizeof(a));
		fprintf(out, json ? "%s\"%s\"" : "%s%s", json ? (i ? ", " : "") : (i ? "," : " "), a);
	}
	fprintf(out, json ? "]" : "");
	gw_hasync_show(json, out);      /* --cluster-sync */
	fprintf(out, json ? "}\n" : "\n");
}

int
gw_ha_ctrl(const char *w1, int pid, bool json, FILE *out, char *err, size_t err_len)
{
	unsigned int seg;
	uint16_t old, mask;
	char m[48];

	if (gw_ha.count == 0) {
		snprintf(err, err_len, "clustering is off (no --cluster)");
		return -ENOENT;
	}
	if (w1 == NULL) {
		ha_show(json, out);
		return 0;
	}
	seg = (w1[0] == '+' || w1[0] == '-') ? seg_num(w1 + 1, gw_ha.count) : 0;
	if (seg == 0) {
		snprintf(err, err_len, "usage: segment +N|-N, N 1..%u", gw_ha.count);
		return -EINVAL;
	}
	if (w1[0] == '+' && pid > 0)
		gw_ha.owner_pid = pid;  /* whose hangup drops them (gw_ha_client_gone) */
	old = gw_ha_active();
	mask = w1[0] == '+' ? (uint16_t)(old | gw_ha_seg_bit(seg)) :
		(uint16_t)(old & ~gw_ha_seg_bit(seg));
	if (mask != old) {
		/* --cluster-sync: past what the partner reserved, before a packet passes */
		if (w1[0] == '+')
			gw_hasync_takeover(seg);
		__atomic_store_n(&gw_ha.mask, mask, __ATOMIC_RELEASE);
		gw_ha.changes++;
		gw_ha_mask_text(mask, m, sizeof(m));
		gw_event_note("segment %c%u by control active %s", w1[0], seg, m);
		GW_LOG(NOTICE, "segment %c%u: active now %s", w1[0], seg, m);
	}
	ha_show(json, out);
	return 0;
}

void
gw_ha_client_gone(int pid)
{
	uint16_t mask;
	char m[48];

	if (gw_ha.count == 0 || pid <= 0 || pid != gw_ha.owner_pid)
		return;
	gw_ha.owner_pid = 0;
	mask = gw_ha_active();
	if (mask == 0)
		return;
	GW_LOG(NOTICE, "cluster: the IKE daemon that set the active segments (pid %d) closed its "
	       "event subscription (killed?): dropping segments %s, the other node takes them",
	       pid, gw_ha_mask_text(mask, m, sizeof(m)));
	for (unsigned int s = 1; s <= gw_ha.count; s++) {
		if (!(mask & gw_ha_seg_bit(s)))
			continue;
		mask = (uint16_t)(mask & ~gw_ha_seg_bit(s));
		__atomic_store_n(&gw_ha.mask, mask, __ATOMIC_RELEASE);
		gw_ha.changes++;
		gw_ha_mask_text(mask, m, sizeof(m));
		gw_event_note("segment -%u by hangup active %s", s, m);
		GW_LOG(NOTICE, "segment -%u: active now %s", s, m);
	}
}
