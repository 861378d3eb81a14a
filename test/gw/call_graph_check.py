#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw's files do not call each other in a loop (issue #26): from the
gateway's object files, `nm` tells which functions each file defines and
which it calls from other files; a file A calls B when A.o leaves a
function undefined that B.o defines. The check fails on every cycle of
that graph (two files that call each other count), printing its files and
the functions of each arrow in it. Data symbols (the `gw` table, flags)
are left out: reading a variable is no call.

--allow A.c:B.c lets a cycle of exactly those two files pass, for a pair
whose split is under way elsewhere; the check says so when it sees it.

usage: call_graph_check.py OBJECT_DIR [--allow A.c:B.c]...
"""
import collections
import glob
import os
import subprocess
import sys


def graph(objdir):
    """file -> {file it calls -> functions}, from nm over objdir/*.o."""
    objs = sorted(glob.glob(os.path.join(objdir, "*.o")))
    if not objs:
        sys.exit(f"call_graph_check: no object files in {objdir}")
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True,
                         check=True).stdout
    defined, wanted = {}, collections.defaultdict(set)
    for line in out.splitlines():
        path, rest = line.split(":", 1)
        name = os.path.basename(path).removesuffix(".o")
        wanted.setdefault(name, set())
        parts = rest.split()
        if len(parts) == 2 and parts[0] == "U":
            wanted[name].add(parts[1])
        elif len(parts) == 3 and parts[1] in ("T", "W"):
            defined.setdefault(parts[2], name)
    edges = {f: collections.defaultdict(set) for f in wanted}
    for f, syms in wanted.items():
        for s in syms:
            g = defined.get(s)
            if g is not None and g != f:
                edges[f][g].add(s)
    return edges


def cycles(edges):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
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
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    args = sys.argv[1:]
    allow = set()
    while "--allow" in args:
        i = args.index("--allow")
        allow.add(tuple(sorted(args[i + 1].split(":"))))
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    edges = graph(args[0])
    bad = 0
    for comp in cycles(edges):
        allowed = tuple(comp) in allow
        print(f"{'allowed' if allowed else 'FAIL'}: files call each other in a loop: "
              f"{' '.join(comp)}")
        for f in comp:
            for g in sorted(edges[f]):
                if g in comp:
                    print(f"  {f} -> {g}: {' '.join(sorted(edges[f][g]))}")
        bad += not allowed
    print(f"{len(edges)} files, {sum(len(e) for e in edges.values())} arrows, "
          f"{bad} loop(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
