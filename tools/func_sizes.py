#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Function lengths of C files written in DPDK style.

A function is found by its body's opening brace alone at the start of a
line, its name on the nearest line above that starts at column 0 with an
identifier and holds a '(' (DPDK style puts the return type on a line of
its own and the name at column 0), and its end by the next '}' alone at
the start of a line. Its length is the lines from the name's line to that
brace, both counted.

    tools/func_sizes.py [--top N] [--max L] FILE...

prints each file's N longest functions (default 10: "LINES NAME FILE:LINE"),
and with --max exits 1 when a function is longer than L lines, naming it
(issue #26: no function in apps/ over 150 lines, main() under 80).
"""
import argparse
import re
import sys

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--top', type=int, default=10)
    ap.add_argument('--max', type=int, default=0)
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    over = []
    for path in a.files:
        fns = sorted(functions(path), key=lambda f: (-f[2], f[1]))
        print('%s: %d functions' % (path, len(fns)))
        for name, line, n in fns[:a.top]:
            print('%6d %-32s %s:%d' % (n, name, path, line))
        over += [(path, name, line, n) for name, line, n in fns if a.max and n > a.max]
    for path, name, line, n in over:
        print('over %d lines: %s (%d lines) %s:%d' % (a.max, name, n, path, line),
              file=sys.stderr)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
