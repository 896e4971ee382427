/*
 * _krt.c: krt for Python, the extension module krt._krt.
 *
 * One C file against CPython's stable ABI (Py_LIMITED_API 3.11), so one build serves 3.11 and later. The launch
 * path is here: a kernel call converts each Python value by the kernel's reflected signature (a converter per
 * argument, built once when the kernel is looked up), fills krt_arg's on the stack and calls krt_launch. Nothing
 * on that path allocates except the returned event.
 *
 * Lifetime. Every object holds its context, so a context lives while anything made from it does; close() only
 * ends its use. Memory, modules and foreign owners that die while the context still has queued work are not
 * released at once: they go on the context's deferred list, emptied when the context is next known idle (a
 * synchronize of every queue that has work), or after 1,024 entries by a synchronize of its own. A queued launch
 * never takes a reference per argument for krt's own arrays; a foreign object passed straight to a kernel is kept
 * on the same list.
 *
 * Errors: krt's result codes map to the exception classes krt/__init__.py defines and registers through _init().
 * The message is krt_last_error_message(), the build log included.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <krt.h>

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dlpack_abi.h"

/* The stable ABI's reference-count and type helpers are functions taking PyObject *: these cast. */
#define KPy_INCREF(o) Py_INCREF((PyObject *)(o))
#define KPy_DECREF(o) Py_DECREF((PyObject *)(o))
#define KPy_XINCREF(o) Py_XINCREF((PyObject *)(o))
#define KPy_XDECREF(o) Py_XDECREF((PyObject *)(o))
#define KPy_TYPE(o) Py_TYPE((PyObject *)(o))
#define KPy_IS_TYPE(o, t) Py_IS_TYPE((PyObject *)(o), (t))

#define MAX_DIMS 16
#define DEFER_LIMIT 1024
#define STACK_ARGS 32

/* ---------------------------------------------------------------------------------------------------------
 * Registry: what krt/__init__.py hands over at import
 * ------------------------------------------------------------------------------------------------------- */

static PyObject *error_by_code;      /* dict: int code -> exception class */
static PyObject *error_base;         /* krt.Error */
static PyObject *argument_type_error; /* krt.ArgumentTypeError */
static PyObject *module_warning;     /* krt.ModuleWarning */
static PyObject *device_class;       /* krt.Device, built from a dict */
static PyObject *namespace_class;    /* types.SimpleNamespace */

static PyObject *s_range, *s_group, *s_queue, *s_wait, *s_block, *s_dlpack, *s_dlpack_device, *s_cai, *s_stream,
    *s_max_version;

static PyTypeObject *ContextType, *QueueType, *EventType, *ArrayType, *ModuleType, *KernelType, *LocalType;

static PyObject *error_class(int code)
{
    PyObject *key = PyLong_FromLong(code);
    PyObject *cls = key && error_by_code ? PyDict_GetItemWithError(error_by_code, key) : NULL;
    KPy_XDECREF(key);
    if (cls) return cls;
    if (PyErr_Occurred()) PyErr_Clear();
    return error_base ? error_base : PyExc_RuntimeError;
}

/* Raises the exception of a krt result, with krt's own message for it. */
static PyObject *raise_krt(krt_result r)
{
    const char *detail = krt_last_error_message();
    PyObject *cls = error_class(r);
    PyObject *msg = detail && detail[0] ? PyUnicode_FromString(detail)
                                        : PyUnicode_FromFormat("%s: %s", krt_result_name(r), krt_result_string(r));
    if (!msg) return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    KPy_DECREF(msg);
    if (!exc) return NULL;
    PyObject *code = PyLong_FromLong(r);
    if (code) {
        PyObject_SetAttrString(exc, "code", code);
        KPy_DECREF(code);
    }
    PyErr_SetObject(cls, exc);
    KPy_DECREF(exc);
    return NULL;
}

/* Raises the class of a krt code with a message of the binding's own. */
static PyObject *raise_code(krt_result r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!msg) return NULL;
    PyObject *cls = error_class(r);
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    KPy_DECREF(msg);
    if (!exc) return NULL;
    PyObject *code = PyLong_FromLong(r);
    if (code) {
        PyObject_SetAttrString(exc, "code", code);
        KPy_DECREF(code);
    }
    PyErr_SetObject(cls, exc);
    KPy_DECREF(exc);
    return NULL;
}

static PyObject *raise_type(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!msg) return NULL;
    PyObject *cls = argument_type_error ? argument_type_error : PyExc_TypeError;
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    KPy_DECREF(msg);
    if (!exc) return NULL;
    PyObject *code = PyLong_FromLong(KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    if (code) {
        PyObject_SetAttrString(exc, "code", code);
        KPy_DECREF(code);
    }
    PyErr_SetObject(cls, exc);
    KPy_DECREF(exc);
    return NULL;
}

static PyObject *new_namespace(PyObject *dict)
{
    if (!dict) return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *ns = empty ? PyObject_Call(namespace_class, empty, dict) : NULL;
    KPy_XDECREF(empty);
    KPy_DECREF(dict);
    return ns;
}

/* The type name of o, for messages: a new reference to a str. */
static PyObject *type_name(PyObject *o)
{
    return PyType_GetName(KPy_TYPE(o));
}

/* ---------------------------------------------------------------------------------------------------------
 * Context
 * ------------------------------------------------------------------------------------------------------- */

/* What the binding knows of one krt queue: commands appended (ticket) and known complete (done). */
typedef struct qstate {
    krt_queue *q;
    uint64_t ticket, done;
    uint64_t snap; /* ticket when a context-wide wait began */
    struct qstate *next;
} qstate;

enum { DEFER_FREE, DEFER_MODULE, DEFER_EVENT, DEFER_OBJECT };

typedef struct {
    int tag;
    void *p;
} deferred;

typedef struct {
    PyObject_HEAD
    krt_context *ctx;
    int closed;
    int is_cuda;
    krt_device_info info;
    qstate dq;       /* the default queue; user queues follow on dq.next */
    deferred *defer; /* released when the context is next idle */
    size_t ndefer, capdefer;
    void *native_stream; /* krt_queue_native of the default queue, or NULL */
    int native_known;
} CtxObject;

static int ctx_dirty(CtxObject *c)
{
    for (qstate *s = &c->dq; s; s = s->next)
        if (s->ticket != s->done) return 1;
    return 0;
}

static void release_now(CtxObject *c, int tag, void *p)
{
    switch (tag) {
    case DEFER_FREE: krt_free(c->ctx, p); break;
    case DEFER_MODULE: krt_module_destroy(p); break;
    case DEFER_EVENT: krt_event_destroy(p); break;
    case DEFER_OBJECT: KPy_DECREF((PyObject *)p); break;
    }
}

/* Releases every deferred item. Called only when no queue of the context has work. */
static void ctx_drain(CtxObject *c)
{
    while (c->ndefer) {
        deferred *list = c->defer;
        size_t n = c->ndefer;
        c->defer = NULL;
        c->ndefer = c->capdefer = 0;
        /* Dropping a foreign owner may run Python code that defers more: those land on a fresh list. */
        for (size_t i = 0; i < n; i++) release_now(c, list[i].tag, list[i].p);
        PyMem_Free(list);
    }
}

/* Waits for every queue of the context, then releases what was deferred. */
static int ctx_sync(CtxObject *c)
{
    for (qstate *s = &c->dq; s; s = s->next) s->snap = s->ticket;
    krt_result r;
    Py_BEGIN_ALLOW_THREADS
    r = krt_context_synchronize(c->ctx);
    Py_END_ALLOW_THREADS
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        return -1;
    }
    for (qstate *s = &c->dq; s; s = s->next)
        if (s->done < s->snap) s->done = s->snap;
    if (!ctx_dirty(c)) ctx_drain(c);
    return 0;
}

/* Releases p now when the context is idle, else once it is. Never fails: when the list cannot grow, the context
 * is synchronized and p released. */
static void ctx_defer(CtxObject *c, int tag, void *p)
{
    if (!ctx_dirty(c)) {
        release_now(c, tag, p);
        return;
    }
    if (c->ndefer == c->capdefer) {
        size_t cap = c->capdefer ? c->capdefer * 2 : 16;
        deferred *d = PyMem_Realloc(c->defer, cap * sizeof *d);
        if (!d) {
            PyObject *t, *v, *tb;
            PyErr_Fetch(&t, &v, &tb);
            if (ctx_sync(c) < 0) PyErr_Clear();
            PyErr_Restore(t, v, tb);
            release_now(c, tag, p);
            return;
        }
        c->defer = d;
        c->capdefer = cap;
    }
    c->defer[c->ndefer].tag = tag;
    c->defer[c->ndefer].p = p;
    c->ndefer++;
    if (c->ndefer > DEFER_LIMIT) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        if (ctx_sync(c) < 0) PyErr_WriteUnraisable((PyObject *)c);
        PyErr_Restore(t, v, tb);
    }
}

static int ctx_usable(CtxObject *c)
{
    if (c->closed) {
        raise_code(KRT_ERROR_INVALID_STATE, "the krt context is closed");
        return 0;
    }
    return 1;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case KRT_MEMORY_DEVICE: return "device";
    case KRT_MEMORY_HOST: return "host";
    case KRT_MEMORY_SHARED: return "shared";
    default: return "foreign";
    }
}

