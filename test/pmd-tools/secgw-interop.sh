#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# DPDK's stock ipsec-secgw example, built unmodified from the dpdk-doc
# package (tools/external/build-secgw.sh), runs the vecsec PMD in library mode (-l) with two
# ChaCha20-Poly1305 tunnels, one lookaside (no-offload) and one cpu-crypto,
# between two net_tap ports in a network namespace made for this test.
# scapy (secgw_interop.py) sends clear IPv4 into the protected port and
# decrypts every ESP packet from the unprotected one, then sends ESP the
# other way and compares what comes out, byte for byte. The namespace, the
# gateway and EAL's runtime folder go away on any exit.
#
# usage: secgw-interop.sh BUILD_DIR [DEVTYPE]   (DEVTYPE: see lib.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
pt_init secgw "${1:-}" "${2:-}"

[ "$(id -u)" = 0 ] || pt_die "needs root (network namespace, tap devices)"
command -v ip >/dev/null || pt_die "needs iproute2"

build=$(pt_abs "${1:-.}")
secgw=$build/pmd-tools/ipsec-secgw/build/ipsec-secgw
"$here/../../tools/external/build-secgw.sh" "$build/pmd-tools" >/dev/null ||
	pt_die "could not build ipsec-secgw (see $build/pmd-tools/ipsec-secgw/make.log)"

ns=vecsec-secgw-$$
clr=vsclr$$
esp=vsesp$$
clr=${clr:0:15}
esp=${esp:0:15}
seed=${PT_SEED:-$(( $(date +%s) % 100000 ))}
work=$(mktemp -d)
gw_pid=

cleanup()
{
	if [ -n "$gw_pid" ] && kill -0 "$gw_pid" 2>/dev/null; then
		kill -TERM "$gw_pid" 2>/dev/null || true
		# its exit, at most 5 s (it runs under `timeout -k 5`, which forwards TERM)
		for _ in $(seq 1 100); do
			kill -0 "$gw_pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -KILL "$gw_pid" 2>/dev/null || true
	fi
	ip netns del "$ns" 2>/dev/null || true
	if [ -n "${PT_KEEP:-}" ]; then cp -a "$work/." "$PT_KEEP/"; fi
	rm -rf "$work"
	pt_cleanup_runtime
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$ns"
# No IPv6 in the namespace: the kernel would send router solicitations and
# MLD reports through the taps into the gateway.
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec "$ns" ip link set lo up

/usr/bin/python3 "$here/secgw_interop.py" config "$seed" >"$work/secgw.cfg"

# pt_eal (lib.sh): --no-pci --no-huge -m 512 and a file prefix of its own
read -r -a eal <<<"$(pt_eal 512)"
gw_cmd=(timeout -k 5 180 "${PT_RUN[@]}" "$secgw" -l 0 "${eal[@]}" "${PT_EAL_DEV[@]}"
	--vdev "net_tap0,iface=$clr,mac=02:00:00:00:00:10"
	--vdev "net_tap1,iface=$esp,mac=02:00:00:00:00:11"
	-- -l -P -p 0x3 -u 0x2 --config "(0,0,0),(1,0,0)" -w 64 -s 8192
	-f "$work/secgw.cfg")
echo "gateway: ip netns exec $ns ${gw_cmd[*]}"
ip netns exec "$ns" "${gw_cmd[@]}" >"$work/secgw.log" 2>&1 &
gw_pid=$!

# ready: its "entering main loop" line (polled; a loaded machine may take long)
deadline=$((SECONDS + ${PT_READY_TIMEOUT:-120}))
while [ "$SECONDS" -lt "$deadline" ]; do
	grep -q "entering main loop" "$work/secgw.log" && break
	kill -0 "$gw_pid" 2>/dev/null || break
	sleep 0.05
done
if ! grep -q "entering main loop" "$work/secgw.log"; then
	tail -n 40 "$work/secgw.log"
	pt_die "ipsec-secgw did not start"
fi
# Both tunnels must be served by the device under test.
grep -E "^(lcore|Created|SA|Add)|cpu-crypto|crypto" "$work/secgw.log" | head -n 20 || true

ip netns exec "$ns" ip link set "$clr" up
ip netns exec "$ns" ip link set "$esp" up
rc=0
t0=$(date +%s)
ip netns exec "$ns" timeout -k 5 120 /usr/bin/python3 "$here/secgw_interop.py" \
	traffic "$seed" "$clr" "$esp" || rc=$?

echo "traffic phase: $(( $(date +%s) - t0 )) s"
if ! kill -0 "$gw_pid" 2>/dev/null; then
	gw_rc=0
	wait "$gw_pid" || gw_rc=$?
	gw_pid=
	tail -n 20 "$work/secgw.log"
	pt_die "ipsec-secgw died during the test (exit status $gw_rc$([ "$gw_rc" -gt 128 ] && echo ": signal $((gw_rc - 128))"))"
fi
kill -TERM "$gw_pid"
gw_rc=0
wait "$gw_pid" || gw_rc=$?
gw_pid=
if [ "$rc" -ne 0 ] || [ "$gw_rc" -ne 0 ]; then
	tail -n 40 "$work/secgw.log"
	pt_die "interop failed (traffic rc=$rc, gateway rc=$gw_rc, seed $seed)"
fi
echo "PASS secgw-interop ($PT_DEVTYPE): stock ipsec-secgw <-> scapy, lookaside and cpu-crypto, both directions (seed $seed)"
