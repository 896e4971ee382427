"""python -m krt [krt-info's arguments]: what krt-info prints, for the libkrt this package runs on.

It runs the krt-info installed with that libkrt (<libdir>/../bin/krt-info: build/bin of a checkout, or the install
prefix's bin). Without one, it lists the devices itself, in krt-info's first lines' form.
"""
import os
import sys

import krt


def main(argv):
    lib = krt.library_path()
    if lib:
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(lib))), "bin", "krt-info")
        if os.access(tool, os.X_OK):
            sys.stdout.flush()
            os.execv(tool, [tool, *argv])
    if argv:
        print("python -m krt: krt-info is not installed beside " + str(lib) + "; only the device list is available",
              file=sys.stderr)
        return 2
    devs = krt.devices()
    print(f"krt {krt.__version__} ({lib}): {len(devs)} device{'s' if len(devs) != 1 else ''}")
    for d in devs:
        print(f"  {d.index}: {d.name} ({d.type}, driver {d.driver}), {d.compute_units} compute units, "
              f"max group {d.max_group_size}, {d.memory_bytes // (1 << 20)} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
