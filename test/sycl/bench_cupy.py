"""dpnp.tensor through Intel's SYCL runtime on krt's ze_cuda against CuPy, in one process on one GPU: add of two
arrays of 2^24 float32 (12 bytes moved per element) and sum of 2^24 float32 (4 bytes per element), each with a new
result array per call and into one allocated once (out=). Prints each one's time per call and bandwidth and the
ratio dpnp.tensor / CuPy in time (above 1: slower than CuPy). Results are checked against NumPy first. The host time
per call (the loop of calls timed without its final wait) says whether a figure is the GPU's or the host's: where it
is close to the time per call, the host's side bounds it. Without CuPy it says so and exits 0 (a skip).
usage: bench_cupy.py [--log2n 24] [--reps 50]"""
import argparse
import sys
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--log2n", type=int, default=24)
ap.add_argument("--reps", type=int, default=50)
args = ap.parse_args()
n = 1 << args.log2n
try:
    import cupy as cp
except Exception as e:  # no CuPy on this machine, or one that does not load
    print(f"bench: skipped: CuPy is not usable here ({type(e).__name__}: {e})")
    sys.exit(0)
import dpctl
import dpnp.tensor as dpt

q = dpctl.SyclQueue(dpctl.get_devices()[0])
print(f"dpnp.tensor on {q.sycl_device.name} ({q.sycl_device.backend}); CuPy {cp.__version__} on "
      f"{cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)['name'].decode()}; n = 2^{args.log2n} float32")
rng = np.random.default_rng(1)
ha, hb = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
da, db = dpt.asarray(ha, sycl_queue=q), dpt.asarray(hb, sycl_queue=q)
ca, cb = cp.asarray(ha), cp.asarray(hb)
ok = np.array_equal(dpt.asnumpy(dpt.add(da, db)), ha + hb) and np.array_equal(cp.asnumpy(ca + cb), ha + hb)
ref = float(np.sum(ha, dtype=np.float64))
ok = ok and abs(float(dpt.asnumpy(dpt.sum(da))) - ref) < 1e-4 * ref and abs(float(cp.sum(ca)) - ref) < 1e-4 * ref
print("results agree with NumPy:", ok)


def timed(f, sync):
    """Best of 3 rounds: (time per call with the final wait, host time per call: the calls' return alone)."""
    f(); sync()
    best, host = float("inf"), float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(args.reps):
            f()
        t1 = time.perf_counter()
        sync()
        best = min(best, (time.perf_counter() - t0) / args.reps)
        host = min(host, (t1 - t0) / args.reps)
    return best, host


# Each operation twice: as a program writes it (a new result array each call: dpnp.tensor's allocation goes to the
# driver, zeMemAllocDevice and zeMemFree, where CuPy's comes from its pool), and into a result allocated once (out=),
# which leaves the kernel and the launch.
dc, cc = dpt.empty_like(da), cp.empty_like(ca)
ds, cs = dpt.empty((), dtype=da.dtype, sycl_queue=q), cp.empty((), dtype=ca.dtype)
for name, bytes_per, fd, fc in (("add", 12, lambda: dpt.add(da, db), lambda: ca + cb),
                                ("add out=", 12, lambda: dpt.add(da, db, out=dc), lambda: cp.add(ca, cb, out=cc)),
                                ("sum", 4, lambda: dpt.sum(da), lambda: cp.sum(ca)),
                                ("sum out=", 4, lambda: dpt.sum(da, out=ds), lambda: cp.sum(ca, out=cs))):
    td, hd = timed(fd, q.wait)
    tc, hc = timed(fc, cp.cuda.Device().synchronize)
    print(f"{name:8}: dpnp.tensor/ze_cuda {1e6 * td:9.1f} us {bytes_per * n / td / 1e9:7.1f} GB/s | "
          f"CuPy {1e6 * tc:9.1f} us {bytes_per * n / tc / 1e9:7.1f} GB/s | ratio {td / tc:.2f} | "
          f"host time per call (the calls without the wait): {1e6 * hd:.1f} and {1e6 * hc:.1f} us")
sys.exit(0 if ok else 1)
