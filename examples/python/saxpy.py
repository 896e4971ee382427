#!/usr/bin/env python3
"""saxpy from Python: y = a * x + y through krt.py, a ctypes binding that marshals arguments by reflection.

usage: python3 examples/python/saxpy.py [n]   (default 100003)
Exits 1 on a wrong answer.
"""

import array
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import krt  # noqa: E402  (the binding beside this file)


def kernel_path(name):
    here = os.path.dirname(os.path.abspath(__file__))
    directory = os.environ.get("KRT_KERNELS") or os.path.join(here, "..", "..", "build", "kernels")
    return os.path.join(directory, name)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100003
    a = 2.5
    x = array.array("f", (float(i % 1000) for i in range(n)))
    y = array.array("f", (float(i % 7) for i in range(n)))
    # The host reference, rounded to float like the device.
    expect = array.array("f", (a * xi + yi for xi, yi in zip(x, y)))

    with krt.Context() as ctx:
        print(f"device: {ctx.device_name} (driver {ctx.driver_name})")
        module = ctx.module(kernel_path("saxpy.spv"))
        saxpy = module.kernel("saxpy")
        print("saxpy's signature, from the module's reflection:")
        for i, info in enumerate(saxpy.args):
            print(f"  {i} {info}")

        # A wrong argument is caught by the binding, before krt sees it, with the argument's name.
        try:
            saxpy(n, a, x, y, n)
        except TypeError as e:
            print(f"passing a Python array where a buffer belongs: TypeError: {e}")

        dx, dy = ctx.buffer(n * 4), ctx.buffer(n * 4)
        dx.write(x)
        dy.write(y)
        config = saxpy.config(n)
        print(f"krt chose: group {config['group'][0]}, {config['groups'][0]} groups, decided by {config['limit']}"
              f"{', last group partial' if config['masked'] else ''}")
        start = time.perf_counter()
        saxpy(n, a, dx, dy, n)  # float, buffer, buffer, uint: each converted as the reflection says
        ctx.synchronize()
        ms = (time.perf_counter() - start) * 1e3
        result = array.array("f", bytes(n * 4))
        dy.read_into(result)
        wrong = sum(1 for got, want in zip(result, expect) if got != want)
        print(f"saxpy of {n} floats: {ms:.3f} ms; {wrong} wrong: {'FAILED' if wrong else 'ok'}")
        dx.free()
        dy.free()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
