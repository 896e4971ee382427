/*
 * import.c: another library's memory as a krt.Array, in place: through DLPack (with the stream protocol: the
 * producer orders its work before the context's default queue) or __cuda_array_interface__ (its stream is
 * synchronized). Only memory the context's kernels can use qualifies (ze_cuda's own device); otherwise the import
 * says "not here" and the caller copies (krt.asarray) or refuses (a kernel argument, convert.c).
 */
#include "kpy.h"

#include <dlfcn.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Importing another library's memory (DLPack, __cuda_array_interface__)
 * ------------------------------------------------------------------------------------------------------- */

static void owner_destructor_legacy(PyObject *cap)
{
    krt_dl_managed *m = PyCapsule_GetPointer(cap, "krt.dl_owner");
    if (m && m->deleter) m->deleter(m);
}

static void owner_destructor_v(PyObject *cap)
{
    krt_dl_managed_v *m = PyCapsule_GetPointer(cap, "krt.dl_owner_v");
    if (m && m->deleter) m->deleter(m);
}

/* Whether memory of DLPack device (t, id) is usable in place by the context's kernels. */
static int dl_device_usable(CtxObject *c, int t, int id)
{
    if (!c->is_cuda) return 0; /* ze_pocl and the host device know only their own allocations */
    if (t == KRT_DL_CUDA || t == KRT_DL_CUDA_MANAGED) return id == (int)c->info.device_index;
    return 0;
}

static PyObject *ctx_stream_int(CtxObject *c)
{
    if (!c->native_known) {
        void *native = NULL;
        if (krt_queue_native(c->dq.q, &native) == KRT_SUCCESS) c->native_stream = native;
        c->native_known = 1;
    }
    if (!c->native_stream) Py_RETURN_NONE;
    return PyLong_FromVoidPtr(c->native_stream);
}

/* Imports obj through DLPack in place. Returns a new Array, or NULL with an exception. When the memory is not
 * usable in place, returns NULL with *not_here set and no exception. */
static PyObject *import_dlpack(CtxObject *c, PyObject *obj, int *not_here)
{
    *not_here = 0;
    PyObject *dev = PyObject_CallMethodObjArgs(obj, s_dlpack_device, NULL);
    if (!dev) return NULL;
    int t, id;
    if (!PyArg_ParseTuple(dev, "ii", &t, &id)) {
        KPy_DECREF(dev);
        return NULL;
    }
    KPy_DECREF(dev);
    if (!dl_device_usable(c, t, id)) {
        *not_here = 1;
        return NULL;
    }
    PyObject *stream = ctx_stream_int(c);
    if (!stream) return NULL;
    /* The producer orders its work before our stream (the DLPack stream protocol); a legacy producer that does
     * not know max_version is asked again without it. */
    PyObject *kw = Py_BuildValue("{s:O,s:(ii)}", "stream", stream, "max_version", 1, 0);
    PyObject *meth = kw ? PyObject_GetAttr(obj, s_dlpack) : NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = meth && empty ? PyObject_Call(meth, empty, kw) : NULL;
    if (!cap && meth && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyDict_DelItemString(kw, "max_version");
        cap = PyObject_Call(meth, empty, kw);
    }
    KPy_XDECREF(empty);
    KPy_XDECREF(meth);
    KPy_XDECREF(kw);
    KPy_DECREF(stream);
    if (!cap) return NULL;
    int versioned = PyCapsule_IsValid(cap, "dltensor_versioned");
    if (!versioned && !PyCapsule_IsValid(cap, "dltensor")) {
        KPy_DECREF(cap);
        PyErr_SetString(PyExc_TypeError, "__dlpack__ did not return a DLPack capsule");
        return NULL;
    }
    void *m = PyCapsule_GetPointer(cap, versioned ? "dltensor_versioned" : "dltensor");
    krt_dl_tensor *tn = versioned ? &((krt_dl_managed_v *)m)->dl_tensor : &((krt_dl_managed *)m)->dl_tensor;
    if (versioned && ((krt_dl_managed_v *)m)->version.major != 1) {
        KPy_DECREF(cap);
        PyErr_Format(PyExc_BufferError, "DLPack version %u is not supported (krt reads 1.x)",
                     ((krt_dl_managed_v *)m)->version.major);
        return NULL;
    }
    ArrayObject *a = (ArrayObject *)PyType_GenericAlloc(ArrayType, 0);
    if (!a) {
        KPy_DECREF(cap);
        return NULL;
    }
    KPy_INCREF(c);
    a->ctx = c;
    a->kind = -1;
    a->released = 1;
    a->dl_type = t;
    a->dl_id = id;
    krt_dl_dtype dt;
    if (tn->ndim < 0 || tn->ndim > MAX_DIMS || dtype_to_typestr(tn->dtype, a->typestr) < 0 ||
        parse_typestr(a->typestr, a->format, &dt, &a->itemsize) < 0) {
        KPy_DECREF(cap);
        KPy_DECREF(a);
        PyErr_SetString(PyExc_TypeError, "krt imports DLPack tensors of bool, int, uint, float or complex elements, "
                                         "up to 16 dimensions");
        return NULL;
    }
    a->ndim = tn->ndim;
    Py_ssize_t count = 1, expect = 1;
    int contiguous = 1;
    for (int i = tn->ndim - 1; i >= 0; i--) {
        a->shape[i] = (Py_ssize_t)tn->shape[i];
        a->strides[i] = expect * a->itemsize;
        if (tn->strides && tn->shape[i] > 1 && tn->strides[i] != expect) contiguous = 0;
        expect *= tn->shape[i];
        count *= tn->shape[i];
    }
    if (!contiguous) {
        KPy_DECREF(cap);
        KPy_DECREF(a);
        PyErr_SetString(PyExc_ValueError, "the tensor is not C-contiguous; a kernel pointer needs contiguous memory "
                                          "(call .contiguous() or copy it first)");
        return NULL;
    }
    a->nbytes = count * a->itemsize;
    a->ptr = (char *)tn->data + tn->byte_offset;
    /* The capsule is consumed: its deleter now belongs to an owner capsule of ours, run when the array goes. */
    PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor");
    KPy_DECREF(cap);
    a->owner = versioned ? PyCapsule_New(m, "krt.dl_owner_v", owner_destructor_v)
                         : PyCapsule_New(m, "krt.dl_owner", owner_destructor_legacy);
    if (!a->owner) {
        KPy_DECREF(a);
        return NULL;
    }
    a->released = 0;
    return (PyObject *)a;
}

