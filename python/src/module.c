/*
 * module.c: krt.Module: loading and building a module (krt_module_create) from a path, SPIR-V bytes or OpenCL C
 * source, with its specialization constants; its kernel names and load warnings; mod["name"] and mod.name make a
 * krt.Kernel (kernel.c).
 */
#include "kpy.h"

#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Module
 * ------------------------------------------------------------------------------------------------------- */

static int spec_value(PyObject *v, krt_spec_constant *sc, unsigned char *store, Py_buffer *view, int *has_view)
{
    *has_view = 0;
    if (PyBool_Check(v)) {
        store[0] = v == Py_True;
        sc->value = store;
        sc->size = 1;
    } else if (PyLong_Check(v)) {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred()) return -1;
        if (x < INT32_MIN || x > (long long)UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError,
                            "a Python int specialization constant is 4 bytes; pass np.int64(v) or 8 bytes for a long");
            return -1;
        }
        int32_t i = (int32_t)x;
        memcpy(store, &i, 4);
        sc->value = store;
        sc->size = 4;
    } else if (PyFloat_Check(v)) {
        float f = (float)PyFloat_AsDouble(v);
        memcpy(store, &f, 4);
        sc->value = store;
        sc->size = 4;
    } else if (PyObject_GetBuffer(v, view, PyBUF_C_CONTIGUOUS) == 0) {
        *has_view = 1;
        sc->value = view->buf;
        sc->size = (size_t)view->len;
    } else {
        PyErr_Clear();
        PyObject *tn = type_name(v);
        PyErr_Format(PyExc_TypeError,
                     "a specialization constant is a bool, an int (4 bytes), a float (4 bytes), a NumPy scalar or bytes, "
                     "not %U",
                     tn);
        KPy_XDECREF(tn);
        return -1;
    }
    return 0;
}

static PyObject *module_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"context",       "path",          "spirv",          "source",       "options",
                             "build_options", "spec_constants", "validation",    "host_library", NULL};
    CtxObject *c;
    PyObject *path = Py_None, *spirv = Py_None, *source = Py_None, *options = Py_None, *build = Py_None,
             *spec = Py_None, *validation = Py_None, *host = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|O$OOOOOOO:Module", kwlist, ContextType, &c, &path, &spirv, &source,
                                     &options, &build, &spec, &validation, &host))
        return NULL;
    if (!ctx_usable(c)) return NULL;
    int given = (path != Py_None) + (spirv != Py_None) + (source != Py_None);
    if (given != 1) {
        PyErr_SetString(PyExc_TypeError, "krt.Module takes exactly one of path=, spirv= (bytes) and source= (str)");
        return NULL;
    }
    krt_module_desc d = {0};
    PyObject *pathb = NULL, *hostb = NULL, *srcb = NULL, *optb = NULL, *buildb = NULL;
    Py_buffer code = {0};
    int have_code = 0;
    krt_spec_constant *sc = NULL;
    Py_buffer *views = NULL;
    int *has_view = NULL;
    unsigned char (*store)[8] = NULL;
    Py_ssize_t nspec = 0;
    PyObject *result = NULL;
    if (path != Py_None) {
        pathb = path_bytes(path);
        if (!pathb || !(d.path = PyBytes_AsString(pathb))) goto out;
    }
    if (spirv != Py_None) {
        if (PyObject_GetBuffer(spirv, &code, PyBUF_C_CONTIGUOUS) < 0) goto out;
        have_code = 1;
        d.code = code.buf;
        d.size = (size_t)code.len;
    }
    if (source != Py_None) {
        srcb = PyUnicode_AsUTF8String(source);
        if (!srcb) goto out;
        d.source = PyBytes_AsString(srcb);
    }
    if (options != Py_None) {
        optb = PyUnicode_AsUTF8String(options);
        if (!optb) goto out;
        d.compile_options = PyBytes_AsString(optb);
    }
    if (build != Py_None) {
        buildb = PyUnicode_AsUTF8String(build);
        if (!buildb) goto out;
        d.build_options = PyBytes_AsString(buildb);
    }
    if (host != Py_None) {
        hostb = path_bytes(host);
        if (!hostb || !(d.host_library = PyBytes_AsString(hostb))) goto out;
    }
    if (validation != Py_None) {
        const char *v = PyUnicode_AsUTF8AndSize(validation, NULL);
        if (!v) goto out;
        if (!strcmp(v, "default")) d.validation = KRT_VALIDATION_DEFAULT;
        else if (!strcmp(v, "strict")) d.validation = KRT_VALIDATION_STRICT;
        else if (!strcmp(v, "none")) d.validation = KRT_VALIDATION_NONE;
        else {
            PyErr_SetString(PyExc_ValueError, "validation is \"default\", \"strict\" or \"none\"");
            goto out;
        }
    }
    if (spec != Py_None) {
        if (!PyDict_Check(spec)) {
            PyErr_SetString(PyExc_TypeError, "spec_constants is a dict {SpecId: value}");
            goto out;
        }
        nspec = PyDict_Size(spec);
        sc = PyMem_Calloc(nspec ? nspec : 1, sizeof *sc);
        views = PyMem_Calloc(nspec ? nspec : 1, sizeof *views);
        has_view = PyMem_Calloc(nspec ? nspec : 1, sizeof *has_view);
        store = PyMem_Calloc(nspec ? nspec : 1, sizeof *store);
        if (!sc || !views || !has_view || !store) {
            PyErr_NoMemory();
            nspec = 0;
            goto out;
        }
        Py_ssize_t pos = 0, i = 0;
        PyObject *key, *val;
        while (PyDict_Next(spec, &pos, &key, &val)) {
            unsigned long id = PyLong_AsUnsignedLong(key);
            if (id == (unsigned long)-1 && PyErr_Occurred()) {
                nspec = i;
                goto out;
            }
            sc[i].id = (uint32_t)id;
            if (spec_value(val, &sc[i], store[i], &views[i], &has_view[i]) < 0) {
                nspec = i;
                goto out;
            }
            i++;
        }
        d.spec_constants = sc;
        d.num_spec_constants = (uint32_t)nspec;
    }
    krt_module *m = NULL;
    krt_result r;
    Py_BEGIN_ALLOW_THREADS
    r = krt_module_create(c->ctx, &d, &m);
    Py_END_ALLOW_THREADS
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        goto out;
    }
    ModuleObject *mo = (ModuleObject *)PyType_GenericAlloc(type, 0);
    if (!mo) {
        krt_module_destroy(m);
        goto out;
    }
    KPy_INCREF(c);
    mo->ctx = c;
    mo->m = m;
    uint32_t n = 0;
    krt_module_kernel_names(m, NULL, &n);
    const char **names = PyMem_Calloc(n ? n : 1, sizeof *names);
    mo->names = names ? PyTuple_New(n) : NULL;
    if (!mo->names) {
        PyMem_Free(names);
        KPy_DECREF(mo);
        goto out;
    }
    krt_module_kernel_names(m, names, &n);
    for (uint32_t i = 0; i < n; i++) PyTuple_SetItem(mo->names, i, PyUnicode_FromString(names[i]));
    PyMem_Free(names);
    krt_module_info info;
    if (krt_module_info_get(m, &info) == KRT_SUCCESS)
        for (uint32_t i = 0; i < info.num_warnings; i++)
            if (PyErr_WarnEx(module_warning ? module_warning : PyExc_UserWarning, info.warnings[i], 1) < 0) {
                KPy_DECREF(mo);
                goto out;
            }
    result = (PyObject *)mo;
