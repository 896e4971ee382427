#!/usr/bin/env python3
"""bench/python_launch.py: what a kernel call from Python costs above krt_launch in C, in one process.

The kernel is kernels/saxpy.cl (4 arguments: float, two global float*, uint) over a small range, so that the host's cost of
issuing a launch dominates. Rounds alternate between
  - python: `saxpy(a, x, y, n, range=n)` called CALLS times from a Python loop (perf_counter_ns around the loop),
  - c:      Kernel.bench_c(...), the same arguments converted once, then krt_launch CALLS times in a C loop,
both synchronizing the queue every SYNC launches, and the table gives each side's median ns per launch and their
difference. On a ze_cuda context it also times, when installed, CuPy's RawKernel with the same four arguments
(NumPy scalars and Python scalars) and torch's `x.add_(y)` on 1,024 floats, each with torch/CuPy's own
synchronization every SYNC calls.

  PYTHONPATH=build/python python3 bench/python_launch.py [--device cpu|host|gpu] [--calls 100000] [--rounds 5]
  python3 bench/python_launch.py --callgrind N   # N Python calls only, for valgrind --tool=callgrind (the
                                                 # instructions of kernel_call less krt_launch's, per call)
"""
import argparse
import os
import statistics
import sys
import time

try:
    import krt
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "python"))
    import krt

import numpy as np

KERNELS = os.environ.get("KRT_KERNELS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                         "kernels")
CUDA_SRC = r'''extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }'''


def time_python(k, args, rng, calls, sync, ctx):
    t0 = time.perf_counter_ns()
    for i in range(calls):
        k(*args, range=rng)
        if (i + 1) % sync == 0:
            ctx.synchronize()
    ctx.synchronize()
    return (time.perf_counter_ns() - t0) / calls


def time_loop(fn, calls, sync, synchronize):
    t0 = time.perf_counter_ns()
    for i in range(calls):
        fn()
        if (i + 1) % sync == 0:
            synchronize()
    synchronize()
    return (time.perf_counter_ns() - t0) / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--calls", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sync", type=int, default=1000)
    ap.add_argument("--n", type=int, default=1024, help="elements (the range)")
    ap.add_argument("--callgrind", type=int, default=0)
    o = ap.parse_args()

    ctx = krt.Context(device=o.device) if o.device is not None else krt.Context()
    k = krt.Module(ctx, path=os.path.join(KERNELS, "saxpy.spv"))["saxpy"]
    n = o.n
    x = krt.asarray(ctx, np.ones(n, dtype=np.float32))
    y = krt.zeros(ctx, n, dtype=np.float32)
    args = (2.0, x, y, n)
    k(*args, range=n)
    ctx.synchronize()
    if o.callgrind:
        for i in range(o.callgrind):
            k(*args, range=n)
        ctx.synchronize()
        return 0

    print(f"device: {ctx.device.name} (driver {ctx.device.driver}); {o.calls} calls per round, {o.rounds} rounds, "
          f"synchronize every {o.sync}; saxpy over {n} floats")
    rows = {"krt, Python call": [], "krt_launch, C loop": []}
    extra = {}
    cp = torch = None
    if ctx.device.driver == "ze_cuda":
        try:
            import cupy as cp
            raw = cp.RawKernel(CUDA_SRC, "saxpy")
            cx, cy = cp.ones(n, dtype=cp.float32), cp.zeros(n, dtype=cp.float32)
            grid, block = ((n + 255) // 256,), (256,)
            na, nn = np.float32(2.0), np.int32(n)
            raw(grid, block, (na, cx, cy, nn))
            cp.cuda.Device().synchronize()
            sync_cp = cp.cuda.Device().synchronize
            extra["CuPy RawKernel, NumPy scalars"] = (lambda: raw(grid, block, (na, cx, cy, nn)), sync_cp)
            extra["CuPy RawKernel, Python scalars"] = (lambda: raw(grid, block, (2.0, cx, cy, n)), sync_cp)
        except Exception as e:  # not installed, or no GPU for it
            print(f"(CuPy left out: {e})")
        try:
            import torch
            tx, ty = torch.ones(1024, device="cuda"), torch.ones(1024, device="cuda")
            tx.add_(ty)
            torch.cuda.synchronize()
            extra["torch x.add_(y), 1,024 floats"] = (lambda: tx.add_(ty), torch.cuda.synchronize)
        except Exception as e:
            print(f"(torch left out: {e})")
    for name in extra:
        rows[name] = []
    for _ in range(o.rounds):
        rows["krt, Python call"].append(time_python(k, args, n, o.calls, o.sync, ctx))
        rows["krt_launch, C loop"].append(k.bench_c(*args, range=n, n=o.calls, sync_every=o.sync))
        for name, (fn, synchronize) in extra.items():
            rows[name].append(time_loop(fn, o.calls, o.sync, synchronize))
    med = {name: statistics.median(v) for name, v in rows.items()}
    print(f"| {'what':34} | ns per launch, median | min | max |")
    print(f"| {'-' * 34} | ---: | ---: | ---: |")
    for name, v in rows.items():
        print(f"| {name:34} | {med[name]:,.0f} | {min(v):,.0f} | {max(v):,.0f} |")
    d = med["krt, Python call"] - med["krt_launch, C loop"]
    print(f"Python adds {d:,.0f} ns per call above krt_launch in C (medians of {o.rounds} rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
