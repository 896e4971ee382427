/*
 * _krt.c: krt for Python, the extension module krt._krt: its module-level functions (devices, results, the
 * registration _init, library_path, dlpack_device_of; alloc, fill_zero, view and import_array are array.c's and
 * import.c's) and PyInit__krt, which makes the types and the interned strings.
 *
 * The extension is the C files of python/src against CPython's stable ABI (Py_LIMITED_API 3.11), so one build serves
 * 3.11 and later; kpy.h is what they share. Calls go one way: _krt.c -> module.c -> kernel.c -> convert.c ->
 * import.c -> array.c -> context.c -> registry.c. The launch path is kernel.c's: a kernel call converts each Python
 * value by the kernel's reflected signature (a converter per argument, built once when the kernel is looked up,
 * convert.c), fills krt_arg's on the stack and calls krt_launch. Nothing on that path allocates except the returned
 * event. Object lifetime and the deferred-release list: context.c. Errors: registry.c.
 */
#include "kpy.h"

#include <dlfcn.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------------------------------------- */

static PyObject *mod_devices(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint32_t n = 0;
    krt_result r;
    Py_BEGIN_ALLOW_THREADS
    r = krt_device_list(NULL, &n);
    Py_END_ALLOW_THREADS
    if (r != KRT_SUCCESS) return raise_krt(r);
    krt_device_info *all = PyMem_Calloc(n ? n : 1, sizeof *all);
    if (!all) return PyErr_NoMemory();
    r = krt_device_list(all, &n);
    if (r != KRT_SUCCESS) {
        PyMem_Free(all);
        return raise_krt(r);
    }
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list && i < n; i++) {
        PyObject *d = make_device(&all[i], i);
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SetItem(list, i, d);
    }
    PyMem_Free(all);
    return list;
}

static PyObject *mod_results(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    static const int codes[] = {
#define KRT_PY_CODE_(name, value, text) value,
        KRT_RESULT_LIST(KRT_PY_CODE_)
#undef KRT_PY_CODE_
    };
    size_t n = sizeof codes / sizeof codes[0];
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++)
        PyList_SetItem(list, (Py_ssize_t)i,
                       Py_BuildValue("(iss)", codes[i], krt_result_name(codes[i]), krt_result_string(codes[i])));
    return list;
}

static PyObject *mod_init(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *errors, *base, *argtype, *warning, *device, *ns;
    if (!PyArg_ParseTuple(args, "O!OOOOO:_init", &PyDict_Type, &errors, &base, &argtype, &warning, &device, &ns))
        return NULL;
    PyObject **slots[] = {&error_by_code, &error_base, &argument_type_error, &module_warning, &device_class,
                          &namespace_class};
    PyObject *values[] = {errors, base, argtype, warning, device, ns};
    for (int i = 0; i < 6; i++) {
        PyObject *old = *slots[i];
        KPy_INCREF(values[i]);
        *slots[i] = values[i];
        KPy_XDECREF(old);
    }
    Py_RETURN_NONE;
}

static PyObject *mod_library_path(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    Dl_info info;
    if (!dladdr((void *)krt_context_create, &info) || !info.dli_fname) Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(info.dli_fname);
}

static PyObject *mod_device_type(PyObject *self, PyObject *args)
{
    (void)self;
    CtxObject *c;
    if (!PyArg_ParseTuple(args, "O!", ContextType, &c)) return NULL;
    return Py_BuildValue("(ii)", c->is_cuda ? KRT_DL_CUDA : KRT_DL_CPU, c->is_cuda ? (int)c->info.device_index : 0);
}

