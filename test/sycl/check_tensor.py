"""dpctl and dpnp.tensor (Intel's SYCL runtime through Unified Runtime's Level Zero adapter) on a krt driver, checked
against NumPy: the device dpctl lists, then elementwise functions, reductions, cumulative sums, sorting, astype and
the linear algebra that needs no oneMKL (matmul, tensordot, vecdot), each on sizes from 1 up to MAX elements.

usage: check_tensor.py [--max N] [--filter SUBSTRING]
Prints one line per check (PASS or FAIL with the first difference, and the time, which includes the first call's
kernel build) and a summary; the exit status is the number of failed checks (at most 100). Data are random with a
fixed seed; integer results and float add, multiply, sort and astype must be exact, other float results agree
with NumPy's (computed in float64 where rounding order differs) within a tolerance given per check.
"""
import argparse
import math
import sys
import time

import numpy as np
import dpctl

import dpnp.tensor as dpt  # test/sycl/repack.py leaves out dpnp/__init__.py: dpnp.tensor alone, no oneMKL

ap = argparse.ArgumentParser()
ap.add_argument("--max", type=int, default=10**6)
ap.add_argument("--filter", default="")
args = ap.parse_args()

devices = dpctl.get_devices()
print("dpctl", dpctl.__version__, "devices:", devices)
if not devices:
    print("FAIL dpctl lists no device")
    sys.exit(1)
q = dpctl.SyclQueue(devices[0])
dev = q.sycl_device
print(f"device: {dev.name} | {dev.backend} | {dev.device_type} | fp16 {dev.has_aspect_fp16} | fp64 {dev.has_aspect_fp64}")

SIZES = sorted({n for n in (1, 2, 3, 7, 16, 17, 100, 257, 1000, 4097, 65537, 10**6, 10**7, 10**8) if n <= args.max}
               | {args.max})
rng = np.random.default_rng(12345)
passed, failed = 0, []


def data(n, dtype, lo=-100, hi=100):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(lo, hi, n).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    lo = max(lo, np.iinfo(dtype).min)
    return rng.integers(lo, hi, n).astype(dtype)


def compare(got, want, rtol, atol):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.dtype != want.dtype and rtol == 0:
        return f"dtype {got.dtype} != {want.dtype}"
    if rtol == 0 and atol == 0:
        bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f"
                               else got == want).ravel())
    else:
        ok = np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        bad = np.flatnonzero(~ok.ravel())
    if bad.size:
        i = bad[0]
        return f"{bad.size} of {got.size} differ; first at {i}: {got.ravel()[i]!r} != {want.ravel()[i]!r}"
    return None


def check(name, n, run, want, rtol=0.0, atol=0.0):
    global passed
    label = f"{name} n={n}"
    if args.filter and args.filter not in label:
        return
    t0 = time.perf_counter()
    try:
        got = run()
        if isinstance(got, dpt.usm_ndarray):
            got = dpt.asnumpy(got)
        q.wait()
        why = compare(got, want, rtol, atol)
    except Exception as e:  # a refused kernel build or a runtime error: a failed check, the rest go on
        why = f"{type(e).__name__}: " + " | ".join(ln.strip() for ln in str(e).splitlines() if ln.strip())[:400]
    ms = 1e3 * (time.perf_counter() - t0)
    if why:
        failed.append(label)
        print(f"FAIL {label:40s} {ms:9.1f} ms  {why}", flush=True)
    else:
        passed += 1
        print(f"PASS {label:40s} {ms:9.1f} ms", flush=True)


