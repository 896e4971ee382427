"""A small Python binding of krt through ctypes, standard library only.

It shows what a higher-level language runtime needs from krt: load the library, mirror a few structs of krt.h,
and turn Python values into kernel arguments. The marshalling is driven by krt's reflection
(krt_module_arg_info): the binding asks the module what each argument is (a global pointer, a __local buffer,
a scalar of some type and size) and converts the Python value accordingly, so a kernel is called like a
function and a wrong argument is caught in Python with its name.

Finding libkrt: $KRT_LIB (a path to libkrt.so), else $KRT_BUILD/lib/libkrt.so, else build/lib/libkrt.so of this
source tree, else the system's libkrt (after `make install`).

Importing it from your own script: this file is not installed anywhere; put its directory on Python's path,
    PYTHONPATH=/path/to/krt/examples/python python3 your_script.py
(see docs/tutorial-python.md). "AttributeError: module 'krt' has no attribute 'Context'" means Python did not
find this file and imported a directory named krt (such as the krt clone itself) as an empty namespace package.
"""

import ctypes
import ctypes.util
import os
import struct

# ----------------------------------------------------------------------------------------------------------
# The structs and constants of krt.h that this binding uses. Their layout must match the header exactly.
# ----------------------------------------------------------------------------------------------------------

ARG_GLOBAL_POINTER, ARG_CONSTANT_POINTER, ARG_LOCAL_POINTER, ARG_SCALAR, ARG_STRUCT, ARG_OTHER = range(6)
(TYPE_NONE, TYPE_INT8, TYPE_INT16, TYPE_INT32, TYPE_INT64, TYPE_FLOAT16, TYPE_FLOAT32, TYPE_FLOAT64,
 TYPE_BOOL) = range(9)
MEMORY_DEVICE, MEMORY_HOST, MEMORY_SHARED = range(3)
# krt_arg_type: the C type a launch argument is tagged with, checked by krt against the reflected type.
(ARG_TYPE_NONE, ARG_TYPE_INT8, ARG_TYPE_UINT8, ARG_TYPE_INT16, ARG_TYPE_UINT16, ARG_TYPE_INT32, ARG_TYPE_UINT32,
 ARG_TYPE_INT64, ARG_TYPE_UINT64, ARG_TYPE_FLOAT, ARG_TYPE_DOUBLE, ARG_TYPE_POINTER) = range(12)


class _ArgInfo(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("type", ctypes.c_int), ("vector_width", ctypes.c_uint32),
                ("size", ctypes.c_uint32), ("name", ctypes.c_char_p)]


class _KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("num_args", ctypes.c_uint32),
                ("required_group", ctypes.c_uint32 * 3), ("group_hint", ctypes.c_uint32 * 3),
                ("uses_barrier", ctypes.c_int), ("uses_static_local", ctypes.c_int), ("local_args", ctypes.c_uint32)]


class _Arg(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("size", ctypes.c_size_t), ("type", ctypes.c_int)]


class _NDRange(ctypes.Structure):
    _fields_ = [("dims", ctypes.c_uint32), ("size", ctypes.c_uint64 * 3)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("dims", ctypes.c_uint32), ("group", ctypes.c_uint32 * 3), ("groups", ctypes.c_uint32 * 3),
                ("max_group_size", ctypes.c_uint32), ("preferred_multiple", ctypes.c_uint32),
                ("spill_mem_size", ctypes.c_uint32), ("limit", ctypes.c_int), ("masked", ctypes.c_int)]


class _LaunchDesc(ctypes.Structure):
    _fields_ = [("range", _NDRange), ("group", ctypes.c_uint32 * 3), ("args", ctypes.POINTER(_Arg)),
                ("num_args", ctypes.c_uint32), ("queue", ctypes.c_void_p), ("signal", ctypes.c_void_p),
                ("wait", ctypes.c_void_p), ("num_wait", ctypes.c_uint32)]


class _ModuleDesc(ctypes.Structure):
    _fields_ = [("code", ctypes.c_void_p), ("size", ctypes.c_size_t), ("path", ctypes.c_char_p),
                ("build_options", ctypes.c_char_p), ("spec_constants", ctypes.c_void_p),
                ("num_spec_constants", ctypes.c_uint32), ("validation", ctypes.c_int),
                ("source", ctypes.c_char_p), ("compile_options", ctypes.c_char_p), ("host_library", ctypes.c_char_p)]


