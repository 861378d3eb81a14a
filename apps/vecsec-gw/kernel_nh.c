/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `--kernel-nh`: next hops and routes from the host's kernel, the
 * linux-cp model on the --host-port taps (kernel_nh.h says what the
 * workers do with them).
 *
 * The thread "gw-knh" keeps a copy of the kernel's main-table unicast
 * routes and its neighbours whose device is one of the taps, over
 * rtnetlink with libmnl: a dump at start (and again if the kernel drops
 * events: ENOBUFS), then the RTM_NEWROUTE/DELROUTE/NEWNEIGH/DELNEIGH
 * events of the groups it joined first. After each batch of changes it
 * builds a new immutable table, publishes it with one atomic exchange
 * and frees the old one after an RCU grace period (the workers' QSBR
 * variable, gw.rcu, which --kernel-nh makes exist): the lock and RCU
 * rules of docs/gateway.md, without the control-plane lock, which no
 * table here is under.
 *
 * ARP and neighbour discovery stay the kernel's: a worker that finds no
 * neighbour for a next hop drops the packet (`no_neigh`) and puts the
 * address on a ring; this thread asks the kernel to resolve it
 * (RTM_NEWNEIGH with NTF_USE, as `ip neigh replace ADDR dev TAP use`), the
 * kernel's request leaves through the tap and the port, the answer comes
 * back the same way, and the kernel's new entry reaches the table. A
 * STALE entry is put back to use every KNH_REFRESH_MS, so the kernel
 * confirms it (or lets it fail) although it sends nothing there itself:
 * the gateway's traffic does not pass through the kernel.
 */
#include "kernel_nh.h"
#include "gw_log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#define KNH_MAX_RT 4096
#define KNH_MAX_NB 4096
#define KNH_POLL_MS 50
#define KNH_REFRESH_MS 5000
#define KNH_ASK_MS 1000         /* the same address asked at most once a second */
#define KNH_ASKED 64
#define KNH_BUF 32768           /* one recv: the kernel sends at most a page per message */

bool gw_knh_on;
struct gw_knh_tab *gw_knh_tab;
struct rte_ring *gw_knh_ring;

struct knh_nb {
	struct gw_knh_nb e;
	uint16_t state;         /* NUD_* */
};

static struct {
	struct mnl_socket *ev, *rq;     /* events; dumps and requests */
	unsigned int seq;
	unsigned int ifidx[GW_MAX_PORTS];       /* the tap's ifindex per gateway port, 0 none */
	struct gw_knh_rt rt[KNH_MAX_RT];
	unsigned int nr;
	struct knh_nb nb[KNH_MAX_NB];
	unsigned int nn;
	bool dirty;
	bool full_said;
	struct gw_knh_req asked[KNH_ASKED];
	uint64_t asked_ms[KNH_ASKED];
	unsigned int asked_next;
	uint64_t refresh_ms;
} k;

/* held around freeing a table and by gw_knh_show() reading one (not a worker) */
static pthread_mutex_t knh_show_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t knh_tid;
static volatile bool knh_stop;
static bool knh_up;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
port_of_ifindex(unsigned int idx)
{
	for (int p = 0; p < GW_MAX_PORTS; p++)
		if (idx != 0 && k.ifidx[p] == idx)
			return p;
	return -1;
}

/* ---- the private copy ------------------------------------------------------ */

static bool
same_rt(const struct gw_knh_rt *a, const struct gw_knh_rt *b)
{
	/* the same prefix on two taps (IPv6's fe80::/64 on each) is two routes */
	return a->v6 == b->v6 && a->len == b->len && a->prio == b->prio && a->port == b->port &&
	       memcmp(a->dst, b->dst, sizeof(a->dst)) == 0;
}

static void
rt_set(const struct gw_knh_rt *r, bool add)
{
	unsigned int i;

	for (i = 0; i < k.nr && !same_rt(&k.rt[i], r); i++)
		;
	if (!add) {
		if (i < k.nr) {
			k.rt[i] = k.rt[--k.nr];
			k.dirty = true;
		}
		return;
	}
	if (i == k.nr) {
		if (k.nr == KNH_MAX_RT) {
			if (!k.full_said)
				GW_LOG(WARNING, "--kernel-nh: more than %d kernel routes on the host "
				       "ports' taps: the rest are not used (rt lines are)", KNH_MAX_RT);
			k.full_said = true;
			return;
		}
		k.nr++;
	}
	k.rt[i] = *r;
	k.dirty = true;
}

