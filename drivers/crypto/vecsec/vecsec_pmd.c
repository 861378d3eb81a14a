/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec: a DPDK 22.11 cryptodev vdev whose crypto is libvecsec's
 * lanes engine. This file: devargs, probe/remove, ISA policy, feature
 * flags, registration with the vdev bus and cryptodev (the driver id and
 * log type it registers live in vecsec_pmd_id.c, below every file).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_vect.h>
#include <bus_vdev_driver.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_engine.h"

#include "vecsec_pmd_private.h"

static const char *const valid_args[] = {
	RTE_CRYPTODEV_PMD_NAME_ARG,
	RTE_PMD_VECSEC_ARG_MAX_NB_QP,
	RTE_PMD_VECSEC_ARG_SOCKET_ID,
	RTE_PMD_VECSEC_ARG_ISA,
	RTE_PMD_VECSEC_ARG_MAX_BURST,
	NULL
};

struct vecsec_pmd_args {
	struct rte_cryptodev_pmd_init_params init;
	enum vecsec_isa isa;    /* VECSEC_ISA_DEFAULT: no isa= given */
	unsigned int max_burst;
};

/* A decimal integer in [lo, hi], the whole string; logs what it wanted if not. */
static int
parse_uint(const char *key, const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	if (s != NULL && *s != '\0' && *s != '-') {
		errno = 0;
		*v = strtoul(s, &end, 0);
		if (errno == 0 && *end == '\0' && *v >= lo && *v <= hi)
			return 0;
	}
	VECSEC_PMD_LOG(ERR, "%s=%s: want %lu..%lu", key, s != NULL ? s : "", lo, hi);
	return -EINVAL;
}

static int
arg_name(const char *key __rte_unused, const char *value, void *opaque)
{
	struct vecsec_pmd_args *a = opaque;

	if (value == NULL || strlen(value) >= sizeof(a->init.name))
		return -EINVAL;
	strcpy(a->init.name, value);
	return 0;
}

static int
arg_max_qp(const char *key, const char *value, void *opaque)
{
	struct vecsec_pmd_args *a = opaque;
	unsigned long v;

	if (parse_uint(key, value, 1, RTE_MAX_QUEUES_PER_PORT, &v) != 0)
		return -EINVAL;
	a->init.max_nb_queue_pairs = (unsigned int)v;
	return 0;
}

static int
arg_socket(const char *key, const char *value, void *opaque)
{
	struct vecsec_pmd_args *a = opaque;
	unsigned long v;

	if (parse_uint(key, value, 0, RTE_MAX_NUMA_NODES - 1, &v) != 0)
		return -EINVAL;
	a->init.socket_id = (int)v;
	return 0;
}

static int
arg_isa(const char *key, const char *value, void *opaque)
{
	struct vecsec_pmd_args *a = opaque;

	if (vecsec_isa_parse(value, &a->isa) != 0) {
		VECSEC_PMD_LOG(ERR, "%s=%s: unknown ISA (scalar|ssse3|avx2|avx512)", key,
			       value ? value : "");
		return -EINVAL;
	}
	return 0;
}

static int
arg_max_burst(const char *key, const char *value, void *opaque)
{
	struct vecsec_pmd_args *a = opaque;
	unsigned long v;

	if (parse_uint(key, value, 1, VECSEC_MAX_BURST, &v) != 0)
		return -EINVAL;
	a->max_burst = (unsigned int)v;
	return 0;
}

