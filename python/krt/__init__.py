"""krt for Python: SPIR-V kernels through oneAPI Level Zero, with the launch configuration chosen for you.

    import numpy as np, krt
    ctx = krt.Context(device="cpu")                       # "gpu", "cpu", "host", an index, a name
    saxpy = krt.Module(ctx, source=src)["saxpy"]          # or path="saxpy.spv", spirv=bytes
    x = krt.asarray(ctx, np.arange(n, dtype=np.float32))  # a copy on the device
    y = krt.zeros(ctx, n, dtype=np.float32, kind="shared")
    saxpy(y, x, 2.0, n, range=n)                          # arguments converted by the kernel's reflection
    ctx.synchronize()
    np.from_dlpack(y)                                     # a view, no copy

The objects (Context, Module, Kernel, Array, Queue, Event, Local) live in the C extension krt._krt; this file
adds the exception classes, krt.Device, and the array constructors. docs/python.md is the guide.
"""

import builtins as _builtins

from . import _krt
from ._krt import Array, Context, Event, Kernel, Local, Module, Queue

__all__ = [
    "Context", "Module", "Kernel", "Array", "Queue", "Event", "Local", "Device", "devices", "empty", "zeros",
    "asarray", "from_numpy", "library_path", "Error", "ArgumentTypeError", "ModuleWarning", "error_class",
]
__version__ = _krt.version

# ----------------------------------------------------------------------------------------------------------
# Errors: one class per krt_result, each also deriving from the built-in exception a Python user expects.
# ----------------------------------------------------------------------------------------------------------


class Error(Exception):
    """Every error krt raises. `code` is the krt_result value, `name` its name (KRT_ERROR_...); the message is krt's
    own (krt_last_error_message), build logs included."""

    code = None

    def __str__(self):
        return str(self.args[0]) if self.args else ""

    @property
    def name(self):
        return _NAMES.get(self.code, "KRT_UNKNOWN_RESULT")


class NotReadyError(Error):
    """KRT_NOT_READY: the event or queue has not completed yet."""


class WaitTimeoutError(Error, _builtins.TimeoutError):
    """KRT_TIMEOUT: a wait timed out."""


class InvalidArgumentError(Error, ValueError):
    """KRT_ERROR_INVALID_ARGUMENT: an argument of the call is invalid."""


class OutOfHostMemoryError(Error, MemoryError):
    """KRT_ERROR_OUT_OF_HOST_MEMORY."""


class OutOfDeviceMemoryError(Error, MemoryError):
    """KRT_ERROR_OUT_OF_DEVICE_MEMORY (also an allocation over the device's largest: the message gives the limit)."""


class NoDriverError(Error, RuntimeError):
    """KRT_ERROR_NO_DRIVER: no Level Zero driver could be loaded."""


class NoDeviceError(Error, LookupError):
    """KRT_ERROR_NO_DEVICE: no device matches the request."""


class FileError(Error, OSError):
    """KRT_ERROR_IO: a file could not be read."""


class InvalidModuleError(Error, ValueError):
    """KRT_ERROR_INVALID_MODULE: the SPIR-V is invalid (the message has the diagnostic and word offset)."""


class ModuleBuildError(Error, RuntimeError):
    """KRT_ERROR_MODULE_BUILD_FAILURE: the driver or compiler failed; the message is the build log."""

    @property
    def build_log(self):
        return str(self)


class KernelNotFoundError(Error, KeyError):
    """KRT_ERROR_KERNEL_NOT_FOUND: no kernel of that name (the message lists the module's kernels)."""


class KernelArgumentError(Error, ValueError):
    """KRT_ERROR_INVALID_KERNEL_ARGUMENT: a value does not fit the kernel's signature (an int too wide, a foreign
    array krt cannot use); names the argument."""


class ArgumentTypeError(KernelArgumentError, TypeError):
    """A value of the wrong type in a kernel call: an argument (names it and both types; for an array of another
    dtype than the pointer's declared type, also the fix), the wrong number of arguments, or a keyword's value of the
    wrong type (range=1.5, queue=3; the message starts with the keyword)."""


class NDRangeError(Error, ValueError):
    """KRT_ERROR_INVALID_NDRANGE: the range is empty, missing or too large (range=0, range=-1)."""


class GroupSizeError(Error, ValueError):
    """KRT_ERROR_INVALID_GROUP_SIZE: the group size is invalid for this kernel, device or range (group=(0,), a
    group of other dimensions than the range's, one larger than the range)."""


class InvalidPointerError(Error, ValueError):
    """KRT_ERROR_INVALID_POINTER: a pointer is not an allocation known to the driver."""


class UnsupportedFeatureError(Error, NotImplementedError):
    """KRT_ERROR_UNSUPPORTED_FEATURE: the driver or device does not support this (the message names it)."""


class DeviceLostError(Error, RuntimeError):
    """KRT_ERROR_DEVICE_LOST."""