static void
nb_set(const uint8_t key[18], const uint8_t *mac, uint16_t state, bool add)
{
	unsigned int i;

	for (i = 0; i < k.nn && memcmp(k.nb[i].e.key, key, 18) != 0; i++)
		;
	if (!add) {
		if (i < k.nn) {
			k.nb[i] = k.nb[--k.nn];
			k.dirty = true;
		}
		return;
	}
	if (i == k.nn) {
		if (k.nn == KNH_MAX_NB) {
			if (!k.full_said)
				GW_LOG(WARNING, "--kernel-nh: more than %d neighbours on the host "
				       "ports' taps: the rest are not used", KNH_MAX_NB);
			k.full_said = true;
			return;
		}
		k.nn++;
		memcpy(k.nb[i].e.key, key, 18);
	} else if (memcmp(k.nb[i].e.mac.addr_bytes, mac, 6) == 0) {
		k.nb[i].state = state;          /* only the state moved: nothing to publish */
		return;
	}
	memcpy(k.nb[i].e.mac.addr_bytes, mac, 6);
	k.nb[i].state = state;
	k.dirty = true;
}

/* ---- publication ------------------------------------------------------------ */

static int
cmp_rt(const void *a, const void *b)
{
	const struct gw_knh_rt *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->prio < y->prio ? -1 : x->prio > y->prio;
}

static int
cmp_nb(const void *a, const void *b)
{
	return memcmp(((const struct gw_knh_nb *)a)->key, ((const struct gw_knh_nb *)b)->key, 18);
}

static void
publish(void)
{
	size_t sz = sizeof(struct gw_knh_tab) + k.nr * sizeof(struct gw_knh_rt) +
		k.nn * sizeof(struct gw_knh_nb);
	struct gw_knh_tab *t = calloc(1, sz), *old;

	if (t == NULL)
		return;                 /* dirty stays: tried again next turn */
	t->rt = (struct gw_knh_rt *)(t + 1);
	t->nb = (struct gw_knh_nb *)(t->rt + k.nr);
	t->nr = k.nr;
	t->nn = k.nn;
	memcpy(t->rt, k.rt, k.nr * sizeof(*t->rt));
	for (unsigned int i = 0; i < k.nn; i++)
		t->nb[i] = k.nb[i].e;
	qsort(t->rt, t->nr, sizeof(*t->rt), cmp_rt);
	qsort(t->nb, t->nn, sizeof(*t->nb), cmp_nb);
	for (int p = 0; p < GW_MAX_PORTS; p++)
		t->kernel_l2[p] = k.ifidx[p] != 0;
	old = __atomic_exchange_n(&gw_knh_tab, t, __ATOMIC_ACQ_REL);
	if (old != NULL) {
		rte_rcu_qsbr_synchronize(gw.rcu, RTE_QSBR_THRID_INVALID);
		pthread_mutex_lock(&knh_show_lock);
		free(old);
		pthread_mutex_unlock(&knh_show_lock);
	}
	k.dirty = false;
}

/* ---- netlink ---------------------------------------------------------------- */

static int
attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	/* RTA_MAX and NDA_MAX are both below 64; unknown ones are skipped */
	if (mnl_attr_type_valid(a, 64) > 0 && type < 64)
		tb[type] = a;
	return MNL_CB_OK;
}