class _AllocDesc(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("alignment", ctypes.c_size_t)]


class _Logger(ctypes.Structure):
    _fields_ = [("func", ctypes.c_void_p), ("user_data", ctypes.c_void_p), ("max_level", ctypes.c_int)]


class _ModuleInfo(ctypes.Structure):
    _fields_ = [("num_kernels", ctypes.c_uint32), ("num_warnings", ctypes.c_uint32),
                ("warnings", ctypes.POINTER(ctypes.c_char_p))]


class _ContextDesc(ctypes.Structure):
    _fields_ = [("device", ctypes.c_char_p), ("spill_budget", ctypes.c_size_t), ("min_groups", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("logger", _Logger)]


class _DeviceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 256), ("driver_name", ctypes.c_char * 64), ("type", ctypes.c_int),
                ("driver_index", ctypes.c_uint32), ("device_index", ctypes.c_uint32),
                ("api_version_major", ctypes.c_uint32), ("api_version_minor", ctypes.c_uint32),
                ("driver_version", ctypes.c_uint32), ("vendor_id", ctypes.c_uint32),
                ("compute_units", ctypes.c_uint32), ("clock_mhz", ctypes.c_uint32),
                ("max_group_size", ctypes.c_uint32), ("max_group", ctypes.c_uint32 * 3),
                ("max_group_count", ctypes.c_uint32 * 3), ("max_shared_local_memory", ctypes.c_uint32),
                ("sub_group_sizes", ctypes.c_uint32 * 8), ("num_sub_group_sizes", ctypes.c_uint32),
                ("memory_bytes", ctypes.c_uint64), ("fp16", ctypes.c_int), ("fp64", ctypes.c_int),
                ("int64_atomics", ctypes.c_int)]


def _find_library():
    candidates = []
    if os.environ.get("KRT_LIB"):
        candidates.append(os.environ["KRT_LIB"])
    if os.environ.get("KRT_BUILD"):
        candidates.append(os.path.join(os.environ["KRT_BUILD"], "lib", "libkrt.so"))
    here = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(here, "..", "..", "build", "lib", "libkrt.so"))
    for path in candidates:
        if os.path.exists(path):
            return path
    found = ctypes.util.find_library("krt")
    if found:
        return found
    raise OSError("libkrt.so not found: build krt (make) or set KRT_LIB to its path")


_lib = ctypes.CDLL(_find_library())


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_p = ctypes.c_void_p
_result_name = _fn("krt_result_name", ctypes.c_char_p, ctypes.c_int)
_last_error = _fn("krt_last_error_message", ctypes.c_char_p)
_context_create = _fn("krt_context_create", ctypes.c_int, ctypes.POINTER(_ContextDesc), ctypes.POINTER(_p))
_context_destroy = _fn("krt_context_destroy", None, _p)
_context_device_info = _fn("krt_context_device_info", ctypes.c_int, _p, ctypes.POINTER(_DeviceInfo))
_default_queue = _fn("krt_context_default_queue", _p, _p)
_queue_synchronize = _fn("krt_queue_synchronize", ctypes.c_int, _p)
_alloc = _fn("krt_alloc", ctypes.c_int, _p, ctypes.c_size_t, ctypes.POINTER(_AllocDesc), ctypes.POINTER(_p))
_free = _fn("krt_free", ctypes.c_int, _p, _p)
_memcpy_sync = _fn("krt_memcpy_sync", ctypes.c_int, _p, _p, _p, _p, ctypes.c_size_t)
_module_info_get = _fn("krt_module_info_get", ctypes.c_int, _p, ctypes.POINTER(_ModuleInfo))
_module_create = _fn("krt_module_create", ctypes.c_int, _p, ctypes.POINTER(_ModuleDesc), ctypes.POINTER(_p))
_module_destroy = _fn("krt_module_destroy", None, _p)
_module_kernel_names = _fn("krt_module_kernel_names", ctypes.c_int, _p, ctypes.POINTER(ctypes.c_char_p),
                           ctypes.POINTER(ctypes.c_uint32))
_module_kernel_info = _fn("krt_module_kernel_info", ctypes.c_int, _p, ctypes.c_char_p,
                          ctypes.POINTER(_KernelInfo))
