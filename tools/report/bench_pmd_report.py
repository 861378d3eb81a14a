#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Report for scripts/bench-pmd.sh: reads the raw dpdk-test-crypto-perf
throughput outputs (--csv-friendly) named <pmd>.<op>.<run>.txt, takes the
median of the runs per PMD, direction and buffer size, prints a table with
vecsec's speed relative to each other PMD, and writes a CSV and a PNG of
cycles/byte against buffer size.

With SESS_DIR and SESS_CSV it also reads apps/vecsec-pmd-bench's CSVs named
<pmd>.s<sessions>.<run>.csv (one row per direction and size, IMIX too),
prints a second table "32 sessions per burst" (32 and 1 sessions), writes
its medians to SESS_CSV and adds them as the PNG's lower panels.

A series name ending in @default (bench-pmd.sh's BENCH_WIDTHS) was run at
EAL's default SIMD width rather than 512 bits; every ratio compares a PMD
with crypto_vecsec at the same width.

usage: bench_pmd_report.py RAW_DIR OUT_CSV OUT_PNG OPS_PER_SIZE [SESS_DIR SESS_CSV]
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


def width_of(pmd):
    """'@default' for a series run at EAL's default SIMD width, '' at 512 bits"""
    return pmd[pmd.index('@'):] if '@' in pmd else ''


def ref_for(pmd):
    """crypto_vecsec at the same EAL SIMD width: ratios compare like with like"""
    return REF + width_of(pmd)


def is_ref(pmd):
    return pmd == ref_for(pmd)


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
    """512-bit series first, then each width's vecsec series first, the rest by name."""
    return sorted(pmds, key=lambda p: (width_of(p), not p.startswith(REF), p))


def table(med, op, pmds):
    others = [p for p in pmds if not is_ref(p)]
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
            a = med.get((ref_for(p), op), {}).get(size)
            b = med.get((p, op), {}).get(size)
            line += ' | %8s' % ('%.2f' % (a['mops'] / b['mops']) if a and b else '-')
        print(line)


def short(pmd):
    base = pmd.split('@')[0]
    w = width_of(pmd).replace('@default', '@d')
    return {'crypto_aesni_mb': 'aesni', 'crypto_chacha20_poly1305': 'chacha'}.get(
        base, base.replace('crypto_vecsec', 'vs')) + w


def write_csv(med, path, pmds):
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pmd', 'op', 'buffer_bytes', 'runs', 'mops', 'gbps', 'cycles_per_op',
                    'cycles_per_byte', 'mops_min', 'mops_max', 'vecsec_speedup'])
        for op in ('encrypt', 'decrypt'):
            for p in pmds:
                for size, v in sorted(med.get((p, op), {}).items()):
                    ref = med.get((ref_for(p), op), {}).get(size)
                    ratio = '%.4f' % (ref['mops'] / v['mops']) if ref else ''
                    w.writerow([p, op, size, v['runs'], '%.4f' % v['mops'], '%.4f' % v['gbps'],
                                '%.2f' % v['cycles_per_op'], '%.4f' % v['cycles_per_byte'],
                                '%.4f' % v['mops_min'], '%.4f' % v['mops_max'], ratio])


SESS_METRICS = ('cycles_per_op', 'cycles_per_byte', 'mops', 'gbps', 'cpu_pct',
                'oncpu_cycles_per_op')


def size_key(size):
    """numeric sizes first, IMIX last"""
    return (1, 0) if size == 'imix' else (0, int(size))


