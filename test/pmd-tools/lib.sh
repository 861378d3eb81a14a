# SPDX-License-Identifier: BSD-3-Clause
#
# Helpers sourced by the test/pmd-tools/*.sh checks and scripts/bench-pmd.sh:
# which cryptodev to drive with DPDK's stock tools, and the EAL arguments
# that every start here must carry (--no-pci, --no-huge -m, a unique
# --file-prefix, absolute -d paths outside world-writable folders).
#
# The device under test is crypto_vecsec, loaded from the build folder.
# PT_DEVTYPE=crypto_chacha20_poly1305 (or crypto_aesni_mb)
# points the same checks at one of Debian's PMDs instead: that is how the
# scripts were developed before the vecsec PMD existed, and how the test
# data itself is sanity-checked.

PT_PMD_DIR=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0

pt_die()
{
	echo "FAIL $PT_NAME: $*"
	exit 1
}

# pt_abs PATH: absolute, symlink-free path of an existing file or folder.
pt_abs()
{
	readlink -f -- "$1"
}

# pt_check_plugin_path PATH: EAL's -d must not load from a folder that any
# user can write to (a planted .so would run as us).
pt_check_plugin_path()
{
	local p=$1 d
	case "$p" in
	/tmp/* | /var/tmp/* | /dev/shm/*)
		pt_die "refusing -d $p: under a world-writable folder (build elsewhere)" ;;
	esac
	d=$(dirname -- "$p")
	while [ "$d" != / ]; do
		if [ -n "$(find "$d" -maxdepth 0 -perm -0002 ! -perm -1000 2>/dev/null)" ]; then
			pt_die "refusing -d $p: $d is world-writable"
		fi
		d=$(dirname -- "$d")
	done
}

# pt_sanitizer_run SO: sets the array PT_RUN, the command prefix under which
# an uninstrumented program (DPDK's stock tools) may load the plugin SO.
# Empty for a plain build. For a PMD built with -fsanitize=address
# (scripts/test.sh's build-asan), EAL's dlopen() of it would abort: the ASan
# runtime must come first in the program's library list. So its runtime
# (and UBSan's) is preloaded, and LeakSanitizer is off there: what it would
# report is the stock tool's and DPDK's own memory at exit, not ours (our
# programs, which link the PMD, run with it on). ASan and UBSan errors in
# the PMD still stop the run and fail the test.
pt_sanitizer_run()
{
	local so=$1 libs
	PT_RUN=()
	libs=$(ldd "$so" 2>/dev/null | awk '$1 ~ /^lib(asan|ubsan)\.so/ {printf "%s%s", sep, $3; sep = " "}')
	if [ -n "$libs" ]; then
		PT_RUN=(env "LD_PRELOAD=$libs"
			"ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
		echo "note: $so is built with sanitizers: stock tools run with LD_PRELOAD=$libs, detect_leaks=0"
	fi
}

# pt_init NAME BUILD_DIR [DEVTYPE]
# Sets PT_NAME, PT_DEVTYPE, PT_VDEV (the --vdev instance name), PT_PREFIX
# (unique --file-prefix), the array PT_EAL_DEV (plugin + vdev arguments)
# and the array PT_RUN (pt_sanitizer_run: put it before a stock tool).
# DEVTYPE defaults to $PT_DEVTYPE, then crypto_vecsec.
pt_init()
{
	PT_NAME=$1
	local build=$2
	PT_DEVTYPE=${3:-${PT_DEVTYPE:-crypto_vecsec}}
	PT_PREFIX="vecsec-$PT_NAME-$$"
	PT_EAL_DEV=()
	PT_RUN=()
	case "$PT_DEVTYPE" in
	crypto_vecsec)
		[ -n "$build" ] || pt_die "usage: $0 BUILD_DIR"
		local so
		so=$(pt_abs "$build")/drivers/crypto/vecsec/librte_crypto_vecsec.so
		[ -f "$so" ] || pt_die "no PMD at $so (build it first: ninja -C $build)"
		pt_check_plugin_path "$so"
		PT_SO=$so
		PT_VDEV=crypto_vecsec0
		PT_EAL_DEV=(-d "$so" --vdev "$PT_VDEV")
		pt_sanitizer_run "$so"
		;;
	crypto_chacha20_poly1305 | crypto_aesni_mb)
		# Debian's EAL loads every PMD of $PT_PMD_DIR by itself.
		PT_VDEV=${PT_DEVTYPE}0
		PT_EAL_DEV=(--vdev "$PT_VDEV")
		;;
	*)
		pt_die "unknown devtype $PT_DEVTYPE"
		;;
	esac
}

# pt_eal MB: the EAL arguments every start carries, for MB megabytes of
# ordinary (non-huge) memory.
pt_eal()
{
	echo --no-pci --no-huge -m "$1" --file-prefix "$PT_PREFIX" --log-level lib.eal:warning
}

# pt_cleanup_runtime: EAL leaves /var/run/dpdk/<prefix>; remove ours.
pt_cleanup_runtime()
{
	[ -n "${PT_PREFIX:-}" ] && rm -rf "/var/run/dpdk/$PT_PREFIX"
	return 0
}
