/*
 * array.c: krt.Array: krt_alloc memory (_krt.alloc, _krt.fill_zero), memory imported in place (import.c makes
 * those) and views of either with another element type (_krt.view), its buffer protocol and __array_interface__ for
 * memory the host can read, host copies, and the DLPack export (__dlpack__, __dlpack_device__). Every export first
 * waits for the context's queued work; the memory goes back to krt (through the context's deferred list) once
 * free() was called and no export (a view among them) holds it.
 */
#include "kpy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Array
 * ------------------------------------------------------------------------------------------------------- */

static const char *kind_name(int kind)
{
    switch (kind) {
    case KRT_MEMORY_DEVICE: return "device";
    case KRT_MEMORY_HOST: return "host";
    case KRT_MEMORY_SHARED: return "shared";
    default: return "foreign";
    }
}

static void array_export_done(ArrayObject *a);

static void array_release(ArrayObject *a)
{
    if (a->released) return;
    a->released = 1;
    if (a->base) {
        /* A view owns nothing: it ends its hold on the array whose memory it is (which frees that memory, through
         * the deferred list, when that array was freed and this was its last export). */
        ArrayObject *b = (ArrayObject *)a->base;
        a->base = NULL;
        array_export_done(b);
        KPy_DECREF(b);
    } else if (a->kind < 0) {
        if (a->owner) ctx_defer(a->ctx, DEFER_OBJECT, a->owner);
        a->owner = NULL;
    } else if (a->ptr) {
        ctx_defer(a->ctx, DEFER_FREE, a->ptr);
    }
}

static void array_dealloc(ArrayObject *a)
{
    array_release(a);
    KPy_XDECREF(a->ctx);
    kpy_free(a);
}

/* typestr ("<f4", "|b1") -> buffer format and DLPack dtype. */
int parse_typestr(const char *ts, char *format, krt_dl_dtype *dt, int *itemsize)
{
    size_t n = strlen(ts);
    if (n < 3 || n > 4 || !strchr("<>|=", ts[0])) return -1;
    int size = atoi(ts + 2);
    if (ts[0] == '>') return -1; /* krt's devices are little-endian */
    const char *f = NULL;
    uint8_t code;
    switch (ts[1]) {
    case 'b': code = KRT_DL_BOOL; f = size == 1 ? "?" : NULL; break;
    case 'i':
        code = KRT_DL_INT;
        f = size == 1 ? "b" : size == 2 ? "h" : size == 4 ? "i" : size == 8 ? "q" : NULL;
        break;
    case 'u':
        code = KRT_DL_UINT;
        f = size == 1 ? "B" : size == 2 ? "H" : size == 4 ? "I" : size == 8 ? "Q" : NULL;
        break;
    case 'f': code = KRT_DL_FLOAT; f = size == 2 ? "e" : size == 4 ? "f" : size == 8 ? "d" : NULL; break;
    case 'c': code = KRT_DL_COMPLEX; f = size == 8 ? "Zf" : size == 16 ? "Zd" : NULL; break;
    default: return -1;
    }
    if (!f) return -1;
    strcpy(format, f);
    dt->code = code;
    dt->bits = (uint8_t)(size * 8);
    dt->lanes = 1;
    *itemsize = size;
    return 0;
}

int dtype_to_typestr(krt_dl_dtype dt, char *ts)
{
    if (dt.lanes != 1 || dt.bits % 8) return -1;
    char k;
    switch (dt.code) {
    case KRT_DL_INT: k = 'i'; break;
    case KRT_DL_UINT: k = 'u'; break;
    case KRT_DL_FLOAT: k = 'f'; break;
    case KRT_DL_COMPLEX: k = 'c'; break;
    case KRT_DL_BOOL: k = 'b'; break;
    default: return -1;
    }
    snprintf(ts, 8, "%c%c%d", dt.bits == 8 ? '|' : '<', k, dt.bits / 8);
    return 0;
}

