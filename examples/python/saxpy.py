#!/usr/bin/env python3
"""saxpy from Python: y = a * x + y through the krt package, arguments converted by the kernel's reflection.

usage: python3 examples/python/saxpy.py [n]   (default 100003)
From a checkout after `make` the package is build/python (found from this file's place when `import krt` fails);
after `pip install ./python` it is the installed one. Exits 1 on a wrong answer.
"""

import os
import sys
import time

import numpy as np

try:
    import krt
except ImportError:  # a checkout after make: build/python holds the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "python"))
    import krt


def kernel_path(name):
    here = os.path.dirname(os.path.abspath(__file__))
    directory = os.environ.get("KRT_KERNELS") or os.path.join(here, "..", "..", "build", "kernels")
    return os.path.join(directory, name)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100003
    a = 2.5
    x = (np.arange(n) % 1000).astype(np.float32)
    y = (np.arange(n) % 7).astype(np.float32)
    expect = np.float32(a) * x + y  # the host reference, in float like the device

    with krt.Context() as ctx:  # the default device, or KRT_DEVICE
        print(f"device: {ctx.device.name} (driver {ctx.device.driver})")
        saxpy = krt.Module(ctx, path=kernel_path("saxpy.spv"))["saxpy"]
        print("saxpy's signature, from the module's reflection:")
        for i, info in enumerate(saxpy.args):
            print(f"  {i} {info.name}: {info.takes}")

        # A NumPy array where a device buffer belongs is refused, never copied behind your back.
        try:
            saxpy(a, x, y, n, range=n)
        except krt.KernelArgumentError as e:
            print(f"a NumPy array where a buffer belongs: krt.{type(e).__name__}: {e}")

        dx, dy = krt.asarray(ctx, x), krt.asarray(ctx, y)  # copies on the device
        config = saxpy.config(range=n)
        print(f"krt chose: group {config.group[0]}, {config.groups[0]} groups, decided by {config.limit}"
              f"{', last group partial' if config.masked else ''}")
        start = time.perf_counter()
        saxpy(a, dx, dy, n, range=n)  # float, buffer, buffer, uint: each converted as the reflection says
        ctx.synchronize()
        ms = (time.perf_counter() - start) * 1e3
        result = dy.numpy()
        wrong = int(np.count_nonzero(result != expect))
        print(f"saxpy of {n} floats: {ms:.3f} ms; {wrong} wrong: {'FAILED' if wrong else 'ok'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