/* cuStreamSynchronize, for a __cuda_array_interface__ producer's stream. */
static int cuda_stream_sync(uintptr_t stream)
{
    static int (*sync)(void *);
    if (!sync) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
        if (h) sync = (int (*)(void *))dlsym(h, "cuStreamSynchronize");
    }
    if (!sync) return -1;
    return sync((void *)stream) == 0 ? 0 : -1;
}

static PyObject *import_cai(CtxObject *c, PyObject *obj, PyObject *cai, int *not_here)
{
    *not_here = !c->is_cuda;
    if (*not_here) return NULL;
    PyObject *data = PyDict_GetItemString(cai, "data");
    PyObject *shape = PyDict_GetItemString(cai, "shape");
    PyObject *typestr = PyDict_GetItemString(cai, "typestr");
    PyObject *strides = PyDict_GetItemString(cai, "strides");
    PyObject *stream = PyDict_GetItemString(cai, "stream");
    if (!data || !shape || !typestr) {
        PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ lacks data, shape or typestr");
        return NULL;
    }
    PyObject *p = PyTuple_GetItem(data, 0);
    if (!p) return NULL;
    void *ptr = PyLong_AsVoidPtr(p);
    if (!ptr && PyErr_Occurred()) return NULL;
    const char *ts = PyUnicode_AsUTF8AndSize(typestr, NULL);
    if (!ts) return NULL;
    ArrayObject *a = (ArrayObject *)PyType_GenericAlloc(ArrayType, 0);
    if (!a) return NULL;
    KPy_INCREF(c);
    a->ctx = c;
    a->kind = -1;
    a->released = 1;
    a->dl_type = KRT_DL_CUDA;
    a->dl_id = (int)c->info.device_index;
    krt_dl_dtype dt;
    if (strlen(ts) >= sizeof a->typestr || parse_typestr(ts, a->format, &dt, &a->itemsize) < 0) {
        KPy_DECREF(a);
        PyErr_Format(PyExc_TypeError, "krt imports bool, int, uint, float or complex elements, not \"%s\"", ts);
        return NULL;
    }
    strcpy(a->typestr, ts);
    PyObject *st = PySequence_Tuple(shape);
    Py_ssize_t count = st ? array_set_shape(a, st) : -1;
    KPy_XDECREF(st);
    if (count < 0) {
        KPy_DECREF(a);
        return NULL;
    }
    if (strides && strides != Py_None) {
        for (int i = 0; i < a->ndim; i++) {
            PyObject *s = PySequence_GetItem(strides, i);
            Py_ssize_t v = s ? PyLong_AsSsize_t(s) : -1;
            KPy_XDECREF(s);
            if (PyErr_Occurred()) {
                KPy_DECREF(a);
                return NULL;
            }
            if (a->shape[i] > 1 && v != a->strides[i]) {
                KPy_DECREF(a);
                PyErr_SetString(PyExc_ValueError, "the array is not C-contiguous; a kernel pointer needs contiguous "
                                                  "memory (copy it first)");
                return NULL;
            }
        }
    }
    if (stream && stream != Py_None) {
        uintptr_t s = (uintptr_t)PyLong_AsVoidPtr(stream);
        if (PyErr_Occurred() || cuda_stream_sync(s) < 0) {
            PyErr_Clear();
            KPy_DECREF(a);
            PyErr_SetString(PyExc_RuntimeError, "could not synchronize the __cuda_array_interface__ stream");
            return NULL;
        }
    }
    a->nbytes = count * a->itemsize;
    a->ptr = ptr;
    KPy_INCREF(obj);
    a->owner = obj;
    a->released = 0;
    return (PyObject *)a;
}

/* _krt.import_array(ctx, obj): obj's memory as a krt.Array in place, or None when it cannot be used in place by
 * the context (then the caller copies, or refuses). */
PyObject *import_any(CtxObject *c, PyObject *obj, int *not_here)
{
    *not_here = 1;
    if (PyObject_HasAttr(obj, s_dlpack_device) && PyObject_HasAttr(obj, s_dlpack)) {
        PyObject *a = import_dlpack(c, obj, not_here);
        if (a || !*not_here) return a;
    }
    if (c->is_cuda && PyObject_HasAttr(obj, s_cai)) {
        PyObject *cai = PyObject_GetAttr(obj, s_cai);
        if (!cai) return NULL;
        PyObject *a = import_cai(c, obj, cai, not_here);
        KPy_DECREF(cai);
        return a;
    }
    *not_here = 1;
    return NULL;
}

PyObject *mod_import_array(PyObject *self, PyObject *args)
{
    (void)self;
    CtxObject *c;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O!O:import_array", ContextType, &c, &obj)) return NULL;
    if (!ctx_usable(c)) return NULL;
    int not_here;
    PyObject *a = import_any(c, obj, &not_here);
    if (!a && not_here && !PyErr_Occurred()) Py_RETURN_NONE;
    return a;
}

