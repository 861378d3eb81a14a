#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Function lengths of C files written in DPDK style.

A function is found by its body's opening brace alone at the start of a
line, its name on the nearest line above that starts at column 0 with an
identifier and holds a '(' (DPDK style puts the return type on a line of
its own and the name at column 0), and its end by the next '}' alone at
the start of a line. Its length is the lines from the name's line to that
brace, both counted.

    tools/func_sizes.py [--top N] [--max L] [--main-max M] [--self-check] FILE|DIR...

prints each file's N longest functions (default 10: "LINES NAME FILE:LINE";
a folder stands for its .c files, recursively), and exits 1 when a function
is longer than L lines (--max) or a main() longer than M (--main-max),
naming it (issue #26: no function in apps/ over 150 lines, the gateway's
main() under 80). --self-check first proves on a made-up file that an
over-long function and an over-long main() are found. The test func-sizes
runs it over apps/ and the PMD.
"""
import argparse
import os
import re
import sys
import tempfile

NAME = re.compile(r'^(?:[A-Za-z_][\w \t*]*?[ \t*])?([A-Za-z_]\w*)\s*\(')


def functions(path):
    """(name, first line, length) of every function in path."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != '{':
            continue
        start = None
        for j in range(i - 1, max(i - 12, -1), -1):
            m = NAME.match(lines[j])
            if m:
                start, name = j, m.group(1)
                break
        if start is None:
            continue
        end = next((k for k in range(i + 1, len(lines)) if lines[k].rstrip() == '}'), None)
        if end is None:
            continue
        out.append((name, start + 1, end - start + 1))
    return out


def c_files(args):
    """The files named, and the .c files under each folder named, sorted."""
    out = []
    for a in args:
        if os.path.isdir(a):
            for d, _, names in os.walk(a):
                out += sorted(os.path.join(d, n) for n in names if n.endswith('.c'))
        else:
            out.append(a)
    return out


def over_limits(paths, fmax, mmax, top, show=True):
    """(path, name, line, length, limit) of each function past its limit."""
    over = []
    for path in paths:
        fns = sorted(functions(path), key=lambda f: (-f[2], f[1]))
        if show:
            print('%s: %d functions' % (path, len(fns)))
            for name, line, n in fns[:top]:
                print('%6d %-32s %s:%d' % (n, name, path, line))
        for name, line, n in fns:
            lim = mmax if name == 'main' and mmax else fmax
            if lim and n > lim:
                over.append((path, name, line, n, lim))
    return over


def self_check(fmax, mmax):
    """A made-up file with a function and a main() one line past the limits: both found."""
    body = lambda n: ['\tx++;'] * (n - 4)
    lines = (['static int', 'long_one(void)', '{', '\tint x = 0;'] + body(fmax + 1) +
             ['}', '', 'int', 'main(void)', '{', '\tint x = 0;'] + body((mmax or fmax) + 1) +
             ['}', ''])
    with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
        f.write('\n'.join(lines))
    try:
        got = {o[1]: o[3] for o in over_limits([f.name], fmax, mmax, 0, show=False)}
    finally:
        os.unlink(f.name)
    want = {'long_one': fmax + 1, 'main': (mmax or fmax) + 1}
    if got != want:
        print('self-check FAILED: found %s, want %s' % (got, want), file=sys.stderr)
        return False
    print('self-check: a %d-line function and a %d-line main() are found' %
          (fmax + 1, (mmax or fmax) + 1))
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--top', type=int, default=10)
    ap.add_argument('--max', type=int, default=0)
    ap.add_argument('--main-max', type=int, default=0)
    ap.add_argument('--self-check', action='store_true')
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    if a.self_check and not self_check(a.max or 150, a.main_max):
        return 1
    over = over_limits(c_files(a.files), a.max, a.main_max, a.top)
    for path, name, line, n, lim in over:
        print('over %d lines: %s (%d lines) %s:%d' % (lim, name, n, path, line),
              file=sys.stderr)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
