/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec: one copy, from DPDK's plugin folder or the build tree.
 * gw_pmd_autoload() hands EAL the build's PMD when the gateway runs from
 * the build tree; gw_pmd_duplicates() says so when two copies got loaded,
 * gw_pmd_missing() when none did.
 */
#define _GNU_SOURCE             /* dl_iterate_phdr() */

#include "gw_main.h"
#include "gw_log.h"

#include <rte_cryptodev.h>

#include <glob.h>
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

#ifdef GW_PMD_DIR
/* Whether a librte_crypto_vecsec.so* lies in dir (EAL loads such files from its plugin folder). */
static bool
pmd_file_in(const char *dir)
{
	char pat[PATH_MAX];
	glob_t g;
	bool found;

	if (snprintf(pat, sizeof(pat), "%s/librte_crypto_vecsec.so*", dir) >= (int)sizeof(pat))
		return false;
	found = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}
#endif /* GW_PMD_DIR */

/*
 * This gateway was built with crypto_vecsec (installed to GW_PMD_DIR) and
 * EAL registered none: SAs would quietly go to crypto_aesni_mb and the
 * other software cryptodevs, and those only crypto_vecsec runs would fail
 * one by one. Said once at start, with where the PMD was expected and why
 * EAL did not load it. Returns whether it is missing.
 */
bool
gw_pmd_missing(const char *prefer)
{
#ifdef GW_PMD_DIR
	const char *eal_dir = RTE_EAL_PMD_PATH;
	bool there = pmd_file_in(GW_PMD_DIR);

	if (rte_cryptodev_driver_id_get("crypto_vecsec") >= 0)
		return false;
	GW_LOG(WARNING, "crypto_vecsec is not loaded, though this vecsec-gw was built with it "
	       "and installs it to %s: %s. SAs go to the other software cryptodevs "
	       "(crypto_aesni_mb, ...)%s; ChaCha20-Poly1305 lookaside-protocol and ARIA SAs "
	       "cannot start. Reinstall the PMD, or load it with -d PATH",
	       GW_PMD_DIR, !there ? "no librte_crypto_vecsec.so* is there (removed, or never "
	       "installed)" : strcmp(GW_PMD_DIR, eal_dir) != 0 ? "it is there, but EAL loads "
	       "plugins from its own folder, " RTE_EAL_PMD_PATH ", only (give -d " GW_PMD_DIR
	       ")" : "it is there, but EAL did not load it (see EAL's messages above)",
	       strcmp(prefer, "crypto_vecsec") == 0 ? "" : " (--prefer names another driver)");
	return true;
#else
	(void)prefer;
	return false;
#endif
}
