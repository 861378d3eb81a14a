/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's default path, one rule for vecsec-gw and vecsec-ctl
 * (plain C, no DPDK). The folder follows DPDK's own runtime folders: root
 * /run/vecsec-gw, another user $XDG_RUNTIME_DIR/vecsec-gw or else
 * /tmp/vecsec-gw-UID. The name follows EAL's --file-prefix, so that
 * gateways side by side never share a socket: ctrl.sock for EAL's default
 * prefix ("rte"), PREFIX.sock for another one.
 */
#ifndef VECSEC_GW_CTRL_PATH_H
#define VECSEC_GW_CTRL_PATH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GW_CTRL_EAL_DEFAULT_PREFIX "rte"

/* The folder into buf; -1 if it does not fit. */
static inline int
gw_ctrl_default_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/run/vecsec-gw");
	else if (xdg != NULL && xdg[0] == '/')
		n = snprintf(buf, len, "%s/vecsec-gw", xdg);
	else
		n = snprintf(buf, len, "/tmp/vecsec-gw-%u", (unsigned int)geteuid());
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/*
 * The socket's path for EAL file prefix `prefix` (NULL: the default) into
 * buf; -1 if it does not fit or the prefix is not a plain name.
 */
static inline int
gw_ctrl_default_path(char *buf, size_t len, const char *prefix)
{
	size_t d;
	int n;

	if (prefix == NULL)
		prefix = GW_CTRL_EAL_DEFAULT_PREFIX;
	if (prefix[0] == '\0' || prefix[0] == '.' || strchr(prefix, '/') != NULL ||
	    gw_ctrl_default_dir(buf, len) != 0)
		return -1;
	d = strlen(buf);
	if (strcmp(prefix, GW_CTRL_EAL_DEFAULT_PREFIX) == 0)
		n = snprintf(buf + d, len - d, "/ctrl.sock");
	else
		n = snprintf(buf + d, len - d, "/%s.sock", prefix);
	return n > 0 && (size_t)n < len - d ? 0 : -1;
}

#endif /* VECSEC_GW_CTRL_PATH_H */
