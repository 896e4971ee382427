#!/bin/sh
# test/krt-cc.sh BUILD: krt-cc's contract, as tools/krt-cc states it: the output and its default name, -D and
# -I reaching clang, exit status 1 with the diagnostic and no output file on a compile or validation failure,
# 2 on a usage error, 3 naming the tool and its package when one is missing; the same for --host, and every
# kernel of kernels/ compiling as C with clang-15 too (make builds them with cc); the default OpenCL C (3.0 with
# the drivers' features: get_enqueued_local_size runs with a partial group on ze_pocl and the host device),
# -cl-std and -cl-ext. Run by `make test` (with ZE_ENABLE_ALT_DRIVERS naming ze_pocl).
set -u
build=$(cd "$1" && pwd)
cc_=$build/bin/krt-cc
root=$(cd "$(dirname "$0")/.." && pwd)
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
"$cc_" -Iinc -D OFFSET=7 k.cl -o out/../k2.spv 2>err.txt || fail "an output through a missing directory: $(cat err.txt)"
[ -s k2.spv ] || fail "no k2.spv written through out/.."
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

# --host: the same source as a native library exporting the kernel, -D and -I reaching the C compiler.
"$cc_" --host -I inc -DOFFSET=7 k.cl || fail "--host: a valid kernel did not compile"
[ -s host/k.so ] || fail "--host: no host/k.so, the default output (where krt looks for k.spv's library)"
nm -D --defined-only host/k.so | grep -q " T k$" || fail "--host: k.so does not export k: $(nm -D host/k.so)"
nm -D --defined-only host/k.so | grep -q " W krt_host_abi_version$" || fail "--host: no krt_host_abi_version"
# -o into a directory that does not exist yet: made.
"$cc_" --host -I inc -DOFFSET=7 k.cl -o new/dir/k.so 2>err.txt || fail "--host -o new/dir/k.so: $(cat err.txt)"
[ -s new/dir/k.so ] || fail "--host -o new/dir/k.so: no output"
"$cc_" -I inc -DOFFSET=7 k.cl -o new/spv/k.spv 2>err.txt || fail "-o new/spv/k.spv: $(cat err.txt)"
[ -s new/spv/k.spv ] || fail "-o new/spv/k.spv: no output"
"$cc_" --host -I inc k.cl -o k5.so 2>err.txt; rc=$?
[ $rc -eq 1 ] || fail "--host, undeclared OFFSET: exit $rc, not 1"
grep -q "OFFSET" err.txt || fail "--host: no compiler diagnostic: $(cat err.txt)"
[ ! -e k5.so ] || fail "--host: a failed compile left k5.so"
KRT_HOST_CC=cc-krt-missing "$cc_" --host -I inc -DOFFSET=1 k.cl 2>err.txt; rc=$?
[ $rc -eq 3 ] || fail "--host, a missing compiler: exit $rc, not 3"
grep -q "cc-krt-missing not found: install the Debian package build-essential" err.txt ||
    fail "--host: missing compiler message: $(cat err.txt)"
