/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-ctl check-proposals (proposals.c): swanctl esp_proposals the
 * gateway cannot serve.
 */
#ifndef VECSEC_CTL_PROPOSALS_H
#define VECSEC_CTL_PROPOSALS_H

/* argv[0..argc): swanctl files (none: /etc/swanctl/swanctl.conf). Exit status 0, 1 or 2. */
int ctl_check_proposals(int argc, char **argv);

#endif /* VECSEC_CTL_PROPOSALS_H */
