/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines (vecsec_engine.h): a cap bound to an object. An engine's level is
 * the lower of its cap and the process's level, read at each call, so the
 * process's policy (VECSEC_ISA, vecsec_isa_limit(), vecsec_force_isa() in
 * tests) bounds every engine and engines never touch it. The kernels a
 * level runs on are the tables' choices for that level (VECSEC_SELECT),
 * made once per process: an engine holds no pointer and can live in
 * memory shared between processes.
 */
#include <errno.h>
#include <stdlib.h>

#include "vecsec/vecsec_engine.h"
#include "cpu_internal.h"

VECSEC_API int
vecsec_engine_init(struct vecsec_engine *e, enum vecsec_isa cap)
{
	if (e == NULL || (cap != VECSEC_ISA_DEFAULT &&
			  (cap < VECSEC_ISA_SCALAR || cap > VECSEC_ISA_AVX512)))
		return -EINVAL;
	*e = (struct vecsec_engine){ .opaque = { 0 } };
	/* following the process is a cap no level is above */
	e->opaque[0] = (uint32_t)(cap == VECSEC_ISA_DEFAULT ? VECSEC_ISA_AVX512 : cap);
	return 0;
}

VECSEC_API struct vecsec_engine *
vecsec_engine_create(enum vecsec_isa cap)
{
	struct vecsec_engine *e = malloc(sizeof(*e));
	int rc;

	if (e == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = vecsec_engine_init(e, cap);
	if (rc != 0) {
		free(e);
		errno = -rc;
		return NULL;
	}
	return e;
}

VECSEC_API void
vecsec_engine_free(struct vecsec_engine *e)
{
	free(e);
}

VECSEC_API enum vecsec_isa
vecsec_engine_isa(const struct vecsec_engine *e)
{
	enum vecsec_isa proc = vecsec_isa_cap();

	if (e == NULL)
		return VECSEC_ISA_SCALAR;
	return e->opaque[0] < (uint32_t)proc ? (enum vecsec_isa)e->opaque[0] : proc;
}
