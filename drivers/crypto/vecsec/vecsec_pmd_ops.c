/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec control path: device configure/start/stop/close, info,
 * stats, queue pairs (an exact-size SP/SC completion ring and the burst
 * scratch each) and sessions (an expanded libvecsec key, checked against
 * the capability array, wiped on clear; inline when small, else in
 * rte_malloc memory freed on clear: vecsec_pmd_session.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"

#include "vecsec_pmd_private.h"
#include "vecsec_pmd_dp.h"

static int
vecsec_pmd_config(struct rte_cryptodev *dev __rte_unused,
		  struct rte_cryptodev_config *config __rte_unused)
{
	return 0;
}

static int
vecsec_pmd_start(struct rte_cryptodev *dev __rte_unused)
{
	return 0;
}

static void
vecsec_pmd_stop(struct rte_cryptodev *dev __rte_unused)
{
}

static int
vecsec_pmd_qp_release(struct rte_cryptodev *dev, uint16_t qp_id)
{
	const struct vecsec_pmd_private *priv = dev->data->dev_private;
	struct vecsec_pmd_qp *qp;

	if (dev->data->queue_pairs == NULL || qp_id >= priv->max_nb_qpairs)
		return 0;
	qp = dev->data->queue_pairs[qp_id];
	if (qp == NULL)
		return 0;
	rte_ring_free(qp->ring);
	/* the scratch held pointers to keys and data: leave nothing behind */
	vecsec_memzero(qp, sizeof(*qp));
	rte_free(qp);
	dev->data->queue_pairs[qp_id] = NULL;
	return 0;
}

static int
vecsec_pmd_close(struct rte_cryptodev *dev)
{
	for (uint16_t i = 0; i < dev->data->nb_queue_pairs; i++)
		vecsec_pmd_qp_release(dev, i);
	return 0;
}

static void
vecsec_pmd_stats_get(struct rte_cryptodev *dev, struct rte_cryptodev_stats *stats)
{
	for (uint16_t i = 0; i < dev->data->nb_queue_pairs; i++) {
		const struct vecsec_pmd_qp *qp = dev->data->queue_pairs[i];

		if (qp == NULL)
			continue;
		stats->enqueued_count += qp->stats.enqueued_count;
		stats->dequeued_count += qp->stats.dequeued_count;
		stats->enqueue_err_count += qp->stats.enqueue_err_count;
		stats->dequeue_err_count += qp->stats.dequeue_err_count;
	}
}

static void
vecsec_pmd_stats_reset(struct rte_cryptodev *dev)
{
	for (uint16_t i = 0; i < dev->data->nb_queue_pairs; i++) {
		struct vecsec_pmd_qp *qp = dev->data->queue_pairs[i];

		if (qp != NULL)
			memset(&qp->stats, 0, sizeof(qp->stats));
	}
}

static void
vecsec_pmd_info_get(struct rte_cryptodev *dev, struct rte_cryptodev_info *info)
{
	const struct vecsec_pmd_private *priv = dev->data->dev_private;

	if (info == NULL)
		return;
	/*
	 * The level this device's engine runs at now: its isa= devarg, bounded
	 * by the process's level (which VECSEC_ISA, vecsec_isa_limit() or a
	 * test's vecsec_force_isa() may have changed since probe).
	 */
	dev->feature_flags = (dev->feature_flags & ~VECSEC_PMD_FF_CPU) |
		vecsec_pmd_isa_flags(vecsec_engine_isa(&priv->engine));
	info->driver_id = dev->driver_id;
	info->feature_flags = dev->feature_flags;
	info->capabilities = vecsec_pmd_capabilities(priv->aria);
	info->max_nb_queue_pairs = priv->max_nb_qpairs;
	info->sym.max_nb_sessions = 0;   /* no limit but the session mempool */
	/* AAD and data may sit anywhere; nothing to reserve in front */
	info->min_mbuf_headroom_req = 0;
	info->min_mbuf_tailroom_req = 0;
}

static int
vecsec_pmd_qp_setup(struct rte_cryptodev *dev, uint16_t qp_id,
		    const struct rte_cryptodev_qp_conf *conf, int socket_id)
{
	const struct vecsec_pmd_private *priv = dev->data->dev_private;
	struct vecsec_pmd_qp *qp;
	int n;

	if (qp_id >= priv->max_nb_qpairs) {
		VECSEC_PMD_LOG(ERR, "qp %u: device has %u queue pairs", qp_id,
			       priv->max_nb_qpairs);
		return -EINVAL;
	}
	if (conf == NULL || conf->nb_descriptors == 0) {
		VECSEC_PMD_LOG(ERR, "qp %u: need nb_descriptors > 0", qp_id);
		return -EINVAL;
	}
	/* re-setup: the old ring may hold ops; they are the caller's to drain */
	vecsec_pmd_qp_release(dev, qp_id);

	qp = rte_zmalloc_socket("crypto_vecsec qp", sizeof(*qp), RTE_CACHE_LINE_SIZE,
				socket_id);
	if (qp == NULL) {
		VECSEC_PMD_LOG(ERR, "qp %u: no memory", qp_id);
		return -ENOMEM;
	}
	qp->id = qp_id;
	/* a queue pair is one thread's at a time: alone, it owns the counters */
	qp->seq_excl = dev->data->nb_queue_pairs == 1;
	qp->longc = priv->longc;
	scratch_init(&qp->scratch);
	qp->max_burst = priv->max_burst;
	qp->aria = priv->aria;
	qp->engine = &priv->engine;
	n = snprintf(qp->name, sizeof(qp->name), "vecsec_%u_qp%u", dev->data->dev_id, qp_id);
	if (n < 0 || (size_t)n >= sizeof(qp->name)) {
		rte_free(qp);
		return -EINVAL;
	}
	/* exact size: nb_descriptors ops fit, the next enqueue gets fewer */
	qp->ring = rte_ring_create(qp->name, conf->nb_descriptors, socket_id,
				   RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (qp->ring == NULL) {
		VECSEC_PMD_LOG(ERR, "qp %u: ring of %u: %s", qp_id, conf->nb_descriptors,
			       rte_strerror(rte_errno));
		rte_free(qp);
		return -rte_errno != 0 ? -rte_errno : -ENOMEM;
	}
	dev->data->queue_pairs[qp_id] = qp;
	return 0;
}

/* Two cache lines: the parameters, then a small key (larger ones live apart). */
_Static_assert(sizeof(struct vecsec_pmd_session) == 2 * 64, "a session is two cache lines");

static unsigned int
vecsec_pmd_session_size(struct rte_cryptodev *dev __rte_unused)
{
	return sizeof(struct vecsec_pmd_session);
}

static int
vecsec_pmd_session_configure(struct rte_cryptodev *dev, struct rte_crypto_sym_xform *xform,
			     struct rte_cryptodev_sym_session *sess)
{
	const struct vecsec_pmd_private *priv = dev->data->dev_private;
	struct vecsec_pmd_session *s;
	int rc;

	if (sess == NULL || xform == NULL)
		return -EINVAL;
	s = CRYPTODEV_GET_SYM_SESS_PRIV(sess);
	if (((uintptr_t)s & (_Alignof(struct vecsec_pmd_session) - 1)) != 0) {
		VECSEC_PMD_LOG(ERR, "session data %p not %zu-byte aligned", (void *)s,
			       _Alignof(struct vecsec_pmd_session));
		return -EINVAL;
	}
	rc = vecsec_pmd_session_set(s, xform, priv->aria, NULL, 0, dev->data->socket_id);
	if (rc != 0)
		VECSEC_PMD_LOG(DEBUG, "session rejected: %s", rte_strerror(-rc));
	return rc;
}

static void
vecsec_pmd_session_clear(struct rte_cryptodev *dev __rte_unused,
			 struct rte_cryptodev_sym_session *sess)
{
	struct vecsec_pmd_session *s;

	if (sess == NULL)
		return;
	s = CRYPTODEV_GET_SYM_SESS_PRIV(sess);
	if (s->configured)
		vecsec_pmd_session_wipe(s);
	else
		vecsec_memzero(s, sizeof(*s));
}

struct rte_cryptodev_ops vecsec_pmd_ops = {
	.dev_configure = vecsec_pmd_config,
	.dev_start = vecsec_pmd_start,
	.dev_stop = vecsec_pmd_stop,
	.dev_close = vecsec_pmd_close,

	.stats_get = vecsec_pmd_stats_get,
	.stats_reset = vecsec_pmd_stats_reset,

	.dev_infos_get = vecsec_pmd_info_get,

	.queue_pair_setup = vecsec_pmd_qp_setup,
	.queue_pair_release = vecsec_pmd_qp_release,

	.sym_session_get_size = vecsec_pmd_session_size,
	.sym_session_configure = vecsec_pmd_session_configure,
	.sym_session_clear = vecsec_pmd_session_clear,

	.sym_cpu_process = vecsec_pmd_cpu_process,
};
