/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket's default path, one rule for vecsec-gw and vecsec-ctl
 * (plain C, no DPDK). The folder follows DPDK's own runtime folders: root
 * /run/vecsec-gw, another user $XDG_RUNTIME_DIR/vecsec-gw or else
 * /tmp/vecsec-gw-UID. The name follows EAL's --file-prefix, so that
 * gateways side by side never share a socket: ctrl.sock for EAL's default
 * prefix ("rte"), PREFIX.sock for another one.
 *
 * The folder is trusted only if nobody but its owner could have put a
 * socket there (gw_ctrl_dir_check): /tmp/vecsec-gw-UID can be made by any
 * user before UID's first gateway does. The gateway checks the folder it
 * listens in, vecsec-ctl the folder it connects into.
 */
#ifndef VECSEC_GW_CTRL_PATH_H
#define VECSEC_GW_CTRL_PATH_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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

/*
 * The folder of socket path into buf ("." for a bare name); -1 if it does
 * not fit.
 */
static inline int
gw_ctrl_path_dir(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (slash == NULL)
		n = snprintf(buf, len, ".");
	else if (slash == path)
		n = snprintf(buf, len, "/");
	else
		n = snprintf(buf, len, "%.*s", (int)(slash - path), path);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/*
 * May a socket in folder dir be trusted by uid: dir is a folder itself (not
 * a link to one), owned by uid (or by root, with root_ok), and neither its
 * group nor others may write into it (only its owner could have put a socket
 * there). 0, or -errno with the reason in why: -ENOENT when it does not
 * exist (errno of lstat), -EPERM when it is not to be trusted.
 */
static inline int
gw_ctrl_dir_check(const char *dir, uid_t uid, bool root_ok, char *why, size_t why_len)
{
	struct stat st;

	if (lstat(dir, &st) != 0) {
		int e = errno;

		snprintf(why, why_len, "%s: %s", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s is not a folder (a link?)", dir);
		return -EPERM;
	}
	if (st.st_uid != uid && !(root_ok && st.st_uid == 0)) {
		snprintf(why, why_len, "%s belongs to uid %u, not to uid %u%s", dir,
			 (unsigned int)st.st_uid, (unsigned int)uid, root_ok ? " or root" : "");
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(why, why_len, "%s is writable by %s (mode %03o)", dir,
			 (st.st_mode & S_IWOTH) != 0 ? "others" : "its group",
			 (unsigned int)(st.st_mode & 0777));
		return -EPERM;
	}
	return 0;
}

#endif /* VECSEC_GW_CTRL_PATH_H */
