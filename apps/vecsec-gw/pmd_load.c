/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec: one copy, from DPDK's plugin folder or the build tree.
 * gw_pmd_autoload() hands EAL the build's PMD when the gateway runs from
 * the build tree; gw_pmd_duplicates() says so when two copies got loaded.
 */
#define _GNU_SOURCE             /* dl_iterate_phdr() */

#include "gw_main.h"
#include "gw_log.h"

#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GW_BUILD_PMD
/*
 * The gateway does not link crypto_vecsec in. Run from the build tree
 * (this binary is the one meson built), EAL gets `-d <the build's
 * librte_crypto_vecsec.so>` before the other options. Installed, EAL loads
 * it from DPDK's plugin folder when it was installed there
 * (-Dpmd_dir=system); from anywhere else (the default: under the prefix,
 * GW_INSTALL_PMD) the gateway hands it to EAL the same way. Either is
 * left out when the command line loads a crypto_vecsec itself. Returns the
 * argv for EAL (argv itself, or a copy with the -d), *argc adjusted.
 */
char **
gw_pmd_autoload(int *argc, char **argv, bool *added)
{
	char self[PATH_MAX], built[PATH_MAX];
	const char *pmd = NULL;
	char **nv;

	*added = false;
	if (realpath("/proc/self/exe", self) != NULL && realpath(GW_BUILD_EXE, built) != NULL &&
	    strcmp(self, built) == 0 && access(GW_BUILD_PMD, R_OK) == 0)
		pmd = GW_BUILD_PMD;
#ifdef GW_INSTALL_PMD
	else if (access(GW_INSTALL_PMD, R_OK) == 0)
		pmd = GW_INSTALL_PMD;
#endif
	if (pmd == NULL)
		return argv;
	for (int i = 1; i + 1 < *argc; i++)
		if (strcmp(argv[i], "-d") == 0 && strstr(argv[i + 1], "crypto_vecsec") != NULL)
			return argv;
	nv = calloc((size_t)*argc + 3, sizeof(*nv));
	if (nv == NULL)
		return argv;
	nv[0] = argv[0];
	nv[1] = (char *)(uintptr_t)"-d";
	nv[2] = (char *)(uintptr_t)pmd;
	memcpy(nv + 3, argv + 1, (size_t)(*argc - 1) * sizeof(*nv));
	*argc += 2;
	*added = true;
	return nv;
}
#endif /* GW_BUILD_PMD */

struct pmd_copies {
	unsigned int n;
	char path[2][PATH_MAX];
};

static int
pmd_copy(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pmd_copies *c = arg;
	const char *base;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
		return 0;
	base = strrchr(info->dlpi_name, '/');
	base = base != NULL ? base + 1 : info->dlpi_name;
	if (strncmp(base, "librte_crypto_vecsec.so", strlen("librte_crypto_vecsec.so")) != 0)
		return 0;
	if (c->n < 2)
		snprintf(c->path[c->n], sizeof(c->path[0]), "%s", info->dlpi_name);
	c->n++;
	return 0;
}

/*
 * Two copies of crypto_vecsec in the process (a -d naming one while DPDK's
 * plugin folder holds another: EAL loads both, and both register the
 * driver): the first loaded serves every crypto_vecsec device. Said once.
 */
void
gw_pmd_duplicates(void)
{
	struct pmd_copies c = { .n = 0 };

	dl_iterate_phdr(pmd_copy, &c);
	if (c.n > 1)
		GW_LOG(WARNING, "crypto_vecsec is loaded %u times: %s serves its devices, %s%s is "
		       "registered in vain (a -d or a build tree's PMD next to the one in DPDK's "
		       "plugin folder: drop the -d, or uninstall one)", c.n, c.path[0], c.path[1],
		       c.n > 2 ? " and more" : "");
}