static void array_dl_device(CtxObject *c, int kind, int *type, int *id)
{
    if (!c->is_cuda) {
        *type = KRT_DL_CPU;
        *id = 0;
        return;
    }
    *id = (int)c->info.device_index;
    *type = kind == KRT_MEMORY_SHARED ? KRT_DL_CUDA_MANAGED : kind == KRT_MEMORY_HOST ? KRT_DL_CUDA_HOST : KRT_DL_CUDA;
    if (kind == KRT_MEMORY_HOST) *id = 0;
}

static int array_host_visible(ArrayObject *a)
{
    return a->dl_type == KRT_DL_CPU || a->dl_type == KRT_DL_CUDA_HOST || a->dl_type == KRT_DL_CUDA_MANAGED;
}

/* Fills shape (a tuple of ints) and C-order strides; returns the element count or -1. */
Py_ssize_t array_set_shape(ArrayObject *a, PyObject *shape)
{
    Py_ssize_t nd = PyTuple_Size(shape);
    if (nd < 0) return -1;
    if (nd > MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "krt arrays have at most %d dimensions, not %zd", MAX_DIMS, nd);
        return -1;
    }
    Py_ssize_t count = 1;
    for (Py_ssize_t i = 0; i < nd; i++) {
        Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GetItem(shape, i));
        if (d == -1 && PyErr_Occurred()) return -1;
        if (d < 0) {
            PyErr_SetString(PyExc_ValueError, "array dimensions must be >= 0");
            return -1;
        }
        a->shape[i] = d;
        if (d && count > PY_SSIZE_T_MAX / d) {
            PyErr_SetString(PyExc_OverflowError, "array too large");
            return -1;
        }
        count *= d;
    }
    a->ndim = (int)nd;
    Py_ssize_t stride = a->itemsize;
    for (Py_ssize_t i = nd - 1; i >= 0; i--) {
        a->strides[i] = stride;
        stride *= a->shape[i] ? a->shape[i] : 1;
    }
    return count;
}

/* _krt.alloc(ctx, shape, typestr, kind): a new krt.Array of krt_alloc memory. */
PyObject *mod_alloc(PyObject *self, PyObject *args)
{
    (void)self;
    CtxObject *c;
    PyObject *shape;
    const char *typestr;
    int kind;
    if (!PyArg_ParseTuple(args, "O!O!si:alloc", ContextType, &c, &PyTuple_Type, &shape, &typestr, &kind)) return NULL;
    if (!ctx_usable(c)) return NULL;
    if (kind < 0 || kind > 2) {
        PyErr_SetString(PyExc_ValueError, "kind must be \"device\", \"host\" or \"shared\"");
        return NULL;
    }
    ArrayObject *a = (ArrayObject *)PyType_GenericAlloc(ArrayType, 0);
    if (!a) return NULL;
    KPy_INCREF(c);
    a->ctx = c;
    a->kind = kind;
    a->released = 1; /* nothing to release until the allocation succeeds */
    krt_dl_dtype dt;
    if (strlen(typestr) >= sizeof a->typestr || parse_typestr(typestr, a->format, &dt, &a->itemsize) < 0) {
        PyErr_Format(PyExc_TypeError, "krt arrays hold bool, int, uint, float or complex elements, not \"%s\"",
                     typestr);
        KPy_DECREF(a);
        return NULL;
    }
    strcpy(a->typestr, typestr);
    Py_ssize_t count = array_set_shape(a, shape);
    if (count < 0 || count > PY_SSIZE_T_MAX / a->itemsize) {
        if (count >= 0) PyErr_SetString(PyExc_OverflowError, "array too large");
        KPy_DECREF(a);
        return NULL;
    }
    a->nbytes = count * a->itemsize;
    array_dl_device(c, kind, &a->dl_type, &a->dl_id);
    krt_alloc_desc d = {.kind = (krt_memory_kind)kind};
    krt_result r;
    /* krt_alloc refuses 0 bytes; an empty array still gets an address of its own. */
    Py_BEGIN_ALLOW_THREADS
    r = krt_alloc(c->ctx, a->nbytes ? (size_t)a->nbytes : 1, &d, &a->ptr);
    Py_END_ALLOW_THREADS
    if (r != KRT_SUCCESS) {
        KPy_DECREF(a);
        return raise_krt(r);
    }
    a->released = 0;
    return (PyObject *)a;
}

