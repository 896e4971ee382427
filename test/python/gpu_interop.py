#!/usr/bin/env python3
"""test/python/gpu_interop.py: the Python package on a ze_cuda context with PyTorch and CuPy, zero copy both ways.

Run by tools/gpu-test.sh on the GPU machine (Python 3.12 with NumPy, PyTorch and CuPy); needs no pytest. Each
check prints one line, and the script exits 1 if any failed. A library that is not installed is reported and
its checks are skipped (exit 0 then needs at least one of torch and CuPy).
"""
import sys
import traceback

import numpy as np

import krt

SRC = ("kernel void saxpy(global float *y, global const float *x, float a, int n)"
       " { int i = get_global_id(0); if (i < n) y[i] += a * x[i]; }")
failures = 0
ran = 0


def check(name):
    def wrap(fn):
        global failures, ran
        try:
            fn()
            ran += 1
            print(f"ok   {name}")
        except Exception:
            failures += 1
            print(f"FAIL {name}")
            traceback.print_exc(file=sys.stdout)
        return fn
    return wrap


ctx = krt.Context(device="gpu")
print(f"device: {ctx.device.name} (driver {ctx.device.driver})")
assert ctx.device.driver == "ze_cuda"
saxpy = krt.Module(ctx, source=SRC)["saxpy"]
n = (1 << 20) + 3


@check("krt arrays: DLPack device is kDLCUDA, NumPy host arrays refused with advice")
def _():
    a = krt.zeros(ctx, 16)
    assert a.__dlpack_device__()[0] == 2, a.__dlpack_device__()
    try:
        saxpy(a, np.ones(16, np.float32), 1.0, 16, range=16)
        raise AssertionError("a NumPy array was accepted")
    except krt.KernelArgumentError as e:
        assert "krt.asarray" in str(e), e


try:
    import torch
except Exception as e:  # noqa: BLE001
    torch = None
    print(f"skip torch: {e}")

try:
    import cupy as cp
except Exception as e:  # noqa: BLE001
    cp = None
    print(f"skip CuPy: {e}")