_module_arg_info = _fn("krt_module_arg_info", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_uint32,
                       ctypes.POINTER(_ArgInfo))
_kernel_get = _fn("krt_kernel_get", ctypes.c_int, _p, ctypes.c_char_p, ctypes.POINTER(_p))
_launch_config_get = _fn("krt_launch_config_get", ctypes.c_int, _p, ctypes.POINTER(_NDRange),
                         ctypes.POINTER(_LaunchConfig))
_launch = _fn("krt_launch", ctypes.c_int, _p, ctypes.POINTER(_LaunchDesc))
_arg_kind_name = _fn("krt_arg_kind_name", ctypes.c_char_p, ctypes.c_int)
_scalar_type_name = _fn("krt_scalar_type_name", ctypes.c_char_p, ctypes.c_int)
_limit_name = _fn("krt_limit_name", ctypes.c_char_p, ctypes.c_int)


# Names of krt's enum values come from libkrt itself (one table, shared with krt-info and the KRT_TRACE line).
def arg_kind_name(kind):
    return _arg_kind_name(kind).decode()


def scalar_type_name(scalar_type):
    return _scalar_type_name(scalar_type).decode()


def limit_name(limit):
    return _limit_name(limit).decode()


class KrtError(Exception):
    """A krt call failed: code is the krt_result, name its KRT_* name, message krt_last_error_message()."""

    def __init__(self, call, code):
        self.code = code
        self.name = _result_name(code).decode()
        self.message = (_last_error() or b"").decode(errors="replace")
        super().__init__(f"{call}: {self.name}: {self.message}")


def _check(call, code):
    if code != 0:
        raise KrtError(call, code)


# ----------------------------------------------------------------------------------------------------------
# The Python side
# ----------------------------------------------------------------------------------------------------------

class Local:
    """A __local buffer argument of nbytes bytes per work-group."""

    def __init__(self, nbytes):
        self.nbytes = nbytes


class Buffer:
    """Device memory from krt_alloc; pass it for a global or constant pointer argument."""

    def __init__(self, context, nbytes, kind=MEMORY_DEVICE):
        self.context, self.nbytes, self.ptr = context, nbytes, _p()
        _check("krt_alloc", _alloc(context.handle, nbytes, ctypes.byref(_AllocDesc(kind, 0)),
                                   ctypes.byref(self.ptr)))

    def write(self, data):
        """Copies a bytes-like object (bytes, array.array, ...) into the buffer and waits."""
        view = memoryview(data).cast("B")
        if view.nbytes > self.nbytes:
            raise ValueError(f"{view.nbytes} bytes do not fit in a buffer of {self.nbytes}")
        source = (ctypes.c_char * view.nbytes).from_buffer_copy(view)
        _check("krt_memcpy_sync", _memcpy_sync(self.context.handle, None, self.ptr, source, view.nbytes))

    def read_into(self, data):
        """Copies the start of the buffer into a writable bytes-like object and waits."""
        view = memoryview(data).cast("B")
        target = (ctypes.c_char * view.nbytes).from_buffer(view)
        _check("krt_memcpy_sync", _memcpy_sync(self.context.handle, None, target, self.ptr, view.nbytes))

    def free(self):
        if self.ptr:
            _check("krt_free", _free(self.context.handle, self.ptr))
            self.ptr = _p()


class Context:
    """A krt context on the default device (or device=, as KRT_DEVICE: "cpu", "gpu", an index or a name
    substring)."""

    def __init__(self, device=None):
        self.handle = _p()
        desc = _ContextDesc(device.encode() if device else None)
        _check("krt_context_create", _context_create(ctypes.byref(desc), ctypes.byref(self.handle)))
        info = _DeviceInfo()
        _check("krt_context_device_info", _context_device_info(self.handle, ctypes.byref(info)))
        self.device_name = info.name.decode()
        self.driver_name = info.driver_name.decode()

    def buffer(self, nbytes, kind=MEMORY_DEVICE):
        return Buffer(self, nbytes, kind)

    def module(self, path=None, source=None, options=None):
        """A module from a file (path: .spv, or .cl for OpenCL C), or from OpenCL C text (source). OpenCL C is
        compiled by krt-cc; options (a string such as "-DN=4") go to the compiler."""
        return Module(self, path, source, options)

    def synchronize(self):
        _check("krt_queue_synchronize", _queue_synchronize(_default_queue(self.handle)))

    def close(self):
        if self.handle:
            _context_destroy(self.handle)
            self.handle = _p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ArgInfo:
    """One kernel argument as reflected from the SPIR-V."""

    def __init__(self, raw):
        self.kind, self.type, self.vector_width = raw.kind, raw.type, raw.vector_width
        self.size = raw.size
        self.name = (raw.name or b"").decode()

    def __str__(self):
        t = "" if self.type == TYPE_NONE else scalar_type_name(self.type)
        if self.vector_width > 1:
            t += f" x {self.vector_width}"
        return f"{self.name or '-'}: {arg_kind_name(self.kind)} {t} ({self.size} bytes)".replace("  ", " ")


