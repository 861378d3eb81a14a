/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec_eal_cleanup(): rte_eal_cleanup(), then the EAL runtime folder
 * (/var/run/dpdk/<file-prefix>, or $XDG_RUNTIME_DIR/dpdk/<file-prefix> for
 * a user) that this process made. DPDK 22.11's rte_eal_cleanup() frees the
 * memory and closes the multi-process socket but leaves the folder and its
 * shared-configuration files (config, fbarray_*, hugepage_info) behind:
 * every run with a new --file-prefix would leave one more. Used by every
 * program of ours that starts EAL (the gateway, vecsec-pmd-bench, the PMD
 * and gateway tests), on every exit path after a successful rte_eal_init().
 *
 * Only a primary process removes the folder (a secondary shares its
 * primary's), and only the files EAL itself names there; anything else in
 * it keeps the folder (rmdir fails, quietly). Header only: the callers are
 * separate programs with nothing else in common.
 */
#ifndef VECSEC_EAL_H
#define VECSEC_EAL_H

#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

/* What DPDK 22.11's EAL and telemetry create in the runtime folder. */
static inline int
vecsec_eal_runtime_file(const char *name)
{
	static const char *const pat[] = {
		"config", "hugepage_info", "hugepage_data", "fbarray_*",
		"mp_socket", "mp_socket_*", "dpdk_telemetry.v*", "telemetry",
	};

	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (fnmatch(pat[i], name, 0) == 0)
			return 1;
	return 0;
}

/* rte_eal_cleanup() and the runtime folder; returns rte_eal_cleanup()'s value. */
static inline int
vecsec_eal_cleanup(void)
{
	char dir[PATH_MAX];
	int primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	int rc;
	DIR *d;
	struct dirent *e;

	/* copied first: after the cleanup nothing of EAL's may be used */
	if (snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir()) >= (int)sizeof(dir))
		dir[0] = '\0';
	rc = rte_eal_cleanup();
	if (!primary || dir[0] == '\0')
		return rc;
	d = opendir(dir);
	if (d == NULL)
		return rc;
	while ((e = readdir(d)) != NULL)
		if (vecsec_eal_runtime_file(e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
	return rc;
}

#endif /* VECSEC_EAL_H */
