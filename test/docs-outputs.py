#!/usr/bin/env python3
"""test/docs-outputs.py BUILD [--update | --other-machine] [PAGE.md ...]: runs the commands the tutorials show and
compares their output with the output pasted in the page, so that a changed message fails `make test` until the page
is updated. test/docs-outputs.py --self-test checks the masks below against lines of other machines.

The convention (docs/writing-docs.md says it for writers of pages). An HTML comment on its own line marks the code block
that follows it (fenced, or indented by four spaces; a blank line may come between):

  <!-- output of: CMD -->   the block is CMD's output (stdout and stderr together). CMD is one line of sh.
  <!-- transcript -->       the block is a terminal session: each line starting with "$ " is a command (a line
                            ending in "\\" continues it), the lines up to the next "$ " are its output. The
                            commands run in one shell, in order ($? is the previous command's status).
  <!-- run -->              the block is commands to run (sh), whose output the page does not show; they must
                            succeed.
  <!-- file: NAME -->       the block is a file the reader writes: it is saved as NAME before later commands run.

Option comments may stand on the lines just above a marker and apply to its block alone:

  <!-- mask: REGEX -->      also replace what REGEX (Python syntax) matches by "#" before comparing, for figures
                            the page prints without a unit (a table's column of times); repeatable.
  <!-- compare: REGEX -->   compare only the lines that REGEX matches (a search, in both texts), for outputs
                            of which the rest varies by machine (a debugger's threads, a sanitizer's stack).
  <!-- needs: PROGRAM -->   run the block only where PROGRAM is on PATH (gdb); otherwise it is reported skipped.
  <!-- not run: REASON -->  do not run the block: it needs what make test does not have (an NVIDIA GPU). Say so in
                            the page's words too.

How a block runs: as a reader following the page would, from a scratch directory BUILD/docs-outputs/PAGE/ laid out
like the source tree (build/bin, build/lib, build/kernels, build/test-kernels, build/python, kernels, examples,
test, Makefile link to the real ones; anything a command writes lands in the scratch directory), with build/bin
first on PATH, $KRT set to the tree, python3 being PY_SYS, and the variables make test sets for its own tests
removed (ZE_ENABLE_ALT_DRIVERS, KRT_KERNELS, KRT_BUILD, KRT_TEST_*, KRT_DEVICE, the validation layer's): so krt's
own default driver list applies, as for a reader with no setup. Run as root (CI), Open MPI's two variables that
allow mpirun as root are set, as tutorial-mpi.md tells a reader as root to do. The blocks of a page run in order in the same
directory. The pasted outputs are those of a machine without an NVIDIA GPU; where krt sees a GPU by default the
check says so and stops, passing (the pages would rightly show the GPU there).

What is masked, in both texts, before comparing; nothing else is (a changed word, count or message fails):
  - timings: a number followed by ms, us, µs, ns or s, and rates (GB/s, GFLOP/s): the number becomes "#";
  - addresses: 0x followed by 8 or more hex digits;
  - what depends on the machine: the CPU device's name (PoCL's "pthread-<arch>-<CPU brand>") and vendor id
    ("vendor 0x8086"), the host device's thread count ("krt host (N threads)"), core counts ("N compute units",
    "compute units N"), clock rates (N MHz), memory sizes (N MiB, which also differ from run to run) and local
    memory sizes ("local memory N", "N KiB of local memory": PoCL derives them from the CPU's caches);
  - the path of the source tree and of the scratch directory, shown as /path/to/krt;
  - a temporary directory of krt's (/tmp/krt-module.XXXXXX);
  - spaces before a masked figure (a column's width depends on the figure), and trailing spaces.
--update writes each block's actual output (paths shown as /path/to/krt) into the pages instead of comparing.

--other-machine runs the pages as a machine with other figures would, which a mask that is missing cannot survive:
PoCL's own knobs give its CPU device one compute unit more than this machine has cores (POCL_MAX_PTHREAD_COUNT) and
1 GB of memory (POCL_MEMORY_LIMIT), KRT_ZE_POCL_LOCAL_MEM halves its local memory and KRT_HOST_THREADS gives the host
device one thread more. It first checks with krt-info that each of those figures did change, and fails if one did
not. Names, vendor ids and clocks cannot be changed that way; --self-test checks their masks on lines of other
machines instead (SELF_TEST).
"""
import os
import re
import shutil
import subprocess
import sys