out:
    for (Py_ssize_t i = 0; i < nspec; i++)
        if (has_view && has_view[i]) PyBuffer_Release(&views[i]);
    PyMem_Free(sc);
    PyMem_Free(views);
    PyMem_Free(has_view);
    PyMem_Free(store);
    if (have_code) PyBuffer_Release(&code);
    KPy_XDECREF(pathb);
    KPy_XDECREF(hostb);
    KPy_XDECREF(srcb);
    KPy_XDECREF(optb);
    KPy_XDECREF(buildb);
    return result;
}

static void module_dealloc(ModuleObject *m)
{
    if (m->m) ctx_defer(m->ctx, DEFER_MODULE, m->m);
    KPy_XDECREF(m->names);
    KPy_XDECREF(m->ctx);
    kpy_free(m);
}

static PyObject *module_subscript(ModuleObject *m, PyObject *name)
{
    return kernel_make(m, name, 0);
}

static PyObject *module_getattro(ModuleObject *m, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr((PyObject *)m, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    int has = PySequence_Contains(m->names, name);
    if (has <= 0) return NULL;
    PyErr_Clear();
    return kernel_make(m, name, 1);
}

static PyObject *module_get_kernels(ModuleObject *m, void *closure)
{
    (void)closure;
    KPy_INCREF(m->names);
    return m->names;
}

static PyObject *module_get_warnings(ModuleObject *m, void *closure)
{
    (void)closure;
    krt_module_info info;
    krt_result r = krt_module_info_get(m->m, &info);
    if (r != KRT_SUCCESS) return raise_krt(r);
    PyObject *t = PyTuple_New(info.num_warnings);
    for (uint32_t i = 0; t && i < info.num_warnings; i++) PyTuple_SetItem(t, i, PyUnicode_FromString(info.warnings[i]));
    return t;
}

static PyObject *module_get_context(ModuleObject *m, void *closure)
{
    (void)closure;
    KPy_INCREF(m->ctx);
    return (PyObject *)m->ctx;
}

static PyObject *module_repr(ModuleObject *m)
{
    return PyUnicode_FromFormat("<krt.Module with kernels %R>", m->names);
}

static PyGetSetDef module_getset[] = {
    {"kernels", (getter)module_get_kernels, NULL, "The kernel names, in module order (a tuple).", NULL},
    {"warnings", (getter)module_get_warnings, NULL,
     "The load's warnings (krt_module_info), also issued as krt.ModuleWarning when the module loaded.", NULL},
    {"context", (getter)module_get_context, NULL, "The module's context.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyType_Slot module_slots[] = {
    {Py_tp_new, module_new},
    {Py_tp_dealloc, module_dealloc},
    {Py_tp_getset, module_getset},
    {Py_tp_getattro, module_getattro},
    {Py_mp_subscript, module_subscript},
    {Py_tp_repr, module_repr},
    {Py_tp_doc,
     "Module(context, path=None, *, spirv=None, source=None, options=None, build_options=None, spec_constants=None, "
     "validation=None, host_library=None)\n\n"
     "Loads and builds a module (krt_module_create) from exactly one of: path (a .spv file, or .cl OpenCL C), spirv "
     "(bytes) or source (OpenCL C text, compiled by krt-cc; options are its compiler options such as \"-DN=4\"). "
     "build_options go to the driver. spec_constants: {SpecId: value}, a bool (1 byte), an int or float (4 bytes), "
     "a NumPy scalar or bytes of the constant's width. validation: \"default\", \"strict\" or \"none\". host_library: "
     "the host device's native library (krt-cc --host).\n\n"
     "mod[\"saxpy\"] or mod.saxpy is a krt.Kernel; each lookup makes a new Kernel object of the same kernel, so keep "
     "the one you call. Load warnings are issued as krt.ModuleWarning. Errors: krt.InvalidModuleError, "
     "krt.ModuleBuildError (its message is the build log), krt.FileError, krt.UnsupportedFeatureError."},
    {0, NULL},
};