static PyObject *device_dict(const krt_device_info *d, uint32_t index)
{
    PyObject *sg = PyTuple_New(d->num_sub_group_sizes);
    if (!sg) return NULL;
    for (uint32_t i = 0; i < d->num_sub_group_sizes; i++) PyTuple_SetItem(sg, i, PyLong_FromUnsignedLong(d->sub_group_sizes[i]));
    PyObject *dict = Py_BuildValue(
        "{s:I,s:s,s:s,s:s,s:I,s:I,s:(II),s:I,s:I,s:I,s:I,s:I,s:(III),s:(III),s:I,s:N,s:K,s:O,s:O,s:O}", "index", index,
        "name", d->name, "driver", d->driver_name, "type", krt_device_type_name(d->type), "driver_index",
        d->driver_index, "device_index", d->device_index, "api_version", d->api_version_major, d->api_version_minor,
        "driver_version", d->driver_version, "vendor_id", d->vendor_id, "compute_units", d->compute_units,
        "clock_mhz", d->clock_mhz, "max_group_size", d->max_group_size, "max_group", d->max_group[0], d->max_group[1],
        d->max_group[2], "max_group_count", d->max_group_count[0], d->max_group_count[1], d->max_group_count[2],
        "max_shared_local_memory", d->max_shared_local_memory, "sub_group_sizes", sg, "memory_bytes",
        (unsigned long long)d->memory_bytes, "fp16", d->fp16 ? Py_True : Py_False, "fp64", d->fp64 ? Py_True : Py_False,
        "int64_atomics", d->int64_atomics ? Py_True : Py_False);
    return dict;
}

static PyObject *make_device(const krt_device_info *d, uint32_t index)
{
    PyObject *dict = device_dict(d, index);
    if (!dict || !device_class) return dict;
    PyObject *dev = PyObject_CallFunctionObjArgs(device_class, dict, NULL);
    KPy_DECREF(dict);
    return dev;
}

static PyObject *ctx_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"device", "spill_budget", "min_groups", NULL};
    PyObject *device = Py_None;
    unsigned long long spill = 0;
    unsigned int min_groups = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$KI:Context", kwlist, &device, &spill, &min_groups)) return NULL;
    PyObject *dstr = NULL;
    if (device != Py_None) {
        if (PyUnicode_Check(device)) {
            dstr = device;
            KPy_INCREF(dstr);
        } else if (PyLong_Check(device)) {
            dstr = PyObject_Str(device);
        } else if (PyObject_HasAttrString(device, "index")) {
            PyObject *idx = PyObject_GetAttrString(device, "index");
            dstr = idx ? PyObject_Str(idx) : NULL;
            KPy_XDECREF(idx);
        } else {
            PyObject *tn = type_name(device);
            PyErr_Format(PyExc_TypeError,
                         "krt.Context(device=...) takes a kind (\"gpu\", \"cpu\", \"host\"), an index, a name or a "
                         "krt.Device, not %U",
                         tn);
            KPy_XDECREF(tn);
            return NULL;
        }
        if (!dstr) return NULL;
    }
    const char *dev = dstr ? PyUnicode_AsUTF8AndSize(dstr, NULL) : NULL;
    if (dstr && !dev) {
        KPy_DECREF(dstr);
        return NULL;
    }
    krt_context_desc desc = {.device = dev, .spill_budget = (size_t)spill, .min_groups = min_groups};
    krt_context *ctx = NULL;
    krt_result r;
    Py_BEGIN_ALLOW_THREADS
    r = krt_context_create(&desc, &ctx);
    Py_END_ALLOW_THREADS
    KPy_XDECREF(dstr);
    if (r != KRT_SUCCESS) return raise_krt(r);
    CtxObject *c = (CtxObject *)PyType_GenericAlloc(type, 0);
    if (!c) {
        krt_context_destroy(ctx);
        return NULL;
    }
    c->ctx = ctx;
    krt_context_device_info(ctx, &c->info);
    c->is_cuda = strcmp(c->info.driver_name, "ze_cuda") == 0;
    c->dq.q = krt_context_default_queue(ctx);
    return (PyObject *)c;
}

static void ctx_dealloc(CtxObject *c)
{
    if (c->ctx) {
        krt_result r;
        Py_BEGIN_ALLOW_THREADS
        r = krt_context_synchronize(c->ctx);
        Py_END_ALLOW_THREADS
        (void)r;
        for (qstate *s = &c->dq; s; s = s->next) s->done = s->ticket;
        ctx_drain(c);
        Py_BEGIN_ALLOW_THREADS
        krt_context_destroy(c->ctx);
        Py_END_ALLOW_THREADS
    }
    PyTypeObject *tp = KPy_TYPE(c);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(c);
    KPy_DECREF(tp);
}

