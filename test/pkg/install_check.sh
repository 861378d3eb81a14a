#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# pkg-install: what `meson install` gives, used the way a packager and a
# developer would, from a DESTDIR (a folder in the build tree: EAL refuses
# -d plugins under a world-writable folder such as /tmp):
#  - libvecsec.so (soname libvecsec.so.MAJOR, 0.MINOR while MAJOR is 0; links), libvecsec.a, the
#    headers in <includedir>/vecsec/ (vecsec_version.h among them, its .in
#    template not), libvecsec.pc with the project's version;
#  - test/pkg/pkg_prog.c, outside the project, compiled with
#    `pkg-config --cflags --libs libvecsec` (shared, run against the DESTDIR
#    library) and `--static` (-static: no libvecsec needed at run time);
#    each seals and opens RFC 8439 2.8.2 and checks the version macros;
#  - vecsec-gw(8), vecsec-ctl(8), libvecsec(3) render with groff -ww
#    without a warning and carry the version;
#  - no side effects: the host's DPDK plugin folder, charon's plugin and
#    conf folders, /etc/vecsec and the prefix are unchanged; every file
#    outside the prefix is one the build was asked to put there and the
#    install said so; kernel-vecsec.conf has `load = no` and says how to
#    switch it on;
#  - the PMD in DESTDIR + its folder (the prefix's <libdir>/dpdk/pmds-<ABI>
#    with the ABI of the installed DPDK's RTE_EAL_PMD_PATH, read here from
#    rte_config.h, not from the build), librte_crypto_vecsec.so.<ABI>
#    with DPDK's links and soname, nothing left in <libdir>/vecsec/;
#    dpdk-pmdinfo.py lists crypto_vecsec and its devargs; all its libraries
#    resolve;
#  - dpdk-test-crypto-perf loads the installed PMD the way EAL loads its
#    plugin folder (-d <that folder>: the file names must match EAL's
#    .so / .so.<ABI> rule) and runs a throughput test: every op enqueued
#    and dequeued, MOps > 0;
#  - vecsec-gw(8) and vecsec-ctl(8) have every long option of their --help;
#  - --version of vecsec-gw, vecsec-ctl (answered locally: the socket does
#    not exist), vecsec-bench and vecsec-pmd-bench prints the version;
#    vecsec-ctl refuses unknown options itself (not sent, no key echoed);
#  - the installed vecsec-bench draws its PNG with the installed
#    plot_bench.py (<datadir>/vecsec/ under DESTDIR), not the source tree's.
# Starts DPDK (--no-pci, --no-huge): on a machine where other DPDK runs go
# on at the same time, give it a /run/dpdk of its own.
#
# usage: install_check.sh BUILD VERSION PREFIX LIBDIR INCLUDEDIR BINDIR
#                         DATADIR MANDIR PMD_DIR SOURCE_DIR
#   (directories absolute, as meson resolves them; PMD_DIR is where the
#   build installs the PMD: <libdir>/dpdk/pmds-<ABI> under the prefix, or
#   DPDK's own folder with -Dpmd_dir=system)
set -uo pipefail
if [ $# -ne 10 ]; then
	echo "usage: $0 BUILD VERSION PREFIX LIBDIR INCLUDEDIR BINDIR DATADIR MANDIR" \
		"PMD_DIR SRC" >&2
	exit 2
fi
build=$(cd "$1" && pwd) version=$2 prefix=$3 libdir=$4 incdir=$5 bindir=$6
datadir=$7 mandir=$8 pmd_opt=$9 src=${10}
major=${version%%.*}
# the soname's version: MAJOR, or 0.MINOR while MAJOR is 0 (lib/meson.build)
[ "$major" != 0 ] || { minor=${version#*.}; major=0.${minor%%.*}; }
fails=0
fail() { echo "pkg-install: FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "pkg-install: ok   $*"; }
# ok_if_clean SINCE TEXT: "ok TEXT" when nothing failed since fails was SINCE
ok_if_clean() { [ "$fails" -eq "$1" ] && ok "$2"; return 0; }

dest=$(mktemp -d "$build/pkg-install.XXXXXX") || exit 1
prefix_id=vecsec-pkg-$$
trap 'rm -rf "$dest" "/var/run/dpdk/$prefix_id"' EXIT
chmod 755 "$dest"
D=$dest

# ---- meson install --------------------------------------------------------
# the host's folders other software reads: an install into a DESTDIR must
# leave them as they were (listing with sizes and times, before and after)
host_dirs="$(printf '#include <rte_config.h>\nRTE_EAL_PMD_PATH\n' |
	cpp -P $(pkg-config --cflags libdpdk) - 2>/dev/null | tail -n 1 | tr -d '" ')
	/usr/lib/ipsec/plugins /etc/strongswan.d/charon /etc/vecsec $prefix"
host_state() {
	for d in $host_dirs; do
		[ -d "$d" ] && find "$d" -maxdepth 3 -printf '%p %s %T@\n' 2>/dev/null
	done | sort
}
before=$(host_state)
if ! out=$(meson install -C "$build" --no-rebuild --destdir "$D" 2>&1); then
	echo "$out" | tail -n 20
	echo "pkg-install: FAIL: meson install --destdir failed"
	exit 1
fi
ok "meson install --destdir $D: $(echo "$out" | grep -c '^Installing') files"

# ---- no side effects: everything under DESTDIR/PREFIX unless asked ---------
f0=$fails
[ "$(host_state)" = "$before" ] ||
	fail "meson install --destdir changed the host's folders: $(diff <(echo "$before") \
		<(host_state) | head -n 5 | tr '\n' ' ')"
# the PMD (-Dpmd_dir=system), plugin and conf (-Dstrongswan_*dir=system) and
# /etc (a /usr prefix's sysconfdir) are outside only when the build says so;
# the install names each such path
outside=$(cd "$D" && find . \( -type f -o -type l \) | sed 's/^\.//' |
	grep -v "^$prefix/" || true)
said=$(echo "$out" | sed -n 's/^vecsec: installed outside the prefix [^:]*: //p')
for f in $outside; do
	case "$f" in
	"$pmd_opt"/*|/usr/lib/ipsec/plugins/*|/etc/*) ;;
	*) fail "installed outside the prefix $prefix: $f" ;;
	esac
	grep -qxF "$f" <<<"$said" || grep -qxF "${f%/*}" <<<"$said" ||
		fail "installed outside the prefix $prefix without saying so: $f"
done
# the announcement itself, for a PMD where -Dpmd_dir=system would put it
mkdir -p "$D/outside/usr/lib/x/dpdk" && touch "$D/outside/usr/lib/x/dpdk/librte_crypto_vecsec.so.23"
said=$(DESTDIR=$D/outside "$src/tools/install_outside.sh" /usr/local \
	'/usr/lib/x/dpdk/librte_crypto_vecsec.so*' '/usr/local/lib/x/dpdk/librte_crypto_vecsec.so*')
[ "$said" = "vecsec: installed outside the prefix /usr/local: /usr/lib/x/dpdk/librte_crypto_vecsec.so.23" ] ||
	fail "tools/install_outside.sh does not name the file outside the prefix: '$said'"
rm -rf "$D/outside"
conf=$(cd "$D" && find . -name kernel-vecsec.conf | sed 's/^\.//')
if [ -n "$conf" ]; then
	load=$(sed -n 's/^[[:space:]]*load[[:space:]]*=[[:space:]]*//p' "$D$conf")
	[ "$load" = "no" ] || fail "$conf: load = '$load', want no (the operator switches it on)"
	grep -q '^[[:space:]]*#[[:space:]]*load = 2' "$D$conf" ||
		fail "$conf: the comment does not show how to switch it on (load = 2)"
	[ -n "$(cd "$D" && find . -name libstrongswan-kernel-vecsec.so)" ] ||
		fail "no libstrongswan-kernel-vecsec.so installed next to $conf"
	ok_if_clean $f0 "no side effects: host folders unchanged, $(echo "$outside" |
		grep -c .) file(s) outside $prefix (each announced), $conf: load = $load"
else
	ok_if_clean $f0 "no side effects: host folders unchanged, $(echo "$outside" |
		grep -c .) file(s) outside $prefix (each announced; no charon plugin built)"
fi

# ---- library, headers, pkg-config -----------------------------------------
L=$D$libdir
f0=$fails
[ -f "$L/libvecsec.so.$version" ] && [ ! -L "$L/libvecsec.so.$version" ] ||
	fail "no regular file $libdir/libvecsec.so.$version"
[ "$(readlink "$L/libvecsec.so.$major")" = "libvecsec.so.$version" ] ||
	fail "libvecsec.so.$major is not a link to libvecsec.so.$version"
[ "$(readlink "$L/libvecsec.so")" = "libvecsec.so.$major" ] ||
	fail "libvecsec.so is not a link to libvecsec.so.$major"
soname=$(readelf -d "$L/libvecsec.so.$version" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libvecsec.so.$major" ] || fail "libvecsec soname '$soname'"
[ -f "$L/libvecsec.a" ] || fail "no $libdir/libvecsec.a"
for h in vecsec.h vecsec_version.h vecsec_aead.h vecsec_chacha.h rte_pmd_vecsec.h; do
	[ -f "$D$incdir/vecsec/$h" ] || fail "no $incdir/vecsec/$h"
done
[ -e "$D$incdir/vecsec/vecsec_version.h.in" ] &&
	fail "the template vecsec_version.h.in is installed"
ok_if_clean $f0 "libvecsec.so.$version (soname $soname), libvecsec.a, headers in $incdir/vecsec/"

pc() {
	PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_LIBDIR=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D \
	PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config "$@"
}
f0=$fails
[ -f "$L/pkgconfig/libvecsec.pc" ] || fail "no $libdir/pkgconfig/libvecsec.pc"
pcver=$(pc --modversion libvecsec 2>/dev/null)
[ "$pcver" = "$version" ] || fail "pkg-config --modversion libvecsec: '$pcver', want $version"
cflags=$(pc --cflags libvecsec 2>/dev/null) libs=$(pc --libs libvecsec 2>/dev/null)
slibs=$(pc --libs --static libvecsec 2>/dev/null)
ok_if_clean $f0 "pkg-config libvecsec $pcver: cflags '$cflags', libs '$libs', static '$slibs'"

cc=${CC:-cc}
if ! $cc -std=c11 -Wall -Wextra -Werror -o "$D/prog_shared" "$src/test/pkg/pkg_prog.c" \
		$cflags $libs 2>&1; then
	fail "external program: compile/link with pkg-config libvecsec failed"
elif ! out=$(LD_LIBRARY_PATH=$L "$D/prog_shared" 2>&1) ||
		[ "${out#pkg_prog: OK $version }" = "$out" ]; then
	fail "external program (shared): '$out'"
else
	lib=$(LD_LIBRARY_PATH=$L ldd "$D/prog_shared" | awk '$1 ~ /^libvecsec/ {print $3}')
	[ "$lib" = "$L/libvecsec.so.$major" ] ||
		fail "prog_shared runs with '$lib', not $L/libvecsec.so.$major"
	ok "external program, shared, runs with $lib: $out"
fi
if ! $cc -std=c11 -Wall -Wextra -Werror -static -o "$D/prog_static" \
		"$src/test/pkg/pkg_prog.c" $cflags $slibs 2>&1; then
	fail "external program: static link with pkg-config --static libvecsec failed"
elif readelf -d "$D/prog_static" 2>/dev/null | grep -q NEEDED; then
	fail "prog_static needs shared libraries: $(readelf -d "$D/prog_static" | grep NEEDED)"
elif ! out=$(env -u LD_LIBRARY_PATH "$D/prog_static" 2>&1) ||
		[ "${out#pkg_prog: OK $version }" = "$out" ]; then
	fail "external program (static): '$out'"
else
	ok "external program, static (no NEEDED entries): $out"
fi

# ---- man pages --------------------------------------------------------------
for m in man8/vecsec-gw.8 man8/vecsec-ctl.8 man3/libvecsec.3; do
	f=$D$mandir/$m
	if [ ! -f "$f" ]; then
		fail "no $mandir/$m"
		continue
	fi
	f0=$fails
	warn=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
	[ -z "$warn" ] || fail "$m: groff warns: $warn"
	text=$(groff -man -Tutf8 "$f" 2>/dev/null | sed 's/.\x08//g')
	name=$(basename "$m"); name=${name%.*}
	grep -q "^NAME" <<<"$text" || fail "$m: no NAME section"
	grep -q "^ *$name - " <<<"$text" || fail "$m: NAME line is not '$name - ...'"
	grep -q "vecsec $version" <<<"$text" || fail "$m: version $version not in its footer"
	ok_if_clean $f0 "$mandir/$m: $(echo "$text" | wc -l) lines, no groff warning"
done

# ---- the PMD in DPDK's plugin folder ----------------------------------------
dpdk_dir=$(printf '#include <rte_config.h>\nRTE_EAL_PMD_PATH\n' |
	cpp -P $(pkg-config --cflags libdpdk) - 2>/dev/null | tail -n 1 | tr -d '" ')
case "$dpdk_dir" in
/*/pmds-*) ;;
*) fail "cannot read RTE_EAL_PMD_PATH from rte_config.h: '$dpdk_dir'" ;;
esac
abi=${dpdk_dir##*/pmds-}
want_dir=$pmd_opt
P=$D$want_dir
so=librte_crypto_vecsec.so
if [ ! -f "$P/$so.$abi" ] || [ -L "$P/$so.$abi" ]; then
	fail "no regular file $want_dir/$so.$abi (DPDK ABI $abi); installed:" \
		"$(cd "$D" && find . -name "$so*" | tr '\n' ' ')"
else
	f0=$fails
	[ "$(readlink "$P/$so.${abi%%.*}")" = "$so.$abi" ] ||
		fail "$so.${abi%%.*} is not a link to $so.$abi"
	[ "$(readlink "$P/$so")" = "$so.${abi%%.*}" ] || fail "$so is not a link to $so.${abi%%.*}"
	psoname=$(readelf -d "$P/$so.$abi" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
	[ "$psoname" = "$so.${abi%%.*}" ] || fail "PMD soname '$psoname', want $so.${abi%%.*}"
	missing=$(ldd "$P/$so.$abi" | grep 'not found')
	[ -z "$missing" ] || fail "PMD libraries not found: $missing"
	ok_if_clean $f0 "PMD in $want_dir: $so.$abi, links .so.${abi%%.*} and .so, soname $psoname"
fi
[ -e "$L/vecsec" ] && fail "something is still installed in the old $libdir/vecsec/"

pmdinfo=$(command -v dpdk-pmdinfo.py)
if [ -z "$pmdinfo" ]; then
	fail "dpdk-pmdinfo.py not found (Debian package dpdk)"
elif ! info=$(/usr/bin/python3 "$pmdinfo" "$P/$so.$abi" 2>&1); then
	fail "dpdk-pmdinfo.py $so.$abi: $info"
elif ! echo "$info" | /usr/bin/python3 -c '
import json, sys
drivers = {d["name"]: d for d in json.load(sys.stdin)}
d = drivers.get("crypto_vecsec")
if d is None:
    sys.exit("no crypto_vecsec in %s" % sorted(drivers))
for arg in ("max_nb_queue_pairs=", "socket_id=", "isa=", "max_burst="):
    if arg not in d.get("params", ""):
        sys.exit("params %r lack %s" % (d.get("params"), arg))
print(d["params"])' > "$D/params.txt" 2>&1; then
	fail "dpdk-pmdinfo.py: $(cat "$D/params.txt")"
else
	ok "dpdk-pmdinfo.py: crypto_vecsec, params '$(cat "$D/params.txt")'"
fi

# EAL loads a plugin folder's *.so and *.so.<ABI> files: give it the
# DESTDIR folder as the real one would be loaded.
ops=20000
if ! out=$(timeout -k 5 120 dpdk-test-crypto-perf -l 0,1 --no-pci --no-huge -m 512 \
		--file-prefix "$prefix_id" --log-level lib.eal:warning -d "$P" \
		--vdev crypto_vecsec0 -- --devtype crypto_vecsec --ptest throughput \
		--optype aead --aead-algo chacha20-poly1305 --aead-op encrypt \
		--aead-key-sz 32 --aead-iv-sz 12 --aead-aad-sz 16 --digest-sz 16 \
		--buffer-sz 64,1024 --burst-sz 32 --total-ops $ops 2>&1); then
	echo "$out" | grep -v '^#' | tail -n 12
	fail "dpdk-test-crypto-perf with -d $want_dir (DESTDIR) exited non-zero"
elif ! res=$(echo "$out" | awk -v n=$ops '
		/MOps/ {h = 1; next}
		h && NF == 10 {
			rows++
			if ($4 != n || $5 != n || !($8 > 0) || !($9 > 0))
				bad = bad sprintf(" size %s: enq %s deq %s MOps %s Gbps %s;",
					$2, $4, $5, $8, $9)
			info = info sprintf(" %sB %.3f Mops %.2f Gbps;", $2, $8, $9)
		}
		END {
			if (rows != 2) { print "want 2 result rows, got " rows + 0; exit 1 }
			if (bad != "") { print bad; exit 1 }
			print info
		}'); then
	echo "$out" | grep -v '^#' | tail -n 12
	fail "dpdk-test-crypto-perf on the installed PMD: $res"
else
	ok "dpdk-test-crypto-perf, installed PMD from its folder, $ops ops each:$res"
fi

# ---- --version --------------------------------------------------------------
B=$D$bindir
for p in vecsec-gw vecsec-ctl vecsec-bench vecsec-pmd-bench; do
	if [ ! -x "$B/$p" ]; then
		fail "no $bindir/$p"
		continue
	fi
	out=$(VECSEC_GW_SOCKET=$D/no-such.sock timeout 20 "$B/$p" --version 2>&1)
	rc=$?
	case "$rc ${out%%$'\n'*}" in
	"0 $p $version" | "0 $p $version "*) ok "$p --version: $out" ;;
	*) fail "$p --version: exit $rc, '$out' (want '$p $version ...')" ;;
	esac
done

# every long option the installed programs' --help lists is in their man page
for p in vecsec-gw vecsec-ctl; do
	f=$D$mandir/man8/$p.8
	[ -x "$B/$p" ] && [ -f "$f" ] || continue
	opts=$(VECSEC_GW_SOCKET=$D/no-such.sock timeout 20 "$B/$p" --help 2>&1 |
		grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
	text=$(groff -man -Tascii "$f" 2>/dev/null | sed 's/.\x08//g')
	missing=
	for o in $opts; do
		grep -q -- "$o" <<<"$text" || missing="$missing $o"
	done
	if [ -z "$opts" ]; then
		fail "$p --help lists no long option"
	elif [ -n "$missing" ]; then
		fail "$p(8) lacks options its --help lists:$missing"
	else
		ok "$p(8) has the $(echo "$opts" | wc -l) long options of $p --help"
	fi
done

# vecsec-ctl parses its options itself: an unknown one is refused (exit 1),
# never sent (with no socket, sending would be exit 2 "cannot reach"), and
# what follows its '=' (a key, maybe) is not echoed
key=000102030405060708090a0b0c0d0e0f
for args in "--no-such-option stats" "-x list" "--aead_key=$key list" "-s"; do
	out=$(VECSEC_GW_SOCKET=$D/no-such.sock "$B/vecsec-ctl" $args 2>&1)
	rc=$?
	if [ $rc -ne 1 ] || ! echo "$out" | grep -q "vecsec-ctl: \(unknown option\|option .* needs\)"; then
		fail "vecsec-ctl $args: exit $rc, '$out' (want exit 1, refused locally)"
	elif echo "$out" | grep -q "$key"; then
		fail "vecsec-ctl $args echoed the key: '$out'"
	else
		ok "vecsec-ctl $args: refused locally: ${out%%$'\n'*}"
	fi
done

# ---- the installed vecsec-bench finds the installed plot script -------------
script=$D$datadir/vecsec/plot_bench.py
[ -f "$script" ] || fail "no $datadir/vecsec/plot_bench.py"
out=$(env -u VECSEC_BENCH_PLOT "$B/vecsec-bench" --case chacha20-poly1305 --sizes 64 \
	--reps 1 --no-peers --isa scalar --png "$D/bench.png" 2>&1)
rc=$?
png=$(echo "$out" | grep '^png:')
if [ $rc -ne 0 ]; then
	echo "$out" | tail -n 5
	fail "installed vecsec-bench --png exited $rc"
elif [ "$png" != "png:      $D/bench.png (drawn by $(readlink -f "$script"))" ]; then
	echo "$out" | tail -n 5
	fail "installed vecsec-bench did not draw with $script: '$png'"
elif [ "$(head -c 8 "$D/bench.png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
	fail "$D/bench.png is not a PNG"
else
	ok "installed vecsec-bench: $png"
fi

if [ $fails -ne 0 ]; then
	echo "pkg-install: FAIL ($fails)"
	exit 1
fi
echo "pkg-install: PASS"