def load_sessions(sess_dir):
    """{(pmd, op, sessions): {size: [row dict, ...]}} from vecsec-pmd-bench CSVs"""
    data = {}
    for path in sorted(glob.glob(os.path.join(sess_dir, '*.csv'))):
        name = os.path.basename(path)
        m = re.match(r'^(.+)\.s(\d+)\.(\d+)\.csv$', name)
        if not m:
            continue
        pmd, nsess = m.group(1), int(m.group(2))
        with open(path, newline='') as f:
            rows = list(csv.DictReader(f))
        if not rows:
            sys.exit('%s: no rows' % name)
        for r in rows:
            if int(r['failed_ops']) != 0:
                sys.exit('%s: %s ops failed (%s size %s)' % (name, r['failed_ops'],
                                                            r['op'], r['size']))
            if int(r['sessions']) != nsess:
                sys.exit('%s: sessions %s, file name says %d' % (name, r['sessions'], nsess))
            size = r['size'] if r['size'] == 'imix' else int(r['size'])
            data.setdefault((pmd, r['op'], nsess), {}).setdefault(size, []).append(
                {k: float(r.get(k) or 'nan') for k in SESS_METRICS})
    return data


def sessions_medians(data):
    out = {}
    for key, by_size in data.items():
        for size, rows in by_size.items():
            v = {k: statistics.median(r[k] for r in rows) for k in SESS_METRICS}
            v['runs'] = len(rows)
            v['mops_min'] = min(r['mops'] for r in rows)
            v['mops_max'] = max(r['mops'] for r in rows)
            out.setdefault(key, {})[size] = v
    return out


def sessions_table(smed, op, pmds, many, one):
    others = [p for p in pmds if not is_ref(p)]
    sizes = sorted({s for k in smed if k[1] == op for s in smed[k]}, key=size_key)
    print('\n== 32 sessions per burst (vecsec-pmd-bench), %s: median of runs; per PMD '
          'Mops, cycles/op, c/B at %d sessions, Mops at %d, cpu%% (CPU time / wall time '
          'at %d), on-CPU cycles/op (cycles/op x cpu%%);\n   x = vecsec Mops / that PMD\'s at '
          '%d sessions, xc = the same from on-CPU cycles ==' % (op, many, one, many, many))
    head = '%6s' % 'bytes'
    for p in pmds:
        head += ' | %-46s' % p[:46]
    for p in others:
        head += ' | %12s' % ('x xc ' + short(p))[:12]
    print(head)
    for size in sizes:
        line = '%6s' % size
        for p in pmds:
            a = smed.get((p, op, many), {}).get(size)
            b = smed.get((p, op, one), {}).get(size)
            line += ' | %7s %8s %6s %7s %4s %8s' % (
                '%.3f' % a['mops'] if a else '-', '%.0f' % a['cycles_per_op'] if a else '-',
                '%.2f' % a['cycles_per_byte'] if a else '-', '%.3f' % b['mops'] if b else '-',
                '%.0f' % a['cpu_pct'] if a else '-',
                '%.0f' % a['oncpu_cycles_per_op'] if a else '-')
        for p in others:
            a = smed.get((ref_for(p), op, many), {}).get(size)
            b = smed.get((p, op, many), {}).get(size)
            line += ' | %12s' % ('%5.2f %5.2f' % (
                a['mops'] / b['mops'], b['oncpu_cycles_per_op'] / a['oncpu_cycles_per_op'])
                if a and b else '-')
        print(line)


def write_sessions_csv(smed, path, pmds):
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pmd', 'op', 'size', 'sessions', 'runs', 'cycles_per_op',
                    'cycles_per_byte', 'mops', 'gbps', 'mops_min', 'mops_max',
                    'cpu_pct', 'oncpu_cycles_per_op', 'vecsec_speedup'])
        for (p, op, ns) in sorted(smed, key=lambda k: (k[1] != 'encrypt', -k[2],
                                                       order(pmds).index(k[0]))):
            for size in sorted(smed[(p, op, ns)], key=size_key):
                v = smed[(p, op, ns)][size]
                ref = smed.get((ref_for(p), op, ns), {}).get(size)
                ratio = '%.4f' % (ref['mops'] / v['mops']) if ref else ''
                w.writerow([p, op, size, ns, v['runs'], '%.1f' % v['cycles_per_op'],
                            '%.4f' % v['cycles_per_byte'], '%.4f' % v['mops'],
                            '%.4f' % v['gbps'], '%.4f' % v['mops_min'],
                            '%.4f' % v['mops_max'], '%.1f' % v['cpu_pct'],
                            '%.1f' % v['oncpu_cycles_per_op'], ratio])