static int
parse_args(struct vecsec_pmd_args *a, const char *args)
{
	static const struct {
		const char *key;
		arg_handler_t fn;
	} handlers[] = {
		{ RTE_CRYPTODEV_PMD_NAME_ARG, arg_name },
		{ RTE_PMD_VECSEC_ARG_MAX_NB_QP, arg_max_qp },
		{ RTE_PMD_VECSEC_ARG_SOCKET_ID, arg_socket },
		{ RTE_PMD_VECSEC_ARG_ISA, arg_isa },
		{ RTE_PMD_VECSEC_ARG_MAX_BURST, arg_max_burst },
	};
	struct rte_kvargs *kv;
	int rc = 0;

	if (args == NULL || *args == '\0')
		return 0;
	kv = rte_kvargs_parse(args, valid_args);
	if (kv == NULL) {
		VECSEC_PMD_LOG(ERR, "bad devargs '%s' (valid: name, %s, %s, %s, %s)", args,
			       RTE_PMD_VECSEC_ARG_MAX_NB_QP, RTE_PMD_VECSEC_ARG_SOCKET_ID,
			       RTE_PMD_VECSEC_ARG_ISA, RTE_PMD_VECSEC_ARG_MAX_BURST);
		return -EINVAL;
	}
	for (size_t i = 0; i < RTE_DIM(handlers) && rc == 0; i++)
		rc = rte_kvargs_process(kv, handlers[i].key, handlers[i].fn, a);
	rte_kvargs_free(kv);
	return rc < 0 ? rc : (rc > 0 ? -EINVAL : 0);
}

/* The SIMD level EAL's --force-max-simd-bitwidth allows. */
static enum vecsec_isa
eal_isa_cap(void)
{
	uint16_t bits = rte_vect_get_max_simd_bitwidth();

	if (bits >= RTE_VECT_SIMD_512)
		return VECSEC_ISA_AVX512;
	if (bits >= RTE_VECT_SIMD_256)
		return VECSEC_ISA_AVX2;
	if (bits >= RTE_VECT_SIMD_128)
		return VECSEC_ISA_SSSE3;
	return VECSEC_ISA_SCALAR;
}

/* Does this libvecsec implement ARIA? Asking it is the only truthful test. */
static bool
lib_has_aria(void)
{
	static const uint8_t zero_key[16];
	struct vecsec_aead_key *k = rte_zmalloc(NULL, sizeof(*k), _Alignof(struct vecsec_aead_key));
	int rc;

	if (k == NULL)
		return false;
	rc = vecsec_aead_key_init(k, VECSEC_AEAD_ARIA_GCM, zero_key, sizeof(zero_key));
	vecsec_aead_key_wipe(k);
	rte_free(k);
	return rc == 0;
}