KRT = os.getcwd()
TIMEOUT = 120

TIME_RE = re.compile(r"\b\d+(?:\.\d+)?(?:e[+-]?\d+)?( ?)(ms|us|µs|ns|s|GB/s|MB/s|GFLOP/s)(?![\w/])")
ADDR_RE = re.compile(r"0x[0-9a-fA-F]{8,}")
# PoCL's CPU device: pthread-<arch>-<brand>; the brand runs over words up to a quote, comma, colon or parenthesis
# that follows a space, or one of the words the pages put after a name.
CPU_RE = re.compile(r'pthread-[^\s",:]+(?: (?!that\b|vadd\b)[^\s",:(][^\s",:]*)*')
MACHINE_RES = [
    (re.compile(r"krt host \(\d+ threads?\)"), "krt host (# threads)"),
    (re.compile(r"\bvendor 0x[0-9a-fA-F]{4}\b"), "vendor 0x#"),
    (re.compile(r"\b(local memory\s+)\d+"), r"\1#"),
    (re.compile(r"\b\d+ (bytes|KiB|MiB) of local memory"), r"# \1 of local memory"),
    (re.compile(r"\b\d+ compute units"), "# compute units"),
    (re.compile(r"(compute units\s+)\d+"), r"\1#"),
    (re.compile(r"\b\d+ MHz"), "# MHz"),
    (re.compile(r"\b\d+ MiB\b"), "# MiB"),
    (re.compile(r"/tmp/krt-module\.\w+"), "/tmp/krt-module.XXXXXX"),
]

FENCE_RE = re.compile(r"^(```+|~~~+)")
COMMENT_RE = re.compile(r"^<!-- (output of|transcript|run|file|mask|compare|needs|not run)(?:: (.*?))? -->\s*$")


