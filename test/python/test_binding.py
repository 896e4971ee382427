#!/usr/bin/env python3
"""The Python binding's typed path (issue 10): each scalar goes to krt tagged with its C type, so a Python value of
the wrong kind is converted (an int for a float) or refused (a float for an int, an int that does not fit), never
reinterpreted; krt itself refuses a mistagged argument. Also the blocking copy and a module's load warnings.
Run by `make test` with KRT_TEST_KERNELS set; exits 1 on the first failure."""

import array
import ctypes
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "examples", "python"))
import krt  # noqa: E402


def kernel_path(name):
    directory = os.environ.get("KRT_TEST_KERNELS") or os.path.join(here, "..", "..", "build", "test-kernels")
    return os.path.join(directory, name + ".spv")


def expect_raises(exc, what, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return str(e)
    raise AssertionError(f"{what}: no {exc.__name__} raised")


def main():
    n = 1001
    with krt.Context() as ctx:
        module = ctx.module(kernel_path("krt_typed"))
        axpy = module.kernel("krt_typed_axpy")  # (global float *y, global const float *x, float a, int n)
        x = array.array("f", (float(i % 13) for i in range(n)))
        y = array.array("f", (1.0 for _ in range(n)))
        bx, by = ctx.buffer(4 * n), ctx.buffer(4 * n)
        bx.write(x)
        by.write(y)

        # Each argument's tag, from the reflected type and the value's sign.
        info = axpy.args
        assert axpy._marshal(2, info[2], 2)[2] == krt.ARG_TYPE_FLOAT
        assert axpy._marshal(3, info[3], 5)[2] == krt.ARG_TYPE_UINT32
        assert axpy._marshal(3, info[3], -5)[2] == krt.ARG_TYPE_INT32
        assert axpy._marshal(0, info[0], by)[2] == krt.ARG_TYPE_POINTER

        # A float for the int count is refused, naming the argument; so is a count that does not fit.
        msg = expect_raises(TypeError, "float for int", axpy, n, by, bx, 2.0, float(n))
        assert "argument 3 (n)" in msg and "pass an int" in msg, msg
        msg = expect_raises(OverflowError, "int too large", axpy, n, by, bx, 2.0, 2 ** 40)
        assert "argument 3 (n)" in msg, msg
        msg = expect_raises(TypeError, "string for float", axpy, n, by, bx, "2", n)
        assert "argument 2 (a)" in msg, msg

        # An int for the float factor is converted: y = 1 + 3 * x.
        axpy(n, by, bx, 3, n)
        out = array.array("f", bytes(4 * n))
        by.read_into(out)
        for i in range(n):
            assert out[i] == 1.0 + 3.0 * x[i], (i, out[i])

        # krt refuses a mistagged argument that the binding's own checks would not see: the float's bytes
        # tagged as an int32_t for the float argument.
        a = ctypes.c_float(3.0)
        nn = ctypes.c_int32(n)
        yp, xp = ctypes.c_void_p(by.ptr.value), ctypes.c_void_p(bx.ptr.value)
        args = (krt._Arg * 4)(
            krt._Arg(ctypes.addressof(yp), 8, krt.ARG_TYPE_POINTER), krt._Arg(ctypes.addressof(xp), 8, krt.ARG_TYPE_POINTER),
            krt._Arg(ctypes.addressof(a), 4, krt.ARG_TYPE_INT32), krt._Arg(ctypes.addressof(nn), 4, krt.ARG_TYPE_INT32))
        desc = krt._LaunchDesc(range=krt._NDRange(1, (ctypes.c_uint64 * 3)(n)), args=args, num_args=4)
        code = krt._launch(axpy.handle, ctypes.byref(desc))
        err = krt.KrtError("krt_launch", code)
        assert err.name == "KRT_ERROR_INVALID_KERNEL_ARGUMENT", err
        assert "is float but an int32_t was passed" in err.message, err.message
        # Untagged, the same bytes pass the size-only check (what an embedder that marshals bytes relies on).
        args[2].type = krt.ARG_TYPE_NONE
        assert krt._launch(axpy.handle, ctypes.byref(desc)) == 0
        ctx.synchronize()
        by.read_into(out)
        for i in range(n):
            assert out[i] == 1.0 + 6.0 * x[i], (i, out[i])

        # Load warnings: none for a clean module, at least one for a tolerated structured-order rule.
        assert module.warnings() == []
        o2 = ctx.module(kernel_path("o2/krt_o2_loopmerge"))
        warnings = o2.warnings()
        assert warnings and "structured-order rule" in warnings[0], warnings
        bx.free()
        by.free()
    print("test_binding: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"test_binding: FAILED: {e!r}", file=sys.stderr)
        raise SystemExit(1)
