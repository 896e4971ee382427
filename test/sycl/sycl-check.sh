#!/bin/bash
# sycl-check.sh: Intel's SYCL runtime (from PyPI: intel-sycl-rt, Unified Runtime's Level Zero adapter), dpctl and
# dpnp.tensor on one of krt's Level Zero drivers, in a private site folder (docs/sycl.md):
#   1. the wheels (test/sycl/get-wheels.sh's small repacks) installed with pip --target into SITE;
#   2. dpctl lists the driver's device (a GPU: the adapter makes a platform for nothing else; ze_pocl reports its CPU
#      as one under KRT_ZE_POCL_DEVICE_TYPE=gpu, which this script sets);
#   3. dpnp.tensor against NumPy on sizes from 1 to MAX (test/sycl/check_tensor.py), then again through Unified
#      Runtime's second Level Zero adapter (UR_LOADER_USE_LEVEL_ZERO_V2=1) up to 10^5;
#   4. with --bench, dpnp.tensor against CuPy (test/sycl/bench_cupy.py; the GPU run), through each adapter;
#   5. dpnp's own tests of dpnp.tensor that ship in its wheel (dpnp/tests/tensor), the files in PYTEST_FILES.
# usage: bash test/sycl/sycl-check.sh --wheels DIR --driver LIB [--loader DIR] [--max N] [--site DIR] [--out DIR]
#        [--bench] [--no-pytest]
# Env: PYTHON (default /usr/bin/python3; it must be the Python the wheels were made for), PYTEST_FILES (names under
# dpnp/tests/tensor, or all), PYTEST_JOBS (files at a time, default 1), PYTEST_TIMEOUT (seconds a file, default 2400).
# A missing piece (no wheels, no loader, a Python the wheels do not fit) is a skip: "sycl-check: skipped: REASON"
# and exit status 0. Otherwise the exit status is the number of failed steps; OUT/summary.txt has one line per step.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
WHEELS= DRIVER= LOADER= MAX=1000000 SITE=/tmp/krt-sycl-site OUT=/tmp/krt-sycl-check BENCH=0 PYTEST=1
while [ $# -gt 0 ]; do
    case $1 in
    --wheels) WHEELS=$2; shift ;;
    --driver) DRIVER=$2; shift ;;
    --loader) LOADER=$2; shift ;;
    --max) MAX=$2; shift ;;
    --site) SITE=$2; shift ;;
    --out) OUT=$2; shift ;;
    --bench) BENCH=1 ;;
    --no-pytest) PYTEST=0 ;;
    *) echo "sycl-check: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
skip() { echo "sycl-check: skipped: $*"; exit 0; }
[ -n "$DRIVER" ] && [ -f "$DRIVER" ] || skip "no driver library ($DRIVER)"
[ -n "$WHEELS" ] && ls "$WHEELS"/dpctl-*.whl >/dev/null 2>&1 || skip "no wheels in '$WHEELS' (test/sycl/get-wheels.sh makes them)"
# Unified Runtime's adapter needs a Level Zero loader of 1.19 or newer (with Debian 12's 1.8 it crashes in urDeviceGet).
if [ -n "$LOADER" ]; then
    [ -f "$LOADER/libze_loader.so.1" ] || skip "no libze_loader.so.1 in the loader folder '$LOADER'"
else
    v=$(ldconfig -p 2>/dev/null | sed -n 's/.*libze_loader.so.1 .*=> \(.*\)/\1/p' | head -n 1)
    real=$(readlink -f "$v" 2>/dev/null)
    case ${real##*/} in
    libze_loader.so.1.1[0-8].* | libze_loader.so.1.[0-9].* | "") skip "Unified Runtime needs a Level Zero loader >= 1.19; the system's is '${real##*/}' (give one with --loader, make ZE_LOADER_DIR=...)" ;;
    esac
fi
tag=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])' 2>/dev/null) || skip "no Python at $PY"
ls "$WHEELS"/dpctl-*-"$tag"-*.whl >/dev/null 2>&1 ||
    skip "the wheels in $WHEELS are not for $PY ($tag): $(cd "$WHEELS" && ls dpctl-*.whl)"
"$PY" -c 'import numpy' 2>/dev/null || skip "$PY has no NumPy"