static int array_usable(ArrayObject *a)
{
    if (a->freed || a->released) {
        raise_code(KRT_ERROR_INVALID_STATE, "the krt.Array was freed");
        return 0;
    }
    return 1;
}

static PyObject *array_free(ArrayObject *a, PyObject *unused)
{
    (void)unused;
    if (a->freed) Py_RETURN_NONE;
    a->freed = 1;
    if (!a->exports && !a->iface_seen) array_release(a);
    Py_RETURN_NONE;
}

static void array_export_done(ArrayObject *a)
{
    a->exports--;
    if (a->freed && !a->exports && !a->iface_seen) array_release(a);
}

/* Exports wait for the context's queued work, so that the consumer reads finished data. */
static int array_export_sync(ArrayObject *a)
{
    if (a->ctx->closed || !ctx_dirty(a->ctx)) return 0;
    return ctx_sync(a->ctx);
}

static int array_getbuffer(ArrayObject *a, Py_buffer *view, int flags)
{
    if (!array_usable(a)) return -1;
    if (!array_host_visible(a)) {
        PyErr_Format(PyExc_BufferError,
                     "this krt.Array is %s memory of %s, which the host cannot read: copy it with .numpy() or "
                     "copy_to()",
                     kind_name(a->kind), a->ctx->info.name);
        return -1;
    }
    if (array_export_sync(a) < 0) return -1;
    view->obj = (PyObject *)a;
    KPy_INCREF(a);
    view->buf = a->ptr;
    view->len = a->nbytes;
    view->readonly = 0;
    view->itemsize = a->itemsize;
    view->format = (flags & PyBUF_FORMAT) ? a->format : NULL;
    view->ndim = a->ndim;
    view->shape = (flags & PyBUF_ND) ? a->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? a->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    if (!(flags & PyBUF_ND) && a->ndim != 1) view->ndim = 1;
    a->exports++;
    return 0;
}

static void array_releasebuffer(ArrayObject *a, Py_buffer *view)
{
    (void)view;
    array_export_done(a);
}

static PyObject *array_get_interface(ArrayObject *a, void *closure)
{
    (void)closure;
    if (!array_usable(a)) return NULL;
    if (!array_host_visible(a)) {
        PyErr_Format(PyExc_AttributeError,
                     "__array_interface__: this krt.Array is %s memory of %s, which the host cannot read; copy it "
                     "with .numpy()",
                     kind_name(a->kind), a->ctx->info.name);
        return NULL;
    }
    if (array_export_sync(a) < 0) return NULL;
    a->iface_seen = 1;
    PyObject *shape = PyTuple_New(a->ndim);
    if (!shape) return NULL;
    for (int i = 0; i < a->ndim; i++) PyTuple_SetItem(shape, i, PyLong_FromSsize_t(a->shape[i]));
    return Py_BuildValue("{s:N,s:s,s:(NO),s:O,s:i}", "shape", shape, "typestr", a->typestr, "data",
                         PyLong_FromVoidPtr(a->ptr), Py_False, "strides", Py_None, "version", 3);
}

/* DLPack export. */
typedef struct {
    union {
        krt_dl_managed legacy;
        krt_dl_managed_v v;
    } m;
    int versioned;
    int64_t shape[MAX_DIMS], strides[MAX_DIMS];
    ArrayObject *arr;
} dl_export;

