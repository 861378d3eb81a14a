/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test vectors typed from RFC 8439 (ChaCha20 and Poly1305 for IETF
 * Protocols): the examples of sections 2.1.1-2.8.2 and all of Appendix A.
 * Hex strings are parsed with vt_hex() (spaces and colons ignored); text
 * inputs are the RFC's ASCII strings, their lengths checked by the tests.
 */
#ifndef VT_VECTORS_RFC8439_H
#define VT_VECTORS_RFC8439_H

#include <stdint.h>

/* ChaCha20 block/encryption vectors: key, nonce, counter, plaintext, output */
struct rfc8439_chacha_vec {
	const char *name;
	const char *key;
	const char *nonce;
	uint32_t counter;
	const char *pt_hex;     /* plaintext as hex, or NULL: pt_text */
	const char *pt_text;
	size_t len;
	const char *ct;
};

#define RFC8439_KEY_00_1F \
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define RFC8439_ZERO32 \
	"0000000000000000000000000000000000000000000000000000000000000000"
#define RFC8439_ZERO64 RFC8439_ZERO32 RFC8439_ZERO32

static const char rfc8439_text_sunscreen[] =
	"Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
	"for the future, sunscreen would be it.";
static const char rfc8439_text_ietf[] =
	"Any submission to the IETF intended by the Contributor for publication as all "
	"or part of an IETF Internet-Draft or RFC and any statement made within the "
	"context of an IETF activity is considered an \"IETF Contribution\". Such "
	"statements include oral statements in IETF sessions, as well as written and "
	"electronic communications made at any time or place, which are addressed to";
static const char rfc8439_text_jabberwock[] =
	"'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n"
	"All mimsy were the borogoves,\nAnd the mome raths outgrabe.";

