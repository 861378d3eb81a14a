#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# no_tls.sh LIBC FILE...: no FILE has a TLS segment (thread-local
# variables). The PMD's .so is loaded with dlopen (EAL's -d), and
# LeakSanitizer's thread scan crashed on such a library's TLS ("Tracer
# caught signal 11" when a two-worker gateway under ASan exited), so
# libvecsec keeps per-thread state in its callers' structures instead.
# Self-check first: LIBC (the C library, which has TLS) must be caught.
set -u
readelf=${READELF:-readelf}
has_tls() { "$readelf" -lW "$1" | grep -q '^ *TLS '; }

libc=$1
shift
if ! has_tls "$libc"; then
	echo "FAIL: self-check: no TLS segment found in $libc: this check cannot see one"
	exit 1
fi
fail=0
for f in "$@"; do
	if has_tls "$f"; then
		echo "FAIL: $f has a TLS segment (a _Thread_local or __thread in what it links):"
		"$readelf" -sW "$f" | awk '$4 == "TLS" { print "  " $8 }'
		fail=1
	else
		echo "ok   $f: no TLS segment"
	fi
done
exit $fail
