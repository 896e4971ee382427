#!/bin/bash
# gpu-test.sh: ze_cuda's GPU run, on a machine with an NVIDIA GPU and driver but no LLVM or Level Zero loader.
# It takes a build packed on the build machine (tools/gpu-pack.sh DIR) and Debian 12's runtime .debs (libze1,
# libllvm15, libllvmspirvlib15, libcriterion3 and its needs; libz3-4 is stubbed in lib/) in DEBS, and runs on the GPU:
#   1. krt-info with krt's default driver list (both drivers, both devices);
#   2. the Level Zero driver tests (test_ze_*) against ze_cuda alone;
#   3. libkrt's tests with ze_cuda first and ze_pocl second (krt's default device is then the GPU);
#   4. every example with KRT_DEVICE=NVIDIA, and the Python package with torch and CuPy;
#   5. the figures: hand-written CUDA (raw cuLaunchKernel, vadd per block size, a 64 MiB copy, a CUDA graph of
#      1,000 kernels against bench/replay's recorded launches), krt's vadd, launch_overhead's Level Zero and krt
#      cases, the group-size benchmark, a Python call's cost against C, CuPy and torch, a spilling kernel's
#      properties, and mpi_heat's halo exchange against its kernel on one rank and on two ranks sharing the GPU;
#      with or without them, the warp reduction against CUDA and polybench unchecked and checked on ze_cuda.
#   6. when the pack has them (gpu-pack.sh SYCL_WHEELS=...), Intel's SYCL runtime, dpctl and dpnp.tensor on ze_cuda
#      against NumPy up to 10^8 elements, and dpnp.tensor's add and sum against CuPy (test/sycl/sycl-check.sh);
#      without them, or without the loader or a Python they fit, the step is skipped and says why.
#   4 and 5 run mpi_heat under this machine's mpirun, built with its mpicc when it has one (see below).
# Everything goes to OUT/gpu-test.log; OUT/summary.txt has one line per step and the totals.
#   bash DIR/gpu-test.sh DIR OUT [DEBS]        (DEBS defaults to .debs; env BUDGET, JOBS, FIGURES=0|1, ONLY)
D=$(cd "$1" && pwd)
OUT=$2
DEBS=${3:-.debs}
mkdir -p "$OUT"
LOG=$OUT/gpu-test.log
SUM=$OUT/summary.txt
: >"$LOG"
: >"$SUM"
mkdir -p /tmp/deb
for f in "$DEBS"/*.deb; do dpkg -x "$f" /tmp/deb; done
export LD_LIBRARY_PATH=$D/lib:/tmp/deb/usr/lib/x86_64-linux-gnu:/tmp/deb/usr/lib/llvm-15/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
python3 -c 'import lzma,sys; open(sys.argv[2],"wb").write(lzma.open(sys.argv[1]).read())' \
    "$D/clc/nvptx64--nvidiacl.bc.xz" /tmp/nvptx64--nvidiacl.bc
export ZE_CUDA_LIBCLC=/tmp/nvptx64--nvidiacl.bc
# krt-cc's OpenCL C compiler (gpu-pack.sh packs it: the image has none), for source modules and krt-cc --host.
if [ -f "$D/clang-15.tar.xz" ]; then
    python3 -c 'import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$D/clang-15.tar.xz" /tmp/clang-15
    export KRT_CLANG=/tmp/clang-15/bin/clang KRT_LLVM_SPIRV=/tmp/clang-15/bin/llvm-spirv-15 \
        KRT_SPIRV_VAL=/tmp/clang-15/bin/spirv-val
fi
export ZE_CUDA_CACHE_DIR=/tmp/ze_cuda_cache
export KRT_BUILD=$D KRT_KERNELS=$D/kernels KRT_TEST_KERNELS=$D/test-kernels KRT_BENCH_KERNELS=$D/bench/kernels
# The sources the tests read (test_host_kernels: kernels/offbyone.cl), packed in src/.
export KRT_TEST_SOURCE_DIR=$D/src
# The reproducer corpus and fuzz findings travel as tracked files of the checkout the script runs from.
export KRT_TEST_DATA=${KRT_TEST_DATA:-$(pwd)/test/data}
export PYTHONUNBUFFERED=1
CUDA=$D/lib/libze_cuda.so
POCL=$D/lib/libze_pocl.so
JOBS=${JOBS:-8}
BUDGET=${BUDGET:-330} # seconds: steps not started by then are skipped (and counted), so the run ends in time
START=$(date +%s)
passed=0
failed=0
skipped=0

# step NAME TIMEOUT CMD...: runs one step, logs it, tallies Criterion's synthesis or the exit code. With ONLY set
# (an extended regular expression), steps whose name does not match it are left out and not counted.
step() {
    local name=$1 limit=$2
    shift 2
    if [ -n "${ONLY:-}" ] && ! echo "$name" | grep -q -E "$ONLY"; then
        return
    fi
    if [ $(($(date +%s) - START)) -ge "$BUDGET" ]; then
        skipped=$((skipped + 1))
        printf '%-50s skipped (time budget)\n' "$name" >>"$SUM"
        return
    fi
    echo "== $name" >>"$LOG"
    local t0=$(date +%s.%N)
    timeout "$limit" "$@" >/tmp/step.log 2>&1
    local rc=$?
    cat /tmp/step.log >>"$LOG"
    local secs=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
    local line=$(grep -a "Synthesis:" /tmp/step.log | tail -n 1)
    if [ -n "$line" ]; then
        local p=$(echo "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
        local f=$(echo "$line" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
        local c=$(echo "$line" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-0} + ${c:-0}))
        [ "$rc" != 0 ] && [ "${f:-0}" = 0 ] && [ "${c:-0}" = 0 ] && failed=$((failed + 1))
        printf '%-50s rc=%-3s %s (%.1fs)\n' "$name" "$rc" "passing ${p:-0} failing ${f:-0} crashing ${c:-0}" "$secs" >>"$SUM"
    else
        if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        printf '%-50s rc=%-3s (%.1fs)\n' "$name" "$rc" "$secs" >>"$SUM"
    fi
    echo "-- rc=$rc" >>"$LOG"
}

nvidia-smi -L >>"$LOG" 2>&1

# 1. krt's default list: the loader's GPU names, then ze_cuda and ze_pocl found beside libkrt.
step "krt-info (default driver list)" 60 env -u ZE_ENABLE_ALT_DRIVERS "$D/bin/krt-info"

# 2. The Level Zero contract on ze_cuda alone. The self-check and the translator-crash reproducers are ze_pocl's
# (its PoCL route and its pre-checks before PoCL): they run against ze_pocl on this machine's PoCL. test_ze_spec,
# test_ze_conform and test_ze_groups build many modules, each a cold PTX JIT on the GPU, so they get more time.
for t in "$D"/test/test_ze_*; do
    case ${t##*/} in
    test_ze_selfcheck) step "${t##*/} on ze_pocl" 120 env ZE_ENABLE_ALT_DRIVERS="$POCL" "$t" --jobs "$JOBS" ;;
    test_ze_robust)
        step "${t##*/} on ze_pocl" 120 env ZE_ENABLE_ALT_DRIVERS="$POCL" "$t" --jobs "$JOBS"
        # Kernel names PTX cannot hold, or long ones: ze_cuda renames them inside (spirv/names.cpp).
        step "${t##*/} (kernel names) on ze_cuda" 45 env ZE_ENABLE_ALT_DRIVERS="$CUDA" "$t" --jobs "$JOBS" \
            --filter 'ze_robust/kernel_name*' ;;
    test_ze_spec | test_ze_conform | test_ze_groups) step "${t##*/} on ze_cuda" 150 env ZE_ENABLE_ALT_DRIVERS="$CUDA" "$t" --jobs "$JOBS" ;;
    *) step "${t##*/} on ze_cuda" 45 env ZE_ENABLE_ALT_DRIVERS="$CUDA" "$t" --jobs "$JOBS" ;;
    esac
