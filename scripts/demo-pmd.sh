# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced (bash) by the scripts that hand EAL the build's crypto_vecsec PMD
# (scripts/demo-gw.sh, scripts/bench-gw.sh). DPDK 22.11's EAL loads a -d
# plugin only if no component of its real path is world-writable: the
# file and every folder above it up to /, the sticky bit no exception
# (eal_common_options.c, eal_dlopen -> verify_perms). A checkout under
# /tmp, or in any folder others may write to, cannot load its own PMD, and
# every run then fails in EAL init. So, before EAL starts:
#
#   pmd_unsafe PATH    the first world-writable component of PATH's real
#                      path (printed, status 0), status 1 if none
#   pmd_private PATH   sets pmd_so: PATH if EAL accepts it; else a copy in
#                      a private (0700) folder it accepts, in
#                      $XDG_RUNTIME_DIR, /run, /var/cache or $HOME (the
#                      first that is writable, not world-writable anywhere
#                      up to / and not mounted noexec); status 1 with one
#                      line on stderr when there is none (not in a
#                      subshell: pmd_private_cleanup needs its folder)
#   pmd_private_cleanup  removes that copy (call it from an EXIT trap)
#
# The copy keeps the name librte_crypto_vecsec.so: the gateway then takes
# the -d as its crypto_vecsec and adds none of its own.

pmd_private_dir=
pmd_so=

pmd_unsafe() {
	local p
	p=$(readlink -f -- "$1") || return 1
	while :; do
		if [ -n "$(find "$p" -maxdepth 0 -perm -0002 2>/dev/null)" ]; then
			printf '%s\n' "$p"
			return 0
		fi
		[ "$p" = / ] && return 1
		p=$(dirname -- "$p")
	done
}

pmd_private() {
	local so=$1 bad base d
	pmd_so=$so
	bad=$(pmd_unsafe "$so") || return 0
	for base in "${XDG_RUNTIME_DIR:-}" /run /var/cache "${HOME:-}"; do
		[ -n "$base" ] && [ -d "$base" ] && [ -w "$base" ] || continue
		pmd_unsafe "$base" >/dev/null && continue
		findmnt -no OPTIONS --target "$base" 2>/dev/null | grep -qw noexec && continue
		d=$(mktemp -d "$base/vecsec-pmd.XXXXXX" 2>/dev/null) || continue
		pmd_private_dir=$d
		if cp -- "$(readlink -f -- "$so")" "$d/librte_crypto_vecsec.so" 2>/dev/null &&
			chmod 0755 "$d/librte_crypto_vecsec.so"; then
			echo "$(basename -- "$0"): $bad is world-writable and EAL refuses a PMD" \
				"under it: using a copy in $d" >&2
			pmd_so=$d/librte_crypto_vecsec.so
			return 0
		fi
		pmd_private_cleanup
	done
	echo "$(basename -- "$0"): $bad is world-writable, so EAL refuses the PMD $so," \
		"and there is no private folder to copy it to: build in a checkout" \
		"outside /tmp (e.g. under \$HOME), or set XDG_RUNTIME_DIR" >&2
	return 1
}

pmd_private_cleanup() {
	if [ -n "$pmd_private_dir" ]; then
		rm -rf -- "$pmd_private_dir"
		pmd_private_dir=
	fi
}
