/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-vecsec: charon's kernel_ipsec_t on vecsec-gw. CHILD_SAs and
 * policies go to the gateway's control socket; expire events come back.
 *
 * Copyright (c) 2026, the vecsec authors
 */
#ifndef KERNEL_VECSEC_IPSEC_H_
#define KERNEL_VECSEC_IPSEC_H_

#include <library.h>
#include <kernel/kernel_ipsec.h>

/*
 * Private-use ESP transform (RFC 7296 3.3.2: 1024-65535) for ARIA-GCM with
 * a 16-byte ICV in the RFC 4106 layout (key + 4-byte salt, 8-byte IV).
 * strongSwan has no ARIA; this id interoperates only between vecsec peers.
 * Its KEY_LENGTH attribute counts the salt too (160/224/288 bits), since
 * charon derives exactly that many key bytes for an id it does not know.
 */
#define KERNEL_VECSEC_ENCR_ARIA_GCM16 65101

typedef struct kernel_vecsec_ipsec_t kernel_vecsec_ipsec_t;

struct kernel_vecsec_ipsec_t {

	/**
	 * Implements kernel_ipsec_t interface
	 */
	kernel_ipsec_t interface;
};

/**
 * Create a kernel-vecsec instance.
 *
 * @return			kernel_vecsec_ipsec_t instance
 */
kernel_vecsec_ipsec_t *kernel_vecsec_ipsec_create(void);

#endif /** KERNEL_VECSEC_IPSEC_H_ */
