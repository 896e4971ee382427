#!/bin/sh
# test/python/pip-install.sh BUILD: installs the Python package as README.md and docs/python.md say, each time into a
# virtual environment of its own, and runs a script from a directory outside the tree with each:
#   1. from the checkout, as documented for any Python: pip install ./python, with build isolation (pip sets up the
#      build backend pyproject.toml declares); then the README's Python example (the block after
#      `<!-- file: readme.py -->`), on build/lib's libkrt;
#   2. from an installed prefix, offline: make install PREFIX=..., then pip install --no-build-isolation with
#      KRT_USE_PKG_CONFIG_PATH=1 and PKG_CONFIG_PATH at the prefix. python/build/ is left as step 1 left it: the
#      extension must be built again and run on the prefix's libkrt, never the stale one;
#   3. with every other python3 on PATH (a pyenv or another distribution's, 3.11 or newer), as in step 1, without
#      NumPy: a kernel's result read through the buffer protocol. Its build backend comes from PyPI, as for a user of
#      that Python; where there is no other python3, or PyPI cannot be reached, the step says so.
# Build isolation fetches setuptools and wheel; in step 1 they come from Debian's wheels (python3-setuptools-whl,
# python3-wheel-whl) instead of PyPI, so that it runs offline: PIP_NO_INDEX and PIP_FIND_LINKS. Steps 1 and 2
# use Debian's Python (PY_SYS) and its NumPy (--system-site-packages). Run by make test from the source root.
set -eu
KRT=$(pwd)
build=$(cd "$1" && pwd)
py=${PY_SYS:-/usr/bin/python3}
scratch=$build/pip-install
rm -rf "$scratch" "$KRT/python/build" "$KRT/python/krt_runtime.egg-info"
mkdir -p "$scratch/run"
step() { echo "pip-install: $*"; }
fail() { echo "pip-install: $*" >&2; exit 1; }

awk '$0 == "<!-- file: readme.py -->" { want = 1; next }
     want == 1 && /^```/ { want = 2; next }
     want == 2 && /^```/ { exit }
     want == 2 { print }' "$KRT/README.md" >"$scratch/run/readme.py"
[ -s "$scratch/run/readme.py" ] || fail "no readme.py block in README.md"
awk '$0 == "<!-- output of: python readme.py -->" { want = 1; next }
     want == 1 && /^```/ { want = 2; next }
     want == 2 && /^```/ { exit }
     want == 2 { print }' "$KRT/README.md" >"$scratch/run/expected.txt"
[ -s "$scratch/run/expected.txt" ] || fail "no pasted output of readme.py in README.md"

# check VENV LIBKRT: the README example runs from outside the tree, on the package installed in VENV, on LIBKRT.
check() {
    (cd "$scratch/run" && env -u PYTHONPATH "$1/bin/python" readme.py) >"$scratch/run/out.txt" 2>&1 ||
        { cat "$scratch/run/out.txt"; fail "the README example failed with $1"; }
    cat "$scratch/run/out.txt"
    diff "$scratch/run/expected.txt" "$scratch/run/out.txt" || fail "README.md's pasted output of readme.py differs"
    where=$(cd "$scratch/run" && env -u PYTHONPATH "$1/bin/python" -c 'import krt; print(krt.__file__); print(krt.library_path())')
    echo "$where"
    echo "$where" | head -1 | grep -q "^$1/" || fail "krt was not imported from $1"
    [ "$(echo "$where" | tail -1)" = "$2" ] || fail "the package runs on $(echo "$where" | tail -1), not $2"
}

wheels=/usr/share/python-wheels
ls "$wheels"/setuptools-*.whl "$wheels"/wheel-*.whl >/dev/null 2>&1 ||
    fail "no setuptools and wheel wheels in $wheels (make deps installs python3-setuptools-whl and python3-wheel-whl)"
offline() { PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheels" PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"; }

