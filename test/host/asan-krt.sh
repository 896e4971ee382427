#!/bin/sh
# test/host/asan-krt.sh BUILD LIBASAN: docs/tutorial-debugging.md's AddressSanitizer run, as a user makes it:
# build/bin/offbyone through libkrt on the host device (KRT_DEVICE=host), its kernel library taken from
# build/kernels-asan/ (KRT_KERNELS), with the compiler's libasan preloaded. The report must be a
# heap-buffer-overflow whose first frame is scale_blocks at kernels/offbyone.cl and the line of the bug.
# Run by `make test`.
set -u
build=$(cd "$1" && pwd)
asan=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "asan-krt: $*" >&2; exit 1; }
[ -f "$asan" ] || fail "no libasan at '$asan' (the compiler's -print-file-name=libasan.so)"
line=$(grep -n '/\* k == per: in\[n\] and out\[n\]' "$root/kernels/offbyone.cl" | cut -d: -f1)
[ -n "$line" ] || fail "kernels/offbyone.cl lost its marker comment"
out=$(LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0:exitcode=23 KRT_DEVICE=host KRT_KERNELS=$build/kernels-asan \
    "$build/bin/offbyone" 2>&1)
rc=$?
echo "$out" | head -n 12
[ $rc -eq 23 ] || fail "exit status $rc, not AddressSanitizer's 23"
echo "$out" | grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" || fail "no heap-buffer-overflow report"
echo "$out" | grep -q "READ of size 4" || fail "not the read of in[n]"
echo "$out" | grep -m1 '^ *#0 ' | grep -q " in scale_blocks .*kernels/offbyone.cl:$line" ||
    fail "the first frame is not scale_blocks at kernels/offbyone.cl:$line"
echo "asan-krt: scale_blocks, kernels/offbyone.cl:$line"
