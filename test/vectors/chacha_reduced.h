/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha8/12/20 in the original layout (64-bit block counter from 0, 64-bit
 * nonce in words 14-15), 256-bit keys: test vectors typed from
 * draft-strombergson-chacha-test-vectors-01, section 7 (TC1, TC2, TC4, TC7).
 * No library oracle here has ChaCha12 or ChaCha8, so these published
 * keystreams are their only outside check.
 */
#ifndef VT_VECTORS_CHACHA_REDUCED_H
#define VT_VECTORS_CHACHA_REDUCED_H

struct chacha_orig_vec {
	const char *name;
	unsigned int rounds;
	const char *key;
	const char *nonce;
	const char *keystream;  /* from block counter 0 */
};

#define STROMB_K0 "0000000000000000000000000000000000000000000000000000000000000000"
#define STROMB_K1 "0100000000000000000000000000000000000000000000000000000000000000"
#define STROMB_KF "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
#define STROMB_K7 "00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100"

static const struct chacha_orig_vec chacha_orig[] = {
	{ "TC1/8", 8, STROMB_K0, "0000000000000000",
	  "3e00ef2f895f40d6 7f5bb8e81f09a5a1 2c840ec3ce9a7f3b 181be188ef711a1e"
	  "984ce172b9216f41 9f445367456d5619 314a42a3da86b001 387bfdb80e0cfe42" },
	{ "TC1/12", 12, STROMB_K0, "0000000000000000",
	  "9bf49a6a0755f953 811fce125f2683d5 0429c3bb49e07414 7e0089a52eae155f"
	  "0564f879d27ae3c0 2ce82834acfa8c79 3a629f2ca0de6919 610be82f411326be" },
	{ "TC1/20", 20, STROMB_K0, "0000000000000000",
	  "76b8e0ada0f13d90 405d6ae55386bd28 bdd219b8a08ded1a a836efcc8b770dc7"
	  "da41597c5157488d 7724e03fb8d84a37 6a43b8f41518a11c c387b669b2ee6586"
	  "9f07e7be5551387a 98ba977c732d080d cb0f29a048e36569 12c6533e32ee7aed"
	  "29b721769ce64e43 d57133b074d839d5 31ed1f28510afb45 ace10a1f4b794d6f" },
	{ "TC2/8", 8, STROMB_K1, "0000000000000000",
	  "cf5ee9a0494aa961 3e05d5ed725b804b 12f4a465ee635acc 3a311de8740489ea"
	  "289d04f43c7518db 56eb4433e498a123 8cd8464d3763ddbb 9222ee3bd8fae3c8" },
	{ "TC2/12", 12, STROMB_K1, "0000000000000000",
	  "12056e595d56b0f6 eef090f0cd25a209 49248c2790525d0f 930218ff0b4ddd10"
	  "a6002239d9a454e2 9e107a7d06fefdfe f0210feba044f9f2 9b1772c960dc29c0" },
	{ "TC4/8", 8, STROMB_KF, "ffffffffffffffff",
	  "e163bbf8c9a739d1 8925ee8362dad2cd c973df05225afb2a a26396f2a9849a4a"
	  "445e0547d31c1623 c537df4ba85c70a9 884a35bcbf3dfab0 77e98b0f68135f54" },
	{ "TC4/12", 12, STROMB_KF, "ffffffffffffffff",
	  "04bf88dae8e47a22 8fa47b7e6379434b a664a7d28f4dab84 e5f8b464add20c3a"
	  "caa69c5ab221a23a 57eb5f345c96f4d1 322d0a2ff7a9cd43 401cd536639a615a" },
	{ "TC7/8", 8, STROMB_K7, "0f1e2d3c4b5a6978",
	  "db43ad9d1e842d12 72e4530e276b3f56 8f8859b3f7cf6d9d 2c74fa53808cb515"
	  "7a8ebf46ad3dcc4b 6c7dadde131784b0 120e0e22f6d5f9ff a7407d4a21b695d9" },
	{ "TC7/12", 12, STROMB_K7, "0f1e2d3c4b5a6978",
	  "7ed12a3a63912ae9 41ba6d4c0d5e862e 568b0e5589346935 505f064b8c2698db"
	  "f7d850667d8e67be 639f3b4f6a16f92e 65ea80f6c7429445 da1fc2c1b9365040" },
	{ "TC7/20", 20, STROMB_K7, "0f1e2d3c4b5a6978",
	  "9fadf409c00811d0 0431d67efbd88fba 59218d5d6708b1d6 85863fabbb0e961e"
	  "ea480fd6fb532bfd 494b215101505742 3ab60a63fe4f55f7 a212e2167ccab931"
	  "fbfd29cf7bc1d279 eddf25dd316bb884 3d6edee0bd1ef121 d12fa17cbc2c574c"
	  "ccab5e275167b08b d686f8a09df87ec3 ffb35361b94ebfa1 3fec0e4889d18da5" },
};

#endif /* VT_VECTORS_CHACHA_REDUCED_H */