class Module:
    def __init__(self, context, path=None, source=None, options=None):
        self.context, self.handle = context, _p()
        desc = _ModuleDesc(path=os.fsencode(path) if path is not None else None,
                           source=source.encode() if source is not None else None,
                           compile_options=options.encode() if options else None)
        _check("krt_module_create", _module_create(context.handle, ctypes.byref(desc), ctypes.byref(self.handle)))

    def kernel_names(self):
        count = ctypes.c_uint32(0)
        _check("krt_module_kernel_names", _module_kernel_names(self.handle, None, ctypes.byref(count)))
        names = (ctypes.c_char_p * count.value)()
        _check("krt_module_kernel_names", _module_kernel_names(self.handle, names, ctypes.byref(count)))
        return [n.decode() for n in names[:count.value]]

    def kernel(self, name):
        return Kernel(self, name)

    def warnings(self):
        """The load's warnings (krt_module_info_get), e.g. a structured-order rule the validator tolerated."""
        info = _ModuleInfo()
        _check("krt_module_info_get", _module_info_get(self.handle, ctypes.byref(info)))
        return [info.warnings[i].decode(errors="replace") for i in range(info.num_warnings)]


# How each scalar type becomes bytes: struct format characters for the signed and the unsigned reading
# (SPIR-V integers carry no sign, so the Python value decides).
_SCALAR_FORMATS = {TYPE_INT8: ("b", "B"), TYPE_INT16: ("h", "H"), TYPE_INT32: ("i", "I"), TYPE_INT64: ("q", "Q"),
                   TYPE_FLOAT16: ("e", "e"), TYPE_FLOAT32: ("f", "f"), TYPE_FLOAT64: ("d", "d"),
                   TYPE_BOOL: ("?", "?")}
# The krt_arg_type a plain scalar is passed with, signed and unsigned: krt checks it against the kernel's type,
# so the bytes the binding packed are never taken for another type. half and bool have no C type: untyped.
_SCALAR_ARG_TYPES = {TYPE_INT8: (ARG_TYPE_INT8, ARG_TYPE_UINT8), TYPE_INT16: (ARG_TYPE_INT16, ARG_TYPE_UINT16),
                     TYPE_INT32: (ARG_TYPE_INT32, ARG_TYPE_UINT32), TYPE_INT64: (ARG_TYPE_INT64, ARG_TYPE_UINT64),
                     TYPE_FLOAT32: (ARG_TYPE_FLOAT, ARG_TYPE_FLOAT), TYPE_FLOAT64: (ARG_TYPE_DOUBLE, ARG_TYPE_DOUBLE)}


