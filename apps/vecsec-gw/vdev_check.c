/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every port named on the command line exists after EAL, or the gateway
 * says which one did not start and why that usually happens.
 *
 * EAL logs a vdev whose probe failed and goes on without it, so a gateway
 * told `--vdev net_af_packet1,...` would start with one port fewer and
 * report it later as "port 1 does not exist" (a route, -u), far from the
 * cause. gw_vdev_note() reads the --vdev/--vdev= arguments before EAL
 * (which may reorder argv); gw_vdev_check() after EAL asks ethdev for each
 * by name.
 *
 * The case met in practice: DPDK 22.11's af_packet PMD joins the
 * PACKET_FANOUT group (getpid() ^ ifindex) & 0xffff. Fanout groups are per
 * network namespace; when another af_packet program there (another
 * vecsec-gw, usually: neighbouring pids and ifindexes collide easily) holds
 * that group on another interface, the kernel answers EINVAL and the PMD
 * logs "could not set PACKET_FANOUT ... Invalid argument".
 */
#include "gw_main.h"
#include "gw_log.h"

#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>

#define VDEV_MAX 32

static struct {
	char name[RTE_ETH_NAME_MAX_LEN];        /* the device, before the first ',' */
	char iface[IF_NAMESIZE];                /* af_packet's iface= */
} vdev[VDEV_MAX];
static unsigned int nb_vdev;

static void
note_one(const char *arg)
{
	const char *comma = strchr(arg, ','), *ifa;
	size_t n = comma != NULL ? (size_t)(comma - arg) : strlen(arg);

	if (nb_vdev == VDEV_MAX || n == 0 || n >= sizeof(vdev[0].name))
		return;
	/* only ethdevs: crypto vdevs (crypto_*) are the SA code's to report */
	if (strncmp(arg, "net_", 4) != 0 && strncmp(arg, "eth_", 4) != 0)
		return;
	memcpy(vdev[nb_vdev].name, arg, n);
	vdev[nb_vdev].name[n] = '\0';
	vdev[nb_vdev].iface[0] = '\0';
	ifa = comma != NULL ? strstr(comma, ",iface=") : NULL;
	if (ifa != NULL) {
		ifa += strlen(",iface=");
		n = strcspn(ifa, ",");
		if (n < sizeof(vdev[0].iface)) {
			memcpy(vdev[nb_vdev].iface, ifa, n);
			vdev[nb_vdev].iface[n] = '\0';
		}
	}
	nb_vdev++;
}

/* EAL's part of argv (before `--`): remember every --vdev's device name */
void
gw_vdev_note(int argc, char **argv)
{
	nb_vdev = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			note_one(argv[++i]);
		else if (strncmp(argv[i], "--vdev=", 7) == 0)
			note_one(argv[i] + 7);
	}
}

/* 0, or 1 after saying which --vdev port EAL did not create */
int
gw_vdev_check(void)
{
	int bad = 0;

	for (unsigned int i = 0; i < nb_vdev; i++) {
		uint16_t port;
		unsigned int idx;

		if (rte_eth_dev_get_port_by_name(vdev[i].name, &port) == 0)
			continue;
		bad = 1;
		if (strncmp(vdev[i].name, "net_af_packet", 13) != 0 &&
		    strncmp(vdev[i].name, "eth_af_packet", 13) != 0) {
			GW_LOG(ERR, "--vdev %s: the port was not created (EAL's error above says "
			       "why); not started", vdev[i].name);
			continue;
		}
		idx = vdev[i].iface[0] != '\0' ? if_nametoindex(vdev[i].iface) : 0;
		if (vdev[i].iface[0] != '\0' && idx == 0) {
			GW_LOG(ERR, "--vdev %s: interface %s does not exist in this network "
			       "namespace; not started", vdev[i].name, vdev[i].iface);
			continue;
		}
		GW_LOG(ERR, "--vdev %s (iface %s): the af_packet port was not created (EAL's "
		       "error above). If it says PACKET_FANOUT ... Invalid argument: DPDK's "
		       "af_packet PMD joins fanout group (pid ^ ifindex) & 0xffff = %#06x, and "
		       "another af_packet program in this network namespace (another vecsec-gw?) "
		       "holds that group on another interface. Start this gateway again (a new "
		       "pid gives another group), or give each gateway a network namespace of its "
		       "own (docs/lab.md); not started", vdev[i].name,
		       vdev[i].iface[0] != '\0' ? vdev[i].iface : "?",
		       ((unsigned int)getpid() ^ idx) & 0xffffu);
	}
	return bad;
}
