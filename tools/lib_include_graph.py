#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Directory-level include graph of lib/.

Reads every .c and .h file under lib/, resolves each #include "..." the way
lib/meson.build's include path does (the including file's folder, then
lib/include, lib/cpu and lib/), and prints one line per edge between two
folders of lib/ ("from -> to  (N includes)"; lib/include/vecsec is the
public API, shown as include). Then the cycles, if any: each strongly
connected set of folders. Exit status 1 when there is a cycle.

    tools/lib_include_graph.py [REPO]   (default: the repository of this file)
"""
import os
import re
import sys
from collections import defaultdict

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(lib, path):
    rel = os.path.relpath(path, lib)
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else "(lib)"


def resolve(lib, src, name):
    for base in (os.path.dirname(src), os.path.join(lib, "include"),
                 os.path.join(lib, "cpu"), lib):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(cand):
            return cand
    return None     # generated (vecsec_config.h) or outside lib/


def sccs(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lib = os.path.join(repo, "lib")
    count = defaultdict(int)
    nodes = set()
    for root, _, files in os.walk(lib):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            src = os.path.join(root, f)
            a = folder_of(lib, src)
            nodes.add(a)
            with open(src, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    m = INC.match(line)
                    if not m:
                        continue
                    dst = resolve(lib, src, m.group(1))
                    if dst is None:
                        continue
                    b = folder_of(lib, dst)
                    nodes.add(b)
                    if a != b:
                        count[(a, b)] += 1
    edges = defaultdict(set)
    for (a, b), n in sorted(count.items()):
        edges[a].add(b)
        print(f"{a:>10} -> {b:<10} ({n} includes)")
    cyc = sccs(nodes, edges)
    if cyc:
        for c in cyc:
            print("cycle: " + " <-> ".join(c))
        return 1
    print("cycles: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