static void
on_route(const struct nlmsghdr *nlh)
{
	const struct rtmsg *rm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[64] = { NULL };
	struct gw_knh_rt r;
	unsigned int alen = rm->rtm_family == AF_INET6 ? 16 : 4, table = rm->rtm_table;
	int port;

	if (rm->rtm_family != AF_INET && rm->rtm_family != AF_INET6)
		return;
	mnl_attr_parse(nlh, sizeof(*rm), attr_cb, tb);
	if (tb[RTA_TABLE] != NULL && mnl_attr_get_payload_len(tb[RTA_TABLE]) == 4)
		table = mnl_attr_get_u32(tb[RTA_TABLE]);
	/* the main table's unicast routes through one tap (multipath: not used) */
	if (table != RT_TABLE_MAIN || rm->rtm_type != RTN_UNICAST || tb[RTA_OIF] == NULL ||
	    mnl_attr_get_payload_len(tb[RTA_OIF]) != 4 || rm->rtm_dst_len > alen * 8)
		return;
	port = port_of_ifindex(mnl_attr_get_u32(tb[RTA_OIF]));
	if (port < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.v6 = alen == 16;
	r.len = rm->rtm_dst_len;
	r.port = (uint8_t)port;
	r.esp_side = gw.port[port].esp_side;
	if (tb[RTA_PRIORITY] != NULL && mnl_attr_get_payload_len(tb[RTA_PRIORITY]) == 4)
		r.prio = mnl_attr_get_u32(tb[RTA_PRIORITY]);
	if (tb[RTA_DST] != NULL && mnl_attr_get_payload_len(tb[RTA_DST]) == alen)
		memcpy(r.dst, mnl_attr_get_payload(tb[RTA_DST]), alen);
	if (tb[RTA_GATEWAY] != NULL && mnl_attr_get_payload_len(tb[RTA_GATEWAY]) == alen) {
		memcpy(r.gw, mnl_attr_get_payload(tb[RTA_GATEWAY]), alen);
		r.via = 1;
	}
	rt_set(&r, nlh->nlmsg_type == RTM_NEWROUTE);
}

static void
on_neigh(const struct nlmsghdr *nlh)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[64] = { NULL };
	unsigned int alen = nd->ndm_family == AF_INET6 ? 16 : 4;
	uint8_t key[18] = { 0 };
	const uint16_t usable = NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT |
		NUD_NOARP;
	int port;

	if (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6)
		return;
	port = port_of_ifindex((unsigned int)nd->ndm_ifindex);
	if (port < 0)
		return;
	mnl_attr_parse(nlh, sizeof(*nd), attr_cb, tb);
	if (tb[NDA_DST] == NULL || mnl_attr_get_payload_len(tb[NDA_DST]) != alen)
		return;
	key[0] = alen == 16;
	key[1] = (uint8_t)port;
	memcpy(key + 2, mnl_attr_get_payload(tb[NDA_DST]), alen);
	if (nlh->nlmsg_type == RTM_NEWNEIGH && (nd->ndm_state & usable) != 0 &&
	    tb[NDA_LLADDR] != NULL && mnl_attr_get_payload_len(tb[NDA_LLADDR]) == 6)
		nb_set(key, mnl_attr_get_payload(tb[NDA_LLADDR]), nd->ndm_state, true);
	else
		nb_set(key, NULL, 0, false);    /* gone, failed or being resolved */
}

