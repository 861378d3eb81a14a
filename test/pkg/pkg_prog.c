/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program outside the project, built by test/pkg/install_check.sh against
 * an installed libvecsec only (pkg-config libvecsec, shared and static):
 * seals RFC 8439 2.8.2's message with ChaCha20-Poly1305 and checks the
 * RFC's ciphertext and tag, opens it, checks that a forged tag is refused
 * with a zeroed output, and that the header's version macros agree with
 * each other and with the library's vecsec_version(). Prints
 * "pkg_prog: OK <version>" and exits 0, else names what failed and exits 1.
 */
#include <vecsec/vecsec.h>
#include <vecsec/vecsec_aead.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if !defined(VECSEC_VERSION_MAJOR) || !defined(VECSEC_VERSION_MINOR) || \
	!defined(VECSEC_VERSION_PATCH) || !defined(VECSEC_VERSION_STRING)
#error "vecsec.h gives no version macros"
#endif
#if VECSEC_VERSION_NUM != VECSEC_VERSION_CODE(VECSEC_VERSION_MAJOR, VECSEC_VERSION_MINOR, \
	VECSEC_VERSION_PATCH)
#error "VECSEC_VERSION_NUM disagrees with its parts"
#endif

/* RFC 8439, 2.8.2 */
static const char sunscreen[] =
	"Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
	"for the future, sunscreen would be it.";
static const uint8_t key[32] = {
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d,
	0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b,
	0x9c, 0x9d, 0x9e, 0x9f,
};
static const uint8_t nonce[12] = {
	0x07, 0x00, 0x00, 0x00, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
};
static const uint8_t aad[12] = {
	0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
};
/* the first 16 and the last 2 of the 114 ciphertext bytes; the tag covers all */
static const uint8_t ct_head[16] = {
	0xd3, 0x1a, 0x8d, 0x34, 0x64, 0x8e, 0x60, 0xdb, 0x7b, 0x86, 0xaf, 0xbc, 0x53, 0xef,
	0x7e, 0xc2,
};
static const uint8_t ct_tail[2] = { 0x61, 0x16 };
static const uint8_t tag_want[16] = {
	0x1a, 0xe1, 0x0b, 0x59, 0x4f, 0x09, 0xe2, 0x6a, 0x7e, 0x90, 0x2e, 0xcb, 0xd0, 0x60,
	0x06, 0x91,
};

static struct vecsec_aead_key k;       /* large: static, not on the stack */

static int
fail(const char *what)
{
	fprintf(stderr, "pkg_prog: FAIL: %s\n", what);
	return 1;
}

int
main(void)
{
	enum { LEN = sizeof(sunscreen) - 1 };
	uint8_t ct[LEN], pt[LEN], tag[VECSEC_AEAD_TAG_LEN], zero[LEN] = { 0 };
	char parts[64];
	int rc;

	if (LEN != 114)
		return fail("test message length");
	snprintf(parts, sizeof(parts), "%d.%d.%d", VECSEC_VERSION_MAJOR, VECSEC_VERSION_MINOR,
		 VECSEC_VERSION_PATCH);
	if (strcmp(parts, VECSEC_VERSION_STRING) != 0)
		return fail("VECSEC_VERSION_STRING is not MAJOR.MINOR.PATCH");
	if (strcmp(vecsec_version(), VECSEC_VERSION_STRING) != 0)
		return fail("vecsec_version() is not the header's VECSEC_VERSION_STRING");

	if (vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, sizeof(key)) != 0)
		return fail("vecsec_aead_key_init");
	if (vecsec_aead_seal(&k, ct, tag, sizeof(tag), (const uint8_t *)sunscreen, LEN,
			     nonce, sizeof(nonce), aad, sizeof(aad)) != 0)
		return fail("vecsec_aead_seal");
	if (memcmp(ct, ct_head, sizeof(ct_head)) != 0 ||
	    memcmp(ct + LEN - sizeof(ct_tail), ct_tail, sizeof(ct_tail)) != 0)
		return fail("ciphertext is not RFC 8439 2.8.2's");
	if (memcmp(tag, tag_want, sizeof(tag)) != 0)
		return fail("tag is not RFC 8439 2.8.2's");
	if (vecsec_aead_open(&k, pt, ct, LEN, tag, sizeof(tag), nonce, sizeof(nonce),
			     aad, sizeof(aad)) != 0)
		return fail("vecsec_aead_open refused the genuine message");
	if (memcmp(pt, sunscreen, LEN) != 0)
		return fail("opened text differs from the message");
	tag[0] ^= 1;
	rc = vecsec_aead_open(&k, pt, ct, LEN, tag, sizeof(tag), nonce, sizeof(nonce),
			      aad, sizeof(aad));
	if (rc != -EBADMSG)
		return fail("a forged tag was not refused with -EBADMSG");
	if (memcmp(pt, zero, LEN) != 0)
		return fail("output not zeroed after a forged tag");
	vecsec_aead_key_wipe(&k);
	printf("pkg_prog: OK %s (headers %s, VECSEC_VERSION_NUM 0x%06x)\n", vecsec_version(),
	       VECSEC_VERSION_STRING, (unsigned int)VECSEC_VERSION_NUM);
	return 0;
}