static PyObject *ctx_synchronize(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (!ctx_usable(c)) return NULL;
    if (ctx_sync(c) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *ctx_close(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (c->closed) Py_RETURN_NONE;
    int rc = ctx_sync(c);
    c->closed = 1;
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *ctx_enter(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (!ctx_usable(c)) return NULL;
    KPy_INCREF(c);
    return (PyObject *)c;
}

static PyObject *ctx_exit(CtxObject *c, PyObject *args)
{
    (void)args;
    return ctx_close(c, NULL);
}

static PyObject *ctx_get_device(CtxObject *c, void *closure)
{
    (void)closure;
    /* The index krt_context_desc.device takes: the position in krt_device_list. */
    uint32_t index = UINT32_MAX, n = 0;
    if (c->info.type != KRT_DEVICE_TYPE_HOST && krt_device_list(NULL, &n) == KRT_SUCCESS && n) {
        krt_device_info *all = PyMem_Calloc(n, sizeof *all);
        if (all && krt_device_list(all, &n) == KRT_SUCCESS)
            for (uint32_t i = 0; i < n; i++)
                if (all[i].driver_index == c->info.driver_index && all[i].device_index == c->info.device_index &&
                    strcmp(all[i].name, c->info.name) == 0)
                    index = i;
        PyMem_Free(all);
    }
    if (index == UINT32_MAX) {
        PyObject *dict = device_dict(&c->info, 0);
        if (!dict) return NULL;
        PyDict_SetItemString(dict, "index", Py_None);
        if (!device_class) return dict;
        PyObject *dev = PyObject_CallFunctionObjArgs(device_class, dict, NULL);
        KPy_DECREF(dict);
        return dev;
    }
    return make_device(&c->info, index);
}

static PyObject *ctx_get_closed(CtxObject *c, void *closure)
{
    (void)closure;
    return PyBool_FromLong(c->closed);
}

static PyObject *ctx_get_extensions(CtxObject *c, void *closure)
{
    (void)closure;
    uint32_t n = 0;
    krt_result r = krt_context_extensions(c->ctx, NULL, &n);
    if (r != KRT_SUCCESS) return raise_krt(r);
    const char **names = PyMem_Calloc(n ? n : 1, sizeof *names);
    if (!names) return PyErr_NoMemory();
    r = krt_context_extensions(c->ctx, names, &n);
    if (r != KRT_SUCCESS) {
        PyMem_Free(names);
        return raise_krt(r);
    }
    PyObject *t = PyTuple_New(n);
    for (uint32_t i = 0; t && i < n; i++) PyTuple_SetItem(t, i, PyUnicode_FromString(names[i]));
    PyMem_Free(names);
    return t;
}

static PyObject *ctx_has_extension(CtxObject *c, PyObject *name)
{
    const char *s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!s) return NULL;
    return PyBool_FromLong(krt_context_has_extension(c->ctx, s));
}

static PyObject *ctx_wisdom_save(CtxObject *c, PyObject *path)
{
    PyObject *p = PyOS_FSPath(path);
    if (!p) return NULL;
    PyObject *b = PyUnicode_Check(p) ? PyUnicode_EncodeFSDefault(p) : (KPy_INCREF(p), p);
    KPy_DECREF(p);
    if (!b) return NULL;
    krt_result r = krt_wisdom_save(c->ctx, PyBytes_AsString(b));
    KPy_DECREF(b);
    if (r != KRT_SUCCESS) return raise_krt(r);
    Py_RETURN_NONE;
}

static PyObject *ctx_wisdom_load(CtxObject *c, PyObject *path)
{
    PyObject *p = PyOS_FSPath(path);
    if (!p) return NULL;
    PyObject *b = PyUnicode_Check(p) ? PyUnicode_EncodeFSDefault(p) : (KPy_INCREF(p), p);
    KPy_DECREF(p);
    if (!b) return NULL;
    krt_result r = krt_wisdom_load(c->ctx, PyBytes_AsString(b));
    KPy_DECREF(b);
    if (r != KRT_SUCCESS) return raise_krt(r);
    Py_RETURN_NONE;
}

static PyObject *ctx_repr(CtxObject *c)
{
    return PyUnicode_FromFormat("<krt.Context on %s (%s, driver %s)%s>", c->info.name,
                                krt_device_type_name(c->info.type), c->info.driver_name, c->closed ? " closed" : "");
}

static PyObject *queue_wrap(CtxObject *c, qstate *s, int owned);

static PyObject *ctx_get_default_queue(CtxObject *c, void *closure)
{
    (void)closure;
    return queue_wrap(c, &c->dq, 0);
}

static PyObject *ctx_queue(CtxObject *c, PyObject *unused)
{
    (void)unused;
    if (!ctx_usable(c)) return NULL;
    qstate *s = PyMem_Calloc(1, sizeof *s);
    if (!s) return PyErr_NoMemory();
    krt_result r = krt_queue_create(c->ctx, NULL, &s->q);
    if (r != KRT_SUCCESS) {
        PyMem_Free(s);
        return raise_krt(r);
    }
    PyObject *q = queue_wrap(c, s, 1);
    if (!q) {
        krt_queue_destroy(s->q);
        PyMem_Free(s);
        return NULL;
    }
    s->next = c->dq.next;
    c->dq.next = s;
    return q;
}

static PyMethodDef ctx_methods[] = {
    {"synchronize", (PyCFunction)ctx_synchronize, METH_NOARGS,
     "synchronize()\n\nWaits until every queue of the context is idle (krt_context_synchronize); the GIL is released "
     "while waiting."},
    {"close", (PyCFunction)ctx_close, METH_NOARGS,
     "close()\n\nWaits for the context's work and ends its use: later launches, allocations and module loads raise "
     "krt.InvalidStateError. The krt context itself is destroyed when the last object made from it goes, so arrays "
     "and NumPy views of them stay valid. Closing twice does nothing."},
    {"queue", (PyCFunction)ctx_queue, METH_NOARGS,
     "queue() -> krt.Queue\n\nA new in-order queue of the context (krt_queue_create)."},
    {"has_extension", (PyCFunction)ctx_has_extension, METH_O,
     "has_extension(name) -> bool\n\nWhether the context's Level Zero driver advertises the extension."},
    {"wisdom_save", (PyCFunction)ctx_wisdom_save, METH_O,
     "wisdom_save(path)\n\nWrites the context's tuned group sizes to path (krt_wisdom_save)."},
    {"wisdom_load", (PyCFunction)ctx_wisdom_load, METH_O,
     "wisdom_load(path)\n\nAdds the tuned group sizes of a wisdom file (krt_wisdom_load)."},
    {"__enter__", (PyCFunction)ctx_enter, METH_NOARGS, "Returns the context."},
    {"__exit__", (PyCFunction)ctx_exit, METH_VARARGS, "Closes the context (see close())."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ctx_getset[] = {
    {"device", (getter)ctx_get_device, NULL, "The context's device, a krt.Device.", NULL},
    {"closed", (getter)ctx_get_closed, NULL, "True after close().", NULL},
    {"extensions", (getter)ctx_get_extensions, NULL, "The driver's extension names (a tuple).", NULL},
    {"default_queue", (getter)ctx_get_default_queue, NULL,
     "The queue launches and copies use when given no queue=.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ctx_slots[] = {
    {Py_tp_new, ctx_new},
    {Py_tp_dealloc, ctx_dealloc},
    {Py_tp_methods, ctx_methods},
    {Py_tp_getset, ctx_getset},
    {Py_tp_repr, ctx_repr},
    {Py_tp_doc,
     "Context(device=None, *, spill_budget=0, min_groups=0)\n\n"
     "A krt context on one device, with its default queue. device: None (KRT_DEVICE, else the first GPU, else the "
     "first device), a kind \"gpu\", \"cpu\" or \"host\" (\"cpu:1\" the second CPU), an index into krt.devices(), a "
     "case-insensitive substring of a device name, or a krt.Device. spill_budget: scratch bytes a spilling kernel "
     "may use per work-group (0: 1 MiB); min_groups: groups a dynamic launch aims for on small ranges (0: 16).\n\n"
     "A context is a context manager: leaving the with block calls close()."},
    {0, NULL},
};

/* ---------------------------------------------------------------------------------------------------------
 * Queue
 * ------------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    qstate *s;
    int owned; /* a queue of ctx.queue(), destroyed with the object; 0 for the default queue */
} QueueObject;

static PyObject *queue_wrap(CtxObject *c, qstate *s, int owned)
{
    QueueObject *q = (QueueObject *)PyType_GenericAlloc(QueueType, 0);
    if (!q) return NULL;
    KPy_INCREF(c);
    q->ctx = c;
    q->s = s;
    q->owned = owned;
    return (PyObject *)q;
}

static void queue_dealloc(QueueObject *q)
{
    if (q->owned) {
        CtxObject *c = q->ctx;
        Py_BEGIN_ALLOW_THREADS
        krt_queue_destroy(q->s->q); /* waits for the queue */
        Py_END_ALLOW_THREADS
        for (qstate **pp = &c->dq.next; *pp; pp = &(*pp)->next)
            if (*pp == q->s) {
                *pp = q->s->next;
                break;
            }
        PyMem_Free(q->s);
        if (!ctx_dirty(c)) ctx_drain(c);
    }
    KPy_XDECREF(q->ctx);
    PyTypeObject *tp = KPy_TYPE(q);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(q);
    KPy_DECREF(tp);
}

/* Waits for one queue; timeout in seconds (None: forever). Returns 1 done, 0 timed out, -1 error. */
static int qstate_wait(CtxObject *c, qstate *s, uint64_t timeout_ns)
{
    uint64_t snap = s->ticket;
    krt_result r;
    Py_BEGIN_ALLOW_THREADS
    r = timeout_ns == UINT64_MAX ? krt_queue_synchronize(s->q) : krt_queue_synchronize_timeout(s->q, timeout_ns);
    Py_END_ALLOW_THREADS
    if (r == KRT_TIMEOUT) return 0;
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        return -1;
    }
    if (s->done < snap) s->done = snap;
    if (!ctx_dirty(c)) ctx_drain(c);
    return 1;
}

static int parse_timeout(PyObject *t, uint64_t *ns)
{
    if (!t || t == Py_None) {
        *ns = UINT64_MAX;
        return 0;
    }
    double s = PyFloat_AsDouble(t);
    if (s == -1.0 && PyErr_Occurred()) return -1;
    if (!(s >= 0)) {
        PyErr_SetString(PyExc_ValueError, "timeout must be None or seconds >= 0");
        return -1;
    }
    *ns = s >= 1.8e10 ? UINT64_MAX - 1 : (uint64_t)(s * 1e9);
    return 0;
}

static PyObject *queue_synchronize(QueueObject *q, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"timeout", NULL};
    PyObject *t = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:synchronize", kwlist, &t)) return NULL;
    uint64_t ns;
    if (parse_timeout(t, &ns) < 0) return NULL;
    int rc = qstate_wait(q->ctx, q->s, ns);
    if (rc < 0) return NULL;
    return PyBool_FromLong(rc);
}

static PyObject *ctx_native_stream(qstate *s)
{
    void *native = NULL;
    krt_result r = krt_queue_native(s->q, &native);
    if (r != KRT_SUCCESS) return raise_krt(r);
    return PyLong_FromVoidPtr(native);
}

static PyObject *queue_get_native(QueueObject *q, void *closure)
{
    (void)closure;
    return ctx_native_stream(q->s);
}

static PyObject *queue_get_context(QueueObject *q, void *closure)
{
    (void)closure;
    KPy_INCREF(q->ctx);
    return (PyObject *)q->ctx;
}

static PyMethodDef queue_methods[] = {
    {"synchronize", (PyCFunction)(void (*)(void))queue_synchronize, METH_VARARGS | METH_KEYWORDS,
     "synchronize(timeout=None) -> bool\n\nWaits until every command of the queue has completed; True when it has, "
     "False when timeout (seconds) passed first. The GIL is released while waiting."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef queue_getset[] = {
    {"native", (getter)queue_get_native, NULL,
     "The backend's queue under this one as an int: the CUstream on ze_cuda (krt_queue_native). Other drivers raise "
     "krt.UnsupportedFeatureError.",
     NULL},
    {"context", (getter)queue_get_context, NULL, "The queue's context.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot queue_slots[] = {
    {Py_tp_dealloc, queue_dealloc},
    {Py_tp_methods, queue_methods},
    {Py_tp_getset, queue_getset},
    {Py_tp_doc, "An in-order krt queue: ctx.default_queue, or ctx.queue() for another. Pass it as queue= to a "
                "kernel call. A queue of ctx.queue() is destroyed (after waiting) when the object goes."},
    {0, NULL},
};

/* ---------------------------------------------------------------------------------------------------------
 * Event: a marker in a queue, (queue, ticket)
 * ------------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    PyObject *owner; /* the QueueObject of a user queue (keeps its qstate), or NULL for the default queue */
    qstate *s;
    uint64_t ticket;
    krt_event *ev; /* a driver event, made when another queue first waits on this one */
} EventObject;

static PyObject *event_new_marker(CtxObject *c, PyObject *owner, qstate *s)
{
    EventObject *e = (EventObject *)PyType_GenericAlloc(EventType, 0);
    if (!e) return NULL;
    KPy_INCREF(c);
    e->ctx = c;
    KPy_XINCREF(owner);
    e->owner = owner;
    e->s = s;
    e->ticket = s->ticket;
    return (PyObject *)e;
}

static void event_dealloc(EventObject *e)
{
    if (e->ev) ctx_defer(e->ctx, DEFER_EVENT, e->ev);
    KPy_XDECREF(e->owner);
    KPy_XDECREF(e->ctx);
    PyTypeObject *tp = KPy_TYPE(e);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(e);
    KPy_DECREF(tp);
}

static PyObject *event_wait(EventObject *e, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"timeout", NULL};
    PyObject *t = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kwlist, &t)) return NULL;
    if (e->s->done >= e->ticket) Py_RETURN_TRUE;
    uint64_t ns;
    if (parse_timeout(t, &ns) < 0) return NULL;
    int rc = qstate_wait(e->ctx, e->s, ns);
    if (rc < 0) return NULL;
    return PyBool_FromLong(rc);
}

static PyObject *event_get_done(EventObject *e, void *closure)
{
    (void)closure;
    if (e->s->done >= e->ticket) Py_RETURN_TRUE;
    int rc = qstate_wait(e->ctx, e->s, 0);
    if (rc < 0) return NULL;
    return PyBool_FromLong(e->s->done >= e->ticket);
}

static PyObject *event_get_queue(EventObject *e, void *closure)
{
    (void)closure;
    if (e->owner) {
        KPy_INCREF(e->owner);
        return e->owner;
    }
    return queue_wrap(e->ctx, e->s, 0);
}

static void noop_task(void *data)
{
    (void)data;
}

/* The driver event another queue waits on: signalled by a no-op host task appended to the marker's queue, so
 * after everything that queue has been given so far (the marker's launch included). */
static krt_event *event_driver(EventObject *e)
{
    if (e->ev) return e->ev;
    krt_event *ev = NULL;
    krt_result r = krt_event_create(e->ctx->ctx, NULL, &ev);
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        return NULL;
    }
    krt_host_task_desc d = {.fn = noop_task, .queue = e->s->q, .signal = ev};
    r = krt_host_task(e->ctx->ctx, &d);
    if (r != KRT_SUCCESS) {
        krt_event_destroy(ev);
        raise_krt(r);
        return NULL;
    }
    e->s->ticket++;
    e->ev = ev;
    return ev;
}