done

# 3. libkrt's tests, the GPU first.
for t in "$D"/test/test_*; do
    case ${t##*/} in
    test_ze_*|test_cuda) continue ;;
    # The module reproducers are ze_pocl's refusals (ze_cuda builds some of them), and with two drivers loaded
    # the loader loses a failed build's log, which the test reads.
    test_repro) step "${t##*/} on ze_pocl" 120 env ZE_ENABLE_ALT_DRIVERS="$POCL" "$t" --jobs "$JOBS"; continue ;;
    esac
    step "${t##*/} on ze_cuda" 45 env ZE_ENABLE_ALT_DRIVERS="$CUDA,$POCL" "$t" --jobs "$JOBS"
done
step "test_cuda (driver part)" 60 env ZE_ENABLE_ALT_DRIVERS="$CUDA,$POCL" "$D/test/test_cuda" --filter 'cuda_driver/*'
# Issue 39: a wild write loses the GPU (CUDA's sticky error), and ze_cuda recovers it once no context uses it.
step "test_cuda (a fault and its recovery)" 60 env ZE_ENABLE_ALT_DRIVERS="$CUDA,$POCL" "$D/test/test_cuda" \
    --filter 'cuda_fault/*'

# 4. Examples and the Python embedding, the GPU chosen by name.
export KRT_DEVICE=NVIDIA
for ex in "vadd 100003" "saxpy 1 7 1000 4093 65537" "reduce 100003" "matmul 100 75 130" "histogram 1000003" \
          "heat 67 50 /tmp/heat.png" "heat_replay 67 1000" "heat_replay 256 1000" "mandelbrot 160 120 /tmp/mandelbrot.png" "pipeline 100000 4" "tour" \
          "devices" "errors" "knobs 10007" "memory 100003" "multidev 1000003" "multidev_heat 1024 1024 200"; do
    step "example $ex" 30 env -u ZE_ENABLE_ALT_DRIVERS $D/bin/$ex