class InvalidStateError(Error, RuntimeError):
    """KRT_ERROR_INVALID_STATE: the object cannot be used now (a closed context, a freed array)."""


class DriverError(Error, RuntimeError):
    """KRT_ERROR_DRIVER: the driver returned an unexpected error."""


class OutOfBoundsError(Error, IndexError):
    """KRT_ERROR_OUT_OF_BOUNDS: under krt.Context(checks=True), a kernel reached outside every array of the context
    (an array too short for the range); the access was not made, and the message names the kernel, the work-item,
    the address and the nearest array argument with the offset past its end."""


class ModuleWarning(UserWarning):
    """A warning of a module load (krt_module_info), such as a validator diagnostic krt accepts."""


_RESULTS = _krt.results()
_NAMES = {code: name for code, name, _ in _RESULTS}
_CLASS_OF_NAME = {
    "KRT_NOT_READY": NotReadyError, "KRT_TIMEOUT": WaitTimeoutError,
    "KRT_ERROR_INVALID_ARGUMENT": InvalidArgumentError, "KRT_ERROR_OUT_OF_HOST_MEMORY": OutOfHostMemoryError,
    "KRT_ERROR_OUT_OF_DEVICE_MEMORY": OutOfDeviceMemoryError, "KRT_ERROR_NO_DRIVER": NoDriverError,
    "KRT_ERROR_NO_DEVICE": NoDeviceError, "KRT_ERROR_IO": FileError, "KRT_ERROR_INVALID_MODULE": InvalidModuleError,
    "KRT_ERROR_MODULE_BUILD_FAILURE": ModuleBuildError, "KRT_ERROR_KERNEL_NOT_FOUND": KernelNotFoundError,
    "KRT_ERROR_INVALID_KERNEL_ARGUMENT": KernelArgumentError, "KRT_ERROR_INVALID_NDRANGE": NDRangeError,
    "KRT_ERROR_INVALID_GROUP_SIZE": GroupSizeError, "KRT_ERROR_INVALID_POINTER": InvalidPointerError,
    "KRT_ERROR_UNSUPPORTED_FEATURE": UnsupportedFeatureError, "KRT_ERROR_DEVICE_LOST": DeviceLostError,
    "KRT_ERROR_INVALID_STATE": InvalidStateError, "KRT_ERROR_DRIVER": DriverError,
    "KRT_ERROR_OUT_OF_BOUNDS": OutOfBoundsError,
}
_CLASSES = {code: _CLASS_OF_NAME[name] for code, name, _ in _RESULTS if name in _CLASS_OF_NAME}
for _code, _cls in _CLASSES.items():
    _cls.code = _code


def error_class(code):
    """The exception class of a krt_result code (krt.Error for a code krt does not know)."""
    return _CLASSES.get(code, Error)


# ----------------------------------------------------------------------------------------------------------
# Devices
# ----------------------------------------------------------------------------------------------------------


