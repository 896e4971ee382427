#!/bin/sh
# gpu-pack.sh: packs a build made on the build machine for tools/gpu-test.sh on an NVIDIA GPU machine: the
# libraries, programs, tests and kernels in build/'s own layout, stripped; libclc's NVPTX library (xz); the
# Python package with its GPU checks; and the GPU-only benchmark programs (bench/cuda/, built here: krt_vadd with cc, cuda_ref,
# peer_copy, warp_reduce and group_sum with the CUDA toolkit's nvcc). Run after `make` and `make bench-build`.
#   sh tools/gpu-pack.sh DEST        (DEST is emptied first)
set -eu
B=${BUILD:-build}
D=$1
CLC=${ZE_CUDA_LIBCLC:-/usr/lib/clc/nvptx64--nvidiacl.bc}
NVCC=${NVCC:-nvcc}
cc -std=c11 -Wall -Wextra -Werror -O2 -D_GNU_SOURCE -Iruntime/include bench/cuda/krt_vadd.c -o "$B/bench/krt_vadd" \
    -L"$B/lib" -Wl,-rpath,"$(cd "$B/lib" && pwd)" -lkrt
"$NVCC" -O2 -arch=sm_90 -o "$B/bench/cuda_ref" bench/cuda/cuda_ref.cu -lcuda
# krt_memcpy against cudaMemcpy between GPU allocations, one process: nvcc for the CUDA runtime, linked to libkrt.
"$NVCC" -O2 -arch=sm_90 -Iruntime/include -o "$B/bench/peer_copy" bench/cuda/peer_copy.cu -L"$B/lib" \
    -Xlinker -rpath,"$(cd "$B/lib" && pwd)" -lkrt
# A warp reduction through krt against the same in CUDA: the kernel is OpenCL C 3.0 with sub-groups (krt-cc's default).
"$NVCC" -O2 -arch=sm_90 -Iruntime/include -o "$B/bench/warp_reduce" bench/cuda/warp_reduce.cu -L"$B/lib" \
    -Xlinker -rpath,"$(cd "$B/lib" && pwd)" -lkrt
"$B/bin/krt-cc" bench/cuda/warp_sum.cl -o "$B/bench/kernels/warp_sum.spv"
# dpnp.tensor's sum shape (a group reduction per 1,024 elements, in levels) through krt against CUDA and CUB.
"$NVCC" -O2 -arch=sm_90 -Iruntime/include -o "$B/bench/group_sum" bench/cuda/group_sum.cu -L"$B/lib" \
    -Xlinker -rpath,"$(cd "$B/lib" && pwd)" -lkrt
"$B/bin/krt-cc" bench/cuda/group_sum.cl -o "$B/bench/kernels/group_sum.spv"
rm -rf "$D"
mkdir -p "$D/lib" "$D/bin" "$D/test" "$D/kernels/host" "$D/test-kernels/o2" "$D/test-kernels/asm" "$D/test-kernels/ext" \
    "$D/test-kernels/host" "$D/bench/kernels" "$D/python" "$D/clc"
for f in libkrt.so libze_cuda.so libze_pocl.so; do strip -o "$D/lib/$f" "$B/lib/$f"; done
# Debian 12's libLLVM-15 needs libz3.so.4 (the static analyzer's solver, which nothing here calls); a stub with its
# soname and every Z3_ function libLLVM imports (each aborts: none is ever called) spares the GPU machine libz3-4's
# 7 MB .deb, so that the pack and the other runtime .debs fit one 64 MiB carry. Every function, so that a dlopen
# with RTLD_NOW (test_ze_spec's) binds too.
LLVM_SO=$(ldconfig -p | awk '/libLLVM-15.so.1 / {print $NF; exit}')
nm -D --undefined-only "${LLVM_SO:-/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1}" |
    awk '/ Z3_/ {printf "void %s(void) { __builtin_trap(); }\n", $2}' |
    cc -x c -shared -fPIC -w -Wl,-soname,libz3.so.4 -o "$D/lib/libz3.so.4" -
