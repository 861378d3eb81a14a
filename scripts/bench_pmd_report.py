#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Report for scripts/bench-pmd.sh: reads the raw dpdk-test-crypto-perf
throughput outputs (--csv-friendly) named <pmd>.<op>.<run>.txt, takes the
median of the runs per PMD, direction and buffer size, prints a table with
vecsec's speed relative to each other PMD, and writes a CSV and a PNG of
cycles/byte against buffer size.

usage: bench_pmd_report.py RAW_DIR OUT_CSV OUT_PNG OPS_PER_SIZE
"""

import csv
import glob
import os
import re
import statistics
import sys

ROW = re.compile(r'^\s*(\d+),\s*(\d+),\s*(\d+),(\d+),(\d+),(\d+),(\d+),'
                 r'([0-9.]+),([0-9.]+),([0-9.]+)\s*$')
REF = 'crypto_vecsec'


def load(raw_dir, ops):
    """{(pmd, op): {size: [(mops, gbps, cycles_per_op), ...]}}"""
    data = {}
    for path in sorted(glob.glob(os.path.join(raw_dir, '*.txt'))):
        name = os.path.basename(path)
        m = re.match(r'^(.+)\.(encrypt|decrypt)\.(\d+)\.txt$', name)
        if not m:
            continue
        pmd, op = m.group(1), m.group(2)
        rows = 0
        with open(path) as f:
            for line in f:
                r = ROW.match(line)
                if not r:
                    continue
                size, enq, deq = int(r.group(2)), int(r.group(4)), int(r.group(5))
                if enq != ops or deq != ops:
                    sys.exit('%s: size %d enqueued %d dequeued %d of %d ops'
                             % (name, size, enq, deq, ops))
                sample = (float(r.group(8)), float(r.group(9)), float(r.group(10)))
                data.setdefault((pmd, op), {}).setdefault(size, []).append(sample)
                rows += 1
        if rows == 0:
            sys.exit('%s: no throughput rows' % name)
    return data


def medians(data):
    """{(pmd, op): {size: dict}} with the median of each metric."""
    out = {}
    for key, by_size in data.items():
        for size, samples in by_size.items():
            mops = statistics.median(s[0] for s in samples)
            cyc = statistics.median(s[2] for s in samples)
            out.setdefault(key, {})[size] = {
                'runs': len(samples),
                'mops': mops,
                'gbps': statistics.median(s[1] for s in samples),
                'cycles_per_op': cyc,
                'cycles_per_byte': cyc / size,
                'mops_min': min(s[0] for s in samples),
                'mops_max': max(s[0] for s in samples),
            }
    return out


def order(pmds):
    """vecsec series first, then the rest by name."""
    return sorted(pmds, key=lambda p: (not p.startswith(REF), p))


def table(med, op, pmds):
    others = [p for p in pmds if p != REF]
    sizes = sorted({s for p in pmds for s in med.get((p, op), {})})
    print('\n== %s: median of runs; Mops, Gbps, cycles/op, cycles/byte; '
          'x = vecsec Mops / that PMD\'s ==' % op)
    head = '%6s' % 'bytes'
    for p in pmds:
        head += ' | %-33s' % p[:33]
    for p in others:
        head += ' | %8s' % ('x ' + short(p))[:8]
    print(head)
    for size in sizes:
        line = '%6d' % size
        for p in pmds:
            v = med.get((p, op), {}).get(size)
            if v is None:
                line += ' | %-33s' % '-'
            else:
                line += ' | %7.3f %7.3f %9.1f %7.2f' % (
                    v['mops'], v['gbps'], v['cycles_per_op'], v['cycles_per_byte'])
        for p in others:
            a = med.get((REF, op), {}).get(size)
            b = med.get((p, op), {}).get(size)
            line += ' | %8s' % ('%.2f' % (a['mops'] / b['mops']) if a and b else '-')
        print(line)


def short(pmd):
    return {'crypto_aesni_mb': 'aesni', 'crypto_chacha20_poly1305': 'chacha'}.get(
        pmd, pmd.replace('crypto_vecsec', 'vs'))


def write_csv(med, path, pmds):
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pmd', 'op', 'buffer_bytes', 'runs', 'mops', 'gbps', 'cycles_per_op',
                    'cycles_per_byte', 'mops_min', 'mops_max', 'vecsec_speedup'])
        for op in ('encrypt', 'decrypt'):
            for p in pmds:
                for size, v in sorted(med.get((p, op), {}).items()):
                    ref = med.get((REF, op), {}).get(size)
                    ratio = '%.4f' % (ref['mops'] / v['mops']) if ref else ''
                    w.writerow([p, op, size, v['runs'], '%.4f' % v['mops'], '%.4f' % v['gbps'],
                                '%.2f' % v['cycles_per_op'], '%.4f' % v['cycles_per_byte'],
                                '%.4f' % v['mops_min'], '%.4f' % v['mops_max'], ratio])


def plot(med, path, pmds):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for ax, op in zip(axes, ('encrypt', 'decrypt')):
        for p in pmds:
            pts = sorted(med.get((p, op), {}).items())
            if not pts:
                continue
            ax.plot([s for s, _ in pts], [v['cycles_per_byte'] for _, v in pts],
                    marker='o', linewidth=2 if p == REF else 1.2, label=p)
        ax.set_xscale('log', base=2)
        ax.set_yscale('log')
        ax.set_xlabel('buffer size (bytes)')
        ax.set_title('ChaCha20-Poly1305 %s, AAD 8, burst 32' % op)
        ax.grid(True, which='both', alpha=0.3)
    axes[0].set_ylabel('TSC cycles per byte (median), lower is better')
    axes[0].legend()
    fig.suptitle('dpdk-test-crypto-perf --ptest throughput')
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    raw_dir, out_csv, out_png, ops = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    med = medians(load(raw_dir, ops))
    pmds = order({p for p, _ in med})
    for op in ('encrypt', 'decrypt'):
        table(med, op, pmds)
    write_csv(med, out_csv, pmds)
    plot(med, out_png, pmds)
    print('\nwrote %s and %s' % (out_csv, out_png))


if __name__ == '__main__':
    main()