static PyMethodDef event_methods[] = {
    {"wait", (PyCFunction)(void (*)(void))event_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(timeout=None) -> bool\n\nWaits until the command that returned this event has completed (krt waits for its "
     "queue up to that point or further); True when it has, False when timeout (seconds) passed first."},
    {"synchronize", (PyCFunction)(void (*)(void))event_wait, METH_VARARGS | METH_KEYWORDS, "The same as wait()."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef event_getset[] = {
    {"done", (getter)event_get_done, NULL, "True once the command has completed (a poll, never a wait).", NULL},
    {"queue", (getter)event_get_queue, NULL, "The queue the command went to.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_getset, event_getset},
    {Py_tp_doc, "What a kernel call returns: a marker after the launch in its queue. wait() blocks until it has run; "
                "pass it in wait=[...] of a call on another queue to order the two (on the same queue order is "
                "already given)."},
    {0, NULL},
};

/* ---------------------------------------------------------------------------------------------------------
 * Array
 * ------------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    void *ptr;
    Py_ssize_t nbytes;
    int kind;     /* krt_memory_kind, or -1 for memory krt did not allocate (imported) */
    PyObject *owner; /* imported memory: what keeps it alive (a DLPack owner capsule or the producer) */
    int ndim;
    Py_ssize_t shape[MAX_DIMS];
    Py_ssize_t strides[MAX_DIMS]; /* bytes, C order */
    char typestr[8];  /* NumPy's array-interface form, e.g. "<f4" */
    char format[4];   /* the buffer protocol's, e.g. "f" */
    int itemsize;
    int dl_type, dl_id;
    int freed;        /* free() was called: the memory goes when the last export does */
    int released;
    int exports;      /* buffer-protocol views and DLPack capsules alive */
    int iface_seen;   /* __array_interface__ was read: its consumer is not counted, so free() waits for dealloc */
} ArrayObject;

static void array_release(ArrayObject *a)
{
    if (a->released) return;
    a->released = 1;
    if (a->kind < 0) {
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
    PyTypeObject *tp = KPy_TYPE(a);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(a);
    KPy_DECREF(tp);
}

/* typestr ("<f4", "|b1") -> buffer format and DLPack dtype. */
static int parse_typestr(const char *ts, char *format, krt_dl_dtype *dt, int *itemsize)
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

static int dtype_to_typestr(krt_dl_dtype dt, char *ts)
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
static Py_ssize_t array_set_shape(ArrayObject *a, PyObject *shape)
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
static PyObject *mod_alloc(PyObject *self, PyObject *args)
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
static PyObject *mod_fill_zero(PyObject *self, PyObject *arg)
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
     "memory goes back to krt once no NumPy view, buffer or DLPack consumer holds it, and once queued work that "
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

static PyType_Slot array_slots[] = {
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
static PyObject *import_any(CtxObject *c, PyObject *obj, int *not_here)
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

static PyObject *mod_import_array(PyObject *self, PyObject *args)
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

/* ---------------------------------------------------------------------------------------------------------
 * Local: a __local argument's size
 * ------------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Py_ssize_t nbytes;
} LocalObject;

static PyObject *local_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"nbytes", NULL};
    Py_ssize_t n;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "n:Local", kwlist, &n)) return NULL;
    if (n <= 0) {
        PyErr_SetString(PyExc_ValueError, "krt.Local(nbytes) needs nbytes > 0");
        return NULL;
    }
    LocalObject *l = (LocalObject *)PyType_GenericAlloc(type, 0);
    if (l) l->nbytes = n;
    return (PyObject *)l;
}

static void local_dealloc(LocalObject *l)
{
    PyTypeObject *tp = KPy_TYPE(l);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(l);
    KPy_DECREF(tp);
}

static PyObject *local_get_nbytes(LocalObject *l, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(l->nbytes);
}

static PyObject *local_repr(LocalObject *l)
{
    return PyUnicode_FromFormat("krt.Local(%zd)", l->nbytes);
}

static PyGetSetDef local_getset[] = {
    {"nbytes", (getter)local_get_nbytes, NULL, "Bytes per work-group.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot local_slots[] = {
    {Py_tp_new, local_new},
    {Py_tp_dealloc, local_dealloc},
    {Py_tp_getset, local_getset},
    {Py_tp_repr, local_repr},
    {Py_tp_doc, "Local(nbytes)\n\nThe value of a __local pointer argument: nbytes of work-group local memory "
                "(KRT_ARG_LOCAL)."},
    {0, NULL},
};

/* ---------------------------------------------------------------------------------------------------------
 * Module
 * ------------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    krt_module *m;
    PyObject *names; /* tuple of str */
} ModuleObject;

static PyObject *kernel_make(ModuleObject *m, PyObject *name, int attribute);

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
        PyObject *p = PyOS_FSPath(path);
        if (!p) goto out;
        pathb = PyUnicode_Check(p) ? PyUnicode_EncodeFSDefault(p) : (KPy_INCREF(p), p);
        KPy_DECREF(p);
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
        PyObject *p = PyOS_FSPath(host);
        if (!p) goto out;
        hostb = PyUnicode_Check(p) ? PyUnicode_EncodeFSDefault(p) : (KPy_INCREF(p), p);
        KPy_DECREF(p);
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
    PyTypeObject *tp = KPy_TYPE(m);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(m);
    KPy_DECREF(tp);
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

static PyType_Slot module_slots[] = {
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

/* ---------------------------------------------------------------------------------------------------------
 * Kernel: reflection-driven argument conversion and the launch
 * ------------------------------------------------------------------------------------------------------- */

enum conv { CV_PTR, CV_LOCAL, CV_INT, CV_BOOL, CV_F16, CV_F32, CV_F64, CV_VEC, CV_STRUCT, CV_OTHER };

typedef struct {
    uint8_t conv;
    uint8_t elem;      /* CV_VEC: the element's converter */
    uint8_t elem_size; /* bytes per element */
    uint32_t width;
    uint32_t size;     /* bytes krt takes */
    krt_arg_type tag;
    char name[48];     /* the argument's OpName, or "" */
    char what[48];     /* what the kernel takes, for messages: "float", "int32", "float4", "a global pointer" */
} argspec;

typedef struct {
    PyObject_HEAD
    ModuleObject *mod;
    CtxObject *ctx;
    krt_kernel *k;
    PyObject *name;
    const char *cname;
    uint32_t nargs;
    argspec *spec;
} KernelObject;

static const char *scalar_c_name(krt_scalar_type t)
{
    switch (t) {
    case KRT_TYPE_INT8: return "char";
    case KRT_TYPE_INT16: return "short";
    case KRT_TYPE_INT32: return "int";
    case KRT_TYPE_INT64: return "long";
    case KRT_TYPE_FLOAT16: return "half";
    case KRT_TYPE_FLOAT32: return "float";
    case KRT_TYPE_FLOAT64: return "double";
    case KRT_TYPE_BOOL: return "bool";
    default: return "?";
    }
}

static int elem_conv(krt_scalar_type t, uint8_t *conv, uint8_t *size, krt_arg_type *tag)
{
    switch (t) {
    case KRT_TYPE_INT8: *conv = CV_INT; *size = 1; *tag = KRT_ARG_TYPE_INT8; return 0;
    case KRT_TYPE_INT16: *conv = CV_INT; *size = 2; *tag = KRT_ARG_TYPE_INT16; return 0;
    case KRT_TYPE_INT32: *conv = CV_INT; *size = 4; *tag = KRT_ARG_TYPE_INT32; return 0;
    case KRT_TYPE_INT64: *conv = CV_INT; *size = 8; *tag = KRT_ARG_TYPE_INT64; return 0;
    case KRT_TYPE_FLOAT16: *conv = CV_F16; *size = 2; *tag = KRT_ARG_TYPE_NONE; return 0;
    case KRT_TYPE_FLOAT32: *conv = CV_F32; *size = 4; *tag = KRT_ARG_TYPE_FLOAT; return 0;
    case KRT_TYPE_FLOAT64: *conv = CV_F64; *size = 8; *tag = KRT_ARG_TYPE_DOUBLE; return 0;
    case KRT_TYPE_BOOL: *conv = CV_BOOL; *size = 1; *tag = KRT_ARG_TYPE_NONE; return 0;
    default: return -1;
    }
}

static int kernel_build_spec(KernelObject *k)
{
    krt_kernel_info ki;
    krt_result r = krt_kernel_info_get(k->k, &ki);
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        return -1;
    }
    k->nargs = ki.num_args;
    k->spec = PyMem_Calloc(ki.num_args ? ki.num_args : 1, sizeof *k->spec);
    if (!k->spec) {
        PyErr_NoMemory();
        return -1;
    }
    for (uint32_t i = 0; i < ki.num_args; i++) {
        krt_arg_info ai;
        r = krt_kernel_arg_info(k->k, i, &ai);
        if (r != KRT_SUCCESS) {
            raise_krt(r);
            return -1;
        }
        argspec *s = &k->spec[i];
        snprintf(s->name, sizeof s->name, "%s", ai.name ? ai.name : "");
        s->size = ai.size;
        s->width = ai.vector_width ? ai.vector_width : 1;
        switch (ai.kind) {
        case KRT_ARG_GLOBAL_POINTER:
        case KRT_ARG_CONSTANT_POINTER:
            s->conv = CV_PTR;
            s->tag = KRT_ARG_TYPE_POINTER;
            snprintf(s->what, sizeof s->what, "%s %s*", ai.kind == KRT_ARG_GLOBAL_POINTER ? "global" : "constant",
                     ai.type == KRT_TYPE_NONE ? "void" : scalar_c_name(ai.type));
            break;
        case KRT_ARG_LOCAL_POINTER:
            s->conv = CV_LOCAL;
            snprintf(s->what, sizeof s->what, "a __local pointer");
            break;
        case KRT_ARG_SCALAR: {
            uint8_t conv, size;
            krt_arg_type tag;
            if (elem_conv(ai.type, &conv, &size, &tag) < 0) {
                s->conv = CV_OTHER;
                snprintf(s->what, sizeof s->what, "an unsupported scalar");
                break;
            }
            if (s->width > 1) {
                s->conv = CV_VEC;
                s->elem = conv;
                s->elem_size = size;
                s->tag = KRT_ARG_TYPE_NONE;
                snprintf(s->what, sizeof s->what, "%s%u", scalar_c_name(ai.type), s->width);
            } else {
                s->conv = conv;
                s->elem_size = size;
                s->tag = tag;
                snprintf(s->what, sizeof s->what, "%s", scalar_c_name(ai.type));
            }
            break;
        }
        case KRT_ARG_STRUCT:
            s->conv = CV_STRUCT;
            snprintf(s->what, sizeof s->what, "a struct of %u bytes", ai.size);
            break;
        default:
            s->conv = CV_OTHER;
            snprintf(s->what, sizeof s->what, "an image or sampler");
            break;
        }
    }
    return 0;
}

static PyObject *kernel_make(ModuleObject *m, PyObject *name, int attribute)
{
    const char *cname = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!cname) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a kernel name is a str");
        return NULL;
    }
    if (!ctx_usable(m->ctx)) return NULL;
    krt_kernel *kk = NULL;
    krt_result r = krt_kernel_get(m->m, cname, &kk);
    if (r != KRT_SUCCESS) {
        (void)attribute;
        return raise_krt(r);
    }
    KernelObject *k = (KernelObject *)PyType_GenericAlloc(KernelType, 0);
    if (!k) return NULL;
    KPy_INCREF(m);
    k->mod = m;
    k->ctx = m->ctx;
    k->k = kk;
    KPy_INCREF(name);
    k->name = name;
    k->cname = cname; /* the str's UTF-8 lives as long as name */
    if (kernel_build_spec(k) < 0) {
        KPy_DECREF(k);
        return NULL;
    }
    return (PyObject *)k;
}

static void kernel_dealloc(KernelObject *k)
{
    PyMem_Free(k->spec);
    KPy_XDECREF(k->name);
    KPy_XDECREF(k->mod);
    PyTypeObject *tp = KPy_TYPE(k);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(k);
    KPy_DECREF(tp);
}

/* "argument 2 (a) of saxpy" */
#define ARG_FMT "argument %u%s%s%s of %s"
#define ARG_VALS(i, s, k) (i), (s)->name[0] ? " (" : "", (s)->name, (s)->name[0] ? ")" : "", (k)->cname

static int conv_int(KernelObject *k, uint32_t i, const argspec *s, PyObject *o, unsigned size, void *out)
{
    if (!PyLong_Check(o)) {
        if (PyFloat_Check(o) || !PyIndex_Check(o)) {
            PyObject *tn = type_name(o);
            raise_type(ARG_FMT " is %s but a %U was passed (an integer argument takes an int or a NumPy integer)",
                       ARG_VALS(i, s, k), s->what, tn);
            KPy_XDECREF(tn);
            return -1;
        }
        o = PyNumber_Index(o);
        if (!o) return -1;
    } else {
        KPy_INCREF(o);
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    unsigned long long u = 0;
    int fits;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(o);
        fits = !(u == (unsigned long long)-1 && PyErr_Occurred()) && size == 8;
        PyErr_Clear();
    } else if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        fits = 0;
    } else {
        u = (unsigned long long)v;
        if (size == 8) fits = 1;
        else {
            long long lo = -(1ll << (size * 8 - 1)), hi = (long long)((1ull << (size * 8)) - 1);
            fits = v >= lo && v <= hi;
        }
    }
    if (!fits) {
        raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                   ARG_FMT " is %s (%u bits): %R does not fit (SPIR-V integers carry no sign, so %u bits take "
                   "-2**%u .. 2**%u-1)",
                   ARG_VALS(i, s, k), s->what, size * 8, o, size * 8, size * 8 - 1, size * 8);
        KPy_DECREF(o);
        return -1;
    }
    KPy_DECREF(o);
    switch (size) {
    case 1: *(uint8_t *)out = (uint8_t)u; break;
    case 2: *(uint16_t *)out = (uint16_t)u; break;
    case 4: *(uint32_t *)out = (uint32_t)u; break;
    default: *(uint64_t *)out = u; break;
    }
    return 0;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0)); /* inf, nan */
    int exp = (int)e - 127 + 15;
    if (exp >= 0x1f) return (uint16_t)(sign | 0x7c00u); /* overflow: inf */
    if (exp <= 0) {
        if (exp < -10) return (uint16_t)sign; /* underflow: zero */
        m |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* may carry into the exponent: still right */
    return (uint16_t)(sign | h);
}

