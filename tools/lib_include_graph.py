#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Directory-level include graph of lib/, and the layer rule it must keep.

Reads every .c and .h file under lib/, resolves each #include "..." the way
lib/meson.build's include path does (the including file's folder, then
lib/include, lib/cpu and lib/), and prints one line per edge between two
folders of lib/ ("from -> to  (N includes)"; lib/include/vecsec is the
public API, shown as include). Then the cycles, if any: each strongly
connected set of folders. Exit status 1 when there is a cycle.

    tools/lib_include_graph.py [REPO]   (default: the repository of this file)

With --check (test/layers' lib-layers test), also exit 1 on:
  - an arrow up: a folder including a folder listed after it in
    lib/meson.build's layer list (bottom first), or the public headers
    including anything but public headers;
  - a consumer that includes a lib/ header other than the public ones:
    drivers/, apps/, tools/ and test/ outside test/lib (lib's white-box unit
    tests). The one exception is chachapoly/chachapoly_knobs.h, which the
    benchmark (apps/vecsec-bench) and the tests may include.
--self-check runs --check on synthetic trees (an upward include, a cycle,
a driver including an internal header, a clean tree) and exits 1 unless
each verdict is the expected one: the check itself can fail. Both flags:
the self-check, then the check of REPO.
"""
import os
import re
import sys
from collections import defaultdict

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
INC_ANGLE = re.compile(r'^\s*#\s*include\s+<([^>]+)>')


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


LAYERS = re.compile(r"foreach\s+d\s*:\s*\[([^\]]*)\]")
# the one internal header a test or benchmark may include (docs/contributing.md)
KNOBS = os.path.join("chachapoly", "chachapoly_knobs.h")
# where a consumer may include KNOBS from (relative to the repository)
KNOBS_OK = ("apps/vecsec-bench/", "test/")
# consumers: may include lib/include only (test/lib is lib's own)
CONSUMERS = ("drivers", "apps", "tools", "test")
WHITE_BOX = "test/lib/"
# generated into the build folder of lib/; internal
GENERATED_INTERNAL = ("vecsec_config.h",)


def layer_order(lib):
    """The folders of lib/meson.build's layer list, bottom first."""
    with open(os.path.join(lib, "meson.build"), encoding="utf-8") as fh:
        m = LAYERS.search(fh.read())
    if not m:
        return None
    return re.findall(r"'([^']+)'", m.group(1))


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = INC.match(line) or INC_ANGLE.match(line)
            if m:
                yield n, m.group(1)


def lib_graph(lib):
    count = defaultdict(int)
    nodes = set()
    where = {}
    for root, _, files in os.walk(lib):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            src = os.path.join(root, f)
            a = folder_of(lib, src)
            nodes.add(a)
            for n, name in includes(src):
                dst = resolve(lib, src, name)
                if dst is None:
                    continue
                b = folder_of(lib, dst)
                nodes.add(b)
                if a != b:
                    count[(a, b)] += 1
                    where.setdefault((a, b), f"{os.path.relpath(src, lib)}:{n}")
    return nodes, count, where


def arrows_up(order, count, where):
    """Edges that point up (or out of the public headers)."""
    rank = {d: i for i, d in enumerate(order)}
    bad = []
    for (a, b) in sorted(count):
        if a == "include":
            bad.append(f"public header includes {b}/ ({where[(a, b)]})")
        elif b == "include":
            continue        # the API: usable from every layer
        elif a not in rank or b not in rank:
            bad.append(f"{a} -> {b}: folder not in lib/meson.build's layer list "
                       f"({where[(a, b)]})")
        elif rank[b] > rank[a]:
            bad.append(f"arrow up: {a} -> {b} ({where[(a, b)]}; "
                       f"{b} is above {a} in lib/meson.build)")
    return bad


def consumer_violations(repo):
    lib = os.path.join(repo, "lib")
    pub = os.path.join(lib, "include") + os.sep
    bad = []
    for top in CONSUMERS:
        for root, dirs, files in os.walk(os.path.join(repo, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cc", ".cpp")):
                    continue
                src = os.path.join(root, f)
                rel = os.path.relpath(src, repo).replace(os.sep, "/")
                if rel.startswith(WHITE_BOX):
                    continue
                for n, name in includes(src):
                    if os.path.isfile(os.path.join(root, name)) and \
                            not os.path.normpath(os.path.join(root, name)).startswith(lib + os.sep):
                        continue        # the consumer's own header
                    if os.path.basename(name) in GENERATED_INTERNAL:
                        bad.append(f"{rel}:{n}: includes lib/'s internal {name}")
                        continue
                    dst = None
                    for base in (root, os.path.join(lib, "include"),
                                 os.path.join(lib, "cpu"), lib):
                        cand = os.path.normpath(os.path.join(base, name))
                        if cand.startswith(lib + os.sep) and os.path.isfile(cand):
                            dst = cand
                            break
                    if dst is None or dst.startswith(pub):
                        continue
                    if os.path.relpath(dst, lib) == KNOBS and rel.startswith(KNOBS_OK):
                        continue
                    bad.append(f"{rel}:{n}: includes lib/{os.path.relpath(dst, lib)}, "
                               "not a public header (lib/include)")
    return bad


def run(repo, check, out=sys.stdout):
    lib = os.path.join(repo, "lib")
    nodes, count, where = lib_graph(lib)
    edges = defaultdict(set)
    for (a, b), n in sorted(count.items()):
        edges[a].add(b)
        print(f"{a:>10} -> {b:<10} ({n} includes)", file=out)
    bad = []
    cyc = sccs(nodes, edges)
    for c in cyc:
        bad.append("cycle: " + " <-> ".join(c))
    if not cyc:
        print("cycles: none", file=out)
    if check:
        order = layer_order(lib)
        if order is None:
            bad.append("lib/meson.build: no layer list (foreach d : [...])")
        else:
            bad += arrows_up(order, count, where)
        bad += consumer_violations(repo)
    for b in bad:
        print(b, file=out)
    return 1 if bad else 0


def synthetic(tmp, name, files):
    """A tree under tmp/name: lib/meson.build with layers low, high, and files."""
    repo = os.path.join(tmp, name)
    tree = {"lib/meson.build": "foreach d : ['low', 'high']\n\tsubdir(d)\nendforeach\n",
            "lib/include/vecsec/vecsec.h": "",
            "lib/low/low_internal.h": "",
            "lib/high/high_internal.h": "#include \"low/low_internal.h\"\n",
            "lib/chachapoly/chachapoly_knobs.h": ""}
    tree.update(files)
    for rel, text in tree.items():
        path = os.path.join(repo, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return repo


def self_check():
    import io
    import tempfile
    cases = [
        ("clean", {"drivers/x/x.c": "#include \"vecsec/vecsec.h\"\n",
                   "apps/vecsec-bench/b.c": "#include \"chachapoly/chachapoly_knobs.h\"\n",
                   "test/lib/t.c": "#include \"high/high_internal.h\"\n"}, 0, "cycles: none"),
        ("arrow-up", {"lib/low/low.c": "#include \"high/high_internal.h\"\n"}, 1,
         "arrow up: low -> high"),
        ("cycle", {"lib/low/low.c": "#include \"high/high_internal.h\"\n",
                   "lib/high/high.c": "#include \"low/low_internal.h\"\n"}, 1,
         "cycle: high <-> low"),
        ("unlisted-folder", {"lib/extra/extra.c": "#include \"low/low_internal.h\"\n"}, 1,
         "not in lib/meson.build"),
        ("public-includes-internal",
         {"lib/include/vecsec/vecsec_x.h": "#include \"low/low_internal.h\"\n"}, 1,
         "public header includes low/"),
        ("driver-internal", {"drivers/x/x.c": "#include \"low/low_internal.h\"\n"}, 1,
         "drivers/x/x.c:1: includes lib/low/low_internal.h"),
        ("app-internal", {"apps/gw/gw.c": "#include <high/high_internal.h>\n"}, 1,
         "apps/gw/gw.c:1: includes lib/high/high_internal.h"),
        ("app-knobs", {"apps/gw/gw.c": "#include \"chachapoly/chachapoly_knobs.h\"\n"}, 1,
         "includes lib/chachapoly/chachapoly_knobs.h"),
        ("app-config", {"apps/gw/gw.c": "#include \"vecsec_config.h\"\n"}, 1,
         "internal vecsec_config.h"),
        ("tool-relative", {"tools/t/t.c": "#include \"../../lib/low/low_internal.h\"\n"}, 1,
         "tools/t/t.c:1: includes lib/low/low_internal.h"),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, files, want, says in cases:
            out = io.StringIO()
            got = run(synthetic(tmp, name, files), True, out)
            ok = got == want and says in out.getvalue()
            failed += not ok
            print(f"self-check {name}: exit {got}, expected {want} and '{says}': "
                  f"{'ok' if ok else 'WRONG'}")
            if not ok:
                print(out.getvalue(), end="")
    return 1 if failed else 0


def main():
    args = sys.argv[1:]
    check = "--check" in args
    rc = 0
    if "--self-check" in args:
        rc = self_check()
        if not check:
            return rc
    args = [a for a in args if not a.startswith("--")]
    repo = args[0] if args else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return run(repo, check) | rc


if __name__ == "__main__":
    sys.exit(main())
