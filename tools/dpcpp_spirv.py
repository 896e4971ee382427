#!/usr/bin/env python3
"""dpcpp_spirv.py: the SPIR-V device images that DPC++ (Intel's SYCL compiler) embeds in the shared libraries of an
installed dpctl and dpnp, extracted and built through krt, to count what a krt driver builds and what it refuses.

DPC++ keeps a library's device code in an ELF section named __CLANG_OFFLOAD_BUNDLE__sycl-spir64 (the offload
wrapper's descriptors in .tgtimg point into it): SPIR-V modules one after another, each 16-byte aligned, usually one
per kernel (device code split). Each module is found by its magic number (0x07230203) and a header whose version
word is a SPIR-V version; its length is found by walking its instructions (each instruction's first word holds its
word count) up to the zero padding, the end of the section or the next module's magic. Libraries without that
section are scanned whole.

  dpcpp_spirv.py extract [--out DIR] [PATH ...]
      PATH: a shared library, a folder (searched for *.so*) or a wheel (.whl, read without installing it); none:
      the installed dpctl and dpnp packages, found by importlib without importing them. Writes DIR/LIB/NNNN.spv
      (LIB: the library's file name up to its first dot) and DIR/index.tsv (file, library, offset, size, sha256);
      a module that another library holds byte for byte is written once (index.tsv names the first copy).
  dpcpp_spirv.py build [--device D] [--jobs N] [--every K] [--limit N] [--log FILE] DIR
      builds each DIR/**/*.spv with krt's Python package (krt.Module(ctx, spirv=...)) on device D (default cpu,
      as KRT_DEVICE; "ptx": ze_cuda's translation to PTX and ptxas for sm_90, without a GPU: build/bin/ze_cuda_ptx,
      or $ZE_CUDA_PTX, and $PTXAS), in N worker processes (default 2), and prints the counts: built, refused (grouped by
      reason: the first line of krt's message with ids, names and figures masked) and crashed (a worker that
      died on a module; it is restarted after it). --every K builds every K-th module only, --limit N the first
      N. --log FILE writes one JSON line per module. Exit status 0 when every module built, 1 otherwise.
  dpcpp_spirv.py check [options] [PATH ...]: extract into a temporary folder (or --out), then build.

krt's Python package is imported from PYTHONPATH, else from the build tree (build/python beside tools/). The
libraries stay where they are installed: nothing is copied into the repository.
"""
import argparse
import collections
import hashlib
import importlib.util
import json
import os
import re
import struct
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

MAGIC = 0x07230203
BUNDLE_PREFIX = b"__CLANG_OFFLOAD_BUNDLE__"
HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------------------------
# Extraction