static int conv_float(KernelObject *k, uint32_t i, const argspec *s, PyObject *o, int conv, void *out)
{
    double d;
    if (PyFloat_Check(o)) {
        d = PyFloat_AsDouble(o);
    } else if (PyLong_Check(o)) {
        d = PyLong_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) return -1;
    } else {
        PyObject *tn = type_name(o);
        /* NumPy scalars and 0-d arrays convert; a sequence (an array of several values) never does. */
        int ok = !PyUnicode_Check(o) && !PyBytes_Check(o) && !PySequence_Check(o) &&
                 PyObject_HasAttrString(o, "__float__");
        if (!ok) {
            raise_type(ARG_FMT " is %s but a %U was passed (a float argument takes a float, an int or a NumPy "
                       "scalar)",
                       ARG_VALS(i, s, k), s->what, tn);
            KPy_XDECREF(tn);
            return -1;
        }
        KPy_XDECREF(tn);
        d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) return -1;
    }
    if (conv == CV_F64) {
        memcpy(out, &d, 8);
        return 0;
    }
    double lim = conv == CV_F32 ? (double)FLT_MAX : 65504.0;
    if (isfinite(d) && fabs(d) > lim) {
        raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT, ARG_FMT " is %s: %R is out of its range", ARG_VALS(i, s, k),
                   s->what, o);
        return -1;
    }
    float f = (float)d;
    if (conv == CV_F32) memcpy(out, &f, 4);
    else {
        uint16_t h = float_to_half(f);
        memcpy(out, &h, 2);
    }
    return 0;
}

static int conv_scalar(KernelObject *k, uint32_t i, const argspec *s, int conv, unsigned size, PyObject *o, void *out)
{
    switch (conv) {
    case CV_INT: return conv_int(k, i, s, o, size, out);
    case CV_BOOL: {
        if (!PyBool_Check(o) && !PyLong_Check(o) && !PyIndex_Check(o)) {
            PyObject *tn = type_name(o);
            raise_type(ARG_FMT " is bool but a %U was passed", ARG_VALS(i, s, k), tn);
            KPy_XDECREF(tn);
            return -1;
        }
        int t = PyObject_IsTrue(o);
        if (t < 0) return -1;
        *(uint8_t *)out = (uint8_t)t;
        return 0;
    }
    default: return conv_float(k, i, s, o, conv, out);
    }
}

/* Per-call state of the arguments that need releasing. */
typedef struct {
    Py_buffer views[STACK_ARGS];
    int nviews;
    PyObject *keep[STACK_ARGS]; /* foreign arrays imported for this call */
    int nkeep;
} call_state;

