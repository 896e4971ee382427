#!/bin/sh
# test/krt-cc.sh BUILD: krt-cc's contract, as tools/krt-cc states it: the output and its default name, -D and
# -I reaching clang, exit status 1 with the diagnostic and no output file on a compile or validation failure,
# 2 on a usage error, 3 naming the tool and its package when one is missing. Run by `make test`.
set -u
cc_=$(cd "$1" && pwd)/bin/krt-cc
dir=$(mktemp -d "${TMPDIR:-/tmp}/krt-cc-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "krt-cc test: $*" >&2; exit 1; }
cd "$dir" || exit 1

mkdir inc
echo '#define SCALE 3' >inc/scale.h
cat >k.cl <<'CL'
#include "krt_kernel.h"
#include "scale.h"
__kernel void k(__global int *x, uint n)
{
    KRT_GUARD_1D(i, n);
    x[i] = OFFSET + SCALE * (int)i;
}
CL
"$cc_" -I inc -DOFFSET=7 k.cl || fail "a valid kernel did not compile"
[ -s k.spv ] || fail "no k.spv, the default output name"
"$cc_" -Iinc -D OFFSET=7 k.cl -o out/../k2.spv 2>/dev/null && fail "an output in a missing directory succeeded"
"$cc_" -Iinc -D OFFSET=7 -o k2.spv k.cl || fail "-o before the input"
cmp -s k.spv k2.spv || fail "the same source and options gave different SPIR-V"

"$cc_" -I inc k.cl -o k3.spv 2>err.txt; rc=$?
[ $rc -eq 1 ] || fail "undeclared OFFSET: exit $rc, not 1"
grep -q "use of undeclared identifier 'OFFSET'" err.txt || fail "no clang diagnostic: $(cat err.txt)"
[ ! -e k3.spv ] || fail "a failed compile left k3.spv"

KRT_SPIRV_VAL=false "$cc_" -I inc -DOFFSET=1 k.cl -o k4.spv 2>err.txt; rc=$?
[ $rc -eq 1 ] || fail "a failing validator: exit $rc, not 1"
grep -q "does not validate" err.txt || fail "no validation message: $(cat err.txt)"
[ ! -e k4.spv ] || fail "a module that did not validate was written"
KRT_SPIRV_VAL=false "$cc_" --no-validate -I inc -DOFFSET=1 k.cl -o k4.spv || fail "--no-validate still validated"

KRT_LLVM_SPIRV=llvm-spirv-krt-missing "$cc_" -I inc -DOFFSET=1 k.cl 2>err.txt; rc=$?
[ $rc -eq 3 ] || fail "a missing llvm-spirv: exit $rc, not 3"
grep -q "llvm-spirv-krt-missing not found: install the Debian package llvm-spirv-15" err.txt ||
    fail "missing tool message: $(cat err.txt)"

"$cc_" >/dev/null 2>&1; rc=$?; [ $rc -eq 2 ] || fail "no input: exit $rc, not 2"
"$cc_" --bogus k.cl >/dev/null 2>&1; rc=$?; [ $rc -eq 2 ] || fail "an unknown option: exit $rc, not 2"
"$cc_" a.cl b.cl >/dev/null 2>&1; rc=$?; [ $rc -eq 2 ] || fail "two inputs: exit $rc, not 2"
"$cc_" missing.cl 2>/dev/null; rc=$?; [ $rc -eq 1 ] || fail "a missing input: exit $rc, not 1"
"$cc_" --print-flags | grep -q -- "-fno-discard-value-names" || fail "--print-flags"
"$cc_" --help | grep -q "Exit status" || fail "--help"
echo "krt-cc: every case as documented"