def plot(med, path, pmds, smed=None, spmds=(), many=32, one=1):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    rows = 2 if smed else 1
    fig, grid = plt.subplots(rows, 2, figsize=(12, 4.8 * rows), sharey=True, squeeze=False)
    axes = grid[0]
    for ax, op in zip(axes, ('encrypt', 'decrypt')):
        for p in pmds:
            pts = sorted(med.get((p, op), {}).items())
            if not pts:
                continue
            ax.plot([s for s, _ in pts], [v['cycles_per_byte'] for _, v in pts],
                    marker='o', linewidth=2 if is_ref(p) else 1.2, label=p)
        ax.set_xscale('log', base=2)
        ax.set_yscale('log')
        ax.set_xlabel('buffer size (bytes)')
        ax.set_title('crypto-perf throughput: ChaCha20-Poly1305 %s, AAD 8, burst 32\n'
                     '(one session; decrypt tags invalid)' % op, fontsize=9)
        ax.grid(True, which='both', alpha=0.3)
    axes[0].set_ylabel('TSC cycles per byte (median), lower is better')
    axes[0].legend()
    if smed:
        for ax, op in zip(grid[1], ('encrypt', 'decrypt')):
            for i, p in enumerate(spmds):
                color = 'C%d' % i
                for ns, style in ((many, '-'), (one, '--')):
                    pts = sorted((s, v) for s, v in smed.get((p, op, ns), {}).items()
                                 if s != 'imix')
                    if not pts:
                        continue
                    ax.plot([s for s, _ in pts],
                            [v['cycles_per_byte'] * v['oncpu_cycles_per_op'] / v['cycles_per_op']
                             for _, v in pts], style, color=color, marker='o' if ns == many else None,
                            linewidth=2 if is_ref(p) else 1.2,
                            label='%s, %d session%s' % (p, ns, 's' if ns != 1 else ''))
            ax.set_xscale('log', base=2)
            ax.set_yscale('log')
            ax.set_xlabel('buffer size (bytes)')
            ax.set_title('%d sessions per burst (vecsec-pmd-bench): %s, valid tags,\n'
                         'out of place, burst 32, op j on session j (dashed: %d session)'
                         % (many, op, one), fontsize=9)
            ax.grid(True, which='both', alpha=0.3)
        grid[1][0].set_ylabel('on-CPU cycles per byte (TSC x cpu share; median)')
        grid[1][0].legend(fontsize=7)
    fig.suptitle('ChaCha20-Poly1305 through the cryptodev API')
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) not in (5, 7):
        sys.exit(__doc__)
    raw_dir, out_csv, out_png, ops = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    med = medians(load(raw_dir, ops))
    pmds = order({p for p, _ in med})
    if med:
        print('\n##### dpdk-test-crypto-perf --ptest throughput (one session per run)')
        for op in ('encrypt', 'decrypt'):
            table(med, op, pmds)
        write_csv(med, out_csv, pmds)
    smed, spmds, many, one = None, [], 32, 1
    if len(sys.argv) == 7:
        smed = sessions_medians(load_sessions(sys.argv[5]))
        spmds = order({k[0] for k in smed})
        counts = sorted({k[2] for k in smed})
        if counts:
            many, one = max(counts), min(counts)
            print('\n##### vecsec-pmd-bench: bursts of 32 ops, op j on session j %% N '
                  '(N = %s), valid tags' % ', '.join(str(c) for c in counts[::-1]))
            for op in ('encrypt', 'decrypt'):
                sessions_table(smed, op, spmds, many, one)
            write_sessions_csv(smed, sys.argv[6], spmds)
            print('\nwrote %s' % sys.argv[6])
    plot(med, out_png, pmds, smed, spmds, many, one)
    print('\nwrote %s and %s' % (out_csv if med else '(no crypto-perf runs)', out_png))


if __name__ == '__main__':
    main()
