#!/bin/sh
# get-wheels.sh: downloads Intel's SYCL runtime, dpctl and dpnp from PyPI for one Python version and repacks them small
# (test/sycl/repack.py) for test/sycl/sycl-check.sh. Both steps are cached: a folder that already holds the wheels
# is not downloaded again, nor repacked again.
#   sh test/sycl/get-wheels.sh PYVER DIR      (PYVER: 3.11, 3.12 ...; DIR gets pypi-cpXY/ and min-cpXY/)
# Env: PYTHON (the Python that runs pip and the repack; default /usr/bin/python3; any Python 3 can download for
# another version).
set -eu
PYVER=$1
DIR=$2
PY=${PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
TAG=cp$(echo "$PYVER" | tr -d .)
# The versions checked (docs/sycl.md): dpctl 0.22.1 and dpnp 0.20.0 on the oneAPI 2026.2 runtime.
PKGS="dpctl==0.22.1 dpnp==0.20.0 intel-sycl-rt==2026.2.0 intel-cmplr-lib-ur==2026.2.0 intel-cmplr-lib-rt==2026.2.0
      umf==1.2.0 tcmlib==1.6.0"
mkdir -p "$DIR/pypi-$TAG" "$DIR/min-$TAG"
if [ "$(ls "$DIR/pypi-$TAG"/*.whl 2>/dev/null | wc -l)" -lt 7 ]; then
    # shellcheck disable=SC2086
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" \
        --platform manylinux_2_28_x86_64 -d "$DIR/pypi-$TAG" $PKGS
fi
if [ "$(ls "$DIR/min-$TAG"/*.whl 2>/dev/null | grep -v -c -E "/(pytest|pluggy|iniconfig|packaging)-")" -lt 7 ]; then
    rm -f "$DIR/min-$TAG"/*.whl
    "$PY" "$HERE/repack.py" "$DIR/pypi-$TAG" "$DIR/min-$TAG"
fi
# pytest and its needs (pure Python, 0.4 MB) for dpnp's own tests, where the Python that runs them has no pytest
# (the GPU machine's image): installed into the check's site folder with the rest.
if ! ls "$DIR/min-$TAG"/pytest-*.whl >/dev/null 2>&1; then
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" -d "$DIR/min-$TAG" \
        pytest==8.3.4 pluggy==1.5.0 iniconfig==2.0.0 packaging==24.2
fi
ls "$DIR/min-$TAG"/*.whl
