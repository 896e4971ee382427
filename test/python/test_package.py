"""The Python package krt (python/), on ze_pocl ("cpu") and the host device ("host").

Run by make test: PYTHONPATH=build/python /usr/bin/python3 -m pytest test/python. Kernels come from
test/kernels/krt_python.cl (both devices) and krt_python_vec.cl (ze_pocl), built into $KRT_TEST_KERNELS.
"""
import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import krt

KERNELS = os.environ.get("KRT_TEST_KERNELS") or os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                                             "test-kernels")
DEVICES = ["cpu", "host"]


def spv(name):
    return os.path.join(KERNELS, name + ".spv")


@pytest.fixture(params=DEVICES)
def ctx(request):
    c = krt.Context(device=request.param)
    yield c
    c.close()


@pytest.fixture
def cpu():
    c = krt.Context(device="cpu")
    yield c
    c.close()


@pytest.fixture
def mod(ctx):
    return krt.Module(ctx, path=spv("krt_python"))


# ------------------------------------------------------------------------------------------------------------
# Devices and contexts
# ------------------------------------------------------------------------------------------------------------


def test_devices_and_context_choice():
    devs = krt.devices()
    kinds = {d.type for d in devs}
    assert "CPU" in kinds and "host" in kinds
    for d in devs:
        assert isinstance(d.index, int) and d.name and d.max_group_size > 0
        # krt_device_info.device_memory_host_accessible: a CPU's and the host device's memory is the host's.
        assert d.device_memory_host_accessible is (d.type in ("CPU", "host"))
    cpu_index = next(d.index for d in devs if d.type == "CPU")
    for choice in ("cpu", cpu_index, devs[cpu_index], devs[cpu_index].name[:6]):
        with krt.Context(device=choice) as c:
            assert c.device.type == "CPU" and c.device.index == cpu_index
    with krt.Context(device="host") as c:
        assert c.device.type == "host"
    with pytest.raises(krt.NoDeviceError) as e:
        krt.Context(device="no-such-device")
    assert isinstance(e.value, LookupError) and e.value.name == "KRT_ERROR_NO_DEVICE"
    with pytest.raises(TypeError):
        krt.Context(device=1.5)


def test_context_manager_closes(ctx):
    with krt.Context(device="cpu") as c:
        m = krt.Module(c, path=spv("krt_python"))
        k = m["krt_py_fill"]
        a = krt.zeros(c, 8, dtype=np.int32, kind="shared")
    assert c.closed
    with pytest.raises(krt.InvalidStateError):
        k(a, 1, range=8)
    with pytest.raises(krt.InvalidStateError):
        krt.empty(c, 4)
    with pytest.raises(krt.InvalidStateError):
        krt.Module(c, path=spv("krt_python"))
    # The memory stays readable after close: the krt context lives until its last object goes.
    assert np.asarray(a).tolist() == [0] * 8
    c.close()  # twice: nothing


def test_extensions(ctx):
    ext = ctx.extensions
    assert isinstance(ext, tuple)
    for name in ext:
        assert ctx.has_extension(name)
    assert not ctx.has_extension("ZE_no_such_extension")


# ------------------------------------------------------------------------------------------------------------
# Modules and kernels
# ------------------------------------------------------------------------------------------------------------


def test_module_kernels_and_lookup(mod):
    assert "krt_py_axpy" in mod.kernels and "krt_py_ints" in mod.kernels
    k = mod["krt_py_axpy"]
    assert k.name == "krt_py_axpy" and mod.krt_py_axpy.name == "krt_py_axpy"
    assert [a.name for a in k.args] == ["y", "x", "a", "n"]
    assert [a.kind for a in k.args] == ["global pointer", "global pointer", "scalar", "scalar"]
    assert [a.declared for a in k.args] == ["float*", "float*", "float", "int"]
    assert k.info.num_args == 4 and not k.info.uses_barrier
    assert mod["krt_py_local"].info.uses_barrier
    assert k.properties.max_group_size >= 1
    with pytest.raises(krt.KernelNotFoundError) as e:
        mod["nope"]
    assert isinstance(e.value, KeyError) and "krt_py_axpy" in str(e.value)
    with pytest.raises(AttributeError):
        mod.nope


def test_module_from_bytes_and_source(cpu):
    with open(spv("krt_python"), "rb") as f:
        m = krt.Module(cpu, spirv=f.read())
    assert "krt_py_fill" in m.kernels
    src = "kernel void twice(global int *x, int k) { x[get_global_id(0)] *= K * k; }"
    m = krt.Module(cpu, source=src, options="-DK=2")
    a = krt.asarray(cpu, np.arange(10, dtype=np.int32), kind="shared")
    m["twice"](a, 3, range=10, block=True)
    assert np.asarray(a).tolist() == [6 * i for i in range(10)]


def test_source_modules_on_every_device(ctx):
    """source= on ze_pocl and on the host device (which krt compiles with krt-cc --host), options included."""
    src = "kernel void lin(global int *x, int n) { int i = get_global_id(0); if (i < n) x[i] = A * i + B; }"
    m = krt.Module(ctx, source=src, options="-DA=5 -DB=-2")
    x = krt.zeros(ctx, 333, dtype=np.int32, kind="shared")
    m.lin(x, 333, range=333, block=True)
    assert np.asarray(x).tolist() == [5 * i - 2 for i in range(333)]
    with pytest.raises(krt.ModuleBuildError) as e:
        krt.Module(ctx, source="kernel void bad(global int *x) { x[0] = undeclared; }")
    assert "undeclared" in str(e.value)


def test_module_errors(cpu):
    with pytest.raises(krt.FileError) as e:
        krt.Module(cpu, path="/no/such/file.spv")
    assert isinstance(e.value, OSError)
    with pytest.raises(krt.InvalidModuleError) as e:
        krt.Module(cpu, spirv=b"\x07\x23\x02\x03" + b"\0" * 60)
    assert isinstance(e.value, ValueError)
    with pytest.raises(krt.ModuleBuildError) as e:
        krt.Module(cpu, source="kernel void broken(global int *x) { x[0] = undeclared_name; }")
    assert "undeclared_name" in e.value.build_log
    with pytest.raises(TypeError):
        krt.Module(cpu)
    with pytest.raises(TypeError):
        krt.Module(cpu, path=spv("krt_python"), spirv=b"")