def parse(path):
    """The page's blocks: dicts with kind, arg, options, and the block's content lines (start, end, indent)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, opts, i = [], [], 0
    while i < len(lines):
        m = COMMENT_RE.match(lines[i])
        if not m:
            if lines[i].strip():
                opts = []
            i += 1
            continue
        kind, arg = m.group(1), m.group(2)
        i += 1
        if kind in ("mask", "compare", "needs", "not run"):
            opts.append((kind, arg or ""))
            continue
        j = i
        if j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and FENCE_RE.match(lines[j]):
            fence = FENCE_RE.match(lines[j]).group(1)
            k = j + 1
            while k < len(lines) and not lines[k].startswith(fence):
                k += 1
            blocks.append(dict(kind=kind, arg=arg, opts=opts, start=j + 1, end=k, indent="", line=i))
            i = k + 1
        elif j < len(lines) and lines[j].startswith("    "):
            k = j
            while k < len(lines) and (lines[k].startswith("    ") or not lines[k].strip()):
                k += 1
            while k > j and not lines[k - 1].strip():
                k -= 1
            blocks.append(dict(kind=kind, arg=arg, opts=opts, start=j, end=k, indent="    ", line=i))
            i = k
        else:
            sys.exit(f"docs-outputs: {path}:{i}: a <!-- {kind} --> marker with no code block after it")
        opts = []
    return lines, blocks


def content(lines, b):
    n = len(b["indent"])
    return [l[n:] for l in lines[b["start"]:b["end"]]]


def split_transcript(text):
    """[(command, [output lines])] of a transcript block."""
    out, cmd, cont = [], None, False
    for l in text:
        if cont:
            cmd[0].append(l)
            cont = l.endswith("\\")
        elif l.startswith("$ "):
            cmd = ([l[2:]], [])
            out.append(cmd)
            cont = l.endswith("\\")
        elif cmd is not None:
            cmd[1].append(l)
        else:
            sys.exit("docs-outputs: a transcript's first line is not a command ($ ...)")
    return out


def mask(text, extra, scratch):
    res = []
    for l in text:
        l = l.replace(scratch, "/path/to/krt").replace(KRT, "/path/to/krt")
        l = TIME_RE.sub(lambda m: "#" + m.group(1) + m.group(2), l)
        l = ADDR_RE.sub("0x#", l)
        l = CPU_RE.sub("CPU-NAME", l)
        for r, s in MACHINE_RES:
            l = r.sub(s, l)
        for r in extra:
            l = r.sub("#", l)
        res.append(re.sub(r" +#", " #", l).rstrip())
    return res


def updated(text, actual, want, got, indent, scratch):
    """The block's new lines for --update: the page's own line wherever it matches the actual one once masked (so
    that the page keeps its figures), the actual line (paths as /path/to/krt) elsewhere."""
    import difflib
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, want, got, autojunk=False).get_opcodes():
        if op == "equal":
            out += [indent + l if l else "" for l in text[i1:i2]]
        else:
            out += [(indent + l.replace(scratch, "/path/to/krt").replace(KRT, "/path/to/krt")).rstrip()
                    for l in actual[j1:j2]]
    return out


def run(script, cwd, env):
    try:
        p = subprocess.run(["sh", "-c", script], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=TIMEOUT)
        out = p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace") + f"\n(timed out after {TIMEOUT} s)\n"
    if out.endswith("\n"):
        out = out[:-1]
    return out.split("\n") if out else []


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def scratch_for(build, page):
    d = os.path.join(build, "docs-outputs", os.path.basename(page)[:-3])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "build"))
    os.makedirs(os.path.join(d, ".bin"))
    for sub in ("bin", "lib", "kernels", "kernels-asan", "test-kernels", "python"):
        if os.path.exists(os.path.join(build, sub)):
            os.symlink(os.path.join(build, sub), os.path.join(d, "build", sub))
    for top in ("kernels", "examples", "test", "docs", "Makefile", "runtime"):
        os.symlink(os.path.join(KRT, top), os.path.join(d, top))
    py = os.environ.get("PY_SYS") or ("/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK)
                                      else shutil.which("python3"))
    os.symlink(py, os.path.join(d, ".bin", "python3"))
    return d


def page_env(build, scratch):
    env = dict(os.environ)
    for v in list(env):
        if v in ("ZE_ENABLE_ALT_DRIVERS", "KRT_KERNELS", "KRT_BUILD", "KRT_DEVICE", "PYTHONPATH",
                 "ZE_ENABLE_VALIDATION_LAYER", "ZE_ENABLE_PARAMETER_VALIDATION") or v.startswith("KRT_TEST_"):
            del env[v]
    env["KRT"] = KRT
    if os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["PATH"] = os.path.join(scratch, "build", "bin") + ":" + os.path.join(scratch, ".bin") + ":" + env["PATH"]
    return env


# Lines of a page as other machines print them, each a group whose members must mask alike (--self-test): CPU names
# as PoCL builds them from LLVM's CPU name and the processor's brand string, vendors, sizes.
SELF_TEST = [
    ["device: pthread-skylake-avx512-AMD EPYC (driver ze_pocl)",
     "device: pthread-skylake-avx512-Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz (driver ze_pocl)",
     "device: pthread-znver3-AMD EPYC 7763 64-Core Processor (driver ze_pocl)",
     "device: pthread-haswell-Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz (driver ze_pocl)",
     "device: pthread-neoverse-n1 (driver ze_pocl)",
     "device: pthread-x86-64-QEMU Virtual CPU version 2.5+ (driver ze_pocl)"],
    ["  pthread-skylake-avx512-AMD EPYC: a CPU, driver ze_pocl, Level Zero API 1.4",
     "  pthread-cascadelake-Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz: a CPU, driver ze_pocl, Level Zero API 1.4",
     "  pthread-cortex-a72: a CPU, driver ze_pocl, Level Zero API 1.4"],
    ['the devices are: 0 "pthread-skylake-avx512-AMD EPYC" (CPU, driver ze_pocl)',
     'the devices are: 0 "pthread-icelake-server-Intel(R) Xeon(R) Silver 4314 CPU @ 2.40GHz" (CPU, driver ze_pocl)'],
    ["device 0: pthread-skylake-avx512-AMD EPYC", "device 0: pthread-alderlake-12th Gen Intel(R) Core(TM) i7-1265U"],
    ["  type                   CPU, vendor 0x8086", "  type                   CPU, vendor 0x1022",
     "  type                   CPU, vendor 0x0000"],
    ["  compute units          2 at 2596 MHz", "  compute units          128 at 3500 MHz"],
    ["  memory                 5251 MiB, host-accessible", "  memory                 515893 MiB, host-accessible"],
    ["  local memory           1048576 bytes", "  local memory           524288 bytes", "  local memory           65536 bytes"],
    ["  work-groups: up to 4096 work-items (4096 x 4096 x 4096), 1024 KiB of local memory",
     "  work-groups: up to 4096 work-items (4096 x 4096 x 4096), 512 KiB of local memory"],
    ["  2 compute units at 2596 MHz, 5721 MiB of memory", "  64 compute units at 2100 MHz, 257000 MiB of memory"],
    ["device: krt host (2 threads) (driver host)", "device: krt host (1 thread) (driver host)",
     "device: krt host (96 threads) (driver host)"],
    ["launch took 12.5 ms", "launch took 3 ms", "launch took 0.4 ms"],
]


def self_test():
    """Each group of SELF_TEST masks to one text, and unlike groups to unlike texts."""
    bad = 0
    seen = {}
    for group in SELF_TEST:
        masked = [mask([l], [], "/nonexistent")[0] for l in group]
        if len(set(masked)) != 1:
            bad += 1
            print("docs-outputs --self-test: these lines of other machines mask differently:")
            for l, m in zip(group, masked):
                print(f"  {l!r} -> {m!r}")
        if masked[0] in seen:
            bad += 1
            print(f"docs-outputs --self-test: {group[0]!r} and {seen[masked[0]]!r} mask alike: a mask hides too much")
        seen[masked[0]] = group[0]
    print(f"docs-outputs --self-test: {len(SELF_TEST)} groups, {bad} wrong")
    return 1 if bad else 0


def krt_info_fields(lines):
    """From krt-info's device list: {(device number, field): value} of the lines that depend on the machine."""
    out, dev = {}, None
    for l in lines:
        m = re.match(r"device (\d+): (.*)", l)
        if m:
            dev = m.group(1)
            out[(dev, "name")] = m.group(2)
            continue
        m = re.match(r"\s+(compute units|memory|local memory)\s+(\d+)", l)
        if m and dev is not None:
            out[(dev, m.group(1))] = m.group(2)
    return out