class Device:
    """A device krt can use (krt_device_info): name, driver ("ze_pocl", "ze_cuda", "host"), type ("CPU", "GPU",
    "host"), index (what krt.Context(device=index) takes), compute_units, max_group_size, memory_bytes, fp16, fp64, and
    the rest of krt_device_info's fields."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return f"<krt.Device {self.index}: {self.name} ({self.type}, driver {self.driver})>"


def devices():
    """Every device krt can use, as krt.Device, in the order krt.Context(device=index) counts them."""
    return _krt.devices()


def library_path():
    """The path of the libkrt this package runs on."""
    return _krt.library_path()


# ----------------------------------------------------------------------------------------------------------
# Arrays
# ----------------------------------------------------------------------------------------------------------

_KINDS = {"device": _krt.KIND_DEVICE, "host": _krt.KIND_HOST, "shared": _krt.KIND_SHARED}
_NAMED_TYPES = {
    "bool": "|b1", "int8": "|i1", "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4", "uint32": "<u4",
    "int64": "<i8", "uint64": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8", "complex64": "<c8",
    "complex128": "<c16", bool: "|b1", int: "<i8", float: "<f8",
}


def _numpy():
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _typestr(dtype):
    if dtype is None:
        return "<f4"
    if isinstance(dtype, str) and dtype in _NAMED_TYPES:
        return _NAMED_TYPES[dtype]
    if dtype is bool or dtype is int or dtype is float:
        return _NAMED_TYPES[dtype]
    np = _numpy()
    if np is not None:
        d = np.dtype(dtype)
        if d.kind not in "biufc" or d.byteorder == ">":
            raise TypeError(f"krt arrays hold bool, int, uint, float or complex elements in little-endian order, not {d}")
        return d.str.replace("=", "<")
    if isinstance(dtype, str) and len(dtype) >= 3 and dtype[0] in "<|=":
        return dtype
    raise TypeError(f"dtype {dtype!r} is not one krt knows without NumPy (use a name such as 'float32')")


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def _kind(kind):
    try:
        return _KINDS[kind]
    except KeyError:
        raise ValueError(f"kind must be 'device', 'host' or 'shared', not {kind!r}") from None


def empty(ctx, shape, dtype="float32", kind="device"):
    """A new uninitialised krt.Array of the context: shape an int or tuple, dtype a NumPy dtype or name, kind
    "device" (the default), "shared" (host-visible and device-fast) or "host"."""
    return _krt.alloc(ctx, _shape(shape), _typestr(dtype), _kind(kind))


def zeros(ctx, shape, dtype="float32", kind="device"):
    """A new krt.Array filled with zeros (by krt's fill kernel on the default queue; returns when done)."""
    a = empty(ctx, shape, dtype, kind)
    _krt.fill_zero(a)
    return a


def _device_of(obj):
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is None:
        return None
    try:
        return tuple(dev())
    except Exception:
        return None


_DL_NAMES = {1: "the host (kDLCPU)", 2: "CUDA device", 3: "CUDA host memory", 13: "CUDA managed memory",
             14: "a oneAPI device"}


def asarray(ctx, obj, dtype=None, kind="device"):
    """obj as a krt.Array of the context.

    - A krt.Array of this context (and dtype None or its own) is returned as it is.
    - Memory the context's kernels can use in place is imported with no copy: a torch or CuPy CUDA tensor on a
      ze_cuda context of the same GPU, through DLPack (the producer's stream is ordered before krt's queue) or
      __cuda_array_interface__ (its stream is synchronized). It must be C-contiguous.
    - Host data (a NumPy array, a buffer, a list) is copied into a new array of `kind` ("device" by default).
    - Memory of another device raises krt.InvalidArgumentError naming both devices.
    """
    if isinstance(obj, Array):
        if obj.context is ctx and (dtype is None or _typestr(dtype) == obj.typestr):
            return obj
    elif dtype is None:
        a = _krt.import_array(ctx, obj)
        if a is not None:
            return a
    dev = _device_of(obj)
    if dev is not None and dev[0] not in (1, 3, 13) and not isinstance(obj, Array):
        here = ctx.device
        raise InvalidArgumentError(
            f"krt.asarray: the array lives on {_DL_NAMES.get(dev[0], f'DLPack device type {dev[0]}')} {dev[1]}, which "
            f"this context's device ({here.name}, driver {here.driver}) cannot use; copy it to the host first "
            f"(e.g. tensor.cpu().numpy())")
    np = _numpy()
    if np is None:
        raise ImportError("krt.asarray of host data needs NumPy")
    host = np.ascontiguousarray(obj.numpy() if isinstance(obj, Array) else obj, dtype=dtype)
    out = empty(ctx, host.shape, host.dtype, kind)
    out.copy_from(host)
    return out


def from_numpy(ctx, array, kind="device"):
    """A copy of a NumPy array in a new krt.Array of the context (krt.asarray for NumPy input)."""
    return asarray(ctx, array, kind=kind)


def _array_numpy(self):
    """A NumPy copy of the array (waits for the default queue's earlier work)."""
    np = _numpy()
    if np is None:
        raise ImportError("Array.numpy() needs NumPy")
    out = np.empty(self.shape, dtype=np.dtype(self.typestr))
    self.copy_to(out)
    return out


def _array_dtype(self):
    """The element type: a NumPy dtype when NumPy is installed, else the typestr."""
    np = _numpy()
    return np.dtype(self.typestr) if np is not None else self.typestr


def _array_view(self, dtype):
    """A krt.Array over the same memory with elements of another dtype (NumPy's ndarray.view(dtype)): no copy, the
    same bytes read as the new type. A dtype of another size rescales the last dimension, whose bytes must be a whole
    number of the new elements (an int32 array of 4 is an int16 view of 8). The view keeps the memory alive: the
    array's free() ends the array's use, not the view's. This is the fix a kernel call names for an array of the
    pointer's width and the other sign: a.view(np.uint32) for a uint* parameter."""
    return _krt.view(self, _typestr(dtype))


def _array_astype(self, dtype, kind=None):
    """A converted copy in a new krt.Array of dtype (NumPy's conversion rules, through the host: the array is read
    back, converted with ndarray.astype and copied in), of `kind` (default: this array's kind, "device" for an
    imported one). This is the fix a kernel call names for an array of another element type than the pointer's:
    a.astype(np.float32) for a float* parameter."""
    np = _numpy()
    if np is None:
        raise ImportError("Array.astype() needs NumPy")
    if kind is None:
        kind = self.kind if self.kind in _KINDS else "device"
    host = np.ascontiguousarray(self.numpy().astype(dtype))
    out = empty(self.context, host.shape, host.dtype, kind)
    out.copy_from(host)
    return out


Array.numpy = _array_numpy
Array.dtype = property(_array_dtype)
Array.view = _array_view
Array.astype = _array_astype

_krt._init(_CLASSES, Error, ArgumentTypeError, ModuleWarning, Device, __import__("types").SimpleNamespace)
