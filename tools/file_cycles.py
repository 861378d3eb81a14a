#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""File-level call graph of compiled C objects, and its circles.

Reads the symbols of object files with nm: what each defines (functions and
data, any binding but local) and what it leaves undefined. File A -> file B
when A uses a symbol B defines. Prints the edges ("a.c -> b.c  (symbols)"),
then every circle: each strongly connected set of files (files that call
each other in a loop, two or more). Exit status 1 when there is a circle.

    tools/file_cycles.py [--nm NM] [--calls] PATH...

A PATH is an object file, a static archive (each member a file) or a folder
(every *.o under it: meson keeps a target's objects in <target>.p/, e.g.
build/drivers/crypto/vecsec/libvecsec_pmd_objs.a.p or
build/apps/vecsec-gw/vecsec-gw.p). Objects are named by their source file
(meson's foo.c.o is foo.c). Symbols defined outside the given objects
(libvecsec, DPDK, libc) are not edges. With --calls only functions count
(a symbol its owner defines in text): a global variable of main.c read
everywhere is then no edge.

--self-check --cc CC compiles three small files in a temporary folder, two
of which call each other, and exits 1 unless exactly that circle is found
(and none once the loop is cut): the check itself can fail.
"""
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

# Tarjan's strongly connected components, one copy for both graph checks
from lib_include_graph import sccs  # noqa: E402 (tools/ is the script's folder)


def obj_name(path):
    base = os.path.basename(path)
    return base[:-2] if base.endswith(".o") else base


def nm_symbols(nm, paths, calls=False):
    """{file: (defined set, undefined set)} from nm's output."""
    out = subprocess.run([nm, "-A", "-P"] + paths, check=True, capture_output=True,
                         text=True).stdout
    syms = defaultdict(lambda: (set(), set()))
    for line in out.splitlines():
        # "archive.a[member.o]: sym T value size" or "file.o: sym U"
        where, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        sym, kind = fields[0], fields[1]
        if where.endswith("]") and "[" in where:
            where = where[where.rindex("[") + 1:-1]
        name = obj_name(where)
        if kind == "U":
            syms[name][1].add(sym)
        elif calls and kind not in ("T", "W", "i"):
            continue
        elif kind.isupper() or kind in ("w", "v"):
            syms[name][0].add(sym)
    return syms


def objects(paths):
    found = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".o")]
        else:
            found.append(p)
    return found


def graph(nm, paths, out=sys.stdout, calls=False):
    """Print the edges and circles; return the circles."""
    objs = objects(paths)
    if not objs:
        print("no object files in " + " ".join(paths), file=out)
        return None
    syms = nm_symbols(nm, objs, calls)
    owner = {}
    for f, (defd, _) in syms.items():
        for s in defd:
            owner.setdefault(s, f)
    edges = defaultdict(set)
    why = defaultdict(list)
    for f, (_, undef) in sorted(syms.items()):
        for s in sorted(undef):
            g = owner.get(s)
            if g is not None and g != f:
                edges[f].add(g)
                why[(f, g)].append(s)
    for (f, g) in sorted(why):
        print(f"{f} -> {g}  ({', '.join(why[(f, g)])})", file=out)
    circles = sccs(set(syms), edges)
    for c in circles:
        print("circle: " + " <-> ".join(c), file=out)
    if not circles:
        print(f"circles: none ({len(syms)} files)", file=out)
    return circles


SELF_FILES = {
    "a.c": "int b(int);\nint a(int x) { return x > 0 ? b(x - 1) : 0; }\n",
    "b.c": "int a(int);\nint b(int x) { return x > 0 ? a(x - 1) : 1; }\n",
    "c.c": "int a(int);\nint c(void) { return a(3); }\n",
}


def self_check(nm, cc):
    import io
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for cut in (False, True):
            files = dict(SELF_FILES)
            if cut:     # b no longer calls a: no circle, c -> a -> b
                files["b.c"] = "int b(int x) { return x; }\n"
            for name, text in files.items():
                src = os.path.join(tmp, name)
                with open(src, "w", encoding="utf-8") as fh:
                    fh.write(text)
                subprocess.run(cc + ["-c", "-O0", "-o", src + ".o", src], check=True)
            buf = io.StringIO()
            got = graph(nm, [tmp], buf)
            want = [] if cut else [["a.c", "b.c"]]
            good = got == want and ("c.c -> a.c" in buf.getvalue())
            ok &= good
            print(f"self-check {'cut loop' if cut else 'a.c <-> b.c'}: circles {got}, "
                  f"expected {want}: {'ok' if good else 'WRONG'}")
            if not good:
                print(buf.getvalue(), end="")
    return ok


def main():
    args = sys.argv[1:]
    nm, cc, check, calls = "nm", None, False, False
    paths = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--nm":
            nm = args[i + 1]
            i += 1
        elif a == "--cc":
            cc = args[i + 1].split()
            i += 1
        elif a == "--self-check":
            check = True
        elif a == "--calls":
            calls = True
        else:
            paths.append(a)
        i += 1
    rc = 0
    if check:
        if cc is None:
            print("--self-check needs --cc")
            return 2
        rc |= 0 if self_check(nm, cc) else 1
    if paths:
        circles = graph(nm, paths, calls=calls)
        rc |= 1 if circles is None or circles else 0
    return rc


if __name__ == "__main__":
    sys.exit(main())