class Kernel:
    """A kernel called like a function: kernel(range, *args). The arguments are marshalled from the
    reflected signature, so the caller passes Buffers, Local(n) and Python numbers."""

    def __init__(self, module, name):
        self.module, self.name, self.handle = module, name, _p()
        _check("krt_kernel_get", _kernel_get(module.handle, name.encode(), ctypes.byref(self.handle)))
        info = _KernelInfo()
        _check("krt_module_kernel_info", _module_kernel_info(module.handle, name.encode(), ctypes.byref(info)))
        self.required_group = tuple(info.required_group)
        self.args = []
        for i in range(info.num_args):
            raw = _ArgInfo()
            _check("krt_module_arg_info", _module_arg_info(module.handle, name.encode(), i, ctypes.byref(raw)))
            self.args.append(ArgInfo(raw))

    def _marshal(self, index, info, value):
        """Returns (pointer to the bytes, size, krt_arg_type) for one argument, and the object that keeps the
        bytes alive."""
        where = f"{self.name} argument {index} ({info.name or '?'})"
        arg_type = ARG_TYPE_NONE
        if info.kind in (ARG_GLOBAL_POINTER, ARG_CONSTANT_POINTER):
            if value is not None and not isinstance(value, Buffer):
                raise TypeError(f"{where} is a {arg_kind_name(info.kind)}: pass a Buffer, not {type(value).__name__}")
            holder = _p(value.ptr.value if value is not None else None)
            return ctypes.addressof(holder), ctypes.sizeof(holder), ARG_TYPE_POINTER, holder
        if info.kind == ARG_LOCAL_POINTER:
            if not isinstance(value, Local):
                raise TypeError(f"{where} is a local pointer: pass Local(bytes per group)")
            return None, value.nbytes, ARG_TYPE_NONE, None
        if info.kind == ARG_SCALAR:
            signed, unsigned = _SCALAR_FORMATS[info.type]
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            # OpenCL's 3-element vectors occupy the size of 4.
            slots = info.size // struct.calcsize(signed)
            if len(values) != info.vector_width:
                raise TypeError(f"{where} wants {info.vector_width} value(s), got {len(values)}")
            if info.type in (TYPE_FLOAT16, TYPE_FLOAT32, TYPE_FLOAT64):
                # An int converts exactly as C would convert it; anything else that is not a number is refused.
                if any(not isinstance(v, (int, float)) for v in values):
                    raise TypeError(f"{where} is a {scalar_type_name(info.type)}: pass a float")
                values = [float(v) for v in values]
            elif any(not isinstance(v, int) for v in values):
                # A float for an int argument is refused, never truncated or reinterpreted.
                bad = next(v for v in values if not isinstance(v, int))
                raise TypeError(f"{where} is an {scalar_type_name(info.type)}: pass an int, not "
                                f"{type(bad).__name__} {bad!r}")
            negative = any(v < 0 for v in values)
            fmt = signed if negative else unsigned
            try:
                data = struct.pack("=" + fmt * slots, *(values + [0] * (slots - len(values))))
            except (struct.error, OverflowError) as e:
                raise OverflowError(f"{where} is an {scalar_type_name(info.type)}: {values} does not fit "
                                    f"({e})") from None
            if info.vector_width == 1 and info.type in _SCALAR_ARG_TYPES:
                arg_type = _SCALAR_ARG_TYPES[info.type][0 if negative else 1]
        elif info.kind == ARG_STRUCT:
            data = bytes(value)
        else:
            raise TypeError(f"{where}: arguments of this kind cannot be passed by krt_launch")
        if len(data) != info.size:
            raise TypeError(f"{where} takes {info.size} bytes, got {len(data)}")
        holder = ctypes.create_string_buffer(data, len(data))
        return ctypes.addressof(holder), len(data), arg_type, holder

    @staticmethod
    def _ndrange(size):
        sizes = tuple(size) if isinstance(size, (list, tuple)) else (size,)
        return _NDRange(len(sizes), (ctypes.c_uint64 * 3)(*sizes))

    def config(self, size):
        """The launch configuration krt chooses for this range, as a dict."""
        out = _LaunchConfig()
        _check("krt_launch_config_get", _launch_config_get(self.handle, ctypes.byref(self._ndrange(size)),
                                                           ctypes.byref(out)))
        return {"group": tuple(out.group[:out.dims]), "groups": tuple(out.groups[:out.dims]),
                "limit": limit_name(out.limit), "masked": bool(out.masked)}

    def __call__(self, size, *values, group=None):
        """Queues a launch over size (an int or a tuple of up to 3 ints) on the default queue."""
        if len(values) != len(self.args):
            raise TypeError(f"{self.name} takes {len(self.args)} arguments, got {len(values)}")
        args = (_Arg * max(1, len(values)))()
        keep = []
        for i, (info, value) in enumerate(zip(self.args, values)):
            pointer, size_bytes, arg_type, holder = self._marshal(i, info, value)
            args[i].value, args[i].size, args[i].type = pointer, size_bytes, arg_type
            keep.append(holder)
        desc = _LaunchDesc(range=self._ndrange(size), args=args, num_args=len(values))
        if group:
            desc.group = (ctypes.c_uint32 * 3)(*group)
        _check("krt_launch", _launch(self.handle, ctypes.byref(desc)))
