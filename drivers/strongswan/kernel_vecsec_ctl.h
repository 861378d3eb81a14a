/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel-vecsec: client of vecsec-gw's control socket; the protocol is
 * docs/control-protocol.md (the plugin needs 1.5). Every request uses its
 * own connection, so none of ours is ever idle (the gateway closes idle
 * clients) and a slot is held only while a request is served; the event
 * subscription is the one connection kept open.
 *
 * Copyright (c) 2026, the vecsec authors
 */
#ifndef KERNEL_VECSEC_CTL_H_
#define KERNEL_VECSEC_CTL_H_

#include <library.h>

typedef struct kernel_vecsec_ctl_t kernel_vecsec_ctl_t;

/** An answer: the lines before OK, and the text after ERR. */
typedef struct {
	/** answer lines, '\n'-separated, NUL-terminated (never NULL after request) */
	char *lines;
	/** ERR's message, "" after OK */
	char *err;
} kernel_vecsec_answer_t;

struct kernel_vecsec_ctl_t {

	/**
	 * Send one request (a printf format) and read its answer.
	 *
	 * The request buffer is wiped after sending (it may carry keys).
	 *
	 * @param answer	lines and error, free with kernel_vecsec_answer_free()
	 * @return			SUCCESS (OK), NOT_FOUND (ERR "no ..."), FAILED (other
	 *					ERR, no gateway, timeout, malformed answer: logged)
	 */
	status_t (*request)(kernel_vecsec_ctl_t *this, kernel_vecsec_answer_t *answer,
						char *fmt, ...);

	/**
	 * Connect a subscription for events ("subscribe"), -1 on failure.
	 */
	int (*subscribe)(kernel_vecsec_ctl_t *this);

	/**
	 * Path of the control socket.
	 */
	char *(*get_path)(kernel_vecsec_ctl_t *this);

	/**
	 * Destroy the client.
	 */
	void (*destroy)(kernel_vecsec_ctl_t *this);
};

/**
 * Free what request() put in an answer.
 */
void kernel_vecsec_answer_free(kernel_vecsec_answer_t *answer);

/**
 * Find "key VALUE" among the words of an answer line starting with first.
 *
 * @return			TRUE and *value if found and a number
 */
bool kernel_vecsec_answer_u64(kernel_vecsec_answer_t *answer, char *first,
							  char *key, uint64_t *value);

/**
 * Create a client for the socket at path; timeout_ms bounds each request.
 */
kernel_vecsec_ctl_t *kernel_vecsec_ctl_create(char *path, u_int timeout_ms);

#endif /** KERNEL_VECSEC_CTL_H_ */
