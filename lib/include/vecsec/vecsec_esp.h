/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec ESP receive side, RFC 4303: the anti-replay window (3.4.3,
 * Appendix A.1) and the reconstruction of extended sequence numbers from
 * their transmitted low half (Appendix A.2). Pure C, no packet I/O: the
 * caller gives 64-bit sequence numbers and decides what to do with the
 * answers. Checking and recording are separate calls, so that a number is
 * recorded only once its packet's ICV has been verified (3.4.3).
 *
 * A window of size W accepts a number S exactly when S > 0, S > T - W
 * (T: the highest number recorded so far) and S has not been recorded: W
 * numbers, T - W + 1 ... T, plus everything above T. W = 0 turns
 * anti-replay off (every S > 0 passes; T still follows the highest number
 * recorded, which ESN reconstruction needs).
 *
 * Not thread-safe: one writer at a time, and no reader while it writes.
 */
#ifndef VECSEC_ESP_H
#define VECSEC_ESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest replay window (packets) a vecsec_esp_replay takes: RFC 4303 A.2 needs W < 2^31. */
#define VECSEC_ESP_REPLAY_WIN_MAX (UINT32_C(1) << 30)

/** A replay window: caller-allocated, vecsec_esp_replay_size() bytes, contents private. */
struct vecsec_esp_replay;

/**
 * Bytes a replay window of @p win packets needs (a header and a bitmap of
 * at least @p win + 64 bits, a power of two of 64-bit words).
 *
 * @param win
 *   window size in packets, 0..VECSEC_ESP_REPLAY_WIN_MAX (0: anti-replay off).
 * @return the size in bytes, 8-byte alignment suffices; 0 if @p win is too large.
 */
VECSEC_API size_t vecsec_esp_replay_size(uint32_t win);

/**
 * Set up a window: nothing recorded, highest number @p top (RFC 4303: 0 for
 * a new SA; a resumed SA passes the last number it had seen).
 *
 * @param r
 *   memory of at least vecsec_esp_replay_size(@p win) bytes, 8-byte aligned.
 * @param size
 *   bytes at @p r.
 * @param win
 *   window size in packets, 0..VECSEC_ESP_REPLAY_WIN_MAX (0: anti-replay off).
 * @param esn
 *   true for extended (64-bit) sequence numbers; false: 32-bit numbers,
 *   and vecsec_esp_replay_recover() then returns the low half as it is.
 * @param top
 *   highest number taken as seen (32-bit SAs: at most 2^32 - 1).
 * @return 0; -EINVAL for a NULL @p r, @p size too small, @p win too large,
 *   or a 32-bit SA with @p top above 2^32 - 1.
 */
VECSEC_API int vecsec_esp_replay_init(struct vecsec_esp_replay *r, size_t size, uint32_t win,
				      bool esn, uint64_t top);

/**
 * RFC 4303 A.2.1: the 64-bit number whose low half is @p lo and which lies
 * in the 2^32 numbers starting at the window's bottom, T - W + 1 (case A:
 * the window within one 2^32 subspace; case B: across two). With W = 0,
 * W = 2^31 is used (the nearest number to T).
 *
 * @param top
 *   T, the highest number recorded.
 * @param win
 *   W, the window size used for the reconstruction, 0..VECSEC_ESP_REPLAY_WIN_MAX.
 * @param lo
 *   the sequence number field of the packet.
 * @param[out] seq
 *   the reconstructed number (untouched on error).
 * @return 0; -ERANGE if that number would lie outside 0 .. 2^64 - 1 (no
 *   packet of the SA can carry it); -EINVAL for a NULL @p seq or @p win
 *   too large.
 */
VECSEC_API int vecsec_esp_esn_recover(uint64_t top, uint32_t win, uint32_t lo, uint64_t *seq);

/**
 * The 64-bit number of a packet whose sequence number field is @p lo:
 * vecsec_esp_esn_recover() with the window's top and size for an ESN
 * window, @p lo itself for a 32-bit one.
 *
 * @param r
 *   window from vecsec_esp_replay_init().
 * @param lo
 *   the sequence number field of the packet.
 * @param[out] seq
 *   the number (untouched on error).
 * @return 0; -ERANGE as vecsec_esp_esn_recover(); -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_esp_replay_recover(const struct vecsec_esp_replay *r, uint32_t lo,
					 uint64_t *seq);

/**
 * RFC 4303 3.4.3 / A.1: may a packet with number @p seq be accepted? Changes nothing.
 *
 * @param r
 *   window from vecsec_esp_replay_init().
 * @param seq
 *   the packet's full sequence number.
 * @return 0 if it may (above the top, or inside the window and not yet
 *   recorded); -EALREADY if it was recorded before; -ERANGE if it is 0 or
 *   left of the window (at or below T - W; above 2^32 - 1 on a 32-bit
 *   window); -EINVAL for a NULL @p r.
 */
VECSEC_API int vecsec_esp_replay_check(const struct vecsec_esp_replay *r, uint64_t seq);

/**
 * Record @p seq (its packet's ICV verified): the check of
 * vecsec_esp_replay_check(), then, if it passes, mark it seen and, above
 * the top, slide the window to it.
 *
 * @param r
 *   window from vecsec_esp_replay_init().
 * @param seq
 *   the packet's full sequence number.
 * @return 0 if recorded; the errors of vecsec_esp_replay_check() (nothing
 *   recorded then).
 */
VECSEC_API int vecsec_esp_replay_update(struct vecsec_esp_replay *r, uint64_t seq);

/**
 * The highest number recorded (or given to vecsec_esp_replay_init()).
 *
 * @param r
 *   window from vecsec_esp_replay_init() (not NULL).
 * @return T.
 */
VECSEC_API uint64_t vecsec_esp_replay_top(const struct vecsec_esp_replay *r);

/**
 * The window size given to vecsec_esp_replay_init().
 *
 * @param r
 *   window from vecsec_esp_replay_init() (not NULL).
 * @return W in packets (0: anti-replay off).
 */
VECSEC_API uint32_t vecsec_esp_replay_win(const struct vecsec_esp_replay *r);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_ESP_H */
