#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Instructions executed per byte in each function of vecsec on aarch64,
counted under qemu-aarch64 (docs/arm64.md). Runs the aarch64 build's
`vecsec-bench --insns REPS` (untimed: one case at one size through
vecsec's dispatched kernels, REPS times, or REPS bursts of 32 jobs with
--burst) with qemu's `-d in_asm,exec,nochain` log (every translated
block's instructions, then every execution of a block), attributes each
executed block to the function whose symbol range (aarch64-linux-gnu-nm)
holds its start, and prints instructions per byte for the functions that
ran the most: all of them, those naming SIMD&FP registers (v, q, d, s, h,
b: ASIMD arithmetic, vector loads and stores, moves between the register
files) and the rest (integer and branch instructions).

  tools/arm64_insns.py [--build DIR] [--isa neon|scalar] [--burst]
                       [--top N] [--expect FUNC,...] CASE LEN REPS

CASE is a vecsec-bench case (chacha20, poly1305, chacha20-poly1305,
xchacha20-poly1305, nhpoly1305, adiantum-xchacha12, ...). The counts are
exact for the emulated instruction stream; they say nothing about cycles.
--expect: fail (exit 1) unless each named function executed at least one
instruction per byte (the fast suite's check that the NEON kernels are the
ones dispatched and that this tool still works).
"""
import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

NM = 'aarch64-linux-gnu-nm'
QEMU = 'qemu-aarch64'


def symbols(exe):
    out = subprocess.run([NM, '-S', '--defined-only', exe],
                         check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in 'tT':
            syms.append((int(f[0], 16), int(f[1], 16), f[3]))
    syms.sort()
    return syms


def run(a):
    exe = a.exe or os.path.join(a.build, 'apps', 'vecsec-bench', 'vecsec-bench')
    for tool in (NM, QEMU):
        if shutil.which(tool) is None:
            sys.exit(f'arm64_insns: {tool} not found (scripts/setup.sh installs it)')
    if not os.path.exists(exe):
        sys.exit(f'arm64_insns: {exe} not found (the aarch64 cross build, docs/arm64.md)')
    args = [exe, '--insns', str(a.reps), '--no-peers', '--isa', a.isa, '--case', a.case,
           '--sizes', str(a.len)] + (['--burst'] if a.burst else [])
    tb_len = {}
    tb_simd = {}
    execs = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'qemu.log')
        cmd = [QEMU, '-L', '/', '-d', 'in_asm,exec,nochain', '-D', log] + args
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f'arm64_insns: {" ".join(cmd)} failed ({res.returncode}):\n'
                     f'{res.stdout}{res.stderr}')
        m = re.search(r'^main (0x[0-9a-f]+)$', res.stdout, re.M)
        done = re.search(r'^insns: .*: (\d+) bytes$', res.stdout, re.M)
        if m is None or done is None:
            sys.exit(f'arm64_insns: unexpected vecsec-bench output:\n{res.stdout}')
        main_rt = int(m.group(1), 16)
        nbytes = int(done.group(1))
        cur = None
        with open(log, errors='replace') as f:
            for line in f:
                if line.startswith('IN:'):
                    cur = None
                    continue
                m = re.match(r'0x([0-9a-f]+):\s+[0-9a-f]{8}\s+(\S+)\s*(.*)', line)
                if m:
                    pc = int(m.group(1), 16)
                    if cur is None:
                        cur = pc
                        tb_len[cur] = 0
                        tb_simd[cur] = 0
                    tb_len[cur] += 1
                    if re.search(r'\b(v\d+\.|[qdshb]\d+\b)', m.group(3)):
                        tb_simd[cur] += 1
                    continue
                if line.strip() == '':
                    cur = None
                    continue
                m = re.match(r'Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/', line)
                if m:
                    execs[int(m.group(1), 16)] += 1
    syms = symbols(exe)
    main_st = [s for s in syms if s[2] == 'main'][0][0]
    base = main_rt - main_st
    starts = [s[0] for s in syms]
    per_fn = collections.Counter()
    per_fn_simd = collections.Counter()
    for pc, n in execs.items():
        off = pc - base
        i = bisect.bisect_right(starts, off) - 1
        name = '(outside vecsec-bench)'
        if i >= 0 and syms[i][0] <= off < syms[i][0] + max(syms[i][1], 1):
            name = syms[i][2]
        per_fn[name] += n * tb_len.get(pc, 0)
        per_fn_simd[name] += n * tb_simd.get(pc, 0)
    print(res.stdout.strip().splitlines()[-1])
    print(f'instructions executed per byte ({nbytes} bytes), by function:')
    print(f'  {"function":40s} {"executed":>12s} {"insn/B":>8s} {"SIMD/B":>8s} {"other/B":>8s}')
    for name, n in per_fn.most_common(a.top):
        v = per_fn_simd[name]
        print(f'  {name:40s} {n:12d} {n / nbytes:8.3f} {v / nbytes:8.3f} {(n - v) / nbytes:8.3f}')
    tot = sum(per_fn.values())
    tot_simd = sum(per_fn_simd.values())
    print(f'  {"all (set-up included)":40s} {tot:12d} {tot / nbytes:8.3f} {tot_simd / nbytes:8.3f} '
          f'{(tot - tot_simd) / nbytes:8.3f}')
    bad = []
    for name in filter(None, (a.expect or '').split(',')):
        if per_fn[name] < nbytes:
            bad.append(f'{name} ({per_fn[name]} instructions)')
    if bad:
        print('FAIL: expected at least one instruction per byte in: ' + ', '.join(bad))
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', default='build-aarch64')
    ap.add_argument('--exe', help='vecsec-bench built for aarch64 (default: in --build)')
    ap.add_argument('--isa', default='neon')
    ap.add_argument('--burst', action='store_true')
    ap.add_argument('--top', type=int, default=6)
    ap.add_argument('--expect')
    ap.add_argument('case')
    ap.add_argument('len', type=int)
    ap.add_argument('reps', type=int)
    return run(ap.parse_args())


if __name__ == '__main__':
    sys.exit(main())
