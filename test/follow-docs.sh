#!/bin/sh
# test/follow-docs.sh BUILD: does what docs/getting-started.md (sections 3 and 4) and docs/tutorial-python.md
# ("Your own script") tell a new user to do, with the files those pages show, so that the pages cannot drift
# from what works. Each file is taken from the page: the fenced block after a line `<!-- file: NAME -->`.
# Run by `make test` from the source root; exits non-zero, saying which step failed, on any difference.
set -eu
KRT=$(pwd)
build=$(cd "$1" && pwd)
scratch=$build/follow-docs
rm -rf "$scratch"
mkdir -p "$scratch/scale" "$scratch/py"

# extract PAGE NAME DEST: the block after <!-- file: NAME --> in PAGE.
extract() {
    awk -v name="$2" '
        $0 == "<!-- file: " name " -->" { want = 1; next }
        want == 1 && /^```/ { want = 2; next }
        want == 2 && /^```/ { exit }
        want == 2 { print }
    ' "$1" >"$3"
    [ -s "$3" ] || { echo "follow-docs: no '$2' block in $1" >&2; exit 1; }
}
step() { echo "follow-docs: $*"; }

# getting-started: against the tree.
cd "$scratch/scale"
extract "$KRT/docs/getting-started.md" scale.cl scale.cl
extract "$KRT/docs/getting-started.md" app.c app.c
step "krt-cc scale.cl (tree)"
"$KRT/build/bin/krt-cc" scale.cl
"$KRT/build/bin/krt-info" scale.spv >/dev/null
step "cc app.c against the tree"
cc -std=c11 app.c -I"$KRT/runtime/include" -L"$KRT/build/lib" -Wl,-rpath,"$KRT/build/lib" -lkrt -o app
./app | tee app.out
grep -qx 'x\[999\] = 1998' app.out

# getting-started: against an install in a prefix that is not the default, with PATH and PKG_CONFIG_PATH.
prefix=$scratch/prefix
step "make install PREFIX=$prefix"
env -u MAKEFLAGS -u MAKELEVEL make -C "$KRT" --no-print-directory install PREFIX="$prefix" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; exit 1; }
rm -f scale.spv app app.out
(
    export PATH="$prefix/bin:$PATH" PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    step "krt-cc scale.cl (installed: $(command -v krt-cc))"
    krt-cc scale.cl
    step "cc app.c \$(pkg-config --cflags --libs krt)"
    # shellcheck disable=SC2046
    cc -std=c11 app.c $(pkg-config --cflags --libs krt) -o app
)
./app | tee app.out
grep -qx 'x\[999\] = 1998' app.out
# The program runs on the installed libkrt, not on build/lib's.
ldd ./app | grep -q "$prefix/lib/libkrt.so" || { echo "follow-docs: app does not use $prefix/lib/libkrt.so" >&2; exit 1; }

# tutorial-python: your own script, in a directory that also holds a directory named krt (the clone-name trap), on
# the package make builds into build/python, its output compared with the page's.
cd "$scratch/py"
extract "$KRT/docs/tutorial-python.md" double.py double.py
mkdir krt
step "PYTHONPATH=\$KRT/build/python python3 double.py"
PYTHONPATH="$build/python" "${PY_SYS:-/usr/bin/python3}" double.py | tee double.out
awk '$0 == "<!-- output of: PYTHONPATH=$KRT/build/python python3 double.py -->" { want = 1; next }
     want == 1 && /^```/ { want = 2; next }
     want == 2 && /^```/ { exit }
     want == 2 { print }' "$KRT/docs/tutorial-python.md" >double.expected
[ -s double.expected ] || { echo "follow-docs: no pasted output of double.py in tutorial-python.md" >&2; exit 1; }
diff double.expected double.out || { echo "follow-docs: tutorial-python.md's pasted output of double.py differs" >&2; exit 1; }
step "done"