def test_spec_constants(cpu):
    # krt_spec.cl: SpecId 1 is an int (default 7), 2 an int (-3), 3 a long (5000000000).
    m = krt.Module(cpu, path=spv("krt_spec"), spec_constants={1: 11, 3: np.int64(-2**40)})
    out = krt.zeros(cpu, 3, dtype=np.int64, kind="shared")
    m["krt_spec_values"](out, range=1, block=True)
    assert np.asarray(out).tolist() == [11, -3, -2**40]
    with pytest.raises(krt.InvalidArgumentError) as e:
        krt.Module(cpu, path=spv("krt_spec"), spec_constants={1: np.int64(3)})  # 8 bytes for an int
    assert isinstance(e.value, ValueError)
    with pytest.raises(TypeError):
        krt.Module(cpu, path=spv("krt_spec"), spec_constants={1: "3"})


# ------------------------------------------------------------------------------------------------------------
# Arguments, by the kernel's reflection
# ------------------------------------------------------------------------------------------------------------


def test_integer_arguments_arrive_unchanged(ctx, mod):
    out = krt.zeros(ctx, 8, dtype=np.int64, kind="shared")
    vals = [-128, 255, -32768, 65535, -2**31, 2**32 - 1, -2**63, 2**63 - 1]
    mod["krt_py_ints"](out, *vals, range=1, block=True)
    got = np.asarray(out).tolist()
    # ulong 2**63-1 and the unsigned 8-32-bit values come back as written; uint/ushort/uchar are zero-extended.
    assert got == vals
    # NumPy integers and bools are integers too.
    mod["krt_py_ints"](out, np.int8(-1), np.uint8(7), True, np.int64(9), np.int32(-5), np.uint32(2**32 - 1), 1,
                       np.uint64(2**64 - 1), range=1, block=True)
    got = np.asarray(out).tolist()
    assert got[:6] == [-1, 7, 1, 9, -5, 2**32 - 1] and got[6] == 1 and got[7] == -1