done
for k in "$D"/kernels/*.spv; do step "krt-info ${k##*/}" 20 env -u ZE_ENABLE_ALT_DRIVERS "$D/bin/krt-info" "$k"; done
# MPI (examples/mpi_heat.c, docs/tutorial-mpi.md). The program is built here with this machine's mpicc when there
# is one, so that it sees this MPI's own mpi-ext.h (whether it is CUDA-aware) and links its libmpi; without mpicc,
# the packed build (Debian 12's Open MPI 4.1, libmpi.so.40) runs against this machine's libmpi.so.40. One rank,
# then two ranks sharing the one GPU (KRT_DEVICE=gpu: node rank i takes gpu:i modulo the GPU count); each run
# checks itself against one rank on the whole plate, bit for bit. Open MPI 4's shared-memory transport copies
# large messages with cross-memory attach, which containers often forbid: the variable turns that off. No binding
# (--bind-to none): a rank's ze_cuda helper threads then need not share its one core.
MPI_HEAT=$D/bin/mpi_heat
MPIRUN="mpirun --oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
# Open MPI 4's mpirun will not start without ssh or rsh in PATH, even for local ranks, unless told to stay local.
command -v ssh >/dev/null 2>&1 || command -v rsh >/dev/null 2>&1 || MPIRUN="$MPIRUN --mca plm isolated"
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi_build() {
    mpirun --version | head -n 1
    ompi_info --parsable --all 2>/dev/null | grep "mpi_built_with_cuda_support:value"
    if command -v mpicc >/dev/null 2>&1; then
        mpicc -std=c11 -O2 -D_GNU_SOURCE -I"$D/include" "$D/src/mpi_heat.c" -o /tmp/mpi_heat -L"$D/lib" \
            -Wl,-rpath,"$D/lib" -lkrt -lm || return 1
        echo "built with $(command -v mpicc) ($(mpicc --showme:command 2>/dev/null))"
    else
        cp "$MPI_HEAT" /tmp/mpi_heat && echo "no mpicc here: the packed build"
    fi
    ldd /tmp/mpi_heat | grep -E "libmpi|libkrt"
}
export -f mpi_build
export D MPI_HEAT
if command -v mpirun >/dev/null 2>&1; then
    rm -f /tmp/mpi_heat
    step "mpi_heat: build or take the packed one" 60 bash -c mpi_build
    [ -x /tmp/mpi_heat ] && MPI_HEAT=/tmp/mpi_heat
    for np in 1 2; do
        step "example mpirun -np $np mpi_heat 515 514 200 (one GPU)" 60 env -u ZE_ENABLE_ALT_DRIVERS KRT_DEVICE=gpu \
            $MPIRUN -np $np "$MPI_HEAT" 515 514 200
    done
    step "example mpirun -np 2 mpi_heat --halo=staged 4096 4096 100 (one GPU)" 60 env -u ZE_ENABLE_ALT_DRIVERS \
        KRT_DEVICE=gpu $MPIRUN -np 2 "$MPI_HEAT" --halo=staged 4096 4096 100