floats = ["f4"] + (["f8"] if dev.has_aspect_fp64 else [])
for n in SIZES:
    for dt in floats + ["i4", "i8"] if n <= 10**7 else ["f4", "i4"]:  # the largest sizes: one float, one int
        a, b = data(n, dt), data(n, dt)
        if dt[0] == "i":
            b[b == 0] = 1
        da, db = dpt.asarray(a, sycl_queue=q), dpt.asarray(b, sycl_queue=q)
        check(f"add {dt}", n, lambda: dpt.add(da, db), a + b)
        check(f"multiply {dt}", n, lambda: dpt.multiply(da, db), a * b)
        check(f"subtract {dt}", n, lambda: dpt.subtract(da, db), a - b)
        check(f"maximum {dt}", n, lambda: dpt.maximum(da, db), np.maximum(a, b))
        check(f"less {dt}", n, lambda: dpt.less(da, db), a < b)
        check(f"abs {dt}", n, lambda: dpt.abs(da), np.abs(a))
        check(f"add strided {dt}", n, lambda: dpt.add(da[::2], db[::-2][: (n + 1) // 2]),
              a[::2] + b[::-2][: (n + 1) // 2])
        if dt[0] == "f":
            tol = 2e-6 if dt == "f4" else 1e-13
            check(f"divide {dt}", n, lambda: dpt.divide(da, db), a / b, rtol=tol)
            check(f"sqrt {dt}", n, lambda: dpt.sqrt(dpt.abs(da)), np.sqrt(np.abs(a)), rtol=tol)
            check(f"exp {dt}", n, lambda: dpt.exp(da / 10), np.exp((a / 10).astype("f8")).astype(dt), rtol=4 * tol)
            check(f"sin {dt}", n, lambda: dpt.sin(da), np.sin(a.astype("f8")).astype(dt), rtol=4 * tol, atol=tol)
        else:
            check(f"floor_divide {dt}", n, lambda: dpt.floor_divide(da, db), a // b)
            check(f"bitwise_xor {dt}", n, lambda: dpt.bitwise_xor(da, db), a ^ b)
        # Reductions: exact for integers; for floats against float64 sums, within n-dependent rounding.
        if dt[0] == "f":
            ref = np.sum(a.astype("f8"))
            scale = np.sum(np.abs(a.astype("f8")))
            eps = np.finfo(dt).eps
            check(f"sum {dt}", n, lambda: dpt.sum(da), np.asarray(ref).astype(dt),
                  rtol=0, atol=float(scale * eps * (8 + math.log2(n))))
        else:
            check(f"sum {dt}", n, lambda: dpt.sum(da), np.sum(a))
        check(f"max {dt}", n, lambda: dpt.max(da), np.max(a))
        check(f"min {dt}", n, lambda: dpt.min(da), np.min(a))
        check(f"argmax {dt}", n, lambda: dpt.argmax(da), np.argmax(a))
        if dt[0] == "i":
            check(f"cumulative_sum {dt}", n, lambda: dpt.cumulative_sum(da), np.cumsum(a))
        check(f"sort {dt}", n, lambda: dpt.sort(da), np.sort(a))
        check(f"argsort (stable) {dt}", n, lambda: dpt.argsort(da, stable=True), np.argsort(a, kind="stable"))
    a = data(n, "f4")
    da = dpt.asarray(a, sycl_queue=q)
    check("astype f4->i4", n, lambda: dpt.astype(da, "i4"), a.astype("i4"))
    check("astype i4->f4", n, lambda: dpt.astype(dpt.astype(da, "i4"), "f4"), a.astype("i4").astype("f4"))
    if dev.has_aspect_fp64:
        check("astype f4->f8", n, lambda: dpt.astype(da, "f8"), a.astype("f8"))
    if dev.has_aspect_fp16:
        check("astype f4->f2", n, lambda: dpt.astype(da, "f2"), a.astype("f2"))
    # Linear algebra without oneMKL: vecdot over n, matmul and tensordot of about n elements per operand.
    b = data(n, "f4")
    db = dpt.asarray(b, sycl_queue=q)
    ref = np.dot(a.astype("f8"), b.astype("f8"))
    scale = np.dot(np.abs(a.astype("f8")), np.abs(b.astype("f8")))
    check("vecdot f4", n, lambda: dpt.vecdot(da, db), np.asarray(ref).astype("f4"), rtol=0,
          atol=float(scale * 1.2e-7 * (8 + math.log2(n))))
    ai, bi = data(n, "i4", -50, 50), data(n, "i4", -50, 50)
    check("vecdot i4", n, lambda: dpt.vecdot(dpt.asarray(ai, sycl_queue=q), dpt.asarray(bi, sycl_queue=q)),
          np.asarray(np.dot(ai, bi)).astype("i4"))
    m = max(1, int(round(n ** 0.5)))
    if m * m * m <= 10**10:  # matmul's work grows as m^3
        x, y = data(m * m, "i4", -20, 20).reshape(m, m), data(m * m, "i4", -20, 20).reshape(m, m)
        dx, dy = dpt.asarray(x, sycl_queue=q), dpt.asarray(y, sycl_queue=q)
        check(f"matmul i4 {m}x{m}", n, lambda: dpt.matmul(dx, dy), x @ y)
        xf, yf = data(m * m, "f4", -1, 1).reshape(m, m), data(m * m, "f4", -1, 1).reshape(m, m)
        ref = xf.astype("f8") @ yf.astype("f8")
        dxf, dyf = dpt.asarray(xf, sycl_queue=q), dpt.asarray(yf, sycl_queue=q)
        check(f"matmul f4 {m}x{m}", n, lambda: dpt.matmul(dxf, dyf), ref.astype("f4"), rtol=0,
              atol=float(m * 1.2e-7 * 4))
        check(f"tensordot i4 {m}x{m}", n, lambda: dpt.tensordot(dx, dy, axes=1), np.tensordot(x, y, axes=1))

print(f"dpnp.tensor checks: {passed} passed, {len(failed)} failed (sizes {SIZES[0]} to {SIZES[-1]})")
sys.exit(min(len(failed), 100))
