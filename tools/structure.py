#!/usr/bin/env python3
"""krt's structure, read from the sources and the built objects: which layer includes which, which file calls
which, the cycles between files, and the files over 800 lines.

    python3 tools/structure.py [--root DIR] [--build DIR] [--check] [--edges]

Include edges come from the `#include "..."` lines of every C, C++ and header file (resolved as the compilers
resolve them: the including file's folder first, then the project's -I folders). Call edges come from the
objects under BUILD/obj: a file calls another when one of its undefined symbols is defined by the other's object
within the same library (nm); each object is traced back to its source through its debug information. So the
call graph is what the linker sees: static functions and inline functions of headers are not edges.

--check exits 1 when a rule of docs/design.md ("Structure") is broken:
  - a layer includes a layer it must not (LAYER_MAY below);
  - the runtime calls its in-process driver other than through the table getter (HOST_ENTRY);
  - two files of one library call each other through a cycle;
  - the build under BUILD is missing (run make first).
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

# Layers, most specific prefix first. A file's layer is the first whose prefix its path starts with.
LAYERS = [
    ("runtime/include/", "api"),
    ("runtime/src/", "runtime"),
    ("driver/include/", "driver-ext"),
    ("driver/host/", "host"),
    ("driver/pocl/", "pocl"),
    ("driver/cuda/", "cuda"),
    ("driver/tools/", "driver-tools"),
    ("driver/", "model"),
    ("spirv/", "spirv"),
    ("common/", "common"),
    ("kernels/include/", "kernel-abi"),
]
# What each layer may include besides itself: the one-way picture of docs/design.md.
LAYER_MAY = {
    "api": set(),
    "common": set(),
    "driver-ext": set(),
    "kernel-abi": set(),
    # The front end sits below the runtime: its reflection has types of its own (spirv/reflect.h), which the
    # runtime translates into krt.h's, so that it grows with producers' SPIR-V without touching krt's public
    # header. An include of runtime/include/ from spirv/ is refused.
    "spirv": {"common", "driver-ext"},
    "runtime": {"api", "common", "spirv", "driver-ext"},
    "model": {"driver-ext", "spirv", "common"},
    "host": {"model", "driver-ext", "spirv", "common", "kernel-abi"},
    "pocl": {"model", "driver-ext", "spirv", "common"},
    "cuda": {"model", "driver-ext", "spirv", "common"},
    "driver-tools": {"model", "driver-ext", "spirv", "common", "pocl", "cuda"},
}
# The one function of the in-process driver the runtime calls: it fills the driver's Level Zero table.
HOST_ENTRY = {"krt__host_ddi"}
INCLUDE_ROOTS = ["runtime/include", "runtime/src", "driver/include", "driver", "spirv", "common", "kernels/include"]
SOURCE_DIRS = ["runtime", "driver", "spirv", "common", "kernels/include"]
EXTS = (".c", ".h", ".cpp", ".hpp", ".S")
LONG_FILE = 800


def layer_of(path):
    for prefix, name in LAYERS:
        if path.startswith(prefix):
            return name
    return None


def sources(root):
    out = []
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if f.endswith(EXTS):
                    out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(out)


INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_edges(root, files):
    known = set(files)
    edges = set()
    for f in files:
        with open(os.path.join(root, f), errors="replace") as fh:
            text = fh.read()
        for name in INCLUDE_RE.findall(text):
            for base in [os.path.dirname(f)] + INCLUDE_ROOTS:
                cand = os.path.normpath(os.path.join(base, name))
                if cand in known:
                    edges.add((f, cand))
                    break
    return edges


def object_source(root, obj):
    """The source file an object was compiled from (its first compile unit's DW_AT_name), relative to root."""
    p = subprocess.Popen(["readelf", "--debug-dump=info", obj], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, errors="replace")
    name = comp_dir = None
    for line in p.stdout:
        m = re.search(r"DW_AT_(name|comp_dir)\s*:\s*(?:\(indirect[^)]*\):\s*)?(.+)$", line)
        if m:
            if m.group(1) == "name" and name is None:
                name = m.group(2).strip()
            elif m.group(1) == "comp_dir" and comp_dir is None:
                comp_dir = m.group(2).strip()
        if name and comp_dir:
            break
    p.kill()
    p.wait()
    if not name:
        return None
    path = name if os.path.isabs(name) else os.path.join(comp_dir or root, name)
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return rel if not rel.startswith("..") else None


def nm_symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(sym)
        elif kind in "TDBRGSVWiu":   # global definitions (lower case ones are local to the object)
            defined.add(sym)
    return defined, undefined


def libraries(build):
    """The object sets that are linked together, by the folders the Makefile builds them in."""
    obj = os.path.join(build, "obj")
    libs = {
        "libkrt": ["runtime", "host", "spirv-reflect"],
        "libze_pocl": ["driver", "spirv"],
        "libze_cuda": ["driver-cuda", "spirv"],
    }
    out = {}
    for lib, dirs in libs.items():
        objs = []
        for d in dirs:
            for dirpath, _, files in os.walk(os.path.join(obj, d)):
                objs += [os.path.join(dirpath, f) for f in files if f.endswith(".o")]
        if objs:
            out[lib] = sorted(objs)
    return out


def call_edges(root, build, files):
    known = set(files)
    edges = defaultdict(set)   # lib -> {(caller file, callee file, symbol)}
    for lib, objs in libraries(build).items():
        by_src = {}
        for o in objs:
            src = object_source(root, o)
            if src in known:   # objects of files no longer in the tree are left-overs of an older build
                by_src[src] = nm_symbols(o)
        where = {}
        for src, (defined, _) in by_src.items():
            for s in defined:
                where.setdefault(s, src)
        for src, (_, undefined) in by_src.items():
            for s in undefined:
                if s in where and where[s] != src:
                    edges[lib].add((src, where[s], s))
    return edges


def cycles(edge_pairs):
    """Strongly connected components of more than one file (Tarjan)."""
    graph = defaultdict(set)
    for a, b in edge_pairs:
        graph[a].add(b)
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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

    sys.setrecursionlimit(10000)
    for v in sorted(list(graph)):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--build", default=None, help="the build folder (default ROOT/build)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a structure rule is broken")
    ap.add_argument("--edges", action="store_true", help="print every cross-layer include and call edge")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    build = os.path.abspath(a.build or os.path.join(root, "build"))
    files = sources(root)
    broken = []

    inc = include_edges(root, files)
    layer_edges = defaultdict(int)
    for f, g in inc:
        lf, lg = layer_of(f), layer_of(g)
        if lf and lg and lf != lg:
            layer_edges[(lf, lg)] += 1
            if lg not in LAYER_MAY.get(lf, set()):
                broken.append("include: %s (%s) includes %s (%s)" % (f, lf, g, lg))
    print("includes between layers (files including, layer -> layer):")
    for (lf, lg), n in sorted(layer_edges.items()):
        ok = lg in LAYER_MAY.get(lf, set())
        print("  %-13s -> %-13s %3d%s" % (lf, lg, n, "" if ok else "   NOT ALLOWED"))
    if a.edges:
        for f, g in sorted(inc):
            if layer_of(f) != layer_of(g):
                print("    %s -> %s" % (f, g))

    if not os.path.isdir(os.path.join(build, "obj")):
        broken.append("no objects under %s/obj: build first (make)" % build)
        calls = {}
    else:
        calls = call_edges(root, build, files)
    for lib in sorted(calls):
        edges = calls[lib]
        pairs = {(s, d) for s, d, _ in edges}
        layer_calls = defaultdict(set)
        for s, d, sym in edges:
            if layer_of(s) != layer_of(d):
                layer_calls[(layer_of(s), layer_of(d))].add(sym)
                if lib == "libkrt" and layer_of(s) == "runtime" and layer_of(d) == "host" and sym not in HOST_ENTRY:
                    broken.append("call: %s calls %s of the host driver (%s)" % (s, sym, d))
                if lib == "libkrt" and layer_of(s) == "host" and layer_of(d) == "runtime":
                    broken.append("call: the host driver's %s calls the runtime's %s (%s)" % (s, sym, d))
        print("%s: %d files, %d call edges between files" % (lib, len({x for p in pairs for x in p}), len(pairs)))
        for (ls, ld), syms in sorted(layer_calls.items()):
            shown = ", ".join(sorted(syms)[:6]) + (", ..." if len(syms) > 6 else "")
            print("  calls %-9s -> %-9s %3d functions: %s" % (ls, ld, len(syms), shown))
        cyc = cycles(pairs)
        for c in cyc:
            broken.append("cycle in %s: %s" % (lib, " <-> ".join(c)))
            print("  cycle: %s" % " <-> ".join(c))
        if not cyc:
            print("  no cycle between files")

    print("files over %d lines:" % LONG_FILE)
    for f in files:
        with open(os.path.join(root, f), errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > LONG_FILE:
            print("  %5d %s" % (n, f))

    if broken:
        print("structure rules broken:")
        for b in broken:
            print("  " + b)
    if a.check and broken:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