for f in "$B"/bin/*; do strip -o "$D/bin/${f##*/}" "$f" 2>/dev/null || cp "$f" "$D/bin/"; done  # krt-cc is a script
# krt-cc --host's work-item loops for barrier kernels, found in ../libexec/krt beside bin/krt-cc.
mkdir -p "$D/libexec/krt" && cp "$B"/libexec/krt/krt_loops.py "$D/libexec/krt/"
for f in "$B"/test/test_* "$B"/test/host_*; do [ -f "$f" ] && strip -o "$D/test/${f##*/}" "$f"; done
for f in launch_overhead groupsize replay krt_vadd cuda_ref peer_copy warp_reduce group_sum polybench; do strip -o "$D/bench/$f" "$B/bench/$f"; done
# polybench's OpenMP twins link GCC's OpenMP runtime, which the GPU image lacks.
cp "$(cc -print-file-name=libgomp.so.1)" "$D/lib/"
# mpi_heat: its source and krt.h, which gpu-test.sh builds with the GPU machine's mpicc when it has one (the
# packed bin/mpi_heat, built against Debian's Open MPI, runs there otherwise), and its figures' script.
mkdir -p "$D/src" "$D/include"
cp examples/mpi_heat.c examples/example.h "$D/src/"
# What the tests read from the source tree: test_host_kernels finds the line of offbyone.cl's bug in it
# (gpu-test.sh sets KRT_TEST_SOURCE_DIR to src/).
mkdir -p "$D/src/kernels" && cp kernels/offbyone.cl "$D/src/kernels/"
cp runtime/include/krt.h "$D/include/"
# krt-cc's kernel headers (krt_kernel.h, ...), found in ../include beside bin/krt-cc as in the build.
cp "$B"/include/*.h "$D/include/"
cp bench/mpi_heat.sh "$D/bench/"
cp "$B"/kernels/*.spv "$D/kernels/"
cp "$B"/test-kernels/*.spv "$D/test-kernels/"
cp "$B"/test-kernels/o2/*.spv "$D/test-kernels/o2/"
# The ABI 3 libraries test_host loads (runners written the older way, test/host/abi3_runners.c).
mkdir -p "$D/test-kernels/abi3" && cp "$B"/test-kernels/abi3/*.so "$D/test-kernels/abi3/"
cp "$B"/test-kernels/asm/*.spv "$D/test-kernels/asm/"
cp "$B"/test-kernels/ext/*.spv "$D/test-kernels/ext/"
# The host device's native libraries (the kernels compiled as C, and their checked libraries): the GPU machine has
# no clang to build them. Stripped of their debug information, as everything else here (dlsym reads .dynsym).
strip_to() { dir=$1; shift; for f in "$@"; do strip -o "$dir/${f##*/}" "$f"; done; }
strip_to "$D/kernels/host" "$B"/kernels/host/*.so
[ -z "$(ls "$B"/test-kernels/host/*.so 2>/dev/null)" ] || strip_to "$D/test-kernels/host" "$B"/test-kernels/host/*.so
# A library of native ABI 2, without group runners (test_host's older_libraries_run_per_work_item).
mkdir -p "$D/test-kernels/abi2" && cp "$B"/test-kernels/abi2/*.so "$D/test-kernels/abi2/"
# The AddressSanitizer build of offbyone (test_host_kernels runs it).
if [ -d "$B/kernels-asan" ]; then mkdir -p "$D/kernels-asan" && cp -r "$B/kernels-asan/." "$D/kernels-asan/"; fi
cp "$B"/bench/kernels/*.spv "$D/bench/kernels/"
mkdir -p "$D/bench/kernels/host" && strip_to "$D/bench/kernels/host" "$B"/bench/kernels/host/*.so  # polybench makes every way's module
# The Python package as make builds it (krt/, the abi3 extension and its .py files: one build serves the GPU
# image's Python 3.12), the example, the GPU interop check, the launch-cost benchmark and the tutorial's torch block.
cp -r "$B/python/krt" "$D/python/"
rm -rf "$D/python/krt/__pycache__"
strip -o "$D/python/krt/_krt.abi3.so" "$B/python/krt/_krt.abi3.so"
cp examples/python/*.py test/python/gpu_interop.py bench/python_launch.py "$D/python/"
awk '$0 == "<!-- file: torch_saxpy.py -->" { want = 1; next }
     want == 1 && /^```/ { want = 2; next }
     want == 2 && /^```/ { exit }
     want == 2 { print }' docs/tutorial-python.md >"$D/python/torch_saxpy.py"
xz -9 -c "$CLC" > "$D/clc/nvptx64--nvidiacl.bc.xz"
# An OpenCL C compiler for krt-cc, which the GPU machine lacks (its tests of source modules would skip): clang-15 with
# the OpenCL headers of its resource directory (found from bin/ as ../lib/clang/VERSION), libclang-cpp, llvm-spirv-15
# and spirv-val, about 10 MB as xz; libLLVM and libLLVMSPIRVLib come with the .debs. gpu-test.sh points KRT_CLANG,
# KRT_LLVM_SPIRV and KRT_SPIRV_VAL at them.
T=$(mktemp -d)
R=$(cd /usr/lib/llvm-15/lib/clang && ls -d [0-9]*.*.* | head -1)
mkdir -p "$T/bin" "$T/lib/clang/$R/include"
cp /usr/lib/llvm-15/bin/clang /usr/bin/llvm-spirv-15 /usr/bin/spirv-val "$T/bin/"
cp /usr/lib/llvm-15/lib/libclang-cpp.so.15 "$T/lib/"
cp /usr/lib/llvm-15/lib/clang/"$R"/include/opencl-c*.h "$T/lib/clang/$R/include/"
tar -C "$T" -cJf "$D/clang-15.tar.xz" .
rm -rf "$T"
cp tools/gpu-test.sh "$D/"
# Optional: Intel's SYCL runtime, dpctl and dpnp for gpu-test.sh's SYCL step on ze_cuda (test/sycl/, docs/sycl.md).
# SYCL_WHEELS=DIR packs DIR's small wheels (test/sycl/repack.py's); SYCL_WHEELS=get first downloads and repacks them
# into $B/sycl/ for the GPU machine's Python (SYCL_PYVER, default 3.12), about 21 MB. Unified Runtime needs a Level
# Zero loader >= 1.19, which the GPU machine lacks (Debian 12's libze1 is 1.8): ZE_LOADER_DIR's (default
# ../shared/level-zero-loader beside the checkout) goes with them, 0.7 MB.
if [ -n "${SYCL_WHEELS:-}" ]; then
    W=$SYCL_WHEELS
    if [ "$W" = get ]; then
        v=${SYCL_PYVER:-3.12}
        sh test/sycl/get-wheels.sh "$v" "$B/sycl" >/dev/null
        W=$B/sycl/min-cp$(echo "$v" | tr -d .)
    fi
    L=${ZE_LOADER_DIR:-../shared/level-zero-loader}
    mkdir -p "$D/sycl/wheels" "$D/sycl/loader"
    cp "$W"/*.whl "$D/sycl/wheels/"
    cp test/sycl/*.py test/sycl/sycl-check.sh test/sycl/pytest-files.sh "$D/sycl/"
    if [ -f "$L/libze_loader.so.1" ]; then cp "$L/libze_loader.so.1" "$D/sycl/loader/"; else echo "gpu-pack: no Level Zero loader in $L: the SYCL step will skip"; fi
fi
# SYCL_ONLY=1: a pack for the SYCL step alone (gpu-test.sh with ONLY=sycl): lib/, clc/, sycl/ and gpu-test.sh, about
# 30 MB, whose DEBS need only libllvm15, libllvmspirvlib15 and libz3-4 (31 MB). The whole pack (32 MB), its 12 .debs
# (33 MB) and the wheels (22 MB) together exceed a 64 MiB carry to the GPU machine.
if [ "${SYCL_ONLY:-0}" = 1 ]; then
    find "$D" -mindepth 1 -maxdepth 1 ! -name lib ! -name clc ! -name sycl ! -name gpu-test.sh -exec rm -rf {} +
fi
du -sh "$D"
