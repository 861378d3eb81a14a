/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw inbound ESP, out of line: after ESP, the inner policy check of
 * a batch of decrypted packets (one SPD lookup per family), then the route
 * (or the host, gw_route_in()). Before ESP, the SAD lookup, and in
 * between the anti-replay steps, are inline in esp_in.h (the worker's
 * rx_process() and esp_crypto.c run them).
 */
#include "esp_in.h"
#include "esp_crypto.h"

/* The policy for each inner packet must protect it with the SA it came in; then route. */
void
gw_esp_in_check(struct gw_worker *w, struct in_check *ic)
{
	for (int v6 = 0; v6 < 2; v6++) {
		const struct gw_sp *sps[GW_BURST];
		struct gw_sp_val val[GW_BURST];

		if (ic->n[v6] == 0)
			continue;
		spd_lookup(w, v6, GW_DIR_IN, ic->m[v6], ic->n[v6], sps, val);
		for (uint16_t i = 0; i < ic->n[v6]; i++) {
			struct gw_sa *sa = ic->sa[v6][i];

			/* the rule's line only for sa_prev (during a rekey) */
			if (sps[i] == NULL || val[i].action != GW_SP_PROTECT ||
					(val[i].sa != sa && sps[i]->sa_prev != sa)) {
				gw_port_drop(w, sa, ic->m[v6][i], GW_DROP_POLICY);
				continue;
			}
			w->st.esp_in++;
			gw_route_in(w, ic->m[v6][i]);
		}
		ic->n[v6] = 0;
	}
}