static PyMethodDef mod_functions[] = {
    {"devices", mod_devices, METH_NOARGS, "devices() -> list of krt.Device\n\nEvery device krt can use, in the order "
                                          "an index in krt.Context(device=i) counts them (krt_device_list)."},
    {"alloc", mod_alloc, METH_VARARGS, "alloc(ctx, shape, typestr, kind) -> krt.Array (use krt.empty)."},
    {"import_array", mod_import_array, METH_VARARGS,
     "import_array(ctx, obj) -> krt.Array or None: obj's memory in place when the context's kernels can use it."},
    {"fill_zero", mod_fill_zero, METH_O, "fill_zero(array): zeros the array and waits (use krt.zeros)."},
    {"view", mod_view, METH_VARARGS, "view(array, typestr) -> krt.Array: the same memory as typestr (use Array.view)."},
    {"results", mod_results, METH_NOARGS, "results() -> [(code, name, description)] of every krt_result."},
    {"library_path", mod_library_path, METH_NOARGS, "The path of the libkrt this module uses."},
    {"dlpack_device_of", mod_device_type, METH_VARARGS, "The DLPack device of a context's device memory."},
    {"_init", mod_init, METH_VARARGS, "Registers the exception classes and helpers of krt/__init__.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef krt_pymodule = {
    PyModuleDef_HEAD_INIT, "krt._krt", "krt's C extension: the launch path, arrays and DLPack. Import krt instead.", -1,
    mod_functions,         NULL,       NULL,                                                                    NULL,
    NULL,
};

static PyTypeObject *make_type(PyObject *m, const char *name, size_t size, PyType_Slot *slots, unsigned flags)
{
    PyType_Spec spec = {name, (int)size, 0, flags, slots};
    PyTypeObject *t = (PyTypeObject *)PyType_FromSpec(&spec);
    if (!t) return NULL;
    const char *short_name = strrchr(name, '.') + 1;
    KPy_INCREF(t);
    if (PyModule_AddObject(m, short_name, (PyObject *)t) < 0) {
        KPy_DECREF(t);
        KPy_DECREF(t);
        return NULL;
    }
    return t;
}

PyMODINIT_FUNC PyInit__krt(void)
{
    PyObject *m = PyModule_Create(&krt_pymodule);
    if (!m) return NULL;
    unsigned base = Py_TPFLAGS_DEFAULT;
    /* The objects never reference each other in a cycle (a kernel holds its module, the module its context), so no
     * type takes part in the cyclic collector. None can be subclassed: the launch path compares exact types. */
    if (!(ContextType = make_type(m, "krt.Context", sizeof(CtxObject), ctx_slots, base)) ||
        !(QueueType = make_type(m, "krt.Queue", sizeof(QueueObject), queue_slots, base)) ||
        !(EventType = make_type(m, "krt.Event", sizeof(EventObject), event_slots, base)) ||
        !(ArrayType = make_type(m, "krt.Array", sizeof(ArrayObject), array_slots, base)) ||
        !(ModuleType = make_type(m, "krt.Module", sizeof(ModuleObject), module_slots, base)) ||
        !(KernelType = make_type(m, "krt.Kernel", sizeof(KernelObject), kernel_slots, base)) ||
        !(LocalType = make_type(m, "krt.Local", sizeof(LocalObject), local_slots, base))) {
        KPy_DECREF(m);
        return NULL;
    }
    s_range = PyUnicode_InternFromString("range");
    s_group = PyUnicode_InternFromString("group");
    s_queue = PyUnicode_InternFromString("queue");
    s_wait = PyUnicode_InternFromString("wait");
    s_block = PyUnicode_InternFromString("block");
    s_dlpack = PyUnicode_InternFromString("__dlpack__");
    s_dlpack_device = PyUnicode_InternFromString("__dlpack_device__");
    s_cai = PyUnicode_InternFromString("__cuda_array_interface__");
    s_stream = PyUnicode_InternFromString("stream");
    s_max_version = PyUnicode_InternFromString("max_version");
    PyModule_AddIntConstant(m, "KIND_DEVICE", KRT_MEMORY_DEVICE);
    PyModule_AddIntConstant(m, "KIND_HOST", KRT_MEMORY_HOST);
    PyModule_AddIntConstant(m, "KIND_SHARED", KRT_MEMORY_SHARED);
    PyModule_AddStringConstant(m, "version",
                               Py_STRINGIFY(KRT_VERSION_MAJOR) "." Py_STRINGIFY(KRT_VERSION_MINOR) "." Py_STRINGIFY(
                                   KRT_VERSION_PATCH));
    return m;
}