static const struct rfc8439_chacha_vec rfc8439_chacha[] = {
	{ "2.3.2 block", RFC8439_KEY_00_1F, "000000090000004a00000000", 1, RFC8439_ZERO64, NULL, 64,
	  "10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4"
	  "c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e"
	  "d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2"
	  "b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e" },
	{ "2.4.2 sunscreen", RFC8439_KEY_00_1F, "000000000000004a00000000", 1, NULL,
	  rfc8439_text_sunscreen, 114,
	  "6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81"
	  "e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b"
	  "f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57"
	  "16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8"
	  "07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e"
	  "52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36"
	  "5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42"
	  "87 4d" },
	{ "A.1 #1", RFC8439_ZERO32, "000000000000000000000000", 0, RFC8439_ZERO64, NULL, 64,
	  "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28"
	  "bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7"
	  "da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37"
	  "6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86" },
	{ "A.1 #2", RFC8439_ZERO32, "000000000000000000000000", 1, RFC8439_ZERO64, NULL, 64,
	  "9f 07 e7 be 55 51 38 7a 98 ba 97 7c 73 2d 08 0d"
	  "cb 0f 29 a0 48 e3 65 69 12 c6 53 3e 32 ee 7a ed"
	  "29 b7 21 76 9c e6 4e 43 d5 71 33 b0 74 d8 39 d5"
	  "31 ed 1f 28 51 0a fb 45 ac e1 0a 1f 4b 79 4d 6f" },
	{ "A.1 #3",
	  "0000000000000000000000000000000000000000000000000000000000000001",
	  "000000000000000000000000", 1, RFC8439_ZERO64, NULL, 64,
	  "3a eb 52 24 ec f8 49 92 9b 9d 82 8d b1 ce d4 dd"
	  "83 20 25 e8 01 8b 81 60 b8 22 84 f3 c9 49 aa 5a"
	  "8e ca 00 bb b4 a7 3b da d1 92 b5 c4 2f 73 f2 fd"
	  "4e 27 36 44 c8 b3 61 25 a6 4a dd eb 00 6c 13 a0" },
	{ "A.1 #4",
	  "00ff000000000000000000000000000000000000000000000000000000000000",
	  "000000000000000000000000", 2, RFC8439_ZERO64, NULL, 64,
	  "72 d5 4d fb f1 2e c4 4b 36 26 92 df 94 13 7f 32"
	  "8f ea 8d a7 39 90 26 5e c1 bb be a1 ae 9a f0 ca"
	  "13 b2 5a a2 6c b4 a6 48 cb 9b 9d 1b e6 5b 2c 09"
	  "24 a6 6c 54 d5 45 ec 1b 73 74 f4 87 2e 99 f0 96" },
	{ "A.1 #5", RFC8439_ZERO32, "000000000000000000000002", 0, RFC8439_ZERO64, NULL, 64,
	  "c2 c6 4d 37 8c d5 36 37 4a e2 04 b9 ef 93 3f cd"
	  "1a 8b 22 88 b3 df a4 96 72 ab 76 5b 54 ee 27 c7"
	  "8a 97 0e 0e 95 5c 14 f3 a8 8e 74 1b 97 c2 86 f7"
	  "5f 8f c2 99 e8 14 83 62 fa 19 8a 39 53 1b ed 6d" },
	{ "A.2 #1", RFC8439_ZERO32, "000000000000000000000000", 0, RFC8439_ZERO64, NULL, 64,
	  "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28"
	  "bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7"
	  "da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37"
	  "6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86" },
	{ "A.2 #2",
	  "0000000000000000000000000000000000000000000000000000000000000001",
	  "000000000000000000000002", 1, NULL, rfc8439_text_ietf, 375,
	  "a3 fb f0 7d f3 fa 2f de 4f 37 6c a2 3e 82 73 70"
	  "41 60 5d 9f 4f 4f 57 bd 8c ff 2c 1d 4b 79 55 ec"
	  "2a 97 94 8b d3 72 29 15 c8 f3 d3 37 f7 d3 70 05"
	  "0e 9e 96 d6 47 b7 c3 9f 56 e0 31 ca 5e b6 25 0d"
	  "40 42 e0 27 85 ec ec fa 4b 4b b5 e8 ea d0 44 0e"
	  "20 b6 e8 db 09 d8 81 a7 c6 13 2f 42 0e 52 79 50"
	  "42 bd fa 77 73 d8 a9 05 14 47 b3 29 1c e1 41 1c"
	  "68 04 65 55 2a a6 c4 05 b7 76 4d 5e 87 be a8 5a"
	  "d0 0f 84 49 ed 8f 72 d0 d6 62 ab 05 26 91 ca 66"
	  "42 4b c8 6d 2d f8 0e a4 1f 43 ab f9 37 d3 25 9d"
	  "c4 b2 d0 df b4 8a 6c 91 39 dd d7 f7 69 66 e9 28"
	  "e6 35 55 3b a7 6c 5c 87 9d 7b 35 d4 9e b2 e6 2b"
	  "08 71 cd ac 63 89 39 e2 5e 8a 1e 0e f9 d5 28 0f"
	  "a8 ca 32 8b 35 1c 3c 76 59 89 cb cf 3d aa 8b 6c"
	  "cc 3a af 9f 39 79 c9 2b 37 20 fc 88 dc 95 ed 84"
	  "a1 be 05 9c 64 99 b9 fd a2 36 e7 e8 18 b0 4b 0b"
	  "c3 9c 1e 87 6b 19 3b fe 55 69 75 3f 88 12 8c c0"
	  "8a aa 9b 63 d1 a1 6f 80 ef 25 54 d7 18 9c 41 1f"
	  "58 69 ca 52 c5 b8 3f a3 6f f2 16 b9 c1 d3 00 62"
	  "be bc fd 2d c5 bc e0 91 19 34 fd a7 9a 86 f6 e6"
	  "98 ce d7 59 c3 ff 9b 64 77 33 8f 3d a4 f9 cd 85"
	  "14 ea 99 82 cc af b3 41 b2 38 4d d9 02 f3 d1 ab"
	  "7a c6 1d d2 9c 6f 21 ba 5b 86 2f 37 30 e3 7c fd"
	  "c4 fd 80 6c 22 f2 21" },
	{ "A.2 #3",
	  "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0"
	  "47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0",
	  "000000000000000000000002", 42, NULL, rfc8439_text_jabberwock, 127,
	  "62 e6 34 7f 95 ed 87 a4 5f fa e7 42 6f 27 a1 df"
	  "5f b6 91 10 04 4c 0d 73 11 8e ff a9 5b 01 e5 cf"
	  "16 6d 3d f2 d7 21 ca f9 b2 1e 5f b1 4c 61 68 71"
	  "fd 84 c5 4f 9d 65 b2 83 19 6c 7f e4 f6 05 53 eb"
	  "f3 9c 64 02 c4 22 34 e3 2a 35 6b 3e 76 43 12 a6"
	  "1a 55 32 05 57 16 ea d6 96 25 68 f8 7d 3f 3f 77"
	  "04 c6 a8 d1 bc d1 bf 4d 50 d6 15 4b 6d a7 31 b1"
	  "87 b5 8d fd 72 8a fa 36 75 7a 79 7a c1 88 d1" },
};

