/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec ESP (RFC 4303) without packet I/O: the one place that knows the
 * protocol's bytes and numbers, for every user of the library.
 *
 *  - layouts: key material (key || salt), nonce, counter block and AAD of
 *    RFC 7634 (ChaCha20-Poly1305), RFC 4106 (the GCM layout, used for
 *    ARIA-GCM) and RFC 3686 (the CTR layout, used for ARIA-CTR);
 *  - the ESP header and trailer: building them (RFC 4303 2.4 padding) and
 *    checking a decrypted trailer (padding, pad length, next header, the
 *    dummy packets of 2.6);
 *  - outbound sequence numbers (3.3.3: never wrapping), reserved in runs
 *    by any number of threads;
 *  - the receive side: the anti-replay window (3.4.3, Appendix A.1) and the
 *    reconstruction of extended sequence numbers (Appendix A.2);
 *  - the IPv4/IPv6 header walks that find ESP in a received datagram or
 *    the place where transport mode puts it (RFC 8200's extension headers).
 *
 * Callers hand in byte buffers and numbers and get answers; they keep
 * packets (mbufs), sessions and locks. No DPDK, no allocation, nothing
 * printed.
 */
#ifndef VECSEC_ESP_H
#define VECSEC_ESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"
#include "vecsec_aead.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ---------------------------------------------------------- */

#define VECSEC_ESP_SALT_LEN 4    /**< salt (RFC 7634, RFC 4106) or nonce (RFC 3686) */
#define VECSEC_ESP_IV_LEN 8      /**< IV carried in every packet */
#define VECSEC_ESP_HDR_LEN 8     /**< SPI and sequence number */
/** The ESP header and the IV: where the ciphertext starts. */
#define VECSEC_ESP_HDR_IV_LEN (VECSEC_ESP_HDR_LEN + VECSEC_ESP_IV_LEN)
#define VECSEC_ESP_ICV_LEN 16    /**< the full AEAD tag, the ICV this library's ESP uses */
#define VECSEC_ESP_PROTO 50      /**< IP protocol / next header value of ESP */
/** Next header of a dummy packet (RFC 4303 2.6; IPv6 "No Next Header"). */
#define VECSEC_ESP_NEXT_HDR_DUMMY 59

/**
 * Longest IPv6 header chain vecsec_esp_ip6_walk() takes: the fixed header
 * and the extension headers before ESP together, in bytes. RFC 8200 sets
 * no limit, so a receiver has to; this one is what both users can carry:
 * a DPDK mbuf's l3_len has 9 bits (511), less the 8-byte UDP header that
 * NAT-T (RFC 3948) adds to it, rounded down to 8-octet units.
 */
#define VECSEC_ESP_IP6_HDR_MAX 496

/* ---- layouts: RFC 7634, RFC 4106, RFC 3686 ------------------------------ */

/**
 * Expand an ESP key: the IKE/ipsec-secgw key material is the cipher key
 * followed by a 4-byte salt (RFC 7634 3, RFC 4106 8.1, RFC 3686 5.1 nonce).
 *
 * @param k
 *   key object to fill (vecsec_aead.h); the salt goes into its salt field.
 * @param alg
 *   VECSEC_AEAD_CHACHA20_POLY1305, VECSEC_AEAD_ARIA_GCM or VECSEC_AEAD_ARIA_CTR.
 * @param keymat
 *   key material.
 * @param keymat_len
 *   key length + 4 (36 for ChaCha20-Poly1305; 20, 28 or 36 for ARIA).
 * @return 0 on success; -EINVAL for NULL or a bad length; -ENOTSUP for an
 *   algorithm without an ESP form.
 */
VECSEC_API int vecsec_esp_key_init(struct vecsec_aead_key *k, enum vecsec_aead_alg alg,
				   const uint8_t *keymat, size_t keymat_len);

/**
 * Build the 12-byte ESP nonce: salt || IV (RFC 7634 2, RFC 4106 4).
 *
 * @param nonce
 *   receives 12 bytes.
 * @param k
 *   key initialised by vecsec_esp_key_init() (gives the salt).
 * @param iv
 *   the 8-byte IV carried in the ESP packet.
 */
VECSEC_API void vecsec_esp_nonce(uint8_t nonce[12], const struct vecsec_aead_key *k,
				 const uint8_t iv[VECSEC_ESP_IV_LEN]);

/**
 * Build the ARIA-CTR initial counter block: nonce || IV || 00000001
 * (RFC 3686 4 layout).
 *
 * @param block
 *   receives 16 bytes.
 * @param k
 *   key initialised by vecsec_esp_key_init().
 * @param iv
 *   the 8-byte IV carried in the ESP packet.
 */
VECSEC_API void vecsec_esp_ctr_block(uint8_t block[16], const struct vecsec_aead_key *k,
				     const uint8_t iv[VECSEC_ESP_IV_LEN]);

/**
 * Build the ESP AAD (RFC 7634 2.1, RFC 4106 5): SPI || seq (8 bytes), or
 * SPI || seq-hi || seq-lo (12 bytes) with extended sequence numbers; all
 * big-endian.
 *
 * @param aad
 *   receives 8 or 12 bytes; NULL: only the length is returned.
 * @param spi
 *   SPI in host order.
 * @param seq
 *   64-bit sequence number in host order (only the low 32 bits without ESN).
 * @param esn
 *   true for extended sequence numbers.
 * @return the AAD length: 8 or 12.
 */
VECSEC_API size_t vecsec_esp_aad(uint8_t aad[12], uint32_t spi, uint64_t seq, bool esn);

/* ---- ESP header and trailer (RFC 4303 2) -------------------------------- */

/**
 * Write an ESP header and IV: SPI, the low half of @p seq (RFC 4303 2.2;
 * the high half of an ESN is never sent), and as the IV the 64-bit @p seq
 * (RFC 7634 2 and RFC 4106 3.1 ask for an IV unique per key; a sequence
 * number that never wraps is one).
 *
 * @param esp
 *   receives VECSEC_ESP_HDR_IV_LEN bytes, no alignment needed.
 * @param spi
 *   SPI, host order.
 * @param seq
 *   the packet's full sequence number.
 */
VECSEC_API void vecsec_esp_hdr_build(uint8_t *esp, uint32_t spi, uint64_t seq);

/**
 * Padding RFC 4303 2.4 needs after @p len payload bytes so that payload,
 * padding, pad length and next header end on a 4-byte boundary (the AEADs
 * here have 1-byte blocks, so 4-byte alignment is all there is to reach).
 *
 * @param len
 *   payload bytes.
 * @return 0..3.
 */
VECSEC_API uint32_t vecsec_esp_pad_len(uint32_t len);

/**
 * Write an ESP trailer: @p pad padding bytes 1, 2, 3, ... (RFC 4303 2.4),
 * the pad length and the next header.
 *
 * @param tail
 *   receives @p pad + 2 bytes.
 * @param pad
 *   padding bytes, 0..255.
 * @param next_hdr
 *   what the payload is (4: IPv4, 41: IPv6 in tunnel mode; the protocol
 *   in transport mode; VECSEC_ESP_NEXT_HDR_DUMMY for a dummy packet).
 */
VECSEC_API void vecsec_esp_trailer_build(uint8_t *tail, uint32_t pad, uint8_t next_hdr);

/**
 * Check a decrypted (authenticated) ESP trailer. In this order: the
 * padding is 1, 2, 3, ... (RFC 4303 2.4) and fits in the ciphertext; a
 * next header of 59 is a dummy packet (2.6: any mode, any payload); a
 * tunnel carries a non-empty inner IPv4 (next header 4) or IPv6 (41)
 * packet whose first byte has that version.
 *
 * @param trl
 *   the last 2 bytes of the plaintext: pad length, next header.
 * @param padb
 *   the pad-length bytes before them (NULL allowed when the pad length is 0
 *   or does not fit in @p ct_len).
 * @param ct_len
 *   plaintext bytes: payload, padding, pad length, next header.
 * @param tunnel
 *   true for a tunnel-mode SA.
 * @param first
 *   the first plaintext byte, NULL when the payload is empty.
 * @return the next header (0..255; VECSEC_ESP_NEXT_HDR_DUMMY: discard the
 *   packet); -EBADMSG for bad padding, a pad length that does not fit, or
 *   (tunnel) a next header or inner version that is not IPv4/IPv6 or an
 *   empty inner packet.
 */
VECSEC_API int vecsec_esp_trailer_check(const uint8_t trl[2], const uint8_t *padb,
					uint32_t ct_len, bool tunnel, const uint8_t *first);

/* ---- outbound sequence numbers (RFC 4303 3.3.3) ------------------------- */

/**
 * An SA's outbound counter: the last number used and the ceiling. Fields
 * are private (read and written with atomic operations); 8-byte aligned.
 */
struct vecsec_esp_seq {
	uint64_t last;          /**< private: last number handed out */
	uint64_t max;           /**< private: 2^32 - 1, or 2^64 - 1 with ESN */
};

/**
 * Set up an outbound counter.
 *
 * @param s
 *   counter.
 * @param esn
 *   extended sequence numbers: the last number is 2^64 - 1, else 2^32 - 1.
 * @param last
 *   the number taken as already used: the first packet gets @p last + 1
 *   (0 for a new SA).
 * @return 0; -EINVAL for a NULL @p s or @p last above the ceiling.
 */
VECSEC_API int vecsec_esp_seq_init(struct vecsec_esp_seq *s, bool esn, uint64_t last);

/**
 * Reserve up to @p n consecutive numbers. Any number of threads may call
 * it on one counter at once (one atomic compare-and-swap each time); the
 * counter never wraps (RFC 4303 3.3.3): near the ceiling fewer numbers,
 * then none, come back.
 *
 * @param s
 *   counter from vecsec_esp_seq_init().
 * @param n
 *   numbers wanted.
 * @param[out] first
 *   the first reserved number (untouched when 0 is returned).
 * @return how many were reserved: @p first .. @p first + count - 1; 0 once
 *   the SA has used its last number (or for NULL pointers or @p n = 0).
 */
VECSEC_API uint32_t vecsec_esp_seq_reserve(struct vecsec_esp_seq *s, uint32_t n,
					   uint64_t *first);

/**
 * vecsec_esp_seq_reserve() for a counter that one thread alone reserves
 * from (e.g. a cryptodev with a single queue pair): the same numbers,
 * without the atomic. Mixing it with concurrent vecsec_esp_seq_reserve()
 * calls on the same counter can hand out a number twice.
 */
VECSEC_API uint32_t vecsec_esp_seq_reserve_excl(struct vecsec_esp_seq *s, uint32_t n,
						uint64_t *first);

/* ---- inbound: anti-replay window and ESN (RFC 4303 3.4.3, Appendix A) --- */

/*
 * A window of size W accepts a number S exactly when S > 0, S > T - W
 * (T: the highest number recorded so far) and S has not been recorded: W
 * numbers, T - W + 1 ... T, plus everything above T. W = 0 turns
 * anti-replay off (every S > 0 passes; T still follows the highest number
 * recorded, which ESN reconstruction needs). Checking and recording are
 * separate calls, so that a number is recorded only once its packet's ICV
 * has been verified (3.4.3).
 *
 * Threads: vecsec_esp_replay_check(), _recover(), _top() and _win() may
 * run while another thread updates (they read with relaxed atomics: an
 * answer may be stale, never torn; a caller that must be exact decides
 * with vecsec_esp_replay_update(), which checks again). Updates of a
 * window with W > 0 need one writer at a time (the caller's lock); with
 * W = 0 any number of threads may update at once (the top moves by an
 * atomic maximum).
 */

/** Largest replay window (packets) a vecsec_esp_replay takes: RFC 4303 A.2 needs W < 2^31. */
#define VECSEC_ESP_REPLAY_WIN_MAX (UINT32_C(1) << 30)

/** A replay window: caller-allocated, vecsec_esp_replay_size() bytes, contents private. */
struct vecsec_esp_replay;

/**
 * Bytes of a window whose bitmap has @p words 64-bit words: what
 * vecsec_esp_replay_size() returns, with words the smallest power of two
 * of at least ceil(W / 64) + 1 (W = 0: no words). For storage sized at
 * compile time, e.g. 128 words for every W up to 127 * 64 = 8128.
 */
#define VECSEC_ESP_REPLAY_SIZE_WORDS(words) (32 + 8 * (size_t)(words))

/**
 * Bytes a replay window of @p win packets needs (a header and a bitmap of
 * at least @p win + 64 bits, a power of two of 64-bit words; see
 * VECSEC_ESP_REPLAY_SIZE_WORDS()).
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

/**
 * Refuse every number up to @p floor from now on, as if each had been
 * recorded: the top becomes max(T, @p floor) and the numbers of the window
 * at or below @p floor are marked seen (those above it keep their state).
 * For a node taking over an SA whose numbers up to @p floor another node
 * may have accepted. One writer at a time, as vecsec_esp_replay_update().
 * With W = 0 only the top moves (numbers below it still pass: anti-replay
 * is off).
 *
 * @param r
 *   window from vecsec_esp_replay_init().
 * @param floor
 *   the highest number to refuse (32-bit SAs: at most 2^32 - 1).
 * @return 0; -EINVAL for a NULL @p r or a 32-bit SA's @p floor above 2^32 - 1.
 */
VECSEC_API int vecsec_esp_replay_floor(struct vecsec_esp_replay *r, uint64_t floor);

/* ---- IPv4 / IPv6 headers ------------------------------------------------ */

/**
 * The IP header at @p p: its version and the datagram's length (IPv4 total
 * length, IPv6 40 + payload length), which must fit in the packet; bytes
 * past it are link padding for the caller to trim.
 *
 * @param p
 *   the IP header, @p avail bytes readable.
 * @param avail
 *   bytes readable at @p p.
 * @param pkt_len
 *   bytes in the whole packet (@p avail or more).
 * @param[out] ip_len
 *   the datagram's length (untouched on error).
 * @return 4 or 6; -EBADMSG for another version, a header longer than
 *   @p avail (IPv4: IHL below 5) or a length beyond @p pkt_len (IPv4: or
 *   shorter than its header).
 */
VECSEC_API int vecsec_esp_ip_len(const uint8_t *p, size_t avail, size_t pkt_len,
				 uint32_t *ip_len);

/**
 * Walk the IPv6 extension headers that may stand before ESP (RFC 8200 4,
 * RFC 4303 3.1.1): Hop-by-Hop Options, only directly after the IPv6 header
 * (RFC 8200 4.1, 4.3); Routing and Destination Options, in any order and
 * any number of times (4.1: a receiver must accept that). Every other
 * next header ends the walk unconsumed: Fragment (44: a fragment, for the
 * caller to reassemble or refuse), AH, ESP, No Next Header, upper layers.
 *
 * @param p
 *   the IPv6 header.
 * @param len
 *   bytes readable at @p p (pass the smaller of those and the datagram).
 * @param end
 *   0: walk as far as the headers above go; else walk exactly to this
 *   offset (an application's l3_len, where transport-mode ESP goes): it
 *   must be the end of one of those headers, and the walk stops there
 *   even when more of them follow.
 * @param[out] next_hdr
 *   the next header value after the walked headers (may be NULL).
 * @param[out] nh_off
 *   offset of the byte that holds it: 6 in the fixed header, else the
 *   start of the last walked extension header (may be NULL).
 * @return the bytes walked (40 + extensions, at most
 *   VECSEC_ESP_IP6_HDR_MAX); -EBADMSG if the fixed header or a walked
 *   header is cut off by @p len, Hop-by-Hop comes later than first, the
 *   chain is longer than VECSEC_ESP_IP6_HDR_MAX, or @p end is not reached
 *   exactly through walked headers.
 */
VECSEC_API int vecsec_esp_ip6_walk(const uint8_t *p, size_t len, size_t end, uint8_t *next_hdr,
				   uint32_t *nh_off);

/**
 * Where transport-mode ESP goes in an outbound IP packet: after the IPv4
 * header with its options, or after the IPv6 header and the extension
 * headers vecsec_esp_ip6_walk() walks (to @p l3_len when it is not 0).
 *
 * @param p
 *   the IP header, version 4 or 6 (vecsec_esp_ip_len() said so).
 * @param avail
 *   bytes readable at @p p.
 * @param l3_len
 *   0, or the length the application gives for these headers (IPv4: must
 *   equal the header length).
 * @param[out] hlen
 *   bytes before ESP.
 * @param[out] nh_off
 *   offset of the next-header byte that is to name ESP (its old value
 *   goes into the trailer).
 * @return 0; -EBADMSG when the headers do not fit in @p avail or do not
 *   end at @p l3_len.
 */
VECSEC_API int vecsec_esp_transport_hdr(const uint8_t *p, size_t avail, size_t l3_len,
					uint32_t *hlen, uint32_t *nh_off);

/** Where ESP lies in a received datagram (vecsec_esp_in_parse()). */
struct vecsec_esp_in {
	uint32_t ip_len;        /**< the IP datagram: bytes past it are link padding */
	uint32_t hlen;          /**< IP header and IPv6 extensions before ESP */
	uint32_t ct_len;        /**< ciphertext: payload, padding, pad length, next header */
	uint32_t nh_off;        /**< offset of the byte that names ESP */
	uint32_t spi;           /**< SPI, host order */
	uint32_t seq_lo;        /**< sequence number field, host order */
	uint8_t ver;            /**< 4 or 6 */
};

/**
 * Find ESP in a received datagram before decryption: IPv4 or IPv6 with a
 * length within the packet, not an IPv4 fragment (no reassembly here), the
 * next header after the IPv4 header or after the IPv6 extension headers
 * vecsec_esp_ip6_walk() walks is ESP (an IPv6 Fragment header ends the
 * walk, so a fragment is refused too), and the ESP packet holds its
 * header, IV, a 4-byte aligned ciphertext of at least 4 bytes and a
 * VECSEC_ESP_ICV_LEN ICV.
 *
 * @param p
 *   the IP header.
 * @param avail
 *   bytes readable at @p p: the IP header, the ESP header and the IV must
 *   be among them.
 * @param pkt_len
 *   bytes in the whole packet.
 * @param[out] r
 *   filled on success.
 * @return 0; -EBADMSG otherwise.
 */
VECSEC_API int vecsec_esp_in_parse(const uint8_t *p, size_t avail, size_t pkt_len,
				   struct vecsec_esp_in *r);

/**
 * After a packet's length changed: write the next header @p next_hdr at
 * @p nh_off and the datagram length @p len into the IP header (IPv4 total
 * length, IPv6 payload length). IPv4: the header checksum is updated
 * incrementally (RFC 1624 eqn. 3), never recomputed, so a header that had
 * a wrong checksum keeps a wrong one.
 *
 * @param p
 *   the IP header.
 * @param ver
 *   4 or 6.
 * @param nh_off
 *   offset of the next-header byte (IPv4: 9).
 * @param next_hdr
 *   the value to write there.
 * @param len
 *   the datagram's new length, header included.
 */
VECSEC_API void vecsec_esp_ip_update(uint8_t *p, int ver, uint32_t nh_off, uint8_t next_hdr,
				     uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_ESP_H */