static int
msg_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)data;
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		on_route(nlh);
		break;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		on_neigh(nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/*
 * What the kernel answered to ask_kernel()'s requests (an error, when one
 * failed: netlink sends those even without NLM_F_ACK), dropped: read
 * before each dump, whose answers it would otherwise precede.
 */
static void
drain_rq(void)
{
	char buf[KNH_BUF];

	while (recv(mnl_socket_get_fd(k.rq), buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* One dump (RTM_GETROUTE or RTM_GETNEIGH of a family) into the copy. */
static int
dump(uint16_t type, uint8_t family)
{
	char buf[KNH_BUF];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	unsigned int seq = ++k.seq, portid = mnl_socket_get_portid(k.rq);
	ssize_t n;
	int rc;

	drain_rq();
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (type == RTM_GETROUTE) {
		struct rtmsg *rm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rm));

		rm->rtm_family = family;
	} else {
		struct ndmsg *nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));

		nd->ndm_family = family;
	}
	if (mnl_socket_sendto(k.rq, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(k.rq, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		rc = mnl_cb_run(buf, (size_t)n, seq, portid, msg_cb, NULL);
	} while (rc > 0);
	return rc < 0 ? -errno : 0;
}

static int
dump_all(void)
{
	int rc = 0;

	k.nr = 0;
	k.nn = 0;
	k.dirty = true;
	for (int f = 0; f < 2 && rc == 0; f++) {
		uint8_t fam = f == 0 ? AF_INET : AF_INET6;

		rc = dump(RTM_GETROUTE, fam);
		if (rc == 0)
			rc = dump(RTM_GETNEIGH, fam);
	}
	return rc;
}

/* RTM_NEWNEIGH with NTF_USE: the kernel resolves (or re-confirms) the address */
static void
ask_kernel(const struct gw_knh_req *q)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;

	if (q->port >= GW_MAX_PORTS || k.ifidx[q->port] == 0)
		return;
	nlh->nlmsg_type = RTM_NEWNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE;
	nlh->nlmsg_seq = ++k.seq;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = q->v6 ? AF_INET6 : AF_INET;
	nd->ndm_ifindex = (int)k.ifidx[q->port];
	nd->ndm_state = NUD_NONE;
	nd->ndm_flags = NTF_USE;
	mnl_attr_put(nlh, NDA_DST, q->v6 ? 16 : 4, q->addr);
	/* no answer asked for (no NLM_F_ACK): the result is the neighbour event */
	mnl_socket_sendto(k.rq, nlh, nlh->nlmsg_len);
}

static void
drain_requests(uint64_t now)
{
	struct gw_knh_req q;

	while (rte_ring_sc_dequeue_elem(gw_knh_ring, &q, sizeof(q)) == 0) {
		bool recent = false;

		for (unsigned int i = 0; i < KNH_ASKED && !recent; i++)
			recent = now - k.asked_ms[i] < KNH_ASK_MS &&
				 memcmp(&k.asked[i], &q, sizeof(q)) == 0;
		if (recent)
			continue;
		k.asked[k.asked_next] = q;
		k.asked_ms[k.asked_next] = now;
		k.asked_next = (k.asked_next + 1) % KNH_ASKED;
		ask_kernel(&q);
	}
}

static void
refresh_stale(uint64_t now)
{
	if (now - k.refresh_ms < KNH_REFRESH_MS)
		return;
	k.refresh_ms = now;
	for (unsigned int i = 0; i < k.nn; i++) {
		struct gw_knh_req q = { .v6 = k.nb[i].e.key[0], .port = k.nb[i].e.key[1] };

		if (k.nb[i].state != NUD_STALE)
			continue;
		memcpy(q.addr, k.nb[i].e.key + 2, 16);
		ask_kernel(&q);
	}
}

/* the events waiting on the socket; -ENOBUFS when the kernel dropped some */
static int
read_events(void)
{
	char buf[KNH_BUF];

	for (;;) {
		ssize_t n = recv(mnl_socket_get_fd(k.ev), buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		mnl_cb_run(buf, (size_t)n, 0, 0, msg_cb, NULL);
	}
}

static void *
knh_main(void *arg)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(k.ev), .events = POLLIN };

	(void)arg;
	while (!knh_stop) {
		uint64_t now;

		if (poll(&pfd, 1, KNH_POLL_MS) > 0 && read_events() == -ENOBUFS) {
			GW_LOG(NOTICE, "--kernel-nh: the kernel dropped route/neighbour events: "
			       "reading its tables again");
			if (dump_all() != 0)
				GW_LOG(WARNING, "--kernel-nh: dump failed: %s", strerror(errno));
		}
		now = now_ms();
		drain_rq();
		drain_requests(now);
		refresh_stale(now);
		if (k.dirty)
			publish();
	}
	return NULL;
}

/*
 * Joins the groups, reads the kernel's tables once, publishes the first
 * table, starts the thread. After gw_host_setup() (the taps' names) and
 * with gw.rcu made. 0, or -errno said.
 */
