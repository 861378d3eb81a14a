/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA known answers typed from RFC 5794: Appendix A (A.1 128-bit, A.2
 * 192-bit, A.3 256-bit key: one block each) and the SB2 table of 2.4.2,
 * with the two s-box examples given under it.
 */
#ifndef VECTORS_RFC5794_H
#define VECTORS_RFC5794_H

struct rfc5794_kat {
	const char *name;
	const char *key;
	const char *pt;
	const char *ct;
};

static const struct rfc5794_kat rfc5794_kats[] = {
	{ "A.1 128-bit key",
	  "000102030405060708090a0b0c0d0e0f",
	  "00112233445566778899aabbccddeeff",
	  "d718fbd6ab644c739da95f3be6451778" },
	{ "A.2 192-bit key",
	  "000102030405060708090a0b0c0d0e0f1011121314151617",
	  "00112233445566778899aabbccddeeff",
	  "26449c1805dbe7aa25a468ce263a9e79" },
	{ "A.3 256-bit key",
	  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
	  "00112233445566778899aabbccddeeff",
	  "f92bd7c79fb72e2f2b8f80c1972d24fc" },
};

/* 2.4.2: SB2, row = high nibble, column = low nibble. */
static const char rfc5794_sb2[] =
	"e2 4e 54 fc 94 c2 4a cc 62 0d 6a 46 3c 4d 8b d1 "
	"5e fa 64 cb b4 97 be 2b bc 77 2e 03 d3 19 59 c1 "
	"1d 06 41 6b 55 f0 99 69 ea 9c 18 ae 63 df e7 bb "
	"00 73 66 fb 96 4c 85 e4 3a 09 45 aa 0f ee 10 eb "
	"2d 7f f4 29 ac cf ad 91 8d 78 c8 95 f9 2f ce cd "
	"08 7a 88 38 5c 83 2a 28 47 db b8 c7 93 a4 12 53 "
	"ff 87 0e 31 36 21 58 48 01 8e 37 74 32 ca e9 b1 "
	"b7 ab 0c d7 c4 56 42 26 07 98 60 d9 b6 b9 11 40 "
	"ec 20 8c bd a0 c9 84 04 49 23 f1 4f 50 1f 13 dc "
	"d8 c0 9e 57 e3 c3 7b 65 3b 02 8f 3e e8 25 92 e5 "
	"15 dd fd 17 a9 bf d4 9a 7e c5 39 67 fe 76 9d 43 "
	"a7 e1 d0 f5 68 f2 1b 34 70 05 a3 8a d5 79 86 a8 "
	"30 c6 51 4b 1e a6 27 f6 35 d2 6e 24 16 82 5f da "
	"e6 75 a2 ef 2c b2 1c 9f 5d 6f 80 0a 72 44 9b 6c "
	"90 0b 5b 33 7d 5a 52 f3 61 a1 f7 b0 d6 3f 7c 6d "
	"ed 14 e0 a5 3d 22 b3 f8 89 de 71 1a af ba b5 81 "
	;

/* 2.4.2: "For example, SB1(0x23) = 0x26 and SB4(0xef) = 0xd3." */
#define RFC5794_SB1_23 0x26
#define RFC5794_SB4_EF 0xd3

#endif /* VECTORS_RFC5794_H */