static int conv_pointer(KernelObject *k, uint32_t i, const argspec *s, PyObject *o, void **out, call_state *cs)
{
    if (KPy_IS_TYPE(o, ArrayType)) {
        ArrayObject *a = (ArrayObject *)o;
        if (a->ctx != k->ctx) {
            raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT, ARG_FMT " is a krt.Array of another context (%s)",
                       ARG_VALS(i, s, k), a->ctx->info.name);
            return -1;
        }
        if (a->freed || a->released) {
            raise_code(KRT_ERROR_INVALID_STATE, ARG_FMT " is a krt.Array that was freed", ARG_VALS(i, s, k));
            return -1;
        }
        *out = a->ptr;
        return 0;
    }
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    if (KPy_IS_TYPE(o, LocalType) || PyLong_Check(o) || PyFloat_Check(o) || PyUnicode_Check(o)) {
        PyObject *tn = type_name(o);
        raise_type(ARG_FMT " is %s but a %U was passed (pass a krt.Array, or an array of the context's device with "
                   "__dlpack__)",
                   ARG_VALS(i, s, k), s->what, tn);
        KPy_XDECREF(tn);
        return -1;
    }
    int not_here = 1;
    PyObject *imported = import_any(k->ctx, o, &not_here);
    if (imported) {
        if (cs->nkeep >= STACK_ARGS) {
            KPy_DECREF(imported);
            PyErr_SetString(PyExc_ValueError, "more than 32 foreign arrays in one call: import them with krt.asarray");
            return -1;
        }
        cs->keep[cs->nkeep++] = imported;
        *out = ((ArrayObject *)imported)->ptr;
        return 0;
    }
    if (PyErr_Occurred()) {
        /* Name the argument in what the import raised. */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT, ARG_FMT ": %S", ARG_VALS(i, s, k), v);
        KPy_XDECREF(t);
        KPy_XDECREF(v);
        KPy_XDECREF(tb);
        return -1;
    }
    PyObject *tn = type_name(o);
    int hostish = PyObject_HasAttrString(o, "__array_interface__") || PyObject_CheckBuffer(o) ||
                  PyObject_HasAttrString(o, "__dlpack__") || PyObject_HasAttrString(o, "__cuda_array_interface__");
    if (hostish)
        raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                   ARG_FMT " is %s, but this %U's memory is not memory of %s that krt can use in place; copy it "
                   "first: x = krt.asarray(ctx, value), and read results back with x.numpy()",
                   ARG_VALS(i, s, k), s->what, tn, k->ctx->info.name);
    else
        raise_type(ARG_FMT " is %s but a %U was passed", ARG_VALS(i, s, k), s->what, tn);
    KPy_XDECREF(tn);
    return -1;
}

/* Converts args into argv, values in scratch (16-byte slots; vectors take up to 128 bytes in a heap scratch). */
static int convert_args(KernelObject *k, PyObject *args, krt_arg *argv, unsigned char (*scratch)[128], call_state *cs)
{
    Py_ssize_t n = PyTuple_Size(args);
    if (n != (Py_ssize_t)k->nargs) {
        PyObject *names = PyUnicode_FromString("");
        for (uint32_t i = 0; names && i < k->nargs; i++) {
            PyObject *next = PyUnicode_FromFormat("%U%s%s", names, i ? ", " : "",
                                                  k->spec[i].name[0] ? k->spec[i].name : k->spec[i].what);
            KPy_DECREF(names);
            names = next;
        }
        raise_type("%s takes %u arguments (%U), %zd given", k->cname, k->nargs, names, n);
        KPy_XDECREF(names);
        return -1;
    }
    for (uint32_t i = 0; i < k->nargs; i++) {
        const argspec *s = &k->spec[i];
        PyObject *o = PyTuple_GetItem(args, i);
        unsigned char *slot = scratch[i];
        argv[i].type = s->tag;
        switch (s->conv) {
        case CV_PTR:
            if (conv_pointer(k, i, s, o, (void **)slot, cs) < 0) return -1;
            argv[i].value = slot;
            argv[i].size = sizeof(void *);
            break;
        case CV_LOCAL:
            if (!KPy_IS_TYPE(o, LocalType)) {
                PyObject *tn = type_name(o);
                raise_type(ARG_FMT " is a __local pointer but a %U was passed (pass krt.Local(nbytes))",
                           ARG_VALS(i, s, k), tn);
                KPy_XDECREF(tn);
                return -1;
            }
            argv[i].value = NULL;
            argv[i].size = (size_t)((LocalObject *)o)->nbytes;
            break;
        case CV_INT:
        case CV_BOOL:
        case CV_F16:
        case CV_F32:
        case CV_F64:
            if (conv_scalar(k, i, s, s->conv, s->elem_size, o, slot) < 0) return -1;
            argv[i].value = slot;
            argv[i].size = s->size;
            break;
        case CV_VEC: {
            if (s->size > 128) {
                raise_code(KRT_ERROR_UNSUPPORTED_FEATURE, ARG_FMT " is %s, larger than the binding's 128 bytes",
                           ARG_VALS(i, s, k), s->what);
                return -1;
            }
            Py_ssize_t len = PyUnicode_Check(o) || PyBytes_Check(o) ? -1 : PySequence_Size(o);
            if (len < 0) PyErr_Clear();
            if (len != (Py_ssize_t)s->width) {
                PyObject *tn = type_name(o);
                raise_type(ARG_FMT " is %s but a %U was passed (pass a sequence of %u numbers)", ARG_VALS(i, s, k),
                           s->what, tn, s->width);
                KPy_XDECREF(tn);
                return -1;
            }
            memset(slot, 0, s->size);
            for (uint32_t e = 0; e < s->width; e++) {
                PyObject *item = PySequence_GetItem(o, e);
                if (!item) return -1;
                int rc = conv_scalar(k, i, s, s->elem, s->elem_size, item, slot + e * s->elem_size);
                KPy_DECREF(item);
                if (rc < 0) return -1;
            }
            argv[i].value = slot;
            argv[i].size = s->size;
            break;
        }
        case CV_STRUCT: {
            Py_buffer *v = &cs->views[cs->nviews];
            if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS) < 0) {
                PyErr_Clear();
                PyObject *tn = type_name(o);
                raise_type(ARG_FMT " is %s but a %U was passed (pass its bytes: bytes, a ctypes.Structure, a NumPy "
                           "structured scalar)",
                           ARG_VALS(i, s, k), s->what, tn);
                KPy_XDECREF(tn);
                return -1;
            }
            cs->nviews++;
            if ((size_t)v->len != s->size) {
                raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT, ARG_FMT " is %s but %zd bytes were passed",
                           ARG_VALS(i, s, k), s->what, v->len);
                return -1;
            }
            argv[i].value = v->buf;
            argv[i].size = s->size;
            break;
        }
        default:
            raise_code(KRT_ERROR_UNSUPPORTED_FEATURE, ARG_FMT " is %s, which krt cannot launch with",
                       ARG_VALS(i, s, k), s->what);
            return -1;
        }
    }
    return 0;
}

static void call_state_release(call_state *cs, int keep_alive, CtxObject *c)
{
    for (int i = 0; i < cs->nviews; i++) PyBuffer_Release(&cs->views[i]);
    for (int i = 0; i < cs->nkeep; i++) {
        if (keep_alive) ctx_defer(c, DEFER_OBJECT, cs->keep[i]);
        else KPy_DECREF(cs->keep[i]);
    }
    cs->nviews = cs->nkeep = 0;
}

static int parse_dims(PyObject *o, uint64_t out[3], uint32_t *dims, const char *what, int zero_ok)
{
    out[0] = out[1] = out[2] = 0;
    if (PyLong_Check(o)) {
        unsigned long long v = PyLong_AsUnsignedLongLong(o);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) goto bad;
        out[0] = v;
        *dims = 1;
    } else {
        Py_ssize_t n = PyUnicode_Check(o) ? -1 : PySequence_Size(o);
        if (n < 1 || n > 3) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s= is an int or a tuple of 1 to 3 ints", what);
            return -1;
        }
        for (Py_ssize_t d = 0; d < n; d++) {
            PyObject *it = PySequence_GetItem(o, d);
            if (!it) return -1;
            unsigned long long v = PyLong_AsUnsignedLongLong(it);
            KPy_DECREF(it);
            if (v == (unsigned long long)-1 && PyErr_Occurred()) goto bad;
            out[d] = v;
        }
        *dims = (uint32_t)n;
    }
    (void)zero_ok;
    return 0;
bad:
    if (PyErr_ExceptionMatches(PyExc_OverflowError) || PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        raise_code(strcmp(what, "range") == 0 ? KRT_ERROR_INVALID_NDRANGE : KRT_ERROR_INVALID_GROUP_SIZE,
                   "%s= takes sizes >= 0 that fit 64 bits: %S", what, v);
        KPy_XDECREF(t);
        KPy_XDECREF(v);
        KPy_XDECREF(tb);
    }
    return -1;
}

typedef struct {
    krt_launch_desc d;
    krt_event *waits[STACK_ARGS];
    qstate *s;
    PyObject *queue_obj; /* borrowed: the QueueObject given, or NULL for the default queue */
    int block;
    int have_range;
} launch_opts;