int
gw_knh_start(void)
{
	unsigned int groups = RTMGRP_NEIGH | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
	int n = 0, rc;

	if (!gw_knh_on)
		return 0;
	if (gw.rcu == NULL) {
		GW_LOG(ERR, "--kernel-nh: no RCU variable");
		return -EINVAL;
	}
	for (int p = 0; p < GW_MAX_PORTS; p++) {
		int t = gw_host_tap[p];

		if (t < 0)
			continue;
		k.ifidx[p] = if_nametoindex(gw_host_ifname[t]);
		if (k.ifidx[p] == 0) {
			GW_LOG(ERR, "--kernel-nh: tap %s of port %d: %s", gw_host_ifname[t], p,
			       strerror(errno));
			return -errno;
		}
		n++;
	}
	if (n == 0) {
		GW_LOG(ERR, "--kernel-nh needs --host-port: the kernel's routes and neighbours "
		       "are those on the ports' taps");
		return -EINVAL;
	}
	gw_knh_ring = rte_ring_create_elem("gw_knh_req", sizeof(struct gw_knh_req), 1024,
					   SOCKET_ID_ANY, RING_F_SC_DEQ);
	k.ev = mnl_socket_open(NETLINK_ROUTE);
	k.rq = mnl_socket_open(NETLINK_ROUTE);
	if (gw_knh_ring == NULL || k.ev == NULL || k.rq == NULL ||
	    mnl_socket_bind(k.ev, groups, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_bind(k.rq, 0, MNL_SOCKET_AUTOPID) < 0) {
		GW_LOG(ERR, "--kernel-nh: netlink: %s", strerror(errno));
		return -errno;
	}
	rc = dump_all();
	if (rc != 0) {
		GW_LOG(ERR, "--kernel-nh: reading the kernel's routes and neighbours: %s",
		       strerror(-rc));
		return rc;
	}
	publish();
	GW_LOG(INFO, "--kernel-nh: %u kernel routes, %u neighbours on %d tap(s)", k.nr, k.nn, n);
	if (rte_ctrl_thread_create(&knh_tid, "gw-knh", NULL, knh_main, NULL) != 0) {
		GW_LOG(ERR, "--kernel-nh: cannot start its thread");
		return -ENOMEM;
	}
	knh_up = true;
	return 0;
}

/* The thread stopped, the table freed (the workers are done by now). */
void
gw_knh_stop(void)
{
	if (knh_up) {
		knh_stop = true;
		pthread_join(knh_tid, NULL);
		knh_up = false;
	}
	pthread_mutex_lock(&knh_show_lock);
	free(__atomic_exchange_n(&gw_knh_tab, NULL, __ATOMIC_ACQ_REL));
	pthread_mutex_unlock(&knh_show_lock);
	if (k.ev != NULL)
		mnl_socket_close(k.ev);
	if (k.rq != NULL)
		mnl_socket_close(k.rq);
	k.ev = k.rq = NULL;
	rte_ring_free(gw_knh_ring);
	gw_knh_ring = NULL;
}

void
gw_knh_show(FILE *out)
{
	const struct gw_knh_tab *t;

	if (!gw_knh_on)
		return;
	pthread_mutex_lock(&knh_show_lock);
	t = __atomic_load_n(&gw_knh_tab, __ATOMIC_ACQUIRE);
	for (unsigned int i = 0; t != NULL && i < t->nr; i++) {
		const struct gw_knh_rt *r = &t->rt[i];

		fprintf(out, "kernel rt ipv%c dst ", r->v6 ? '6' : '4');
		gw_put_addr(out, r->v6, r->dst);
		fprintf(out, "/%u port %u", r->len, r->port);
		if (r->via) {
			fputs(" via ", out);
			gw_put_addr(out, r->v6, r->gw);
		}
		fprintf(out, " metric %u\n", r->prio);
	}
	for (unsigned int i = 0; t != NULL && i < t->nn; i++) {
		const struct gw_knh_nb *n = &t->nb[i];
		const uint8_t *m = n->mac.addr_bytes;

		fprintf(out, "kernel neigh port %u ", n->key[1]);
		gw_put_addr(out, n->key[0], n->key + 2);
		fprintf(out, " %02x:%02x:%02x:%02x:%02x:%02x\n", m[0], m[1], m[2], m[3], m[4], m[5]);
	}
	pthread_mutex_unlock(&knh_show_lock);
}