def test_integer_that_does_not_fit_is_refused(ctx, mod):
    out = krt.zeros(ctx, 8, dtype=np.int64, kind="shared")
    k = mod["krt_py_ints"]
    # The module keeps the declared types (krt-cc builds it), so the sign counts: 255 is not a char, -1 not a uint.
    assert [a.declared for a in k.args] == ["long*", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"]
    for i, bad in [(1, 128 * 2), (1, -129), (1, 255), (2, -1), (5, 2**32 + 5), (5, -2**31 - 1), (5, 2**31),
                   (6, -1), (8, 2**64), (8, -1), (7, -2**63 - 1), (7, 2**63)]:
        args = [out, 0, 0, 0, 0, 0, 0, 0, 0]
        args[i] = bad
        with pytest.raises(krt.KernelArgumentError) as e:
            k(*args, range=1)
        assert isinstance(e.value, ValueError) and not isinstance(e.value, TypeError)
        assert f"argument {i} (" in str(e.value) and str(bad) in str(e.value)


def test_wrong_types_and_counts(ctx, mod):
    k = mod["krt_py_axpy"]
    x = krt.zeros(ctx, 4)
    y = krt.zeros(ctx, 4)
    cases = [((y, x, "2", 4), "argument 2 (a)", "str"), ((y, x, 2.0, 4.0), "argument 3 (n)", "float"),
             ((y, x, 2.0, np.float32(4)), "argument 3 (n)", "float32"), ((y, 3, 2.0, 4), "argument 1 (x)", "int"),
             ((y, x, None, 4), "argument 2 (a)", "NoneType"), ((y, x, 1j, 4), "argument 2 (a)", "complex")]
    for args, where, typename in cases:
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(*args, range=4)
        err = e.value
        assert isinstance(err, TypeError) and isinstance(err, krt.KernelArgumentError) and isinstance(err, krt.Error)
        assert where in str(err) and typename in str(err) and "krt_py_axpy" in str(err)
        assert err.name == "KRT_ERROR_INVALID_KERNEL_ARGUMENT"
    with pytest.raises(krt.ArgumentTypeError) as e:
        k(y, x, 2.0, range=4)
    assert "takes 4 arguments (y, x, a, n), 3 given" in str(e.value)
    with pytest.raises(krt.KernelArgumentError):
        k(y, x, 1e39, 4, range=4)  # beyond float's range


def test_float_arguments(ctx, mod):
    out = krt.zeros(ctx, 2, dtype=np.float64, kind="shared")
    k = mod["krt_py_floats"]
    k(out, 0.1, 0.1, range=1, block=True)
    assert np.asarray(out).tolist() == [float(np.float32(0.1)), 0.1]
    k(out, 3, np.float16(1.5), range=1, block=True)  # an int for a float converts, as in C
    assert np.asarray(out).tolist() == [3.0, 1.5]
    k(out, float("inf"), float("nan"), range=1, block=True)
    got = np.asarray(out)
    assert got[0] == np.inf and np.isnan(got[1])


def test_vector_half_struct_arguments(cpu):
    k = krt.Module(cpu, path=spv("krt_python_vec"))["krt_py_other"]
    out = krt.zeros(cpu, 11, dtype=np.float32, kind="shared")
    pair = np.array([(7, 2.5)], dtype=[("a", "<i4"), ("b", "<f4")])
    k(out, (1, 2, 3, 4.5), 0.333, pair, [-3, 4], np.array([1, 2, 3], dtype=np.float32), 200, range=1, block=True)
    got = np.asarray(out).tolist()
    assert got[:4] == [1, 2, 3, 4.5]
    assert got[4] == float(np.float16(0.333))
    assert got[5:] == [7, 2.5, -3, 4, 6, 200]
    with pytest.raises(krt.ArgumentTypeError):
        k(out, (1, 2, 3), 0.5, pair, [1, 2], (1, 2, 3), 0, range=1)  # a float4 of 3
    with pytest.raises(krt.KernelArgumentError):
        k(out, (1, 2, 3, 4), 0.5, b"\0" * 7, [1, 2], (1, 2, 3), 0, range=1)  # a struct of 8 bytes
    with pytest.raises(krt.KernelArgumentError):
        k(out, (1, 2, 3, 4), 70000.0, pair, [1, 2], (1, 2, 3), 0, range=1)  # beyond half's range
    with pytest.raises(krt.KernelArgumentError):
        k(out, (1, 2, 3, 4), 0.5, pair, [1, 300], (1, 2, 3), 0, range=1)  # a char of 300


def test_local_and_constant_arguments(ctx, mod):
    n = 64
    out = krt.zeros(ctx, n, dtype=np.int32, kind="shared")
    mod["krt_py_local"](out, krt.Local(16 * 4), range=n, group=16, block=True)
    expect = [(i // 16) * 16 + (i % 16 + 1) % 16 for i in range(n)]
    assert np.asarray(out).tolist() == expect
    with pytest.raises(krt.ArgumentTypeError):
        mod["krt_py_local"](out, 64, range=n, group=16)
    c = krt.asarray(ctx, np.arange(n, dtype=np.int32))
    mod["krt_py_const"](out, c, range=n, block=True)
    assert np.asarray(out).tolist() == [2 * i for i in range(n)]


# Pointer arguments: the array's dtype against the parameter's declared type (krt_arg_info.type_name), where the
# module keeps it (krt-cc's modules do).


def test_pointer_dtype_must_match_the_declared_type(ctx, mod):
    k = mod["krt_py_axpy"]  # global float *y, global const float *x, float a, int n
    n = 8
    x = krt.asarray(ctx, np.arange(n, dtype=np.float32))
    y = krt.zeros(ctx, n, dtype=np.float32, kind="shared")
    cases = [(1, "x", np.int32, "int32"), (1, "x", np.float64, "float64"), (0, "y", np.float16, "float16"),
             (0, "y", np.uint32, "uint32"), (1, "x", np.complex128, "complex128"), (1, "x", np.bool_, "bool")]
    for i, name, dtype, shown in cases:
        args = [y, x, 2.0, n]
        args[i] = krt.zeros(ctx, n, dtype=dtype)
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(*args, range=n)
        err, msg = e.value, str(e.value)
        assert isinstance(err, TypeError) and err.name == "KRT_ERROR_INVALID_KERNEL_ARGUMENT"
        assert f"argument {i} ({name}) of krt_py_axpy is float* (float32 elements)" in msg, msg
        assert f"a krt.Array of {shown} was passed" in msg and ".astype(np.float32)" in msg, msg
    # complex64 for float*: the same memory as (re, im) pairs is what .view gives.
    with pytest.raises(krt.ArgumentTypeError) as e:
        k(y, krt.zeros(ctx, n, dtype=np.complex64), 2.0, n, range=n)
    assert "a krt.Array of complex64" in str(e.value) and ".view(np.float32)" in str(e.value)
    ctx.synchronize()
    assert np.asarray(y).tolist() == [0.0] * n  # nothing was launched
    k(y, x, 2.0, n, range=n, block=True)
    assert np.asarray(y).tolist() == [2.0 * i for i in range(n)]
    # The fix the message gives: an int32 array converted with .astype(np.float32).
    k(y, krt.asarray(ctx, np.arange(n, dtype=np.int32)).astype(np.float32), 1.0, n, range=n, block=True)
    assert np.asarray(y).tolist() == [3.0 * i for i in range(n)]


def test_pointer_sign_and_width_mismatches(ctx, mod):
    k = mod["krt_py_ptr_types"]  # global uint *u, ulong *ul, short *s, ushort *us, long *l, double *d
    assert [a.declared for a in k.args] == ["uint*", "ulong*", "short*", "ushort*", "long*", "double*"]
    n = 4
    good = {"u": np.uint32, "ul": np.uint64, "s": np.int16, "us": np.uint16, "l": np.int64, "d": np.float64}
    names = list(good)
    arrays = [krt.asarray(ctx, np.arange(n, dtype=good[name]), kind="shared") for name in names]
    # The same width of the other sign: refused, with the reinterpretation (.view) as the fix.
    for name, dtype, want in [("u", np.int32, "uint32"), ("ul", np.int64, "uint64"), ("s", np.uint16, "int16"),
                              ("us", np.int16, "uint16"), ("l", np.uint64, "int64")]:
        i = names.index(name)
        args = list(arrays)
        args[i] = krt.zeros(ctx, n, dtype=dtype)
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(*args, range=n)
        msg = str(e.value)
        assert f"argument {i} ({name}) of krt_py_ptr_types is {k.args[i].declared} ({want} elements)" in msg, msg
        assert f"krt.Array of {np.dtype(dtype).name} was passed" in msg and f".view(np.{want})" in msg, msg
    # Another width or kind: refused, with the conversion (.astype) as the fix.
    for name, dtype, want in [("u", np.int64, "uint32"), ("ul", np.uint32, "uint64"), ("s", np.int8, "int16"),
                              ("l", np.int32, "int64"), ("d", np.float32, "float64"), ("d", np.int64, "float64")]:
        i = names.index(name)
        args = list(arrays)
        args[i] = krt.zeros(ctx, n, dtype=dtype)
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(*args, range=n)
        msg = str(e.value)
        assert f"argument {i} ({name})" in msg and f"({want} elements)" in msg and f".astype(np.{want})" in msg, msg
    k(*arrays, range=n, block=True)
    for name, a in zip(names, arrays):
        assert np.asarray(a).tolist() == list(range(1, n + 1)), name
    # The fix the message gives: an int32 array viewed as uint32 is the same memory, which the kernel updates.
    signed = krt.asarray(ctx, np.array([0, 5, -1, 2**31 - 1], dtype=np.int32), kind="shared")
    args = list(arrays)
    args[0] = signed.view(np.uint32)
    k(*args, range=n, block=True)
    assert np.asarray(signed).tolist() == [1, 6, 0, -2**31]
    # What a call takes, as the messages say it: the declared pointee, signed or not.
    assert [a.takes for a in k.args][:2] == ["global uint*", "global ulong*"]


def test_byte_and_void_pointers_take_any_dtype(ctx, mod):
    k = mod["krt_py_bytes"]  # global uchar *dst, global const char *src, global void *also, uint n
    assert [a.declared for a in k.args] == ["uchar*", "char*", "void*", "uint"]
    src = krt.asarray(ctx, np.array([1.5, -2.25], dtype=np.float32), kind="shared")
    dst = krt.zeros(ctx, 2, dtype=np.int32, kind="shared")
    also = krt.zeros(ctx, 1, dtype=np.float64, kind="shared")
    k(dst, src, also, 8, range=1, block=True)
    assert np.asarray(dst).tobytes() == np.asarray(src).tobytes() == np.asarray(also).tobytes()
    assert np.asarray(dst).view(np.float32).tolist() == [1.5, -2.25]


def test_vector_and_half_pointees(cpu):
    k = krt.Module(cpu, path=spv("krt_python_vec"))["krt_py_vec_ptrs"]  # float *out, float4 *v, half *h
    assert [a.declared for a in k.args] == ["float*", "float4*", "half*"]
    n = 4
    out = krt.zeros(cpu, n, dtype=np.float32, kind="shared")
    v = krt.asarray(cpu, np.arange(4 * n, dtype=np.float32))  # a float4* takes float32 elements, 4 per vector
    h = krt.asarray(cpu, np.full(n, 0.5, dtype=np.float16))
    k(out, v, h, range=n, block=True)
    assert np.asarray(out).tolist() == (np.arange(4 * n).reshape(n, 4).sum(axis=1) + 0.5).tolist()
    with pytest.raises(krt.ArgumentTypeError) as e:
        k(out, krt.zeros(cpu, 4 * n, dtype=np.float64), h, range=n)
    msg = str(e.value)
    assert "argument 1 (v)" in msg and "float4* (float32 elements)" in msg and "float64" in msg, msg
    assert ".astype(np.float32)" in msg
    with pytest.raises(krt.ArgumentTypeError) as e:
        k(out, v, krt.zeros(cpu, n, dtype=np.float32), range=n)
    msg = str(e.value)
    assert "argument 2 (h)" in msg and "half* (float16 elements)" in msg and ".astype(np.float16)" in msg, msg


def test_modules_without_declared_types_leave_pointers_unchecked(cpu):
    # The same module with its kernel_arg_type strings renamed: krt then knows no declared type (as for a module
    # built other than by krt-cc), and a pointer takes an array of any dtype, as before the check.
    with open(spv("krt_python"), "rb") as f:
        spirv = f.read()
    assert b"kernel_arg_type." in spirv
    m = krt.Module(cpu, spirv=spirv.replace(b"kernel_arg_type.", b"kernel_arg_typX."))
    k = m["krt_py_fill"]
    assert k.args[0].declared == "" and k.args[0].takes == "global int*"
    out = krt.zeros(cpu, 4, dtype=np.uint32, kind="shared")
    k(out, 7, range=4, block=True)
    assert np.asarray(out).tolist() == [7, 8, 9, 10]


def test_exact_ranges_in_1_2_3_dimensions(ctx, mod):
    k = mod["krt_py_fill"]
    for rng in [1, 7, 1000003, (33, 17), (5, 7, 11)]:
        total = int(np.prod(rng))
        out = krt.empty(ctx, total + 1, dtype=np.int32, kind="shared")
        np.asarray(out)[:] = -1
        k(out, 100, range=rng, block=True)
        got = np.asarray(out)
        assert np.array_equal(got[:total], 100 + np.arange(total, dtype=np.int32)), rng
        assert got[total] == -1, "wrote past the range"


def test_range_and_group_errors(ctx, mod):
    k = mod["krt_py_fill"]
    out = krt.zeros(ctx, 16, dtype=np.int32)
    with pytest.raises(krt.NDRangeError):
        k(out, 1)  # no range=
    with pytest.raises(krt.NDRangeError):
        k(out, 1, range=0)
    with pytest.raises(krt.NDRangeError):
        k(out, 1, range=-1)
    with pytest.raises(TypeError):
        k(out, 1, range=(1, 2, 3, 4))
    with pytest.raises(krt.GroupSizeError) as e:
        k(out, 1, range=8, group=1 << 20)  # over the device's maximum (a group over the range is one partial group)
    assert isinstance(e.value, ValueError)
    with pytest.raises(TypeError):
        k(out, 1, range=8, colour="red")


def test_range_values_name_the_keyword(ctx, mod):
    k = mod["krt_py_fill"]
    out = krt.zeros(ctx, 64, dtype=np.int32, kind="shared")
    # Sizes that are not positive, or too large: krt.NDRangeError (a ValueError).
    for bad in (-1, 0, (8, 0), (4, -2, 1), 2**64, (2, 2**70)):
        with pytest.raises(krt.NDRangeError) as e:
            k(out, 1, range=bad)
        msg = str(e.value)
        assert msg.startswith(f"range={bad!r}: ") and ("must be a positive int" in msg or "2**64" in msg), msg
    # Not an int or a tuple of 1 to 3 ints: krt.ArgumentTypeError (a TypeError).
    for bad, part in [(1.5, "not float"), ((8, 2.0), "not float"), ("8", "not str"), (None, "not NoneType"),
                      (True, "not bool"), ((), "1 to 3 sizes, not 0"), ((1, 2, 3, 4), "1 to 3 sizes, not 4")]:
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(out, 1, range=bad)
        msg = str(e.value)
        assert isinstance(e.value, TypeError) and msg.startswith(f"range={bad!r}: ") and part in msg, msg
    # NumPy integers are ints; a correct range still runs.
    k(out, 3, range=(np.int64(4), np.uint8(2)), block=True)
    assert np.asarray(out)[:8].tolist() == list(range(3, 11))


def test_group_values_name_the_keyword(ctx, mod):
    k = mod["krt_py_fill"]
    out = krt.zeros(ctx, 64, dtype=np.int32, kind="shared")
    # A 0 was read as "krt chooses" (krt_launch_desc.group all 0), silently.
    for rng, bad, part in [(8, 0, "positive int"), (8, (0,), "positive int"), (8, -4, "positive int"),
                           ((8, 8), (4, 0), "positive int"), (8, 2**32, "2**32-1"),
                           ((8, 8), (4,), "range=(8, 8) has 2"), (8, (4, 4), "range=8 has 1"),
                           (8, 1 << 20, "exceeds the device's")]:
        with pytest.raises(krt.GroupSizeError) as e:
            k(out, 1, range=rng, group=bad)
        msg = str(e.value)
        assert msg.startswith(f"group={bad!r}: ") and part in msg, msg
    with pytest.raises(krt.GroupSizeError) as e:
        k(out, 1, group=(4,), range=(8, 8))  # the keywords' order does not matter
    assert str(e.value).startswith("group=(4,): ")
    for bad, part in [(2.0, "not float"), ((4.0,), "not float"), ("4", "not str"), ((1, 1, 1, 1), "not 4")]:
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(out, 1, range=8, group=bad)
        msg = str(e.value)
        assert msg.startswith(f"group={bad!r}: ") and part in msg, msg
    k(out, 5, range=(4, 4), group=(2, np.int32(4)), block=True)
    assert np.asarray(out)[:16].tolist() == list(range(5, 21))
    # A group larger than the range runs as one partial group, as krt's own choice for a small range does.
    k(out, 7, range=8, group=16, block=True)
    assert np.asarray(out)[:8].tolist() == list(range(7, 15)), np.asarray(out)[:8]
    k(out, 1, range=8, group=None, block=True)  # None: krt chooses
    assert np.asarray(out)[:8].tolist() == list(range(1, 9))


def test_queue_wait_and_block_values_name_the_keyword(ctx, mod):
    k = mod["krt_py_fill"]
    out = krt.zeros(ctx, 16, dtype=np.int32, kind="shared")
    with krt.Context(device=ctx.device.type.lower()) as other:  # "cpu" or "host"
        other_event = krt.Module(other, path=spv("krt_python"))["krt_py_fill"](
            krt.zeros(other, 4, dtype=np.int32), 0, range=4)
        other.synchronize()
        type_cases = [(dict(queue=3), "queue=3: "), (dict(queue="q"), "queue='q': "), (dict(wait=3), "wait=3: "),
                      (dict(wait=[3]), "wait=[3]: "), (dict(block="no"), "block='no': "),
                      (dict(block=2), "block=2: "), (dict(block=None), "block=None: ")]
        for kw, start in type_cases:
            with pytest.raises(krt.ArgumentTypeError) as e:
                k(out, 1, range=16, **kw)
            assert isinstance(e.value, TypeError) and str(e.value).startswith(start), str(e.value)
        ev = k(out, 1, range=16)
        with pytest.raises(krt.ArgumentTypeError) as e:
            k(out, 1, range=16, wait=ev)  # one event, not a list of them
        assert "wait=[event]" in str(e.value)
        for kw, start in [(dict(queue=other.default_queue), "queue="), (dict(wait=[other_event]), "wait=")]:
            with pytest.raises(krt.InvalidArgumentError) as e:
                k(out, 1, range=16, **kw)
            msg = str(e.value)
            assert msg.startswith(start) and "another context" in msg, msg
    ev = k(out, 2, range=16, queue=ctx.queue(), wait=[ev], block=True)
    assert ev.done and np.asarray(out).tolist() == list(range(2, 18))
    k(out, 3, range=16, block=np.True_)
    assert np.asarray(out).tolist() == list(range(3, 19))


def test_config_tune_and_bench_keywords(ctx, mod):
    k = mod["krt_py_axpy"]
    for bad in (0, -1, (8, 0)):
        with pytest.raises(krt.NDRangeError) as e:
            k.config(bad)
        assert str(e.value).startswith(f"range={bad!r}: ")
    for bad in (1.5, (), (1, 2, 3, 4)):
        with pytest.raises(krt.ArgumentTypeError) as e:
            k.config(range=bad)
        assert str(e.value).startswith(f"range={bad!r}: ")
    n = 64
    x = krt.zeros(ctx, n)
    y = krt.zeros(ctx, n)
    with pytest.raises(krt.GroupSizeError) as e:
        k.tune(y, x, 1.0, n, range=n, group=(0,))
    assert str(e.value).startswith("group=(0,): ")
    # tune's sizes are 32-bit: 2**32 samples was 0 samples, silently.
    for kw, start in [(dict(samples=-1), "samples=-1: "), (dict(samples=2**32), "samples=4294967296: "),
                      (dict(local_bytes_per_item=-5), "local_bytes_per_item=-5: ")]:
        with pytest.raises(krt.InvalidArgumentError) as e:
            k.tune(y, x, 1.0, n, range=n, **kw)
        assert str(e.value).startswith(start), str(e.value)
    with pytest.raises(krt.ArgumentTypeError) as e:
        k.tune(y, x, 1.0, n, range=n, samples=1.5)
    assert str(e.value).startswith("samples=1.5: ")
    with pytest.raises(krt.InvalidArgumentError) as e:
        k.bench_c(y, x, 1.0, n, range=n, n=-1)
    assert str(e.value).startswith("n=-1: ")
    with pytest.raises(krt.ArgumentTypeError) as e:
        k.tune(y, krt.zeros(ctx, n, dtype=np.float64), 1.0, n, range=n)  # tune converts as a call does
    assert k.tune(y, x, 1.0, n, range=n, samples=1).candidates >= 1
    assert k.config((np.int64(1000003),)).dims == 1


def test_config_and_tune(ctx, mod):
    k = mod["krt_py_axpy"]
    cfg = k.config(1000003)
    assert cfg.dims == 1 and cfg.group[0] >= 1 and cfg.groups[0] == -(-1000003 // cfg.group[0])
    assert isinstance(cfg.limit, str) and cfg.masked == (1000003 % cfg.group[0] != 0)
    n = 4096
    x = krt.zeros(ctx, n)
    y = krt.zeros(ctx, n)
    t = k.tune(y, x, 1.0, n, range=n, samples=1)
    assert t.candidates >= 1 and t.best_ns > 0 and t.best_ns <= t.rule_ns * 1.0001


# ------------------------------------------------------------------------------------------------------------
# Arrays, NumPy and DLPack
# ------------------------------------------------------------------------------------------------------------


def test_readme_saxpy(ctx, mod):
    n = 100003
    saxpy = mod["krt_py_axpy"]
    x = krt.asarray(ctx, np.arange(n, dtype=np.float32))
    y = krt.zeros(ctx, n, dtype=np.float32, kind="shared")
    assert x.kind == "device" and x.ptr != np.arange(1).__array_interface__["data"][0]
    ev = saxpy(y, x, 2.0, n, range=n)
    assert isinstance(ev, krt.Event)
    ev.wait()
    assert ev.done
    view = np.from_dlpack(y)
    assert view.__array_interface__["data"][0] == y.ptr  # no copy
    assert np.array_equal(view, 2 * np.arange(n, dtype=np.float32))
    assert np.array_equal(x.numpy(), np.arange(n, dtype=np.float32))


def test_array_properties_and_copies(ctx):
    a = krt.empty(ctx, (3, 4), dtype=np.int16, kind="host")
    assert a.shape == (3, 4) and a.ndim == 2 and a.size == 12 and a.nbytes == 24 and a.itemsize == 2
    assert a.dtype == np.int16 and a.typestr == "<i2" and a.strides == (8, 2) and len(a) == 3
    src = np.arange(12, dtype=np.int16).reshape(3, 4)
    a.copy_from(src)
    assert np.array_equal(a.numpy(), src)
    dst = np.zeros((3, 4), dtype=np.int16)
    a.copy_to(dst)
    assert np.array_equal(dst, src)
    with pytest.raises(ValueError):
        a.copy_from(np.zeros(5, dtype=np.int16))
    with pytest.raises(TypeError):
        a.copy_from("not a buffer")
    with pytest.raises(ValueError):
        krt.empty(ctx, 4, kind="texture")
    with pytest.raises(TypeError):
        krt.empty(ctx, 4, dtype=object)
    with pytest.raises(krt.OutOfDeviceMemoryError) as e:
        krt.empty(ctx, 2**60, dtype=np.uint8)
    assert isinstance(e.value, MemoryError)
    z = krt.zeros(ctx, 0)
    assert z.size == 0 and z.numpy().shape == (0,)


def test_array_view_and_astype(ctx):
    a = krt.asarray(ctx, np.array([1, -1, 2**31 - 1, -2**31], dtype=np.int32), kind="shared")
    v = a.view(np.uint32)  # the same memory, read as uint32
    assert v.ptr == a.ptr and v.dtype == np.uint32 and v.shape == (4,) and v.kind == "shared"
    assert np.asarray(v).tolist() == [1, 2**32 - 1, 2**31 - 1, 2**31]
    assert a.view("int16").shape == (8,) and a.view(np.int64).shape == (2,)
    m = krt.asarray(ctx, np.arange(6, dtype=np.int32).reshape(2, 3))
    assert m.view(np.uint8).shape == (2, 12) and m.view(np.uint8).nbytes == m.nbytes
    with pytest.raises(ValueError):
        krt.zeros(ctx, 3, dtype=np.int16).view(np.int32)  # 6 bytes are not whole int32s
    # The view keeps the memory: the array freed and dropped, the view still reads it.
    a.free()
    del a
    gc.collect()
    junk = [krt.zeros(ctx, 4, dtype=np.int32, kind="shared") for _ in range(50)]  # would reuse freed memory
    for j in junk:
        np.asarray(j)[:] = -7
    assert np.asarray(v).tolist() == [1, 2**32 - 1, 2**31 - 1, 2**31]
    v.free()
    with pytest.raises(krt.InvalidStateError):
        v.view(np.int32)
    # astype: a converted copy, in an array of the same kind.
    f = krt.asarray(ctx, np.array([1.75, -2.5, 3.0]), kind="device")
    g = f.astype(np.float32)
    assert g.dtype == np.float32 and g.kind == "device" and g.ptr != f.ptr
    assert g.numpy().tolist() == [1.75, -2.5, 3.0]
    assert f.astype(np.int32, kind="shared").numpy().tolist() == [1, -2, 3]
    assert f.astype(np.int32, kind="shared").kind == "shared"


def test_dlpack_round_trips(ctx):
    for kind in ("device", "shared", "host"):
        a = krt.asarray(ctx, np.arange(10, dtype=np.float64), kind=kind)
        assert a.__dlpack_device__() == (1, 0)  # kDLCPU: every kind is host memory on these devices
        v = np.from_dlpack(a)
        assert v.__array_interface__["data"][0] == a.ptr and v.tolist() == list(range(10))
        b = np.asarray(a)  # the buffer protocol
        assert b.__array_interface__["data"][0] == a.ptr
        assert a.__array_interface__["data"][0] == a.ptr
    a = krt.zeros(ctx, 4, dtype=np.int32)
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 0)))
    assert '"dltensor"' in repr(a.__dlpack__())
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        a.__dlpack__(copy=True)
    # A view's writes reach the kernel and the kernel's writes reach the view.
    m = krt.Module(ctx, path=spv("krt_python"))
    y = krt.zeros(ctx, 8, dtype=np.float32, kind="shared")
    x = krt.zeros(ctx, 8, dtype=np.float32, kind="shared")
    xv = np.asarray(x)  # writable (NumPy marks DLPack imports read-only)
    xv[:] = 3
    m["krt_py_axpy"](y, x, 2.0, 8, range=8)
    assert np.from_dlpack(y).tolist() == [6.0] * 8  # the export waits for the queued launch


def test_exports_wait_for_queued_work(ctx, mod):
    n = 1 << 20
    y = krt.zeros(ctx, n, dtype=np.int32, kind="shared")
    for v in range(5):
        mod["krt_py_fill"](y, v, range=n)
    assert np.asarray(y)[n - 1] == 4 + n - 1  # no synchronize: reading the buffer waits


def test_host_numpy_array_is_refused_with_advice(ctx, mod):
    x = np.arange(4, dtype=np.float32)
    y = krt.zeros(ctx, 4)
    with pytest.raises(krt.KernelArgumentError) as e:
        mod["krt_py_axpy"](y, x, 1.0, 4, range=4)
    assert "krt.asarray(ctx" in str(e.value) and "argument 1 (x)" in str(e.value)
    with pytest.raises(krt.KernelArgumentError):
        mod["krt_py_axpy"](y, memoryview(bytearray(16)), 1.0, 4, range=4)
    # Non-contiguous host data is refused the same way, never copied behind the caller's back.
    with pytest.raises(krt.KernelArgumentError):
        mod["krt_py_axpy"](y, np.arange(8, dtype=np.float32)[::2], 1.0, 4, range=4)


def test_array_of_another_context_or_device():
    with krt.Context(device="cpu") as a, krt.Context(device="host") as b:
        mb = krt.Module(b, path=spv("krt_python"))
        xa = krt.zeros(a, 4)
        yb = krt.zeros(b, 4)
        with pytest.raises(krt.KernelArgumentError) as e:
            mb["krt_py_axpy"](yb, xa, 1.0, 4, range=4)
        assert "another context" in str(e.value)


def test_freed_array(ctx, mod):
    y = krt.zeros(ctx, 16, dtype=np.int32, kind="shared")
    mod["krt_py_fill"](y, 5, range=16, block=True)
    view = np.asarray(y)       # a buffer-protocol view
    dl = np.from_dlpack(y)     # a DLPack view
    y.free()
    assert y.freed
    with pytest.raises(krt.InvalidStateError):
        mod["krt_py_fill"](y, 1, range=16)
    with pytest.raises(krt.InvalidStateError):
        y.numpy()
    del y
    gc.collect()
    junk = [krt.zeros(ctx, 16, dtype=np.int32, kind="shared") for _ in range(50)]  # would reuse freed memory
    for j in junk:
        np.asarray(j)[:] = -7
    assert view.tolist() == list(range(5, 21)) and dl.tolist() == list(range(5, 21))
    y2 = krt.zeros(ctx, 4)
    y2.free()
    y2.free()  # twice: nothing


def test_arrays_dropped_while_queued_stay_alive(ctx, mod):
    # Temporaries that die right after the launch: their memory is released only once the queue is idle, and the
    # deferred list empties itself (here past 1,024 entries).
    n = 4096
    k = mod["krt_py_axpy"]
    y = krt.zeros(ctx, n, kind="shared")
    for _ in range(1500):
        k(y, krt.asarray(ctx, np.ones(n, dtype=np.float32)), 1.0, n, range=n)
    ctx.synchronize()
    assert np.all(np.asarray(y) == 1500)


# ------------------------------------------------------------------------------------------------------------
# Queues, events, threads
# ------------------------------------------------------------------------------------------------------------


def test_queues_and_events(ctx, mod):
    n = 1 << 16
    q1, q2 = ctx.queue(), ctx.queue()
    x = krt.zeros(ctx, n, kind="shared")
    y = krt.zeros(ctx, n, kind="shared")
    one = krt.asarray(ctx, np.ones(n, dtype=np.float32))
    k = mod["krt_py_axpy"]
    for _ in range(20):
        e1 = k(x, one, 1.0, n, range=n, queue=q1)
        e2 = k(y, x, 1.0, n, range=n, queue=q2, wait=[e1])
        e2.wait()
    assert e1.queue is q1 and e2.queue is q2
    q1.synchronize()
    got = np.asarray(y)
    # y accumulated x after each of x's 20 increments: 1 + 2 + ... + 20.
    assert got[0] == 210 and got[n - 1] == 210
    assert q2.synchronize(timeout=5) is True
    with pytest.raises(TypeError):
        k(x, one, 1.0, n, range=n, wait=[object()])
    with pytest.raises(krt.UnsupportedFeatureError) as e:
        ctx.default_queue.native
    assert isinstance(e.value, NotImplementedError)


def test_threads_launch_on_their_own_queues(ctx, mod):
    n = 10000
    k = mod["krt_py_fill"]
    errors = []

    def work(t):
        try:
            q = ctx.queue()
            out = krt.zeros(ctx, n, dtype=np.int32, kind="shared")
            for v in range(50):
                k(out, t * 1000 + v, range=n, queue=q)
            q.synchronize()
            assert np.asarray(out)[n - 1] == t * 1000 + 49 + n - 1
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# ------------------------------------------------------------------------------------------------------------
# Errors, and the interpreter's exit
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu", "host"])
def test_too_short_array_under_checks_raises(device):
    """Checked launches (checks=True): a kernel writing past a too-short array raises krt.OutOfBoundsError at the
    wait, naming the kernel and the array; the write is not made and the context goes on working. On ze_pocl and
    on the host device (its checked library, krt-cc --host --checks)."""
    with krt.Context(device=device, checks=True) as c:
        k = krt.Module(c, path=spv("krt_python"))["krt_py_fill"]
        out = krt.zeros(c, 10, dtype=np.int32)
        with pytest.raises(krt.OutOfBoundsError) as e:
            k(out, 100, range=11, block=True)
        assert isinstance(e.value, IndexError) and e.value.code == krt.OutOfBoundsError.code
        msg = str(e.value)
        assert "kernel krt_py_fill" in msg and "work-item (10, 0, 0)" in msg and "argument 0 (out)" in msg, msg
        assert out.numpy().tolist() == [100 + i for i in range(10)]
        k(out, 5, range=10, block=True)
        assert out.numpy().tolist() == [5 + i for i in range(10)]


def test_every_result_code_has_its_class():
    import builtins
    expect_base = {
        "KRT_ERROR_INVALID_ARGUMENT": ValueError, "KRT_ERROR_OUT_OF_HOST_MEMORY": MemoryError,
        "KRT_ERROR_OUT_OF_DEVICE_MEMORY": MemoryError, "KRT_ERROR_NO_DRIVER": RuntimeError,
        "KRT_ERROR_NO_DEVICE": LookupError, "KRT_ERROR_IO": OSError, "KRT_ERROR_INVALID_MODULE": ValueError,
        "KRT_ERROR_MODULE_BUILD_FAILURE": RuntimeError, "KRT_ERROR_KERNEL_NOT_FOUND": KeyError,
        "KRT_ERROR_INVALID_KERNEL_ARGUMENT": ValueError, "KRT_ERROR_INVALID_NDRANGE": ValueError,
        "KRT_ERROR_INVALID_GROUP_SIZE": ValueError, "KRT_ERROR_INVALID_POINTER": ValueError,
        "KRT_ERROR_UNSUPPORTED_FEATURE": NotImplementedError, "KRT_ERROR_DEVICE_LOST": RuntimeError,
        "KRT_ERROR_INVALID_STATE": RuntimeError, "KRT_ERROR_DRIVER": RuntimeError,
        "KRT_ERROR_OUT_OF_BOUNDS": IndexError,
        "KRT_TIMEOUT": builtins.TimeoutError, "KRT_NOT_READY": krt.Error,
    }
    seen = set()
    for code, name, _ in krt._krt.results():
        if code == 0:
            continue
        cls = krt.error_class(code)
        assert issubclass(cls, krt.Error) and cls is not krt.Error, name
        assert issubclass(cls, expect_base[name]), name
        assert cls.code == code and cls(name).name == name
        seen.add(cls)
    assert len(seen) == len(expect_base)


def test_interpreter_exit_with_work_and_views_alive(tmp_path):
    script = tmp_path / "exit.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np, krt
        ctx = krt.Context(device="cpu")
        k = krt.Module(ctx, path={spv("krt_python")!r})["krt_py_fill"]
        a = krt.zeros(ctx, 1 << 20, dtype=np.int32, kind="shared")
        view = np.asarray(a)
        for v in range(20):
            k(a, v, range=1 << 20)
        keep = [krt.zeros(ctx, 16) for _ in range(10)]
        print("queued")
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "queued" and r.stderr == ""


@pytest.mark.parametrize("device", DEVICES)
def test_a_lost_device_raises_device_lost_and_a_new_context_works(device, tmp_path):
    # Issue 39: KRT_ZE_FAULT=krt_wild_write, the drivers' test knob, loses the device when that kernel completes (it
    # runs in bounds: a wild write on a CPU device ends the process). The call that sees it raises DeviceLostError
    # naming the device and the kernel, later calls raise the same, close() does not raise, and a new Context works.
    script = tmp_path / "lost.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np, krt
        ctx = krt.Context(device={device!r})
        m = krt.Module(ctx, path={spv("krt_fault")!r})
        x = krt.zeros(ctx, 1000, dtype=np.float32)
        try:
            m["krt_wild_write"](x, 0, range=1000)
            ctx.synchronize()
            raise SystemExit("no DeviceLostError")
        except krt.DeviceLostError as e:
            first = str(e)
            assert isinstance(e, RuntimeError) and e.name == "KRT_ERROR_DEVICE_LOST", e
            assert "krt_wild_write" in first and ctx.device.name in first, first
        for again in (lambda: krt.zeros(ctx, 10), ctx.synchronize, lambda: m["krt_wild_write"](x, 0, range=10)):
            try:
                again()
                raise SystemExit("a call after the loss did not raise")
            except krt.DeviceLostError as e:
                assert str(e) == first, (str(e), first)
        # Every object holds its context: once closed and dropped with them, it is destroyed, and the device recovers.
        ctx.close()
        del x, m, again, ctx
        ctx = krt.Context(device={device!r})
        out = krt.zeros(ctx, 1000, dtype=np.uint32, kind="shared")
        krt.Module(ctx, path={spv("krt_fault")!r})["krt_after"](out, 1000, 5, range=1000)
        ctx.synchronize()
        assert np.array_equal(np.from_dlpack(out), 3 * np.arange(1000, dtype=np.uint32) + 5)
        print("recovered")
    """))
    env = dict(os.environ, KRT_ZE_FAULT="krt_wild_write")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "recovered", r.stdout + r.stderr


def test_python_m_krt_prints_krt_info():
    r = subprocess.run([sys.executable, "-m", "krt"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for d in krt.devices():
        assert d.name in r.stdout


# ------------------------------------------------------------------------------------------------------------
# Groups krt does not choose, and __local arguments sized per work-item (test/kernels/krt_group_dep.cl)
# ------------------------------------------------------------------------------------------------------------


def blur_reference(img):
    p = np.pad(img, 1, mode="edge")
    return np.float32(0.2) * (p[1:-1, 1:-1] + p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])


def test_group_dependent_kernel_is_refused_not_run_wrong(ctx):
    m = krt.Module(ctx, path=spv("krt_group_dep"))
    assert any("kernel blur:" in w for w in m.warnings)
    blur = m["blur"]
    info = blur.info
    assert info.group_dependent and not info.any_group and info.local_vars == "tile (1296 bytes)"
    assert not blur.any_group
    h, w = 77, 100
    img = (np.arange(h * w, dtype=np.float32).reshape(h, w) * 7919 % 1000) / 8
    x = krt.asarray(ctx, img)
    y = krt.zeros(ctx, h * w, dtype=np.float32, kind="shared")
    with pytest.raises(krt.GroupSizeError) as e:
        blur(x, y, w, h, range=(w, h), block=True)
    for part in ("kernel blur", "tile (1296 bytes)", "group=", "reqd_work_group_size", "KRT_ANY_GROUP(blur)",
                 "kernel.any_group = True"):
        assert part in str(e.value), str(e.value)
    assert not np.asarray(y).any(), "a refused launch wrote"
    with pytest.raises(krt.GroupSizeError):
        blur.config((w, h))
    blur(x, y, w, h, range=(w, h), group=(16, 16), block=True)
    assert np.allclose(np.asarray(y).reshape(h, w), blur_reference(img), rtol=1e-5)


def test_any_group_from_the_caller(ctx):
    m = krt.Module(ctx, path=spv("krt_group_dep"))
    marked, unmarked = m["count16"], m["count16_unmarked"]
    assert marked.any_group and not marked.info.group_dependent
    n = 10007
    vals = (np.arange(n, dtype=np.uint32) * np.uint32(2654435761)) >> np.uint32(7)
    want = np.bincount(vals % 16, minlength=16)
    x = krt.asarray(ctx, vals)
    for k in (marked, unmarked):
        out = krt.zeros(ctx, 16, dtype=np.uint32, kind="shared")
        if k is unmarked:
            with pytest.raises(krt.GroupSizeError):
                k(x, out, n, range=n, block=True)
            k.any_group = True
            assert k.any_group and not k.info.group_dependent
        k(x, out, n, range=n, block=True)
        assert np.asarray(out).tolist() == want.tolist()
    unmarked.any_group = False
    with pytest.raises(krt.GroupSizeError):
        unmarked.config(n)
    marked.any_group = False  # the source's mark stays
    assert marked.any_group
    with pytest.raises(TypeError):
        unmarked.any_group = 1


def test_local_per_item_follows_the_group(ctx):
    k = krt.Module(ctx, path=spv("krt_group_dep"))["scratch_sum"]
    nmax = 100003
    vals = (np.arange(nmax) % 13 - 6).astype(np.float32)
    x = krt.asarray(ctx, vals)
    for n in (1, 7, 1000, nmax, 7):
        partial = krt.empty(ctx, n + 1, dtype=np.float32, kind="shared")
        sizes = krt.zeros(ctx, n + 1, dtype=np.uint32, kind="shared")
        np.asarray(partial)[:] = -1.0
        k(x, partial, sizes, krt.Local(per_item=4), range=n, block=True)
        g = int(np.asarray(sizes)[0])
        groups = -(-n // g)
        want = np.add.reduceat(vals[:n], np.arange(0, n, g)).astype(np.float32)
        assert np.allclose(np.asarray(partial)[:groups], want, atol=1e-3), n
        assert np.asarray(partial)[groups] == -1.0
    assert repr(krt.Local(per_item=4)) == "krt.Local(per_item=4)" and krt.Local(per_item=4).per_item
    assert not krt.Local(64).per_item and krt.Local(64).nbytes == 64
    with pytest.raises(TypeError):
        krt.Local()
    with pytest.raises(TypeError):
        krt.Local(4, per_item=4)
    for bad in (dict(nbytes=0), dict(per_item=0), dict(per_item=-4), dict(per_item=2.5)):
        with pytest.raises(ValueError):
            krt.Local(**bad)