"$cc_" -O2 -I inc -DOFFSET=1 k.cl >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "-O2 without --host: exit $rc, not 2"
"$cc_" --host --print-flags | grep -q -- "-DKRT_HOST" || fail "--host --print-flags"
# --checks: a checked library at host/NAME.checked.so, exporting its check slot and no sanitizer function; only with
# --host.
"$cc_" --host --checks -I inc -DOFFSET=7 k.cl 2>err.txt || fail "--host --checks: $(cat err.txt)"
[ -s host/k.checked.so ] || fail "--host --checks: no host/k.checked.so, the default output"
nm -D --defined-only host/k.checked.so | grep -q " W krt_host_checks_slot$" || fail "--checks: no krt_host_checks_slot"
! nm -D host/k.checked.so | grep -q "__asan" || fail "--checks: the library names a sanitizer function: $(nm -D host/k.checked.so)"
! nm -D --defined-only host/k.so | grep -q "krt_host_checks_slot" || fail "--host without --checks exports a check slot"
"$cc_" --checks -I inc -DOFFSET=7 k.cl >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--checks without --host: exit $rc, not 2"
"$cc_" --host --checks --print-flags | grep -q -- "-DKRT_HOST_CHECKED" || fail "--host --checks --print-flags"
# A kernel-scope __local array compiles, one copy per group (the host device's tests run it); one krt-cc cannot
# rewrite (declared after other code on its line) must not compile as C (it would be one copy per work-item),
# and krt-cc says why in a kernel author's words, naming the line; so for a swizzle.
cat >loc.cl <<'CL'
__kernel void loc(__global int *x)
{
    __local int tile[4];
    local int flag, other[2];
    tile[get_local_id(0) % 4] = 1;
    flag = 0;
    other[0] = flag;
    x[0] = tile[0] + other[0];
}
CL
"$cc_" --host loc.cl 2>err.txt || fail "--host: a kernel-scope __local array did not compile: $(cat err.txt)"
nm -D --defined-only host/loc.so | grep -q " T krt_host_group_loc$" || fail "--host: no group runner: $(nm -D host/loc.so)"
cat >bad.cl <<'CL'
__kernel void bad(__global int *x)
{
    /* the tile */ __local int tile[4];
    tile[get_local_id(0) % 4] = 1;
    x[0] = tile[0];
}
CL
"$cc_" --host bad.cl 2>err.txt && fail "--host: a __local array after a comment on its line compiled"
grep -q "register variable" err.txt || fail "--host: block-scope __local: $(cat err.txt)"
grep -q "bad.cl:4: the __local variable tile must be declared" err.txt || fail "--host: no explanation: $(cat err.txt)"
cat >swz.cl <<'CL'
__kernel void swz(__global float4 *x)
{
    x[0].y = 1.0f;
}
CL
"$cc_" --host swz.cl 2>err.txt && fail "--host: a swizzle compiled"
grep -q "swz.cl:3: the vector component .y (a swizzle)" err.txt || fail "--host: swizzle: $(cat err.txt)"
# A kernel with barriers gets work-item loops (the runner's krt_host_loops_ mark), not with KRT_HOST_LOOPS=0 nor
# at -O0; one the transform refuses keeps its stacks, and krt-cc names the kernel, the line and the reason.
cat >bar.cl <<'CL'
__kernel void bar(__global int *x, __local int *t)
{
    size_t l = get_local_id(0);
    t[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    x[get_global_id(0)] = t[(l + 1) % get_local_size(0)];
}
__kernel void cont(__global int *x, __local int *t)
{
    for (int i = 0; i < 4; i++) {
        t[0] = i;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (x[0] == i)
            continue;
        x[1] += t[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
CL
"$cc_" --host -Wextra -Werror bar.cl 2>err.txt || fail "--host: a barrier kernel did not compile: $(cat err.txt)"
nm -D --defined-only host/bar.so | grep -q " krt_host_loops_bar$" || fail "--host: no loops for bar: $(nm -D host/bar.so)"
nm -D --defined-only host/bar.so | grep -q "krt_host_loops_cont" && fail "--host: loops for cont, which continues"
grep -q "bar.cl:14: kernel cont keeps a stack per work-item at its barriers (slower): a continue in a loop" \
    err.txt || fail "--host: no note for cont: $(cat err.txt)"
KRT_HOST_LOOPS=0 "$cc_" --host bar.cl -o bar0.so 2>err.txt || fail "KRT_HOST_LOOPS=0 --host: $(cat err.txt)"
nm -D --defined-only bar0.so | grep -q "krt_host_loops_" && fail "KRT_HOST_LOOPS=0: loops anyway"
"$cc_" --host -O0 bar.cl -o bar1.so 2>err.txt || fail "--host -O0: $(cat err.txt)"
nm -D --defined-only bar1.so | grep -q "krt_host_loops_" && fail "--host -O0: loops anyway"
# The transform reads kernels with libclang (tools/krt_loops.py). Of test/kernels/krt_barriers_tricky.cl's kernels
# (barriers from macros, barrier( in comments and strings, shadowing, loops, ids and parameters changed through
# parentheses), two become loops and three keep their fibers, each with a note naming its line and the reason
# (test_oracle's tricky_barrier_kernels runs them all against ze_pocl).
tricky=$root/test/kernels/krt_barriers_tricky.cl
"$cc_" --host -Wextra -Werror "$tricky" -o tricky.so 2>err.txt || fail "--host: krt_barriers_tricky.cl: $(cat err.txt)"
for k in tricky_macros tricky_loops; do
    nm -D --defined-only tricky.so | grep -q " krt_host_loops_$k$" || fail "--host: no loops for $k: $(cat err.txt)"
done
for k in tricky_param tricky_goto tricky_switch; do
    nm -D --defined-only tricky.so | grep -q " krt_host_loops_$k$" && fail "--host: loops for $k, which the transform must refuse"
done
for note in "97: kernel tricky_param keeps a stack per work-item at its barriers (slower): the kernel assigns to its parameter extra" \
            "111: kernel tricky_goto keeps a stack per work-item at its barriers (slower): goto" \
            "128: kernel tricky_switch keeps a stack per work-item at its barriers (slower): a barrier inside a switch"; do
    grep -qF "krt_barriers_tricky.cl:$note" err.txt || fail "--host: no note \"$note\": $(cat err.txt)"
done
[ "$(grep -c "keeps a stack" err.txt)" = 3 ] || fail "--host: krt_barriers_tricky.cl: other notes than three: $(cat err.txt)"
# Without libclang's Python module (a python3 that cannot import clang.cindex) the library still builds, its
# barrier kernels on fibers, and krt-cc names the package once.
cat >nolibclang <<'SH'
#!/bin/sh
exec python3 -c 'import runpy, sys; sys.modules["clang"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' "$@"
SH
chmod +x nolibclang
KRT_PYTHON=./nolibclang "$cc_" --host bar.cl -o nolib.so 2>err.txt || fail "--host without libclang: $(cat err.txt)"
nm -D --defined-only nolib.so | grep -q "krt_host_loops_" && fail "--host without libclang: loops anyway"
grep -q "bar.cl: kernels with barriers keep a stack per work-item (slower): .*install the Debian package python3-clang-15" \
    err.txt || fail "--host without libclang: no note naming python3-clang-15: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] || fail "--host without libclang: more than one line: $(cat err.txt)"
for f in "$root"/kernels/*.cl "$root"/test/kernels/krt_single_source.cl "$root"/test/kernels/krt_barriers.cl; do
    KRT_HOST_CC=clang-15 "$cc_" --host -Wextra -Werror "$f" -o clang.so || fail "clang-15 --host: $f"
done
# The default OpenCL C is 3.0 with the drivers' features (tools/krt-cc, cl_features): get_enqueued_local_size,
# which krt.h and docs/api.md recommend for partial groups, compiles without -cl-std, and runs right with a
# partial last group on ze_pocl and, from the same source through --host, on the host device.
cat >enq.cl <<'CL'
__kernel void enq(__global uint *out)
{
    size_t i = get_global_id(0);
    out[i] = (uint)(get_enqueued_local_size(0) * 1000 + get_local_size(0));
}
CL
"$cc_" enq.cl 2>err.txt || fail "get_enqueued_local_size with krt-cc's defaults: $(cat err.txt)"
"$cc_" --host enq.cl 2>err.txt || fail "--host: get_enqueued_local_size: $(cat err.txt)"
"$cc_" --print-flags | grep -q -- "-cl-std=CL3.0 " || fail "--print-flags: not OpenCL C 3.0: $("$cc_" --print-flags)"
cat >enq_run.c <<'C'
#include <krt.h>
#include <stdio.h>
#include <string.h>

/* Runs enq.spv over 1000 work-items in groups of 64 (the last one of 40) and checks every item's answer. */
int main(void)
{
    enum { N = 1000, GROUP = 64 };
    krt_context *ctx;
    krt_module *m;
    krt_kernel *k;
    krt_device_info info;
    uint32_t *out;
    if (krt_context_create(NULL, &ctx) || krt_context_device_info(ctx, &info) ||
        krt_module_create(ctx, &(krt_module_desc){ .path = "enq.spv" }, &m) || krt_kernel_get(m, "enq", &k) ||
        krt_alloc(ctx, N * sizeof *out, &(krt_alloc_desc){ .kind = KRT_MEMORY_SHARED }, (void **)&out)) {
        printf("%s\n", krt_last_error_message());
        return 1;
    }
    memset(out, 0, N * sizeof *out);
    krt_arg args[] = { KRT_ARG(out) };
    krt_launch_desc d = { .range = { 1, { N } }, .group = { GROUP, 1, 1 }, .args = args, .num_args = 1 };
    if (krt_launch_sync(k, &d)) {
        printf("%s\n", krt_last_error_message());
        return 1;
    }
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want = GROUP * 1000 + (i < N / GROUP * GROUP ? GROUP : N % GROUP);
        if (out[i] != want) {
            printf("%s: item %u: %u, expected %u\n", info.driver_name, i, out[i], want);
            return 1;
        }
    }
    printf("%s %s\n", info.driver_name, krt_device_type_name(info.type));
    krt_context_destroy(ctx);
    return 0;
}
C
cc -std=c11 -I"$root/runtime/include" enq_run.c -o enq_run -L"$build/lib" -Wl,-rpath,"$build/lib" -lkrt ||
    fail "the get_enqueued_local_size program did not build"
KRT_DEVICE=cpu ./enq_run >out.txt 2>&1 || fail "get_enqueued_local_size on ze_pocl: $(cat out.txt)"
grep -qi "^ze_pocl cpu$" out.txt || fail "get_enqueued_local_size did not run on ze_pocl: $(cat out.txt)"
KRT_DEVICE=host ./enq_run >out.txt 2>&1 || fail "get_enqueued_local_size on the host device: $(cat out.txt)"
grep -qi " host$" out.txt || fail "get_enqueued_local_size did not run on the host device: $(cat out.txt)"
# -cl-std takes the caller's version with clang's own features for it (1.2 has no get_enqueued_local_size);
# -cl-ext adds a feature the default leaves out (images, which no driver runs).
"$cc_" -cl-std=CL1.2 enq.cl -o enq12.spv 2>err.txt && fail "-cl-std=CL1.2 compiled get_enqueued_local_size"
grep -q "get_enqueued_local_size" err.txt || fail "-cl-std=CL1.2: $(cat err.txt)"
cat >img.cl <<'CL'
__kernel void img(read_only image2d_t im, __global float4 *out)
{
    out[0] = read_imagef(im, (int2)(0, 0));
}
CL
"$cc_" img.cl 2>err.txt && fail "an image kernel compiled with the default features, which leave images out"
grep -q "__opencl_c_images" err.txt || fail "image kernel: $(cat err.txt)"
"$cc_" -cl-ext=+__opencl_c_images img.cl 2>err.txt || fail "-cl-ext=+__opencl_c_images: $(cat err.txt)"
"$cc_" --host -cl-ext=+__opencl_c_images enq.cl -o enq2.so 2>err.txt || fail "--host -cl-ext: $(cat err.txt)"
echo "krt-cc: every case as documented"