if torch is not None:
    @check("torch: krt.asarray shares the tensor (same pointer), a kernel writes it in place")
    def _():
        tx = torch.arange(n, dtype=torch.float32, device="cuda")
        ty = torch.ones(n, dtype=torch.float32, device="cuda")
        x, y = krt.asarray(ctx, tx), krt.asarray(ctx, ty)
        assert x.ptr == tx.data_ptr() and y.ptr == ty.data_ptr(), (hex(y.ptr), hex(ty.data_ptr()))
        saxpy(y, x, 2.0, n, range=n)
        ctx.synchronize()
        assert torch.equal(ty, 1 + 2 * tx)

    @check("torch: a tensor passed straight to a kernel, and back through torch.from_dlpack (same pointer)")
    def _():
        tx = torch.full((n,), 3.0, device="cuda")
        ty = torch.zeros(n, device="cuda")
        saxpy(ty, tx, 0.5, n, range=n)
        ctx.synchronize()
        assert torch.all(ty == 1.5).item()
        k = krt.zeros(ctx, n, dtype=np.float32)
        saxpy(k, tx, 1.0, n, range=n)
        back = torch.from_dlpack(k)  # waits for krt's queued work
        assert back.data_ptr() == k.ptr and back.device.type == "cuda"
        assert torch.all(back == 3.0).item()

    @check("torch: work queued on a side stream is ordered before krt's kernel (DLPack stream protocol)")
    def _():
        s = torch.cuda.Stream()
        ty = torch.zeros(n, device="cuda")
        tx = torch.ones(n, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            for _ in range(20):  # enough work that an unordered kernel would see it unfinished
                ty.add_(1.0)
            y = krt.asarray(ctx, ty)  # torch orders s before krt's stream
        saxpy(y, krt.asarray(ctx, tx), 1.0, n, range=n)
        ctx.synchronize()
        assert torch.all(ty == 21.0).item(), ty[:4]

    @check("torch: the tutorial's torch_saxpy.py block as written")
    def _():
        import os
        import runpy
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_saxpy.py")
        if not os.path.exists(path):
            raise AssertionError(f"{path} missing (gpu-pack.sh extracts it from docs/tutorial-python.md)")
        runpy.run_path(path, run_name="__main__")

    @check("torch: a CPU tensor and a non-contiguous CUDA tensor are refused, never copied")
    def _():
        y = krt.zeros(ctx, 8)
        for bad, what in ((torch.ones(8), "cpu"), (torch.ones(16, device="cuda")[::2], "strided")):
            try:
                saxpy(y, bad, 1.0, 8, range=8)
                raise AssertionError(f"a {what} tensor was accepted")
            except krt.Error as e:
                print(f"     {what}: {type(e).__name__}: {e}")

if cp is not None:
    @check("CuPy: krt.asarray shares the array (same pointer), a kernel writes it in place")
    def _():
        cx = cp.arange(n, dtype=cp.float32)
        cy = cp.ones(n, dtype=cp.float32)
        y = krt.asarray(ctx, cy)
        assert y.ptr == cy.data.ptr
        saxpy(y, cx, 3.0, n, range=n)
        ctx.synchronize()
        assert bool(cp.all(cy == 1 + 3 * cx))

    @check("CuPy: __cuda_array_interface__ alone, and back through cupy.from_dlpack (same pointer)")
    def _():
        cy = cp.zeros(n, dtype=cp.float32)

        class CAIOnly:
            __cuda_array_interface__ = cy.__cuda_array_interface__

        y = krt.asarray(ctx, CAIOnly())
        assert y.ptr == cy.data.ptr
        saxpy(y, cp.ones(n, dtype=cp.float32), 4.0, n, range=n)
        back = cp.from_dlpack(y)
        assert back.data.ptr == cy.data.ptr
        assert bool(cp.all(back == 4.0))

if torch is None and cp is None:
    print("neither torch nor CuPy is installed")
    failures += 1


# Issue 39, in a process of its own: a fault loses the GPU's CUDA context, which PyTorch and CuPy share with krt (the
# primary context), and the recovery resets it under them. A kernel writing 2^40 floats past its buffer raises
# krt.DeviceLostError naming the device and the kernel; once every object of that context is gone, a new krt.Context
# computes right, or, where CUDA keeps the fault for the life of the process, is refused with CUDA's answer.
FAULT = """
import gc, numpy as np, krt
src = "kernel void wild(global float *x, ulong off) { x[get_global_id(0) + off] = 1.0f; }"
ctx = krt.Context(device="gpu")
x = krt.zeros(ctx, 1024)
wild = krt.Module(ctx, source=src)["wild"]
try:
    wild(x, 1 << 40, range=1024)
    ctx.synchronize()
    raise SystemExit("no DeviceLostError")
except krt.DeviceLostError as e:
    print(e)
    assert "wild" in str(e) and ctx.device.name in str(e), str(e)
ctx.close()
del x, wild, ctx
gc.collect()
try:
    ctx = krt.Context(device="gpu")
except krt.DeviceLostError as e:
    # CUDA keeps a sticky error for the life of the process (cuda.h; on an H100 with driver 580 both a reset of
    # the primary context and a new context answer CUDA error 700): the refusal must say so, naming CUDA's answer.
    print(e)
    assert "could not recover" in str(e) and "CUDA error" in str(e), str(e)
    print("refused, saying why")
    raise SystemExit(0)
n = 1000003
y = krt.zeros(ctx, n, kind="shared")
saxpy = krt.Module(ctx, source=%r)["saxpy"]
saxpy(y, krt.asarray(ctx, np.ones(n, dtype=np.float32)), 2.0, n, range=n)
ctx.synchronize()
assert np.array_equal(np.from_dlpack(y), np.full(n, 2.0, dtype=np.float32))
print("recovered")
""" % SRC


@check("a wild write raises DeviceLostError; a new Context afterwards computes right (a process of its own)")
def _():
    import subprocess
    r = subprocess.run([sys.executable, "-c", FAULT], capture_output=True, text=True, timeout=300)
    print("     " + r.stdout.replace("\n", "\n     ").rstrip())
    assert r.returncode == 0 and r.stdout.strip().endswith(("recovered", "refused, saying why")), r.stdout + r.stderr

print(f"gpu_interop: {ran} passed, {failures} failed")
sys.exit(1 if failures else 0)