mkdir -p "$OUT"
SUM=$OUT/summary.txt
: >"$SUM"
failed=0
step() { # step NAME TIMEOUT CMD...: runs CMD, its output to OUT/NAME.log and the terminal, one line to the summary
    local name=$1 limit=$2
    shift 2
    local log="$OUT/$(echo "$name" | tr -c 'A-Za-z0-9._-' _).log"
    local t0=$(date +%s.%N)
    timeout "$limit" "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local secs=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }")
    local last=$(grep -a -E "checks:|passed|failed" "$log" | tail -n 1)
    [ "$rc" != 0 ] && failed=$((failed + 1))
    printf '%-44s rc=%-3s %6ss  %s\n' "$name" "$rc" "$secs" "$last" | tee -a "$SUM"
}

t0=$(date +%s)
rm -rf "$SITE"
"$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "$WHEELS"/*.whl 2>&1 |
    grep -v "Running pip as the 'root' user" || true
[ -f "$SITE/oneapi_rt_lib/libsycl.so.9" ] || { echo "sycl-check: pip install into $SITE failed"; exit 1; }
echo "installed into $SITE in $(($(date +%s) - t0)) s" | tee -a "$SUM"

export PYTHONPATH="$SITE:$HERE" PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export LD_LIBRARY_PATH="${LOADER:+$LOADER:}$SITE/oneapi_rt_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -n "$LOADER" ] && export ZEL_LIBRARY_PATH="$LOADER"
export ZE_ENABLE_ALT_DRIVERS="$DRIVER"
export KRT_ZE_POCL_DEVICE_TYPE=gpu # ze_pocl's test knob (docs/driver.md); ze_cuda's devices are GPUs anyway
export ONEAPI_DEVICE_SELECTOR="level_zero:*"
export SYCL_CACHE_PERSISTENT=0

step "dpctl lists the device" 300 "$PY" -c '
import dpctl, sys
dpctl.lsplatform()
d = dpctl.get_devices()
print("devices:", d)
sys.exit(0 if d else 1)'
step "dpnp.tensor against NumPy (max $MAX)" 3000 "$PY" "$HERE/check_tensor.py" --max "$MAX"
# Unified Runtime's second Level Zero adapter (Intel's default for its newest GPUs) makes every event counter-based
# (docs/driver.md, "Counter-based events"): the same checks through it, up to 10^5 elements.
V2MAX=$(( MAX < 100000 ? MAX : 100000 ))
step "dpnp.tensor against NumPy, adapter v2 (max $V2MAX)" 3000 env UR_LOADER_USE_LEVEL_ZERO_V2=1 \
    "$PY" "$HERE/check_tensor.py" --max "$V2MAX"
# Before dpnp's own tests, which take longest: a run cut short by its time limit keeps the figures.
[ "$BENCH" = 1 ] && step "bench: dpnp.tensor against CuPy" 600 "$PY" "$HERE/bench_cupy.py"
[ "$BENCH" = 1 ] && step "bench: dpnp.tensor against CuPy, adapter v2" 600 env UR_LOADER_USE_LEVEL_ZERO_V2=1 \
    "$PY" "$HERE/bench_cupy.py"
if [ "$PYTEST" = 1 ]; then
    T=$SITE/dpnp/tests/tensor
    if [ -d "$T" ] && "$PY" -c 'import pytest' 2>/dev/null; then
        # Each test builds its kernels afresh (hundreds of modules a file), so the default is one file: on ze_pocl,
        # test_tensor_sum.py, test_usm_ndarray_sorting.py, test_usm_ndarray_linalg.py and test_tensor_asarray.py
        # together took 13 minutes (docs/sycl.md). PYTEST_FILES=all takes every file; each runs in a process of its
        # own (test/sycl/pytest-files.sh), PYTEST_JOBS at a time, for at most PYTEST_TIMEOUT seconds.
        # shellcheck disable=SC2086
        step "dpnp's tests of dpnp.tensor" 3000 env PYTHON="$PY" bash "$HERE/pytest-files.sh" "$T" "$OUT/pytest" \
            "${PYTEST_JOBS:-1}" "${PYTEST_TIMEOUT:-2400}" ${PYTEST_FILES:-test_tensor_sum.py}
    else
        printf '%-44s skipped: %s\n' "dpnp's tests of dpnp.tensor" "no dpnp/tests/tensor in the wheel, or no pytest for $PY" |
            tee -a "$SUM"
    fi
fi
echo "sycl-check: $failed failed step(s); $(($(date +%s) - t0)) s in all" | tee -a "$SUM"
exit "$failed"
