#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vecsec-gw.service and the sample /etc/vecsec files:
#   - the unit (as configured for this build) passes `systemd-analyze verify`,
#     with ExecStart pointing at this build's binary and its EnvironmentFile
#     at the sample (nothing is installed, no service is started);
#   - it is Type=notify and reloads with SIGHUP;
#   - its StateDirectory= is the folder of --seq-state's default file;
#   - the sample vecsec-gw.conf is refused as shipped (placeholder keys), and
#     with real keys in their place passes `vecsec-gw --check FILE -- OPTIONS`
#     with the sample vecsec-gw.env's VECSEC_GW_OPTS.
# systemd-analyze missing is a failure (scripts/setup.sh installs systemd).
#
# usage: systemd_check.sh UNIT GATEWAY_BINARY DIST_DIR
set -u
unit=$1 gw=$(readlink -f "$2") dist=$3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
tmp=$(mktemp -d /tmp/vecsec-gw-systemd.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

command -v systemd-analyze >/dev/null || { echo "FAIL: no systemd-analyze"; exit 1; }
cp "$dist/vecsec-gw.conf" "$dist/vecsec-gw.env" "$tmp/"
bindir=$(sed -n 's|^ExecStart=\(.*\)/vecsec-gw .*|\1|p' "$unit")
etc=$(sed -n 's|^EnvironmentFile=\(.*\)/vecsec/vecsec-gw.env|\1|p' "$unit")
[ -n "$bindir" ] && [ -n "$etc" ] || fail "unit: no ExecStart/EnvironmentFile: $(cat "$unit")"
sed -e "s|$bindir/vecsec-gw|$gw|g" -e "s|$etc/vecsec/|$tmp/|g" "$unit" > "$tmp/vecsec-gw.service"
if out=$(systemd-analyze verify --man=no "$tmp/vecsec-gw.service" 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify: no complaint"
else
	fail "systemd-analyze verify: $out"
fi
grep -q '^Type=notify$' "$unit" && grep -q '^ExecReload=/bin/kill -HUP \$MAINPID$' "$unit" &&
	ok "Type=notify, ExecReload=kill -HUP" || fail "unit type or reload"
# --seq-state's default file lives in the unit's state folder, 0700 (the gateway's
# default: the options neither give --seq-state nor turn it off)
sdef=$("$gw" --help | sed -n 's|.*(default \(/var/lib/[^,]*\)/seq-state,.*|\1|p')
if grep -q '^StateDirectory=vecsec-gw$' "$unit" && grep -q '^StateDirectoryMode=0700$' "$unit" &&
		[ "$sdef" = /var/lib/vecsec-gw ] && ! grep '^VECSEC_GW_OPTS=' "$dist/vecsec-gw.env" | grep -q -- '--seq-state'; then
	ok "StateDirectory=vecsec-gw (0700) holds --seq-state's default ($sdef/seq-state)"
else
	fail "unit's StateDirectory, or --seq-state's default ($sdef) or the sample options"
fi

# shipped: refused until the keys are there, with the line of the first one
chmod 600 "$tmp/vecsec-gw.conf"
out=$("$gw" --check "$tmp/vecsec-gw.conf" 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "vecsec-gw.conf:.*'<hidden key>': key must be hex"; then
	ok "sample as shipped refused: ${out##*: token}"
else
	fail "sample with placeholder keys: $out"
fi
key=$(for i in $(seq 1 36); do printf '%02x:' $(((i * 7) % 256)); done)
key=${key%:}
sed -i "s/REPLACE-WITH-36-KEY-BYTES/$key/" "$tmp/vecsec-gw.conf"
# the options as the unit passes them (EnvironmentFile: quotes removed, words split)
opts=$(sed -n 's/^VECSEC_GW_OPTS="\(.*\)"$/\1/p' "$tmp/vecsec-gw.env")
# shellcheck disable=SC2086
out=$("$gw" --check "$tmp/vecsec-gw.conf" -- $opts 2>&1)
if [ $? -eq 0 ] && echo "$out" | grep -q ": OK: 2 SA, 2 SP, 2 routes, 2 neigh"; then
	ok "sample with keys and VECSEC_GW_OPTS ($opts): ${out##*: OK: }"
else
	fail "sample with keys: $out"
fi
[ $fails -eq 0 ] && echo PASS || echo FAIL
exit $((fails != 0))
