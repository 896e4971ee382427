#!/bin/sh
# test/python/pip-install.sh BUILD: installs the Python package as README.md and docs/python.md say, twice, each
# into a virtual environment of its own, and runs the README's Python example (taken from the README: the block
# after `<!-- file: readme.py -->`) from a directory outside the tree with each:
#   1. from the checkout: pip install ./python (libkrt of build/lib, found through build/lib/pkgconfig);
#   2. from an installed prefix: make install PREFIX=..., then pip install with KRT_USE_PKG_CONFIG_PATH=1 and
#      PKG_CONFIG_PATH at the prefix (the extension must then run on the prefix's libkrt).
# --no-build-isolation: the build uses Debian's setuptools and wheel (python3-setuptools, python3-wheel) instead of
# fetching them; --system-site-packages gives the environments Debian's NumPy. Run by make test from the source root.
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

step "python3 -m venv --system-site-packages; pip install ./python (from the checkout)"
"$py" -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install -q --no-build-isolation --no-deps ./python >"$scratch/pip1.log" 2>&1 ||
    { cat "$scratch/pip1.log"; fail "pip install ./python failed"; }
check "$scratch/venv" "$build/lib/libkrt.so"

step "make install PREFIX=$scratch/prefix; pip install ./python through the prefix's pkg-config"
env -u MAKEFLAGS -u MAKELEVEL make -C "$KRT" --no-print-directory install PREFIX="$scratch/prefix" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "make install failed"; }
rm -rf "$KRT/python/build" "$KRT/python/krt_runtime.egg-info"
"$py" -m venv --system-site-packages "$scratch/venv2"
KRT_USE_PKG_CONFIG_PATH=1 PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig" \
    "$scratch/venv2/bin/pip" install -q --no-build-isolation --no-deps ./python >"$scratch/pip2.log" 2>&1 ||
    { cat "$scratch/pip2.log"; fail "pip install ./python from the prefix failed"; }
check "$scratch/venv2" "$scratch/prefix/lib/libkrt.so"
rm -rf "$KRT/python/build" "$KRT/python/krt_runtime.egg-info"
step "done"