static void dl_export_free(dl_export *x)
{
    PyGILState_STATE g = PyGILState_Ensure();
    array_export_done(x->arr);
    KPy_DECREF(x->arr);
    PyGILState_Release(g);
    free(x);
}

static void dl_deleter_legacy(krt_dl_managed *m)
{
    dl_export_free((dl_export *)m);
}

static void dl_deleter_v(krt_dl_managed_v *m)
{
    dl_export_free((dl_export *)m);
}

static void dl_capsule_destructor(PyObject *cap)
{
    /* A capsule nobody consumed still owns its tensor. */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        krt_dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter) m->deleter(m);
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        krt_dl_managed_v *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter) m->deleter(m);
    }
}

static PyObject *array_dlpack(ArrayObject *a, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__", kwlist, &stream, &max_version, &dl_device, &copy))
        return NULL;
    (void)stream; /* every export waits for the context's work: any consumer stream is then safe */
    if (!array_usable(a)) {
        PyErr_SetString(PyExc_BufferError, "__dlpack__: the krt.Array was freed");
        return NULL;
    }
    if (dl_device != Py_None) {
        int t, i;
        if (!PyArg_ParseTuple(dl_device, "ii", &t, &i)) return NULL;
        if (t != a->dl_type || i != a->dl_id) {
            PyErr_Format(PyExc_BufferError,
                         "__dlpack__: krt exports in place only, on its own device (%d, %d), not (%d, %d); copy with "
                         ".numpy() for the host",
                         a->dl_type, a->dl_id, t, i);
            return NULL;
        }
    }
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "__dlpack__(copy=True): krt exports in place only; use .numpy() for a copy");
        return NULL;
    }
    int versioned = 0;
    if (max_version != Py_None) {
        PyObject *major = PySequence_GetItem(max_version, 0);
        if (!major) return NULL;
        long v = PyLong_AsLong(major);
        KPy_DECREF(major);
        if (v == -1 && PyErr_Occurred()) return NULL;
        versioned = v >= 1;
    }
    if (array_export_sync(a) < 0) return NULL;
    dl_export *x = calloc(1, sizeof *x);
    if (!x) return PyErr_NoMemory();
    krt_dl_tensor *t = versioned ? &x->m.v.dl_tensor : &x->m.legacy.dl_tensor;
    t->data = a->ptr;
    t->device.device_type = a->dl_type;
    t->device.device_id = a->dl_id;
    t->ndim = a->ndim;
    krt_dl_dtype dt;
    char fmt[4];
    int isz;
    parse_typestr(a->typestr, fmt, &dt, &isz);
    t->dtype = dt;
    for (int i = 0; i < a->ndim; i++) {
        x->shape[i] = a->shape[i];
        x->strides[i] = a->strides[i] / a->itemsize;
    }
    t->shape = x->shape;
    t->strides = x->strides;
    t->byte_offset = 0;
    x->versioned = versioned;
    KPy_INCREF(a);
    x->arr = a;
    a->exports++;
    PyObject *cap;
    if (versioned) {
        x->m.v.version.major = 1;
        x->m.v.version.minor = 0;
        x->m.v.manager_ctx = x;
        x->m.v.deleter = dl_deleter_v;
        x->m.v.flags = 0;
        cap = PyCapsule_New(&x->m.v, "dltensor_versioned", dl_capsule_destructor);
    } else {
        x->m.legacy.manager_ctx = x;
        x->m.legacy.deleter = dl_deleter_legacy;
        cap = PyCapsule_New(&x->m.legacy, "dltensor", dl_capsule_destructor);
    }
    if (!cap) {
        a->exports--;
        KPy_DECREF(a);
        free(x);
    }
    return cap;
}

static PyObject *array_dlpack_device(ArrayObject *a, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("(ii)", a->dl_type, a->dl_id);
}