static int
vecsec_pmd_probe(struct rte_vdev_device *vdev)
{
	struct vecsec_pmd_args a = {
		.init = {
			.name = "",
			.private_data_size = sizeof(struct vecsec_pmd_private),
			.socket_id = (int)rte_socket_id(),
			.max_nb_queue_pairs = VECSEC_PMD_DEFAULT_MAX_QP,
		},
		.isa = VECSEC_ISA_DEFAULT,
		.max_burst = VECSEC_MAX_BURST,
	};
	struct vecsec_pmd_private *priv;
	struct rte_cryptodev *dev;
	const char *name = rte_vdev_device_name(vdev);
	enum vecsec_isa cap;
	int rc;

	if (name == NULL)
		return -EINVAL;
	rc = parse_args(&a, rte_vdev_device_args(vdev));
	if (rc != 0) {
		VECSEC_PMD_LOG(ERR, "%s: probe failed: bad devargs", name);
		return rc;
	}
	/*
	 * EAL's SIMD width is a process-wide setting: it limits vecsec's process
	 * level, the same value for every device. isa= is this device's own:
	 * its engine's cap, which no other device changes.
	 */
	cap = eal_isa_cap();
	rc = vecsec_isa_limit(cap);
	if (rc != 0) {
		VECSEC_PMD_LOG(ERR, "%s: cannot limit ISA to %s", name, vecsec_isa_name(cap));
		return rc;
	}

	dev = rte_cryptodev_pmd_create(name, &vdev->device, &a.init);
	if (dev == NULL) {
		VECSEC_PMD_LOG(ERR, "%s: cryptodev create failed", name);
		return -ENODEV;
	}
	dev->driver_id = vecsec_pmd_driver_id;
	dev->dev_ops = &vecsec_pmd_ops;
	dev->enqueue_burst = vecsec_pmd_enqueue_burst;
	dev->dequeue_burst = vecsec_pmd_dequeue_burst;

	priv = dev->data->dev_private;
	priv->max_nb_qpairs = a.init.max_nb_queue_pairs;
	priv->max_burst = a.max_burst;
	rc = vecsec_engine_init(&priv->engine, a.isa);
	if (rc != 0) {
		VECSEC_PMD_LOG(ERR, "%s: no engine for isa %s: %d", name, vecsec_isa_name(a.isa), rc);
		rte_cryptodev_pmd_destroy(dev);
		return rc;
	}
	priv->aria = lib_has_aria();
	priv->longc = rte_zmalloc_socket("crypto_vecsec long chains",
		sizeof(*priv->longc) + VECSEC_PMD_LONG_SEGS * sizeof(priv->longc->segs[0]),
		RTE_CACHE_LINE_SIZE, a.init.socket_id);
	if (priv->longc == NULL) {
		VECSEC_PMD_LOG(ERR, "%s: no memory for the long-chain area", name);
		rte_cryptodev_pmd_destroy(dev);
		return -ENOMEM;
	}
	rte_spinlock_init(&priv->longc->lock);
	priv->longc->nb_segs = VECSEC_PMD_LONG_SEGS;

	rc = vecsec_pmd_sec_ctx_create(dev);
	if (rc != 0) {
		VECSEC_PMD_LOG(ERR, "%s: no rte_security context: %d", name, rc);
		rte_free(priv->longc);
		rte_cryptodev_pmd_destroy(dev);
		return rc;
	}
	dev->feature_flags = RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO |
		RTE_CRYPTODEV_FF_SECURITY |
		RTE_CRYPTODEV_FF_SYM_OPERATION_CHAINING |
		RTE_CRYPTODEV_FF_IN_PLACE_SGL |
		RTE_CRYPTODEV_FF_OOP_SGL_IN_SGL_OUT |
		RTE_CRYPTODEV_FF_OOP_SGL_IN_LB_OUT |
		RTE_CRYPTODEV_FF_OOP_LB_IN_SGL_OUT |
		RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT |
		RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO |
		RTE_CRYPTODEV_FF_SYM_SESSIONLESS |
		vecsec_pmd_isa_flags(vecsec_engine_isa(&priv->engine));

	rte_cryptodev_pmd_probing_finish(dev);
	VECSEC_PMD_LOG(INFO, "%s: libvecsec %s, isa %s (cpu %s, devarg %s, simd bitwidth %u), "
		       "%u queue pairs, burst %u%s", name, vecsec_version(),
		       vecsec_isa_name(vecsec_engine_isa(&priv->engine)),
		       vecsec_isa_name(vecsec_cpu_max_isa()),
		       a.isa == VECSEC_ISA_DEFAULT ? "none" : vecsec_isa_name(a.isa),
		       rte_vect_get_max_simd_bitwidth(), priv->max_nb_qpairs, priv->max_burst,
		       priv->aria ? ", aria" : "");
	return 0;
}

static int
vecsec_pmd_remove(struct rte_vdev_device *vdev)
{
	struct vecsec_pmd_private *priv;
	struct rte_cryptodev *dev;
	const char *name = rte_vdev_device_name(vdev);

	if (name == NULL)
		return -EINVAL;
	dev = rte_cryptodev_pmd_get_named_dev(name);
	if (dev == NULL)
		return -ENODEV;
	vecsec_pmd_sec_ctx_destroy(dev);
	priv = dev->data->dev_private;
	if (priv != NULL) {
		rte_free(priv->longc);
		priv->longc = NULL;
	}
	return rte_cryptodev_pmd_destroy(dev);
}

static struct rte_vdev_driver vecsec_pmd_drv = {
	.probe = vecsec_pmd_probe,
	.remove = vecsec_pmd_remove,
};

static struct cryptodev_driver vecsec_crypto_drv;

RTE_PMD_REGISTER_VDEV(crypto_vecsec, vecsec_pmd_drv);
RTE_PMD_REGISTER_PARAM_STRING(crypto_vecsec,
	"max_nb_queue_pairs=<int> socket_id=<int> isa=<scalar|ssse3|avx2|avx512> "
	"max_burst=<1..256>");
RTE_PMD_REGISTER_CRYPTO_DRIVER(vecsec_crypto_drv, vecsec_pmd_drv.driver, vecsec_pmd_driver_id);
