/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-vecsec: the plugin object. It provides charon's "kernel-ipsec"
 * feature only; kernel-netlink, loaded after it, still provides
 * "kernel-net" (addresses, routes, interfaces). Load it before
 * kernel-netlink (load = 2 in kernel-vecsec.conf, or first in an explicit
 * load list, best as `kernel-vecsec!` so that a failure stops charon
 * instead of falling back to XFRM).
 *
 * It also registers the private-use ESP proposal keywords aria128gcm16,
 * aria192gcm16 and aria256gcm16 (KERNEL_VECSEC_ENCR_ARIA_GCM16): between two
 * vecsec peers only, with charon.accept_private_algs = yes on both.
 *
 * Copyright (c) 2026, the vecsec authors
 */
#include "kernel_vecsec_plugin.h"
#include "kernel_vecsec_ipsec.h"

#include <daemon.h>

typedef struct private_kernel_vecsec_plugin_t private_kernel_vecsec_plugin_t;

struct private_kernel_vecsec_plugin_t {
	kernel_vecsec_plugin_t public;
};

METHOD(plugin_t, get_name, char *,
	private_kernel_vecsec_plugin_t *this)
{
	return "kernel-vecsec";
}

METHOD(plugin_t, get_features, int,
	private_kernel_vecsec_plugin_t *this, plugin_feature_t *features[])
{
	static plugin_feature_t f[] = {
		PLUGIN_CALLBACK(kernel_ipsec_register, kernel_vecsec_ipsec_create),
			PLUGIN_PROVIDE(CUSTOM, "kernel-ipsec"),
	};
	*features = f;
	return countof(f);
}

METHOD(plugin_t, destroy, void,
	private_kernel_vecsec_plugin_t *this)
{
	free(this);
}

plugin_t *
kernel_vecsec_plugin_create(void)
{
	private_kernel_vecsec_plugin_t *this;

	INIT(this,
		.public = {
			.plugin = {
				.get_name = _get_name,
				.get_features = _get_features,
				.destroy = _destroy,
			},
		},
	);
	/* the key length includes the 4-byte salt: charon derives that many bytes */
	lib->proposal->register_token(lib->proposal, "aria128gcm16", ENCRYPTION_ALGORITHM,
				      KERNEL_VECSEC_ENCR_ARIA_GCM16, 160);
	lib->proposal->register_token(lib->proposal, "aria192gcm16", ENCRYPTION_ALGORITHM,
				      KERNEL_VECSEC_ENCR_ARIA_GCM16, 224);
	lib->proposal->register_token(lib->proposal, "aria256gcm16", ENCRYPTION_ALGORITHM,
				      KERNEL_VECSEC_ENCR_ARIA_GCM16, 288);
	return &this->public.plugin;
}