static int parse_opts(KernelObject *k, PyObject *kw, launch_opts *o, int allow_queue)
{
    o->s = &k->ctx->dq;
    if (!kw) goto check;
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(kw, &pos, &key, &val)) {
        if (key == s_range || PyUnicode_Compare(key, s_range) == 0) {
            uint64_t sz[3];
            uint32_t dims;
            if (parse_dims(val, sz, &dims, "range", 0) < 0) return -1;
            o->d.range.dims = dims;
            memcpy(o->d.range.size, sz, sizeof sz);
            o->have_range = 1;
        } else if (key == s_group || PyUnicode_Compare(key, s_group) == 0) {
            if (val == Py_None) continue;
            uint64_t g[3];
            uint32_t dims;
            if (parse_dims(val, g, &dims, "group", 0) < 0) return -1;
            for (int d = 0; d < 3; d++) {
                if (g[d] > UINT32_MAX) {
                    raise_code(KRT_ERROR_INVALID_GROUP_SIZE, "group= size %llu is over 2**32-1",
                               (unsigned long long)g[d]);
                    return -1;
                }
                o->d.group[d] = (uint32_t)g[d];
            }
        } else if (allow_queue && (key == s_queue || PyUnicode_Compare(key, s_queue) == 0)) {
            if (val == Py_None) continue;
            if (!KPy_IS_TYPE(val, QueueType) || ((QueueObject *)val)->ctx != k->ctx) {
                PyErr_SetString(PyExc_TypeError, "queue= takes a krt.Queue of the kernel's context");
                return -1;
            }
            o->s = ((QueueObject *)val)->s;
            o->queue_obj = ((QueueObject *)val)->owned ? val : NULL;
        } else if (allow_queue && (key == s_wait || PyUnicode_Compare(key, s_wait) == 0)) {
            if (val == Py_None) continue;
            o->d.wait = o->waits; /* filled after the queue is known */
        } else if (allow_queue && (key == s_block || PyUnicode_Compare(key, s_block) == 0)) {
            int b = PyObject_IsTrue(val);
            if (b < 0) return -1;
            o->block = b;
        } else {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", k->cname, key);
            return -1;
        }
    }
    if (o->d.wait) {
        PyObject *val = PyDict_GetItem(kw, s_wait);
        Py_ssize_t n = val ? PySequence_Size(val) : 0;
        if (n < 0) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "wait= takes a list of krt events");
            return -1;
        }
        uint32_t nw = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PySequence_GetItem(val, i);
            if (!e) return -1;
            if (!KPy_IS_TYPE(e, EventType) || ((EventObject *)e)->ctx != k->ctx) {
                KPy_DECREF(e);
                PyErr_SetString(PyExc_TypeError, "wait= takes krt events of the kernel's context");
                return -1;
            }
            EventObject *ev = (EventObject *)e;
            /* The same queue is in order already; a completed marker needs no wait. */
            if (ev->s != o->s && ev->s->done < ev->ticket) {
                if (nw >= STACK_ARGS) {
                    KPy_DECREF(e);
                    PyErr_SetString(PyExc_ValueError, "wait= takes at most 32 events of other queues");
                    return -1;
                }
                krt_event *de = event_driver(ev);
                if (!de) {
                    KPy_DECREF(e);
                    return -1;
                }
                o->waits[nw++] = de;
            }
            KPy_DECREF(e);
        }
        o->d.num_wait = nw;
        if (!nw) o->d.wait = NULL;
    }
check:
    if (!o->have_range) {
        raise_code(KRT_ERROR_INVALID_NDRANGE, "%s(...) needs range=: the number of work-items, an int or a tuple of "
                                              "1 to 3 ints", k->cname);
        return -1;
    }
    o->d.queue = o->s->q;
    return 0;
}

static PyObject *kernel_launch(KernelObject *k, PyObject *args, PyObject *kw, int force_block)
{
    CtxObject *c = k->ctx;
    if (c->closed) return raise_code(KRT_ERROR_INVALID_STATE, "%s: the krt context is closed", k->cname);
    launch_opts o;
    memset(&o.d, 0, sizeof o.d);
    o.queue_obj = NULL;
    o.block = force_block;
    o.have_range = 0;
    if (parse_opts(k, kw, &o, 1) < 0) return NULL;
    krt_arg stack_argv[STACK_ARGS];
    unsigned char (*stack_scratch)[128] = NULL;
    unsigned char small[STACK_ARGS][128];
    krt_arg *argv = stack_argv;
    unsigned char (*scratch)[128] = small;
    if (k->nargs > STACK_ARGS) {
        argv = PyMem_Malloc(k->nargs * sizeof *argv);
        stack_scratch = PyMem_Malloc(k->nargs * sizeof *stack_scratch);
        if (!argv || !stack_scratch) {
            PyMem_Free(argv == stack_argv ? NULL : argv);
            PyMem_Free(stack_scratch);
            return PyErr_NoMemory();
        }
        scratch = stack_scratch;
    }
    call_state cs;
    cs.nviews = cs.nkeep = 0;
    PyObject *result = NULL;
    if (convert_args(k, args, argv, scratch, &cs) < 0) goto out;
    o.d.args = argv;
    o.d.num_args = k->nargs;
    krt_result r = krt_launch(k->k, &o.d);
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        goto out;
    }
    o.s->ticket++;
    result = event_new_marker(c, o.queue_obj, o.s);
    call_state_release(&cs, 1, c);
    if (result && o.block && qstate_wait(c, o.s, UINT64_MAX) < 0) Py_CLEAR(result);
    goto done;
out:
    call_state_release(&cs, 0, c);
done:
    if (argv != stack_argv) PyMem_Free(argv);
    PyMem_Free(stack_scratch);
    return result;
}

static PyObject *kernel_call(KernelObject *k, PyObject *args, PyObject *kw)
{
    return kernel_launch(k, args, kw, 0);
}

static PyObject *kernel_sync(KernelObject *k, PyObject *args, PyObject *kw)
{
    return kernel_launch(k, args, kw, 1);
}

static PyObject *triple(const uint32_t v[3])
{
    return Py_BuildValue("(III)", v[0], v[1], v[2]);
}

static PyObject *kernel_config(KernelObject *k, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"range", NULL};
    PyObject *range;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:config", kwlist, &range)) return NULL;
    krt_ndrange nd = {0};
    uint64_t sz[3];
    if (parse_dims(range, sz, &nd.dims, "range", 0) < 0) return NULL;
    memcpy(nd.size, sz, sizeof sz);
    krt_launch_config cfg;
    krt_result r = krt_launch_config_get(k->k, &nd, &cfg);
    if (r != KRT_SUCCESS) return raise_krt(r);
    return new_namespace(Py_BuildValue("{s:I,s:N,s:N,s:I,s:I,s:I,s:s,s:O}", "dims", cfg.dims, "group", triple(cfg.group),
                                       "groups", triple(cfg.groups), "max_group_size", cfg.max_group_size,
                                       "preferred_multiple", cfg.preferred_multiple, "spill_mem_size",
                                       cfg.spill_mem_size, "limit", krt_limit_name(cfg.limit), "masked",
                                       cfg.masked ? Py_True : Py_False));
}

static PyObject *kernel_tune(KernelObject *k, PyObject *args, PyObject *kw)
{
    CtxObject *c = k->ctx;
    if (!ctx_usable(c)) return NULL;
    unsigned long samples = 0, per_item = 0;
    PyObject *lkw = NULL;
    if (kw) {
        lkw = PyDict_Copy(kw);
        if (!lkw) return NULL;
        PyObject *v;
        if ((v = PyDict_GetItemString(lkw, "samples"))) {
            samples = PyLong_AsUnsignedLong(v);
            PyDict_DelItemString(lkw, "samples");
        }
        if (!PyErr_Occurred() && (v = PyDict_GetItemString(lkw, "local_bytes_per_item"))) {
            per_item = PyLong_AsUnsignedLong(v);
            PyDict_DelItemString(lkw, "local_bytes_per_item");
        }
        if (PyErr_Occurred()) {
            KPy_DECREF(lkw);
            return NULL;
        }
    }
    launch_opts o;
    memset(&o.d, 0, sizeof o.d);
    o.queue_obj = NULL;
    o.block = 0;
    o.have_range = 0;
    int rc = parse_opts(k, lkw, &o, 0);
    KPy_XDECREF(lkw);
    if (rc < 0) return NULL;
    if (k->nargs > STACK_ARGS) return raise_code(KRT_ERROR_UNSUPPORTED_FEATURE, "tune() takes kernels of up to 32 arguments");
    krt_arg argv[STACK_ARGS];
    unsigned char scratch[STACK_ARGS][128];
    call_state cs;
    cs.nviews = cs.nkeep = 0;
    if (convert_args(k, args, argv, scratch, &cs) < 0) {
        call_state_release(&cs, 0, c);
        return NULL;
    }
    o.d.args = argv;
    o.d.num_args = k->nargs;
    krt_tune_desc td = {.samples = (uint32_t)samples, .local_bytes_per_item = (uint32_t)per_item};
    krt_tune_result tr;
    krt_result r;
    uint64_t snap = c->dq.ticket;
    Py_BEGIN_ALLOW_THREADS
    r = krt_kernel_tune(k->k, &o.d, &td, &tr);
    Py_END_ALLOW_THREADS
    call_state_release(&cs, 0, c);
    if (r != KRT_SUCCESS) return raise_krt(r);
    if (c->dq.done < snap) c->dq.done = snap;
    return new_namespace(Py_BuildValue("{s:N,s:N,s:d,s:d,s:I}", "group", triple(tr.group), "rule_group",
                                       triple(tr.rule_group), "best_ns", tr.best_ns, "rule_ns", tr.rule_ns,
                                       "candidates", tr.candidates));
}

