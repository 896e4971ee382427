#!/bin/bash
# Runs the whole test suite and every example from a build made here on another machine's PoCL (the H200
# machine's Ubuntu 24.04 PoCL 5.0, say), with Debian 12's runtime libraries carried beside it.
#
#   tools/device-suite.sh pack DEST [AS]   here, after `make`: copies the stripped build outputs, this script,
#                                          test/run.sh and the lists of test binaries and example commands
#                                          into DEST; AS is DEST's path where it runs (default DEST)
#   bash DEST/device-suite.sh run DEST OUT there, from the repository root: unpacks .debs/*.deb into
#                                          /tmp/deb, reports what PoCL offers, runs ze_pocl's self-check
#                                          (cold, warm, each candidate alone), then the suite and the
#                                          examples; full logs under OUT (summary.txt, suite.log)
#
# With the device tool: pack into /work/main/.dev14 (git-ignored there), then run
#   bash .dev14/device-suite.sh run .dev14 $OUT     with carry [".dev14", ".debs"]
# The build's RUNPATH names this checkout, which does not exist there, so LD_LIBRARY_PATH finds the
# carried libraries.
set -u
cmd=${1:-}
if [ "$cmd" = pack ]; then
    dest=${2:?usage: tools/device-suite.sh pack DEST [AS]}
    as=${3:-$dest}
    build=${BUILD:-build}
    rm -rf "$dest/build" && mkdir -p "$dest/build"
    for d in lib bin test kernels test-kernels driver; do
        [ -d "$build/$d" ] && cp -r "$build/$d" "$dest/build/"
    done
    rm -f "$dest/build/lib/"*.a
    find "$dest/build" -type f -perm -u+x -exec strip --strip-unneeded {} + 2>/dev/null
    find "$dest/build" -name '*.bc' -delete
    cp tools/device-suite.sh test/run.sh "$dest/"
    # The example commands as make test runs them, with the build where it lands there.
    make -s --no-print-directory BUILD="$as/build" PYTHON=python3 -f Makefile \
        -f <(printf 'print-examples:\n\t@printf "%%s\\n" $(EXAMPLE_TESTS)\n') print-examples >"$dest/examples.txt"
    ls "$build"/test/test_* | grep -v '\.' | sed "s|^$build/|$as/build/|" >"$dest/tests.txt"
    du -sh "$dest"
    exit 0
fi
if [ "$cmd" != run ]; then
    echo "usage: tools/device-suite.sh pack DEST | run DIR OUT" >&2
    exit 2
fi
dir=$(cd "${2:?DIR}" && pwd)
out=${3:?OUT}
mkdir -p "$out"
sum="$out/summary.txt"
exec 3>&1
say() { echo "$*" | tee -a "$sum" >&3; }

mkdir -p /tmp/deb
for f in .debs/*.deb; do dpkg -x "$f" /tmp/deb; done
export LD_LIBRARY_PATH="$dir/build/lib:/tmp/deb/usr/lib/x86_64-linux-gnu:/tmp/deb/usr/lib/llvm-15/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ZE_ENABLE_ALT_DRIVERS="$dir/build/lib/libze_pocl.so" KRT_TEST_KERNELS="$dir/build/test-kernels"
export KRT_KERNELS="$dir/build/kernels" KRT_BUILD="$dir/build"
export KRT_TEST_DATA=${KRT_TEST_DATA:-$(pwd)/test/data}  # the reproducers, tracked in the checkout
export KRT_ZE_POCL_CACHE_DIR=/tmp/krt-cache POCL_CACHE_DIR=/tmp/pocl-kcache
rm -rf "$KRT_ZE_POCL_CACHE_DIR" "$POCL_CACHE_DIR"

say "== machine"
{ grep PRETTY /etc/os-release; nproc; lscpu | grep -E 'Model name|Flags' | cut -c1-200
  dpkg -l 2>/dev/null | grep -iE 'pocl|spirv|ocl-icd|libllvm' | awk '{print $2, $3}'
  ls /usr/lib/x86_64-linux-gnu/pocl 2>/dev/null | head -40; ls /etc/OpenCL/vendors 2>/dev/null
  command -v llvm-spirv llvm-spirv-16 llvm-spirv-15; } 2>&1 | tee -a "$sum"
say "== pocl_probe"
"$dir/build/bin/pocl_probe" 2>&1 | tee -a "$sum"

say "== self-check: automatic choice, cold (no cache) then warm"
for i in 1 2 3 4 5 6; do
    s=$(date +%s%N); "$dir/build/bin/ze_pocl_selfcheck" >"$out/auto$i.txt" 2>&1; rc=$?; e=$(date +%s%N)
    say "start $i: rc $rc, process $(( (e - s) / 1000000 )) ms, $(grep -a '^self-check:' "$out/auto$i.txt"): $(grep -a '^auto:' "$out/auto$i.txt")"
    [ $rc -le 1 ] && [ $i -ge 2 ] && break
done
cat "$out/auto1.txt" >>"$sum"
cat /tmp/krt-cache/* >>"$sum" 2>/dev/null; echo >>"$sum"
say "== self-check: each candidate (route flags which) in its own process"
for c in "0 0 1" "0 0 2" "0 0 4" "0 32 7" "0 8 1" "0 40 7" "0 1 7" "0 2 7" "0 3 7" "0 35 7"; do
    r=$(timeout 120 "$dir/build/bin/ze_pocl_selfcheck" $c 2>&1 | grep -a -E '^route|undefined symbol|failed' | tail -2 | tr '\n' ' ')
    say "$c: $r"
done

say "== suite (every test binary plain and under the validation layer) and examples"
export VALIDATION_ENV="ZE_ENABLE_VALIDATION_LAYER=1 ZE_ENABLE_PARAMETER_VALIDATION=1"
export CRITERION_ARGS="${CRITERION_ARGS:---jobs 8}"
mapfile -t tests <"$dir/tests.txt"
# mpi_heat's runs need an mpirun on that machine; without one they are left out, and the summary says so.
if command -v mpirun >/dev/null 2>&1; then
    mapfile -t examples <"$dir/examples.txt"
else
    say "no mpirun here: $(grep -c mpirun "$dir/examples.txt") mpi_heat runs left out"
    mapfile -t examples < <(grep -v mpirun "$dir/examples.txt")
fi
start=$(date +%s)
sh "$dir/run.sh" "${tests[@]}" -- "${examples[@]}" >"$out/suite.log" 2>&1
rc=$?
say "suite rc $rc in $(( $(date +%s) - start )) s"
grep -a -E '^\[FAIL\]|Crashing: [1-9]|^failed:|^  |^tests:' "$out/suite.log" | head -80 | tee -a "$sum"
# PoCL's compiled work-group functions of the fill, histogram and check kernels, to disassemble here.
find /tmp/pocl-kcache \( -path '*krt_fill*' -o -path '*histogram*' -o -path '*zp_check*' \) -name '*.so' 2>/dev/null |
    head -80 | tar czf "$out/kcache.tgz" -T - 2>/dev/null
exit $rc