step "$py -m venv --system-site-packages; pip install ./python (from the checkout, build isolation)"
"$py" -m venv --system-site-packages "$scratch/venv"
offline "$scratch/venv/bin/pip" install -q --no-deps ./python >"$scratch/pip1.log" 2>&1 ||
    { cat "$scratch/pip1.log"; fail "pip install ./python failed"; }
check "$scratch/venv" "$build/lib/libkrt.so"

step "make install PREFIX=$scratch/prefix; pip install --no-build-isolation ./python through the prefix's pkg-config"
env -u MAKEFLAGS -u MAKELEVEL make -C "$KRT" --no-print-directory install PREFIX="$scratch/prefix" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "make install failed"; }
[ -d "$KRT/python/build" ] || fail "step 1 left no python/build: step 2 would not show that it is never reused"
"$py" -m venv --system-site-packages "$scratch/venv2"
KRT_USE_PKG_CONFIG_PATH=1 PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig" \
    offline "$scratch/venv2/bin/pip" install -q --no-build-isolation --no-deps ./python >"$scratch/pip2.log" 2>&1 ||
    { cat "$scratch/pip2.log"; fail "pip install ./python from the prefix failed"; }
check "$scratch/venv2" "$scratch/prefix/lib/libkrt.so"

# Step 3: the other python3s on PATH, told apart by the interpreter they really are.
cat >"$scratch/run/nonumpy.py" <<'PY'
import sys, krt
src = "kernel void triple(global int *y, int n) { int i = get_global_id(0); if (i < n) y[i] = 3 * i; }"
ctx = krt.Context(device="cpu")
triple = krt.Module(ctx, source=src)["triple"]
y = krt.zeros(ctx, 1000, dtype="int32", kind="shared")
triple(y, 1000, range=1000)
ctx.synchronize()
got = list(memoryview(y).cast("B").cast("i"))
assert got == [3 * i for i in range(1000)], got[:8]
assert "numpy" not in sys.modules
print(krt.library_path())
PY
sys_real=$("$py" -c 'import os, sys; print(os.path.realpath(sys.executable))')
others=0
IFS_save=$IFS; IFS=:
for dir in $PATH; do
    IFS=$IFS_save
    p=$dir/python3
    [ -x "$p" ] || continue
    real=$("$p" -c 'import os, sys; print(os.path.realpath(sys.executable) if sys.version_info >= (3, 11) else "")' 2>/dev/null) || continue
    [ -n "$real" ] && [ "$real" != "$sys_real" ] || continue
    others=$((others + 1))
    v=$scratch/venv-other$others
    step "$p ($real) -m venv; pip install ./python (build isolation, from PyPI), a kernel without NumPy"
    "$p" -m venv "$v" || fail "$p -m venv failed"
    # Debian's setuptools wheel is patched for Debian's Python (it fails elsewhere: "AttributeError: install_layout"),
    # so this Python's build backend comes from PyPI, as for its users; without PyPI the step says so and stops.
    if ! PIP_DISABLE_PIP_VERSION_CHECK=1 timeout 60 "$v/bin/pip" download -q --no-deps -d "$scratch/probe" \
            "setuptools>=61" >"$scratch/pypi-probe.log" 2>&1; then
        step "PyPI cannot be reached (pip download setuptools failed): $p not checked"
        continue
    fi
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$v/bin/pip" install -q --no-deps ./python >"$scratch/pip-other$others.log" 2>&1 ||
        { cat "$scratch/pip-other$others.log"; fail "pip install ./python failed with $p"; }
    got=$(cd "$scratch/run" && env -u PYTHONPATH "$v/bin/python" nonumpy.py) || fail "the script failed with $p"
    [ "$got" = "$build/lib/libkrt.so" ] || fail "with $p the package runs on $got, not $build/lib/libkrt.so"
done
IFS=$IFS_save
[ "$others" -gt 0 ] || step "no python3 3.11+ on PATH other than $py: step 3 had nothing to run"
rm -rf "$KRT/python/build" "$KRT/python/krt_runtime.egg-info"
step "done"
