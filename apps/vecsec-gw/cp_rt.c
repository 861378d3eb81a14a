/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The change engine's routes and neighbours: `rt`, `neigh`, `del rt`,
 * `del neigh` and `show rt` on the control socket (protocol 1.7). Under the
 * control-plane lock, like every request.
 *
 * A change builds the new rule set beside the live one, new route tables
 * from it (rt.c's gw_rt_prepare: nothing published on failure), then
 * publishes them (gw_rt_commit: an atomic exchange per table, the
 * neighbours' words, the old tables freed after an RCU grace period) and
 * makes the new rules the live configuration's. Rules added here carry a
 * controller line (GW_CTRL_LINE_BASE): a reload keeps them unless its file
 * gives a route for the same prefix or a neighbour for the same port
 * (reload.c, rt_keep_ctrl).
 */
#include "gw_dp.h"
#include "cp.h"
#include "gw_log.h"
#include "kernel_nh.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
same_prefix(const struct gw_rt_conf *a, const struct gw_rt_conf *b)
{
	return a->v6 == b->v6 && a->dst_len == b->dst_len &&
	       memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0;
}

/*
 * rt (nb entries) and neigh (nn) in force: tables built, published, the
 * arrays handed to the live configuration (rt then belongs to it). On
 * failure nothing changed and rt is freed.
 */
static int
rt_apply(struct gw_rt_conf *rt, unsigned int nb, const struct gw_neigh_conf *neigh,
	 unsigned int nn, char *err, size_t err_len)
{
	struct gw_conf view;
	struct gw_rt_set s;
	int rc;

	memset(&view, 0, sizeof(view));
	view.rt = rt;
	view.nb_rt = nb;
	memcpy(view.neigh, neigh, nn * sizeof(*neigh));
	view.nb_neigh = nn;
	rc = gw_rt_prepare(&gw, &view, &s, err, err_len);
	if (rc != 0) {
		free(rt);
		return rc;
	}
	gw_rt_commit(&gw, &view, &s);
	free(gw.conf->rt);
	gw.conf->rt = rt;
	gw.conf->nb_rt = gw.conf->cap_rt = nb;
	memcpy(gw.conf->neigh, neigh, nn * sizeof(*neigh));
	gw.conf->nb_neigh = nn;
	return 0;
}

/* The live routes copied with room for one more; NULL when out of memory. */
static struct gw_rt_conf *
rt_copy(void)
{
	struct gw_rt_conf *rt = malloc(((size_t)gw.conf->nb_rt + 1) * sizeof(*rt));

	if (rt != NULL && gw.conf->nb_rt != 0)
		memcpy(rt, gw.conf->rt, (size_t)gw.conf->nb_rt * sizeof(*rt));
	return rt;
}

/* One rt or neigh rule of text into *one (a scratch configuration). */
static int
parse_one(const char *text, struct gw_conf *one, char *err, size_t err_len)
{
	int rc;

	memset(one, 0, sizeof(*one));
	rc = gw_conf_parse_string(one, "<ctrl>", text, err, err_len);
	if (rc == 0 && (one->nb_sa != 0 || one->nb_sp != 0 || one->nb_rt + one->nb_neigh != 1)) {
		snprintf(err, err_len, "one rt or neigh rule");
		rc = -EINVAL;
	}
	if (rc == 0)
		err[0] = '\0';          /* no "OK warning" for these */
	return rc;
}

/* `rt <rt rule>` (a route for the same prefix is replaced), `neigh port N MAC` */
int
gw_cp_rt_add(const char *text, char *err, size_t err_len)
{
	struct gw_conf one;
	struct gw_neigh_conf neigh[GW_MAX_NEIGH];
	struct gw_rt_conf *rt;
	unsigned int nb = gw.conf->nb_rt, nn = 0, i;
	int rc = parse_one(text, &one, err, err_len);

	if (rc != 0)
		goto out;
	if (one.nb_rt == 1 && (one.rt[0].port >= gw.nb_ports || !gw.port[one.rt[0].port].used)) {
		snprintf(err, err_len, "port %u does not exist (%u ports)", one.rt[0].port,
			 gw.nb_ports);
		rc = -EINVAL;
		goto out;
	}
	rt = rt_copy();
	if (rt == NULL) {
		snprintf(err, err_len, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < gw.conf->nb_neigh; i++)
		if (one.nb_neigh == 0 || gw.conf->neigh[i].port != one.neigh[0].port)
			neigh[nn++] = gw.conf->neigh[i];
	if (one.nb_neigh == 1) {
		if (nn == GW_MAX_NEIGH) {
			free(rt);
			snprintf(err, err_len, "too many neigh rules (at most %d)", GW_MAX_NEIGH);
			rc = -ENOSPC;
			goto out;
		}
		neigh[nn] = one.neigh[0];
		neigh[nn++].line = GW_CTRL_LINE_BASE;
	} else {
		for (i = 0; i < nb && !same_prefix(&rt[i], &one.rt[0]); i++)
			;
		rt[i] = one.rt[0];
		rt[i].line = GW_CTRL_LINE_BASE;
		nb += i == nb;
	}
	rc = rt_apply(rt, nb, neigh, nn, err, err_len);
	if (rc == 0)
		GW_LOG(NOTICE, "control: %s", text);
out:
	gw_conf_wipe(&one);
	return rc;
}

/* `del rt <rt rule>`: the route for that prefix (its port need not be given) */
int
gw_cp_rt_del(const char *text, char *err, size_t err_len)
{
	struct gw_conf one;
	struct gw_rt_conf *rt = NULL;
	unsigned int nb = 0;
	int rc = parse_one(text, &one, err, err_len);

	if (rc == 0 && one.nb_rt != 1) {
		snprintf(err, err_len, "usage: del rt <rt rule>");
		rc = -EINVAL;
	}
	if (rc == 0 && (rt = rt_copy()) == NULL) {
		snprintf(err, err_len, "out of memory");
		rc = -ENOMEM;
	}
	for (unsigned int i = 0; rc == 0 && i < gw.conf->nb_rt; i++)
		if (!same_prefix(&gw.conf->rt[i], &one.rt[0]))
			rt[nb++] = gw.conf->rt[i];
	if (rc == 0 && nb == gw.conf->nb_rt) {
		snprintf(err, err_len, "no such route");
		rc = -ENOENT;
	}
	if (rc == 0)
		rc = rt_apply(rt, nb, gw.conf->neigh, gw.conf->nb_neigh, err, err_len);
	else
		free(rt);
	if (rc == 0)
		GW_LOG(NOTICE, "control: del %s", text);
	gw_conf_wipe(&one);
	return rc;
}

/* `del neigh port N`: port N's next hop back to the default (or the kernel's) */
int
gw_cp_neigh_del(unsigned int port, char *err, size_t err_len)
{
	struct gw_neigh_conf neigh[GW_MAX_NEIGH];
	struct gw_rt_conf *rt = rt_copy();
	unsigned int nn = 0;

	if (rt == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < gw.conf->nb_neigh; i++)
		if (gw.conf->neigh[i].port != port)
			neigh[nn++] = gw.conf->neigh[i];
	if (nn == gw.conf->nb_neigh) {
		free(rt);
		snprintf(err, err_len, "no neigh rule for port %u", port);
		return -ENOENT;
	}
	GW_LOG(NOTICE, "control: del neigh port %u", port);
	return rt_apply(rt, gw.conf->nb_rt, neigh, nn, err, err_len);
}

/* `show rt`: the rules in force (file and controller), then --kernel-nh's tables */
void
gw_cp_rt_show(FILE *out)
{
	for (unsigned int i = 0; i < gw.conf->nb_rt; i++) {
		const struct gw_rt_conf *r = &gw.conf->rt[i];

		fprintf(out, "rt ipv%c dst ", r->v6 ? '6' : '4');
		gw_put_addr(out, r->v6, r->dst.b);
		fprintf(out, "/%u port %u%s\n", r->dst_len, r->port,
			gw_ctrl_origin(r->line) ? " # control" : "");
	}
	for (unsigned int i = 0; i < gw.conf->nb_neigh; i++) {
		const struct gw_neigh_conf *n = &gw.conf->neigh[i];

		fprintf(out, "neigh port %u %02x:%02x:%02x:%02x:%02x:%02x%s\n", n->port, n->mac[0],
			n->mac[1], n->mac[2], n->mac[3], n->mac[4], n->mac[5],
			gw_ctrl_origin(n->line) ? " # control" : "");
	}
	gw_knh_show(out);
}