static PyObject *kernel_get_args(KernelObject *k, void *closure)
{
    (void)closure;
    PyObject *t = PyTuple_New(k->nargs);
    for (uint32_t i = 0; t && i < k->nargs; i++) {
        krt_arg_info ai;
        krt_result r = krt_kernel_arg_info(k->k, i, &ai);
        if (r != KRT_SUCCESS) {
            KPy_DECREF(t);
            return raise_krt(r);
        }
        PyObject *ns = new_namespace(Py_BuildValue("{s:I,s:s,s:s,s:s,s:I,s:I,s:s}", "index", i, "name",
                                                   ai.name ? ai.name : "", "kind", krt_arg_kind_name(ai.kind), "type",
                                                   krt_scalar_type_name(ai.type), "vector_width", ai.vector_width,
                                                   "size", ai.size, "takes", k->spec[i].what));
        if (!ns) {
            KPy_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, ns);
    }
    return t;
}

static PyObject *kernel_get_info(KernelObject *k, void *closure)
{
    (void)closure;
    krt_kernel_info ki;
    krt_result r = krt_kernel_info_get(k->k, &ki);
    if (r != KRT_SUCCESS) return raise_krt(r);
    return new_namespace(Py_BuildValue("{s:s,s:I,s:N,s:N,s:O,s:O,s:I}", "name", ki.name, "num_args", ki.num_args,
                                       "required_group", triple(ki.required_group), "group_hint",
                                       triple(ki.group_hint), "uses_barrier", ki.uses_barrier ? Py_True : Py_False,
                                       "uses_static_local", ki.uses_static_local ? Py_True : Py_False, "local_args",
                                       ki.local_args));
}

static PyObject *kernel_get_properties(KernelObject *k, void *closure)
{
    (void)closure;
    krt_kernel_properties p;
    krt_result r = krt_kernel_properties_get(k->k, &p);
    if (r != KRT_SUCCESS) return raise_krt(r);
    return new_namespace(Py_BuildValue("{s:I,s:N,s:I,s:O,s:I,s:I,s:I,s:I}", "num_args", p.num_args, "required_group",
                                       triple(p.required_group), "max_group_size", p.max_group_size,
                                       "max_group_size_from_extension",
                                       p.max_group_size_from_extension ? Py_True : Py_False, "preferred_multiple",
                                       p.preferred_multiple, "local_mem_size", p.local_mem_size, "private_mem_size",
                                       p.private_mem_size, "spill_mem_size", p.spill_mem_size));
}

static PyObject *kernel_get_name(KernelObject *k, void *closure)
{
    (void)closure;
    KPy_INCREF(k->name);
    return k->name;
}

static PyObject *kernel_get_module(KernelObject *k, void *closure)
{
    (void)closure;
    KPy_INCREF(k->mod);
    return (PyObject *)k->mod;
}

static PyObject *kernel_repr(KernelObject *k)
{
    PyObject *sig = PyUnicode_FromString("");
    for (uint32_t i = 0; sig && i < k->nargs; i++) {
        PyObject *next = PyUnicode_FromFormat("%U%s%s%s%s", sig, i ? ", " : "", k->spec[i].what,
                                              k->spec[i].name[0] ? " " : "", k->spec[i].name);
        KPy_DECREF(sig);
        sig = next;
    }
    if (!sig) return NULL;
    PyObject *r = PyUnicode_FromFormat("<krt.Kernel %s(%U)>", k->cname, sig);
    KPy_DECREF(sig);
    return r;
}

/* bench_c(args, range=..., n=N, sync_every=M): N launches of the same arguments from C, for bench/python: what the
 * Python call adds is measured against this loop in one process. Returns nanoseconds per launch. */
static PyObject *kernel_bench_c(KernelObject *k, PyObject *args, PyObject *kw)
{
    CtxObject *c = k->ctx;
    if (!ctx_usable(c)) return NULL;
    unsigned long long n = 1, every = 0;
    PyObject *lkw = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!lkw) return NULL;
    PyObject *v;
    if ((v = PyDict_GetItemString(lkw, "n"))) {
        n = PyLong_AsUnsignedLongLong(v);
        PyDict_DelItemString(lkw, "n");
    }
    if (!PyErr_Occurred() && (v = PyDict_GetItemString(lkw, "sync_every"))) {
        every = PyLong_AsUnsignedLongLong(v);
        PyDict_DelItemString(lkw, "sync_every");
    }
    if (PyErr_Occurred()) {
        KPy_DECREF(lkw);
        return NULL;
    }
    launch_opts o;
    memset(&o.d, 0, sizeof o.d);
    o.queue_obj = NULL;
    o.block = 0;
    o.have_range = 0;
    int rc = parse_opts(k, lkw, &o, 0);
    KPy_DECREF(lkw);
    if (rc < 0) return NULL;
    if (k->nargs > STACK_ARGS) return raise_code(KRT_ERROR_UNSUPPORTED_FEATURE, "up to 32 arguments");
    krt_arg argv[STACK_ARGS];
    unsigned char scratch[STACK_ARGS][128];
    call_state cs;
    cs.nviews = cs.nkeep = 0;
    if (convert_args(k, args, argv, scratch, &cs) < 0) {
        call_state_release(&cs, 0, c);
        return NULL;
    }
    o.d.args = argv;
    o.d.num_args = k->nargs;
    krt_result r = KRT_SUCCESS;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned long long i = 0; i < n && r == KRT_SUCCESS; i++) {
        r = krt_launch(k->k, &o.d);
        if (r == KRT_SUCCESS && every && (i + 1) % every == 0) r = krt_queue_synchronize(o.d.queue);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    krt_result rs = krt_queue_synchronize(o.d.queue);
    call_state_release(&cs, 0, c);
    if (r == KRT_SUCCESS) r = rs;
    if (r != KRT_SUCCESS) return raise_krt(r);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    return PyFloat_FromDouble(n ? ns / (double)n : 0.0);
}

static PyMethodDef kernel_methods[] = {
    {"sync", (PyCFunction)(void (*)(void))kernel_sync, METH_VARARGS | METH_KEYWORDS,
     "sync(*args, range, group=None, queue=None, wait=None)\n\nThe same as calling the kernel with block=True: "
     "launches, then waits for the queue."},
    {"config", (PyCFunction)(void (*)(void))kernel_config, METH_VARARGS | METH_KEYWORDS,
     "config(range) -> namespace\n\nThe launch configuration krt would choose for this range with no group= "
     "(krt_launch_config_get): group, groups, dims, limit (the rule that decided, e.g. \"kernel-max\"), masked, "
     "max_group_size, preferred_multiple, spill_mem_size."},
    {"tune", (PyCFunction)(void (*)(void))kernel_tune, METH_VARARGS | METH_KEYWORDS,
     "tune(*args, range, samples=0, local_bytes_per_item=0) -> namespace\n\nTimes candidate group sizes with these "
     "arguments (krt_kernel_tune, which launches the kernel repeatedly) and keeps the fastest as wisdom for later "
     "dynamic launches: group, rule_group, best_ns, rule_ns, candidates."},
    {"bench_c", (PyCFunction)(void (*)(void))kernel_bench_c, METH_VARARGS | METH_KEYWORDS,
     "bench_c(*args, range, n=1, sync_every=0) -> float\n\nFor benchmarks: n launches of these arguments in a C loop, "
     "nanoseconds per launch (what the Python call costs is measured against it in one process)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kernel_getset[] = {
    {"name", (getter)kernel_get_name, NULL, "The kernel's name.", NULL},
    {"module", (getter)kernel_get_module, NULL, "The kernel's module.", NULL},
    {"args", (getter)kernel_get_args, NULL,
     "The reflected arguments: index, name, kind, type, vector_width, size, and takes (what a call passes).", NULL},
    {"info", (getter)kernel_get_info, NULL,
     "Reflection of the kernel (krt_kernel_info): required_group, group_hint, uses_barrier, ...", NULL},
    {"properties", (getter)kernel_get_properties, NULL,
     "The driver's view (krt_kernel_properties): max_group_size, preferred_multiple, spill_mem_size, ...", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_call, kernel_call},
    {Py_tp_methods, kernel_methods},
    {Py_tp_getset, kernel_getset},
    {Py_tp_repr, kernel_repr},
    {Py_tp_doc,
     "A kernel of a krt.Module. Calling it launches it (krt_launch) and returns a krt.Event without waiting:\n\n"
     "    saxpy(y, x, 2.0, n, range=n)                      # krt chooses the group size\n"
     "    k(a, b, range=(nx, ny), group=(16, 16), queue=q, wait=[ev], block=False)\n\n"
     "Each argument is converted by the kernel's reflected signature: pointers take a krt.Array (or an array of the "
     "context's device with __dlpack__ / __cuda_array_interface__, in place) or None; integers take an int or NumPy "
     "integer that fits the width; float/double/half take a float, an int or a NumPy scalar; vectors a sequence of "
     "numbers; structs their bytes; __local pointers krt.Local(nbytes). A value of the wrong type raises "
     "krt.ArgumentTypeError (also a TypeError), one that does not fit krt.KernelArgumentError (a ValueError); a "
     "NumPy host array is refused with the copy to make. Every array a queued launch uses stays alive until it has "
     "run."},
    {0, NULL},
};

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