def elf_sections(data):
    """(name, offset, size) of each section of a little-endian ELF64 file; [] for anything else."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        return []
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    str_off, str_size = heads[shstrndx][4], heads[shstrndx][5]
    out = []
    for h in heads:
        name_end = data.find(b"\0", str_off + h[0], str_off + str_size)
        name = data[str_off + h[0]:name_end]
        if h[1] != 8:  # SHT_NOBITS has no bytes in the file
            out.append((name, h[4], h[5]))
    return out


def spirv_length(data, start, end):
    """The byte length of the SPIR-V module at data[start:] (its header checked), or 0 if it is not one."""
    if start + 20 > end:
        return 0
    magic, version, _gen, bound, schema = struct.unpack_from("<5I", data, start)
    if magic != MAGIC or version & 0xFF0000FF or not 0x10000 <= version <= 0x10600 or bound == 0 or schema != 0:
        return 0
    p = start + 20
    while p + 4 <= end:
        word, = struct.unpack_from("<I", data, p)
        count = word >> 16
        if word == MAGIC or count == 0 or p + 4 * count > end:
            break
        p += 4 * count
    return p - start if p > start + 20 else 0


def spirv_modules(data):
    """(offset, bytes) of each SPIR-V module in a library's bytes: in its offload bundle sections if it has any,
    else anywhere in the file (4-byte aligned)."""
    ranges = [(off, off + size) for name, off, size in elf_sections(data) if name.startswith(BUNDLE_PREFIX)]
    if not ranges:
        ranges = [(0, len(data))]
    needle = struct.pack("<I", MAGIC)
    for lo, hi in ranges:
        p = data.find(needle, lo, hi)
        while p >= 0:
            n = spirv_length(data, p, hi) if p % 4 == 0 else 0
            if n:
                yield p, data[p:p + n]
                p += n
            else:
                p += 4
            p = data.find(needle, p, hi)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def installed_roots():
    """The folders of the installed dpctl and dpnp, found without importing them (dpnp's __init__ needs oneMKL)."""
    roots = []
    for name in ("dpctl", "dpnp"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec and spec.submodule_search_locations:
            roots.extend(spec.submodule_search_locations)
    return roots


def libraries(paths):
    """(display name, bytes reader) of every shared library under paths: files, folders and wheels."""
    for path in paths:
        if path.endswith(".whl"):
            with zipfile.ZipFile(path) as z:
                for info in sorted(z.infolist(), key=lambda i: i.filename):
                    if re.search(r"\.so(\.|$)", info.filename):
                        yield os.path.basename(path) + ":" + info.filename, (lambda n=info.filename: z.read(n))
        elif os.path.isdir(path):
            for dirpath, dirnames, files in os.walk(path):
                dirnames.sort()
                for f in sorted(files):
                    full = os.path.join(dirpath, f)
                    if re.search(r"\.so(\.|$)", f) and not os.path.islink(full):
                        yield full, (lambda full=full: read_file(full))
        elif os.path.isfile(path):
            yield path, (lambda path=path: read_file(path))
        else:
            sys.exit(f"dpcpp_spirv: {path}: no such file or folder")


def extract(paths, out):
    if not paths:
        paths = installed_roots()
        if not paths:
            sys.exit("dpcpp_spirv: neither dpctl nor dpnp is installed for " + sys.executable +
                     " (or give the libraries, folders or wheels to read)")
    os.makedirs(out, exist_ok=True)
    seen = {}
    rows = []
    per_lib = collections.Counter()
    total = dup = 0
    for name, read in libraries(paths):
        data = read()
        lib = os.path.basename(name.split(":")[-1]).split(".")[0]
        for offset, module in spirv_modules(data):
            total += 1
            digest = hashlib.sha256(module).hexdigest()
            if digest in seen:
                dup += 1
                continue
            per_lib[lib] += 1
            rel = f"{lib}/{per_lib[lib]:05d}.spv"
            os.makedirs(os.path.join(out, lib), exist_ok=True)
            with open(os.path.join(out, rel), "wb") as f:
                f.write(module)
            seen[digest] = rel
            rows.append(f"{rel}\t{name}\t{offset}\t{len(module)}\t{digest}")
    with open(os.path.join(out, "index.tsv"), "w") as f:
        f.write("file\tlibrary\toffset\tsize\tsha256\n" + "\n".join(rows) + ("\n" if rows else ""))
    for lib, n in sorted(per_lib.items()):
        print(f"  {lib:40s} {n:6d} modules")
    print(f"extracted {total} SPIR-V modules ({total - dup} distinct, {dup} duplicates) into {out}")
    return total - dup


# ---------------------------------------------------------------------------------------------------------------
# Building


def import_krt():
    try:
        import krt  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "build", "python"))
        try:
            import krt  # noqa: F401
        except ImportError as e:
            sys.exit(f"dpcpp_spirv: cannot import krt ({e}): run make, or put krt's Python package on PYTHONPATH")
    return sys.modules["krt"]