/* Holds a buffer-protocol view of a host object during a blocking copy. */
static int host_view(PyObject *o, Py_buffer *v, int writable, Py_ssize_t nbytes, const char *what)
{
    if (PyObject_GetBuffer(o, v, writable ? PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS : PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        PyObject *tn = type_name(o);
        PyErr_Format(PyExc_TypeError, "%s takes a C-contiguous%s buffer (bytes, bytearray, a NumPy array), not %U",
                     what, writable ? " writable" : "", tn);
        KPy_XDECREF(tn);
        return -1;
    }
    if (v->len != nbytes) {
        PyErr_Format(PyExc_ValueError, "%s: the array has %zd bytes, the buffer %zd", what, nbytes, v->len);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

static PyObject *array_copy(ArrayObject *a, PyObject *other, int to_host)
{
    if (!ctx_usable(a->ctx) || !array_usable(a)) return NULL;
    Py_buffer v;
    if (host_view(other, &v, to_host, a->nbytes, to_host ? "copy_to" : "copy_from") < 0) return NULL;
    krt_result r = KRT_SUCCESS;
    CtxObject *c = a->ctx;
    uint64_t snap = c->dq.ticket;
    if (a->nbytes) {
        Py_BEGIN_ALLOW_THREADS
        r = to_host ? krt_memcpy_sync(c->ctx, NULL, v.buf, a->ptr, (size_t)a->nbytes)
                    : krt_memcpy_sync(c->ctx, NULL, a->ptr, v.buf, (size_t)a->nbytes);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v);
    if (r != KRT_SUCCESS) return raise_krt(r);
    if (c->dq.done < snap) c->dq.done = snap;
    if (!ctx_dirty(c)) ctx_drain(c);
    Py_RETURN_NONE;
}

static PyObject *array_copy_to(ArrayObject *a, PyObject *dst)
{
    return array_copy(a, dst, 1);
}

static PyObject *array_copy_from(ArrayObject *a, PyObject *src)
{
    return array_copy(a, src, 0);
}

/* _krt.fill_zero(array): zeros the array on the default queue (krt_memfill) and waits. */
PyObject *mod_fill_zero(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!KPy_IS_TYPE(arg, ArrayType)) {
        PyErr_SetString(PyExc_TypeError, "fill_zero takes a krt.Array");
        return NULL;
    }
    ArrayObject *a = (ArrayObject *)arg;
    if (!ctx_usable(a->ctx) || !array_usable(a)) return NULL;
    if (a->kind < 0) return raise_code(KRT_ERROR_INVALID_ARGUMENT, "fill_zero: the array is not krt's own memory");
    CtxObject *c = a->ctx;
    unsigned char zero = 0;
    krt_result r = a->nbytes ? krt_memfill(c->ctx, NULL, a->ptr, &zero, 1, (size_t)a->nbytes) : KRT_SUCCESS;
    if (r != KRT_SUCCESS) return raise_krt(r);
    c->dq.ticket++;
    if (qstate_wait(c, &c->dq, UINT64_MAX) < 0) return NULL;
    Py_RETURN_NONE;
}

/* _krt.view(array, typestr): a new krt.Array over the array's memory with elements of typestr (Array.view, NumPy's
 * rule: a dtype of another size rescales the last dimension, whose bytes must be a whole number of the new
 * elements). The view counts as an export of the array, as a DLPack capsule does: the memory stays while the view
 * lives, even after the array's free(). */
PyObject *mod_view(PyObject *self, PyObject *args)
{
    (void)self;
    ArrayObject *a;
    const char *typestr;
    if (!PyArg_ParseTuple(args, "O!s:view", ArrayType, &a, &typestr)) return NULL;
    if (!array_usable(a)) return NULL;
    char format[4];
    krt_dl_dtype dt;
    int itemsize;
    if (strlen(typestr) >= sizeof a->typestr || parse_typestr(typestr, format, &dt, &itemsize) < 0) {
        PyErr_Format(PyExc_TypeError, "krt arrays hold bool, int, uint, float or complex elements, not \"%s\"",
                     typestr);
        return NULL;
    }
    Py_ssize_t shape[MAX_DIMS];
    memcpy(shape, a->shape, sizeof shape);
    if (itemsize != a->itemsize) {
        if (a->ndim == 0) {
            PyErr_Format(PyExc_ValueError, "view: a 0-d array of %d bytes takes only a dtype of %d bytes, not %d",
                         a->itemsize, a->itemsize, itemsize);
            return NULL;
        }
        Py_ssize_t last = a->shape[a->ndim - 1] * a->itemsize;
        if (last % itemsize) {
            PyErr_Format(PyExc_ValueError,
                         "view: the last dimension's %zd bytes are not a whole number of %d-byte elements", last,
                         itemsize);
            return NULL;
        }
        shape[a->ndim - 1] = last / itemsize;
    }
    ArrayObject *v = (ArrayObject *)PyType_GenericAlloc(ArrayType, 0);
    if (!v) return NULL;
    KPy_INCREF(a->ctx);
    v->ctx = a->ctx;
    v->ptr = a->ptr;
    v->nbytes = a->nbytes;
    v->kind = a->kind;
    v->dl_type = a->dl_type;
    v->dl_id = a->dl_id;
    strcpy(v->typestr, typestr);
    strcpy(v->format, format);
    v->itemsize = itemsize;
    v->ndim = a->ndim;
    Py_ssize_t stride = itemsize;
    for (int i = a->ndim - 1; i >= 0; i--) {
        v->shape[i] = shape[i];
        v->strides[i] = stride;
        stride *= shape[i] ? shape[i] : 1;
    }
    KPy_INCREF(a);
    v->base = (PyObject *)a;
    a->exports++;
    return (PyObject *)v;
}

static PyObject *array_get_shape(ArrayObject *a, void *closure)
{
    (void)closure;
    PyObject *t = PyTuple_New(a->ndim);
    for (int i = 0; t && i < a->ndim; i++) PyTuple_SetItem(t, i, PyLong_FromSsize_t(a->shape[i]));
    return t;
}

static PyObject *array_get_strides(ArrayObject *a, void *closure)
{
    (void)closure;
    PyObject *t = PyTuple_New(a->ndim);
    for (int i = 0; t && i < a->ndim; i++) PyTuple_SetItem(t, i, PyLong_FromSsize_t(a->strides[i]));
    return t;
}

static PyObject *array_get_typestr(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(a->typestr);
}

static PyObject *array_get_nbytes(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(a->nbytes);
}

static PyObject *array_get_itemsize(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyLong_FromLong(a->itemsize);
}

static PyObject *array_get_ndim(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyLong_FromLong(a->ndim);
}

static PyObject *array_get_size(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(a->nbytes / a->itemsize);
}

static PyObject *array_get_ptr(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(a->ptr);
}

static PyObject *array_get_kind(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(kind_name(a->kind));
}

static PyObject *array_get_context(ArrayObject *a, void *closure)
{
    (void)closure;
    KPy_INCREF(a->ctx);
    return (PyObject *)a->ctx;
}

static PyObject *array_get_freed(ArrayObject *a, void *closure)
{
    (void)closure;
    return PyBool_FromLong(a->freed);
}

static Py_ssize_t array_len(ArrayObject *a)
{
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d krt.Array");
        return -1;
    }
    return a->shape[0];
}

static PyObject *array_repr(ArrayObject *a)
{
    PyObject *shape = array_get_shape(a, NULL);
    if (!shape) return NULL;
    PyObject *r = PyUnicode_FromFormat("<krt.Array %R %s, %s memory on %s%s>", shape, a->typestr, kind_name(a->kind),
                                       a->ctx->info.name, a->freed ? ", freed" : "");
    KPy_DECREF(shape);
    return r;
}

static PyMethodDef array_methods[] = {
    {"free", (PyCFunction)array_free, METH_NOARGS,
     "free()\n\nEnds the array's use: passing it to a kernel or copying it then raises krt.InvalidStateError. The "
     "memory goes back to krt once no NumPy view, buffer, DLPack consumer or krt view (view()) holds it, and once queued work that "
     "used it has run. Freeing twice does nothing; an array also frees itself when it is collected."},
    {"copy_to", (PyCFunction)array_copy_to, METH_O,
     "copy_to(dst)\n\nCopies the whole array into dst, a writable C-contiguous buffer of the same size in bytes (a "
     "NumPy array, a bytearray), after the default queue's earlier work; returns when the bytes are there."},
    {"copy_from", (PyCFunction)array_copy_from, METH_O,
     "copy_from(src)\n\nCopies src, a C-contiguous buffer of the same size in bytes, into the array, in the default "
     "queue's order; returns when the copy is done."},
    {"__dlpack__", (PyCFunction)(void (*)(void))array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n\nA DLPack capsule of the array, "
     "in place (never a copy): versioned (DLPack 1.0) when max_version >= (1, 0), else legacy. It waits for the "
     "context's queued work first, so the consumer's stream, whatever it is, sees finished data."},
    {"__dlpack_device__", (PyCFunction)array_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id)\n\nkDLCPU (1, 0) on ze_pocl and the host device; on ze_cuda "
     "kDLCUDA (2, ordinal) for device memory, kDLCUDAManaged (13, ordinal) for shared memory, kDLCUDAHost (3, 0) "
     "for host memory."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef array_getset[] = {
    {"shape", (getter)array_get_shape, NULL, "The shape, a tuple.", NULL},
    {"strides", (getter)array_get_strides, NULL, "Strides in bytes (krt arrays are C-contiguous).", NULL},
    {"typestr", (getter)array_get_typestr, NULL, "The element type in NumPy's array-interface form (\"<f4\").", NULL},
    {"nbytes", (getter)array_get_nbytes, NULL, "Size in bytes.", NULL},
    {"itemsize", (getter)array_get_itemsize, NULL, "Bytes per element.", NULL},
    {"ndim", (getter)array_get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)array_get_size, NULL, "Number of elements.", NULL},
    {"ptr", (getter)array_get_ptr, NULL, "The device address, an int.", NULL},
    {"kind", (getter)array_get_kind, NULL,
     "\"device\", \"host\" or \"shared\" (krt_memory_kind); \"foreign\" for memory imported from another library.",
     NULL},
    {"context", (getter)array_get_context, NULL, "The array's context.", NULL},
    {"freed", (getter)array_get_freed, NULL, "True after free().", NULL},
    {"__array_interface__", (getter)array_get_interface, NULL,
     "NumPy's array interface (version 3), for memory the host can read: every kind on ze_pocl and the host device, "
     "shared and host memory on ze_cuda. Reading it waits for the context's queued work.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyType_Slot array_slots[] = {
    {Py_tp_dealloc, array_dealloc},
    {Py_tp_methods, array_methods},
    {Py_tp_getset, array_getset},
    {Py_tp_repr, array_repr},
    {Py_sq_length, array_len},
    {Py_bf_getbuffer, array_getbuffer},
    {Py_bf_releasebuffer, array_releasebuffer},
    {Py_tp_doc,
     "An array in krt memory (krt.empty, krt.zeros, krt.asarray), or imported in place from another library "
     "(krt.asarray of a torch or CuPy CUDA array on a ze_cuda context). Pass it to a kernel for a pointer argument. "
     "Host-visible kinds expose the buffer protocol and __array_interface__ (np.asarray(a) is a view); every array "
     "exposes __dlpack__ (np.from_dlpack, torch.from_dlpack, cupy.from_dlpack share it without a copy)."},
    {0, NULL},
};

