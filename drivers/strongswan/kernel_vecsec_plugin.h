/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-vecsec: charon plugin that installs IKE's CHILD_SAs and policies
 * into the vecsec-gw ESP gateway (DPDK) instead of the kernel's XFRM.
 *
 * Copyright (c) 2026, the vecsec authors
 */
#ifndef KERNEL_VECSEC_PLUGIN_H_
#define KERNEL_VECSEC_PLUGIN_H_

#include <library.h>
#include <plugins/plugin.h>

typedef struct kernel_vecsec_plugin_t kernel_vecsec_plugin_t;

struct kernel_vecsec_plugin_t {

	/**
	 * implements plugin interface
	 */
	plugin_t plugin;
};

#endif /** KERNEL_VECSEC_PLUGIN_H_ */