def other_machine_env(probe_dir, env):
    """The environment of --other-machine: krt's CPU devices report other counts and sizes, through PoCL's own knobs
    and krt's (docs/api.md, "Environment"): more compute units, less memory and local memory, more host threads.
    Returns None, after saying why, where the knobs left unchanged a figure krt-info shows that they should change
    (the pass would then prove nothing about it)."""
    before = krt_info_fields(run("build/bin/krt-info", probe_dir, env))
    cores = os.cpu_count() or 1
    local = [int(v) for (d, f), v in before.items() if f == "local memory"]
    other = dict(env)
    other.update(POCL_MAX_PTHREAD_COUNT=str(cores + 1), KRT_HOST_THREADS=str(cores + 1), POCL_MEMORY_LIMIT="1",
                 KRT_ZE_POCL_LOCAL_MEM=str(max(max(local) // 2, 1024) if local else 32768))
    after = krt_info_fields(run("build/bin/krt-info", probe_dir, other))

    def must_change(dev, field):
        if before.get((dev, "name"), "").startswith("krt host"):
            return field in ("name", "compute units")   # its memory is the machine's, its local memory krt's own
        return field in ("compute units", "memory", "local memory")

    same = [f"device {d}'s {f} ({v})" for (d, f), v in sorted(before.items()) if must_change(d, f) and after.get((d, f)) == v]
    if not before or same:
        print("docs-outputs --other-machine: the knobs left unchanged " + (", ".join(same) or "everything: no device"))
        return None
    return other


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    update = "--update" in args
    other = "--other-machine" in args
    args = [a for a in args if a not in ("--update", "--other-machine")]
    if not args or (update and other):
        sys.exit(__doc__)
    build = os.path.abspath(args[0])
    pages = args[1:] or sorted(os.path.join("docs", f) for f in os.listdir("docs") if f.endswith(".md"))

    probe_dir = scratch_for(build, "probe.md")
    probe = run("build/bin/krt-info", probe_dir, page_env(build, probe_dir))
    if any(re.match(r"\s*type\s+GPU\b", l) for l in probe):
        print("docs-outputs: krt finds a GPU here by default; the pages show a machine without one: not compared")
        return 0
    extra_env = {}
    if other:
        env = other_machine_env(probe_dir, page_env(build, probe_dir))
        if env is None:
            return 1
        extra_env = {k: env[k] for k in ("POCL_MAX_PTHREAD_COUNT", "KRT_HOST_THREADS", "POCL_MEMORY_LIMIT",
                                         "KRT_ZE_POCL_LOCAL_MEM")}
        print("docs-outputs: as another machine would run them: "
              + " ".join(f"{k}={v}" for k, v in extra_env.items()))

    failures, ran, skipped = 0, 0, 0
    for page in pages:
        lines, blocks = parse(page)
        if not any(b["kind"] in ("output of", "transcript") for b in blocks):
            continue
        scratch = scratch_for(build, page)
        env = page_env(build, scratch)
        env.update(extra_env)
        new = list(lines)
        edits = []
        for b in blocks:
            text = content(lines, b)
            opts = b["opts"]
            where = f"{page}:{b['line']}"
            if b["kind"] == "file":
                with open(os.path.join(scratch, b["arg"]), "w", encoding="utf-8") as f:
                    f.write("\n".join(text) + "\n")
                continue
            if any(k == "not run" for k, _ in opts):
                continue
            need = [a for k, a in opts if k == "needs" and not shutil.which(a)]
            if need:
                print(f"docs-outputs: {where}: skipped, {need[0]} is not installed")
                skipped += 1
                continue
            if b["kind"] == "run":
                print(f"docs-outputs: {where}: run {text[0]}", flush=True)
                p = subprocess.run(["sh", "-ec", "\n".join(text)], cwd=scratch, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
                if p.returncode != 0:
                    failures += 1
                    print(f"docs-outputs: {where}: the commands failed (status {p.returncode}):")
                    print(p.stdout.decode("utf-8", "replace"))
                continue
            if b["kind"] == "output of":
                script = b["arg"]
                print(f"docs-outputs: {where}: {script}", flush=True)
            else:
                cmds = split_transcript(text)
                parts = []
                for cmd, _ in cmds:
                    shown = "$ " + "\n".join(cmd)
                    parts.append(f"__s=$?; printf '%s\\n' {sh_quote(shown)}; (exit $__s)\n" + "\n".join(cmd))
                    print(f"docs-outputs: {where}: $ {cmd[0]}", flush=True)
                script = "\n".join(parts)
            actual = run(script, scratch, env)
            ran += 1
            extra = [re.compile(a) for k, a in opts if k == "mask"]
            want, got = mask(text, extra, scratch), mask(actual, extra, scratch)
            if update:
                if any(k == "compare" for k, _ in opts):
                    print(f"docs-outputs: {where}: an abridged block (compare:), not rewritten: edit it by hand")
                else:
                    edits.append((b["start"], b["end"], updated(text, actual, want, got, b["indent"], scratch)))
                continue
            for k, a in opts:
                if k == "compare":
                    r = re.compile(a)
                    want = [l for l in want if r.search(l)]
                    got = [l for l in got if r.search(l)]
            if want != got:
                failures += 1
                import difflib
                print(f"docs-outputs: {where}: the output differs from the page's (- page, + now; masked):")
                for l in difflib.unified_diff(want, got, "page", "now", lineterm="", n=2):
                    print("  " + l)
        if update and edits:
            for start, end, shown in reversed(edits):
                new[start:end] = shown
            with open(page, "w", encoding="utf-8") as f:
                f.write("\n".join(new))
    print(f"docs-outputs: {ran} blocks run, {skipped} skipped, {failures} differ"
          + ("" if not failures else "; update the pages (test/docs-outputs.py BUILD --update PAGE rewrites them)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
