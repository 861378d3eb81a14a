/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every primitive that has a dispatch table, one VECSEC_SELECTOR(name) line
 * each: name's selector is vecsec_<name>_select(). No include guard: this
 * file is expanded with different definitions of VECSEC_SELECTOR.
 */
VECSEC_SELECTOR(chacha)
VECSEC_SELECTOR(lanes)
VECSEC_SELECTOR(poly1305)
VECSEC_SELECTOR(nh)
VECSEC_SELECTOR(aes256)
VECSEC_SELECTOR(aria)
VECSEC_SELECTOR(ghash)
VECSEC_SELECTOR(chachapoly)