else
    printf '%-50s skipped: no mpirun on this machine\n' "mpi_heat" >>"$SUM"
fi
# The Python package (abi3, built on Debian's 3.11) under the image's Python: the example, then torch and CuPy
# tensors through kernels with no copy, and the tutorial's torch block (test/python/gpu_interop.py).
step "python saxpy.py" 60 env -u ZE_ENABLE_ALT_DRIVERS PYTHONPATH="$D/python" python3 "$D/python/saxpy.py"
step "python gpu_interop.py (torch, CuPy)" 240 env -u ZE_ENABLE_ALT_DRIVERS PYTHONPATH="$D/python" \
    python3 "$D/python/gpu_interop.py"
step "module cache entries written" 10 sh -c "ls $ZE_CUDA_CACHE_DIR | grep -c cubin"

# 5. Figures.
if [ "${FIGURES:-1}" = 1 ]; then
    mkdir -p /tmp/lo /tmp/gs
    step "figures: cuda_ref" 60 "$D/bench/cuda_ref" --launches 100000
    # Recorded launches against a hand-written CUDA graph of the same kernels, in one run (bench/replay).
    mkdir -p /tmp/rp /tmp/rp0
    step "figures: graph reference (cuda_ref --graph 1000)" 60 "$D/bench/cuda_ref" --graph 1000
    step "figures: replay on ze_cuda" 90 env -u ZE_ENABLE_ALT_DRIVERS KRT_DEVICE=NVIDIA "$D/bench/replay" \
        --kernels 1000 --repeats 7 --no-callgrind --out /tmp/rp
    step "figures: replay on ze_cuda, graphs off" 90 env -u ZE_ENABLE_ALT_DRIVERS KRT_DEVICE=NVIDIA ZE_CUDA_GRAPHS=0 \
        "$D/bench/replay" --kernels 1000 --repeats 7 --no-callgrind --out /tmp/rp0
    step "figures: graph reference again" 60 "$D/bench/cuda_ref" --graph 1000
    step "figures: krt_vadd (module cache cold)" 60 env -u ZE_ENABLE_ALT_DRIVERS ZE_CUDA_CACHE_DIR=/tmp/zc_fresh \
        "$D/bench/krt_vadd"
    step "figures: krt_vadd (module cache warm)" 60 env -u ZE_ENABLE_ALT_DRIVERS ZE_CUDA_CACHE_DIR=/tmp/zc_fresh \
        "$D/bench/krt_vadd" 1048576
    step "figures: krt_vadd (module cache off)" 60 env -u ZE_ENABLE_ALT_DRIVERS ZE_CUDA_CACHE=0 "$D/bench/krt_vadd" 1048576
    step "figures: launch_overhead abcdf" 120 env ZE_ENABLE_ALT_DRIVERS="$CUDA" "$D/bench/launch_overhead" \
        --cases abcdf --no-callgrind --launches 100000 --repeats 3 --out /tmp/lo
    step "figures: cuda_ref again (launch cost varies between runs)" 60 "$D/bench/cuda_ref" --launches 100000
    step "figures: groupsize" 120 env -u ZE_ENABLE_ALT_DRIVERS "$D/bench/groupsize" --quick --out /tmp/gs
    step "figures: python_launch (Python call, C krt_launch, CuPy RawKernel, torch add_)" 150 \
        env -u ZE_ENABLE_ALT_DRIVERS PYTHONPATH="$D/python" python3 "$D/python/python_launch.py" --device gpu \
        --calls 100000 --rounds 3
    # Copies between GPU allocations: krt_memcpy against cudaMemcpy (within each GPU) and cudaMemcpyPeer (every
    # ordered pair of GPUs, peer or staged as CUDA reports peer access), in one process (bench/cuda/peer_copy.cu).
    step "figures: peer_copy (krt_memcpy against cudaMemcpy)" 120 env -u ZE_ENABLE_ALT_DRIVERS "$D/bench/peer_copy"
    step "figures: spilling kernel" 60 env -u ZE_ENABLE_ALT_DRIVERS "$D/bin/krt-info" "$D/test-kernels/krt_spill.spv"
    # mpi_heat: halo exchange against kernel per step, one rank and two ranks sharing the GPU (bench/mpi_heat.sh).
    if command -v mpirun >/dev/null 2>&1; then
        for size in "1024 1024 1000" "4096 4096 300"; do
            read -r mw mh ms <<<"$size"
            step "figures: mpi_heat $mw x $mh, 1 and 2 ranks on one GPU" 150 env -u ZE_ENABLE_ALT_DRIVERS KRT_DEVICE=gpu \
                sh "$D/bench/mpi_heat.sh" --bin "$MPI_HEAT" --mpirun "$MPIRUN" --ranks "1 2" --halo "auto staged" \
                --size "$mw" "$mh" --steps "$ms" --repeats 3 --out "/tmp/mpi_heat_$mw"
        done
    fi