/* Poly1305: one-time key, message, tag */
struct rfc8439_poly_vec {
	const char *name;
	const char *key;
	const char *msg_hex;    /* or NULL: msg_text */
	const char *msg_text;
	size_t len;
	const char *tag;
};

static const struct rfc8439_poly_vec rfc8439_poly[] = {
	{ "2.5.2",
	  "85:d6:be:78:57:55:6d:33:7f:44:52:fe:42:d5:06:a8:01:03:80:8a:fb:0d:b2:fd:4a:bf:f6:af:"
	  "41:49:f5:1b",
	  NULL, "Cryptographic Forum Research Group", 34,
	  "a8:06:1d:c1:30:51:36:c6:c2:2b:8b:af:0c:01:27:a9" },
	{ "A.3 #1", RFC8439_ZERO32, RFC8439_ZERO64, NULL, 64, "00000000000000000000000000000000" },
	{ "A.3 #2",
	  "00000000000000000000000000000000 36 e5 f6 b5 c5 e0 60 70 f0 ef ca 96 22 7a 86 3e",
	  NULL, rfc8439_text_ietf, 375, "36 e5 f6 b5 c5 e0 60 70 f0 ef ca 96 22 7a 86 3e" },
	{ "A.3 #3",
	  "36 e5 f6 b5 c5 e0 60 70 f0 ef ca 96 22 7a 86 3e 00000000000000000000000000000000",
	  NULL, rfc8439_text_ietf, 375, "f3 47 7e 7c d9 54 17 af 89 a6 b8 79 4c 31 0c f0" },
	{ "A.3 #4",
	  "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0"
	  "47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0",
	  NULL, rfc8439_text_jabberwock, 127, "45 41 66 9a 7e aa ee 61 e7 08 dc 7c bc c5 eb 62" },
	{ "A.3 #5", "02000000000000000000000000000000 00000000000000000000000000000000",
	  "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", NULL, 16, "03000000000000000000000000000000" },
	{ "A.3 #6", "02000000000000000000000000000000 FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
	  "02000000000000000000000000000000", NULL, 16, "03000000000000000000000000000000" },
	{ "A.3 #7", "01000000000000000000000000000000 00000000000000000000000000000000",
	  "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF F0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
	  "11000000000000000000000000000000", NULL, 48, "05000000000000000000000000000000" },
	{ "A.3 #8", "01000000000000000000000000000000 00000000000000000000000000000000",
	  "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF FBFEFEFEFEFEFEFEFEFEFEFEFEFEFEFE"
	  "01010101010101010101010101010101", NULL, 48, "00000000000000000000000000000000" },
	{ "A.3 #9", "02000000000000000000000000000000 00000000000000000000000000000000",
	  "FDFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", NULL, 16, "FAFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF" },
	{ "A.3 #10", "01000000000000000400000000000000 00000000000000000000000000000000",
	  "E33594D7505E43B90000000000000000 3394D7505E4379CD0100000000000000"
	  "00000000000000000000000000000000 01000000000000000000000000000000", NULL, 64,
	  "14000000000000005500000000000000" },
	{ "A.3 #11", "01000000000000000400000000000000 00000000000000000000000000000000",
	  "E33594D7505E43B90000000000000000 3394D7505E4379CD0100000000000000"
	  "00000000000000000000000000000000", NULL, 48, "13000000000000000000000000000000" },
};

/* Poly1305 key generation (2.6.2, A.4): key, nonce, one-time key */
struct rfc8439_keygen_vec {
	const char *name;
	const char *key;
	const char *nonce;
	const char *otk;
};

static const struct rfc8439_keygen_vec rfc8439_keygen[] = {
	{ "2.6.2",
	  "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
	  "000000000001020304050607",
	  "8a d5 a0 8b 90 5f 81 cc 81 50 40 27 4a b2 94 71"
	  "a8 33 b6 37 e3 fd 0d a5 08 db b8 e2 fd d1 a6 46" },
	{ "A.4 #1", RFC8439_ZERO32, "000000000000000000000000",
	  "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28"
	  "bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7" },
	{ "A.4 #2", "0000000000000000000000000000000000000000000000000000000000000001",
	  "000000000000000000000002",
	  "ec fa 25 4f 84 5f 64 74 73 d3 cb 14 0d a9 e8 76"
	  "06 cb 33 06 6c 44 7b 87 bc 26 66 dd e3 fb b7 39" },
	{ "A.4 #3",
	  "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0"
	  "47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0",
	  "000000000000000000000002",
	  "96 5e 3b c6 f9 ec 7e d9 56 08 08 f4 d2 29 f9 4b"
	  "13 7f f2 75 ca 9b 3f cb dd 59 de aa d2 33 10 ae" },
};