def ptx_worker(paths):
    """--device ptx: each module through ze_cuda's own translation to PTX (build/bin/ze_cuda_ptx, no GPU needed; exit
    2 is a refusal with its log) and then ptxas for sm_90, as ze_cuda builds it before CUDA's JIT."""
    root = os.path.dirname(HERE)
    tool = os.environ.get("ZE_CUDA_PTX") or os.path.join(os.environ.get("KRT_BUILD", os.path.join(root, "build")),
                                                         "bin", "ze_cuda_ptx")
    ptxas = os.environ.get("PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    tmp = tempfile.mkdtemp(prefix="dpcpp_ptx.")
    out = os.path.join(tmp, "out.ptx")
    for path in paths:
        if not path:
            continue
        t0 = time.perf_counter()
        r = subprocess.run([tool, path, out], capture_output=True, text=True)
        if r.returncode == 0:
            a = subprocess.run([ptxas, "-arch=sm_90", out, "-o", os.devnull], capture_output=True, text=True)
            res = ({"file": path, "result": "built", "kernels": -1} if a.returncode == 0 else
                   {"file": path, "result": "refused", "error": "ptxas", "message": "ptxas: " + a.stderr.strip()})
        elif r.returncode == 2:
            res = {"file": path, "result": "refused", "error": "ze_cuda", "message": r.stderr.strip()}
        else:
            res = {"file": path, "result": "crashed", "message": f"ze_cuda_ptx exit {r.returncode}: {r.stderr.strip()}"}
        res["warnings"] = []
        res["seconds"] = round(time.perf_counter() - t0, 4)
        print(json.dumps(res), flush=True)


def worker(device, listfile):
    """Builds the modules listed in listfile, one JSON line per module on stdout (the parent restarts a worker
    that dies on one)."""
    if device == "ptx":
        with open(listfile) as f:
            return ptx_worker(f.read().split("\n"))
    import warnings
    krt = import_krt()
    ctx = krt.Context(device=device)
    with open(listfile) as f:
        paths = f.read().split("\n")
    for path in paths:
        if not path:
            continue
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with open(path, "rb") as f:
                    data = f.read()
                module = krt.Module(ctx, spirv=data)
                kernels = len(module.kernels) if hasattr(module, "kernels") else -1
                del module
                res = {"file": path, "result": "built", "kernels": kernels}
            except krt.Error as e:
                res = {"file": path, "result": "refused", "error": type(e).__name__, "message": str(e)}
        res["warnings"] = [str(w.message) for w in caught]
        res["seconds"] = round(time.perf_counter() - t0, 4)
        print(json.dumps(res), flush=True)


# What varies between two refusals for the same reason: ids, offsets, sizes, names of kernels and types.
MASKS = [
    (re.compile(r"%[0-9]+"), "%N"),
    (re.compile(r"\b[0-9]+\b"), "N"),
    (re.compile(r"0x[0-9a-fA-F]+"), "0xN"),
    (re.compile(r"'[^']*'"), "'…'"),
    (re.compile(r'"[^"]*"'), '"…"'),
    (re.compile(r"_Z[A-Za-z0-9_]+"), "<mangled>"),
]


def reason(message):
    """The grouping key of a refusal: the first line that says what was refused, with figures and names masked."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    # krt's first line names the call and the result code; the driver's log (the reason) follows it.
    pick = lines[0] if lines else "(no message)"
    for ln in lines[1:]:
        if not ln.startswith("krt_") and not ln.lower().startswith("build log"):
            pick = ln
            break
    for rx, rep in MASKS:
        pick = rx.sub(rep, pick)
    return pick[:300]


def build(folder, device, jobs, every, limit, log):
    files = []
    for dirpath, dirnames, names in os.walk(folder):
        dirnames.sort()
        files.extend(os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".spv"))
    files = files[::every]
    if limit:
        files = files[:limit]
    if not files:
        sys.exit(f"dpcpp_spirv: no .spv files under {folder}")
    print(f"building {len(files)} modules on device '{device}' in {jobs} worker(s)", flush=True)
    results = {}
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="dpcpp_spirv.")
    # One share of the files per worker; a worker that dies is restarted on the rest of its share.
    shares = [files[i::jobs] for i in range(jobs)]
    running = []

    def start(share, k):
        listfile = os.path.join(tmp, f"list{k}.txt")
        with open(listfile, "w") as f:
            f.write("\n".join(share) + "\n")
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "_worker", device, listfile],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return {"proc": proc, "share": share, "done": 0, "k": k}

    import selectors
    sel = selectors.DefaultSelector()
    restarts = 0
    for k, share in enumerate(shares):
        if share:
            w = start(share, k)
            running.append(w)
            sel.register(w["proc"].stdout, selectors.EVENT_READ, w)
    last = time.time()
    while running:
        for key, _ in sel.select(timeout=5):
            w = key.data
            line = w["proc"].stdout.readline()
            if line:
                try:
                    res = json.loads(line)
                except ValueError:
                    continue
                results[res["file"]] = res
                w["done"] += 1
                continue
            # The worker ended: done, or it died on the module after the last one it reported.
            sel.unregister(w["proc"].stdout)
            rc = w["proc"].wait()
            err = w["proc"].stderr.read()
            running.remove(w)
            rest = w["share"][w["done"]:]
            if rest:
                what = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
                tail = err.strip().splitlines()[-1] if err.strip() else ""
                results[rest[0]] = {"file": rest[0], "result": "crashed", "message": f"worker died ({what}) {tail}"}
                if w["done"] == 0 and rc > 0:  # the worker could not start (no krt, no such device)
                    sys.exit("dpcpp_spirv: a worker failed before its first module:\n" + err.strip())
                if rest[1:]:
                    restarts += 1
                    nw = start(rest[1:], w["k"])
                    running.append(nw)
                    sel.register(nw["proc"].stdout, selectors.EVENT_READ, nw)
        if time.time() - last > 30:
            last = time.time()
            print(f"  ... {len(results)}/{len(files)} after {time.time() - t0:.0f} s", flush=True)
    elapsed = time.time() - t0
    counts = collections.Counter(r["result"] for r in results.values())
    groups = collections.defaultdict(list)
    warned = collections.Counter()
    for r in results.values():
        if r["result"] != "built":
            groups[(r["result"], reason(r.get("message", "")))].append(r["file"])
        for w in r.get("warnings", []):
            warned[reason(w)] += 1
    if log:
        with open(log, "w") as f:
            for path in files:
                f.write(json.dumps(results.get(path, {"file": path, "result": "missing"})) + "\n")
    print(f"built {counts['built']}, refused {counts['refused']}, crashed {counts['crashed']} "
          f"of {len(files)} modules in {elapsed:.0f} s ({restarts} worker restarts)")
    by_lib = collections.defaultdict(collections.Counter)
    for r in results.values():
        by_lib[os.path.basename(os.path.dirname(r["file"]))][r["result"]] += 1
    for lib, c in sorted(by_lib.items()):
        print(f"  {lib:40s} built {c['built']:6d}  refused {c['refused']:6d}  crashed {c['crashed']:4d}")
    if groups:
        print("refusals by reason (count, an example module):")
        for (kind, why), paths in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(paths):6d} {kind}: {why}\n         e.g. {os.path.relpath(paths[0], folder)}")
    if warned:
        print("warnings of built or refused modules (count):")
        for why, n in warned.most_common():
            print(f"  {n:6d} {why}")
    return 0 if counts["built"] == len(files) else 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        worker(sys.argv[2], sys.argv[3])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("--out", default="dpcpp-spirv")
    ex.add_argument("paths", nargs="*")
    for name in ("build", "check"):
        b = sub.add_parser(name)
        b.add_argument("--device", default="cpu")
        b.add_argument("--jobs", type=int, default=2)
        b.add_argument("--every", type=int, default=1)
        b.add_argument("--limit", type=int, default=0)
        b.add_argument("--log")
        if name == "build":
            b.add_argument("folder")
        else:
            b.add_argument("--out")
            b.add_argument("paths", nargs="*")
    a = ap.parse_args()
    if a.cmd == "extract":
        return 0 if extract(a.paths, a.out) else 1
    if a.cmd == "build":
        return build(a.folder, a.device, a.jobs, a.every, a.limit, a.log)
    out = a.out or tempfile.mkdtemp(prefix="dpcpp-spirv.")
    if not extract(a.paths, out):
        return 1
    return build(out, a.device, a.jobs, a.every, a.limit, a.log)


if __name__ == "__main__":
    sys.exit(main())