fi
# A warp reduction (sub_group_reduce_add on ze_cuda) against the same algorithm in CUDA, in one process
# (bench/cuda/warp_reduce.cu): a figure, and a check (both sums against the host's), so it runs with FIGURES=0 too.
[ -x "$D/bench/warp_reduce" ] && step "bench: warp_reduce (krt against CUDA)" 60 env -u ZE_ENABLE_ALT_DRIVERS \
    "$D/bench/warp_reduce"
# dpnp.tensor's sum shape (groups of 128 reading 1,024 elements each, in levels) through krt against the same in CUDA
# and against CUB's DeviceReduce::Sum (bench/cuda/group_sum.cu): a figure and a check (three sums against the host's).
[ -x "$D/bench/group_sum" ] && step "bench: group_sum (dpctl's sum shape: krt, CUDA, CUB)" 60 \
    env -u ZE_ENABLE_ALT_DRIVERS "$D/bench/group_sum"
# Checked launches on ze_cuda (docs/performance.md, "Checked launches"), unchecked and checked alternating, twice
# each, every benchmark: a figure (goal 2x), so it runs with FIGURES=0 too; polybench --way compares nothing, the
# checked results are test_checks' to judge.
if [ -x "$D/bench/polybench" ]; then
    for c in "" --checks "" --checks; do
        step "bench: polybench on ze_cuda${c:+, checked}" 90 env ZE_ENABLE_ALT_DRIVERS="$CUDA" "$D/bench/polybench" \
            --way ze_pocl --device gpu $c --samples 3 --settle-ms 0
    done
fi
# 6. SYCL: dpctl and dpnp.tensor through Unified Runtime's Level Zero adapter on ze_cuda (docs/sycl.md). The check
# skips (exit 0, "sycl-check: skipped: why") where a piece is missing; its own summary goes under this step's line.
if [ -d "$D/sycl/wheels" ]; then
    rm -rf /tmp/sycl-check
    step "sycl: dpctl, dpnp.tensor to 10^8, CuPy bench" 1200 env -u ZE_ENABLE_ALT_DRIVERS PYTHON=python3 \
        bash "$D/sycl/sycl-check.sh" --wheels "$D/sycl/wheels" --driver "$CUDA" --loader "$D/sycl/loader" \
        --max 100000000 --bench --site /tmp/sycl-site --out /tmp/sycl-check
    grep -a "sycl-check: skipped" /tmp/step.log | sed 's/^/    /' >>"$SUM"
    [ -f /tmp/sycl-check/summary.txt ] && sed 's/^/    /' /tmp/sycl-check/summary.txt >>"$SUM"
elif [ -z "${ONLY:-}" ] || echo sycl | grep -q -E "$ONLY"; then
    printf '%-50s skipped: the pack has no SYCL wheels (tools/gpu-pack.sh with SYCL_WHEELS=get)\n' "sycl" >>"$SUM"
fi
echo "gpu-test: $passed passed, $failed failed, $skipped skipped" | tee -a "$SUM" >>"$LOG"
cat "$SUM"