/* AEAD (2.8.2 encryption, A.5 decryption) */
struct rfc8439_aead_vec {
	const char *name;
	const char *key;
	const char *nonce;
	const char *aad;
	const char *pt_hex;     /* or NULL: pt_text */
	const char *pt_text;
	size_t len;
	const char *ct;
	const char *tag;
};

static const char rfc8439_text_drafts[] =
	"Internet-Drafts are draft documents valid for a maximum of six months and may be "
	"updated, replaced, or obsoleted by other documents at any time. It is "
	"inappropriate to use Internet-Drafts as reference material or to cite them "
	"other than as /\xe2\x80\x9cwork in progress./\xe2\x80\x9d";

static const struct rfc8439_aead_vec rfc8439_aead[] = {
	{ "2.8.2",
	  "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
	  "07000000 4041424344454647",   /* 32-bit fixed-common part || IV */
	  "50 51 52 53 c0 c1 c2 c3 c4 c5 c6 c7",
	  NULL, rfc8439_text_sunscreen, 114,
	  "d3 1a 8d 34 64 8e 60 db 7b 86 af bc 53 ef 7e c2"
	  "a4 ad ed 51 29 6e 08 fe a9 e2 b5 a7 36 ee 62 d6"
	  "3d be a4 5e 8c a9 67 12 82 fa fb 69 da 92 72 8b"
	  "1a 71 de 0a 9e 06 0b 29 05 d6 a5 b6 7e cd 3b 36"
	  "92 dd bd 7f 2d 77 8b 8c 98 03 ae e3 28 09 1b 58"
	  "fa b3 24 e4 fa d6 75 94 55 85 80 8b 48 31 d7 bc"
	  "3f f4 de f0 8e 4b 7a 9d e5 76 d2 65 86 ce c6 4b"
	  "61 16",
	  "1a:e1:0b:59:4f:09:e2:6a:7e:90:2e:cb:d0:60:06:91" },
	{ "A.5",
	  "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0"
	  "47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0",
	  "00 00 00 00 01 02 03 04 05 06 07 08",
	  "f3 33 88 86 00 00 00 00 00 00 4e 91",
	  NULL, rfc8439_text_drafts, 265,
	  "64 a0 86 15 75 86 1a f4 60 f0 62 c7 9b e6 43 bd"
	  "5e 80 5c fd 34 5c f3 89 f1 08 67 0a c7 6c 8c b2"
	  "4c 6c fc 18 75 5d 43 ee a0 9e e9 4e 38 2d 26 b0"
	  "bd b7 b7 3c 32 1b 01 00 d4 f0 3b 7f 35 58 94 cf"
	  "33 2f 83 0e 71 0b 97 ce 98 c8 a8 4a bd 0b 94 81"
	  "14 ad 17 6e 00 8d 33 bd 60 f9 82 b1 ff 37 c8 55"
	  "97 97 a0 6e f4 f0 ef 61 c1 86 32 4e 2b 35 06 38"
	  "36 06 90 7b 6a 7c 02 b0 f9 f6 15 7b 53 c8 67 e4"
	  "b9 16 6c 76 7b 80 4d 46 a5 9b 52 16 cd e7 a4 e9"
	  "90 40 c5 a4 04 33 22 5e e2 82 a1 b0 a0 6c 52 3e"
	  "af 45 34 d7 f8 3f a1 15 5b 00 47 71 8c bc 54 6a"
	  "0d 07 2b 04 b3 56 4e ea 1b 42 22 73 f5 48 27 1a"
	  "0b b2 31 60 53 fa 76 99 19 55 eb d6 31 59 43 4e"
	  "ce bb 4e 46 6d ae 5a 10 73 a6 72 76 27 09 7a 10"
	  "49 e6 17 d9 1d 36 10 94 fa 68 f0 ff 77 98 71 30"
	  "30 5b ea ba 2e da 04 df 99 7b 71 4d 6c 6f 2c 29"
	  "a6 ad 5c b4 02 2b 02 70 9b",
	  "ee ad 9d 67 89 0c bb 22 39 23 36 fe a1 85 1f 38" },
};

#endif /* VT_VECTORS_RFC8439_H */
