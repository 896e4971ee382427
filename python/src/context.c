/*
 * context.c: krt.Context, krt.Queue and krt.Event, and the context's deferred-release list.
 *
 * A context knows, per krt queue, how many commands it was given (ticket) and how many are known complete (done);
 * an event is a marker (queue, ticket) in one of them. The device as a krt.Device (make_device) is built here too.
 *
 * Lifetime. Every object holds its context, so a context lives while anything made from it does; close() only
 * ends its use. Memory, modules and foreign owners that die while the context still has queued work are not
 * released at once: they go on the context's deferred list, emptied when the context is next known idle (a
 * synchronize of every queue that has work), or after 1,024 entries by a synchronize of its own. A queued launch
 * never takes a reference per argument for krt's own arrays; a foreign object passed straight to a kernel is kept
 * on the same list.
 */
#include "kpy.h"

#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Context
 * ------------------------------------------------------------------------------------------------------- */

int ctx_dirty(CtxObject *c)
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
void ctx_drain(CtxObject *c)
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
int ctx_sync(CtxObject *c)
{
    for (qstate *s = &c->dq; s; s = s->next) s->snap = s->ticket;
    krt_result r;
    Py_BEGIN_ALLOW_THREADS
    r = krt_context_synchronize(c->ctx);
    Py_END_ALLOW_THREADS
    if (r != KRT_SUCCESS) {
        if (r == KRT_ERROR_DEVICE_LOST) c->lost = 1;
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
void ctx_defer(CtxObject *c, int tag, void *p)
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

int ctx_usable(CtxObject *c)
{
    if (c->closed) {
        raise_code(KRT_ERROR_INVALID_STATE, "the krt context is closed");
        return 0;
    }
    return 1;
}

static PyObject *device_dict(const krt_device_info *d, uint32_t index)
{
    PyObject *sg = PyTuple_New(d->num_sub_group_sizes);
    if (!sg) return NULL;
    for (uint32_t i = 0; i < d->num_sub_group_sizes; i++) PyTuple_SetItem(sg, i, PyLong_FromUnsignedLong(d->sub_group_sizes[i]));
    PyObject *dict = Py_BuildValue(
        "{s:I,s:s,s:s,s:s,s:I,s:I,s:(II),s:I,s:I,s:I,s:I,s:I,s:(III),s:(III),s:I,s:N,s:K,s:O,s:O,s:O,s:O}", "index", index,
        "name", d->name, "driver", d->driver_name, "type", krt_device_type_name(d->type), "driver_index",
        d->driver_index, "device_index", d->device_index, "api_version", d->api_version_major, d->api_version_minor,
        "driver_version", d->driver_version, "vendor_id", d->vendor_id, "compute_units", d->compute_units,
        "clock_mhz", d->clock_mhz, "max_group_size", d->max_group_size, "max_group", d->max_group[0], d->max_group[1],
        d->max_group[2], "max_group_count", d->max_group_count[0], d->max_group_count[1], d->max_group_count[2],
        "max_shared_local_memory", d->max_shared_local_memory, "sub_group_sizes", sg, "memory_bytes",
        (unsigned long long)d->memory_bytes, "fp16", d->fp16 ? Py_True : Py_False, "fp64", d->fp64 ? Py_True : Py_False,
        "int64_atomics", d->int64_atomics ? Py_True : Py_False, "device_memory_host_accessible",
        d->device_memory_host_accessible ? Py_True : Py_False);
    return dict;
}

PyObject *make_device(const krt_device_info *d, uint32_t index)
{
    PyObject *dict = device_dict(d, index);
    if (!dict || !device_class) return dict;
    PyObject *dev = PyObject_CallFunctionObjArgs(device_class, dict, NULL);
    KPy_DECREF(dict);
    return dev;
}

static PyObject *ctx_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"device", "spill_budget", "min_groups", "checks", NULL};
    PyObject *device = Py_None;
    unsigned long long spill = 0;
    unsigned int min_groups = 0;
    int checks = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$KIp:Context", kwlist, &device, &spill, &min_groups, &checks))
        return NULL;
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
    krt_context_desc desc = {.device = dev, .spill_budget = (size_t)spill, .min_groups = min_groups,
                             .checks = checks ? KRT_CHECK_BOUNDS : KRT_CHECK_NONE};
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
    kpy_free(c);
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
    /* A lost device (krt.DeviceLostError, raised by the call that saw it): closing is how the program leaves the
     * context, so it does not raise again, and what was deferred behind work that will never complete is released. */
    if (rc < 0 && c->lost) {
        PyErr_Clear();
        for (qstate *s = &c->dq; s; s = s->next) s->done = s->ticket;
        ctx_drain(c);
        Py_RETURN_NONE;
    }
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

/* krt_wisdom_save or krt_wisdom_load of a path-like object. */
static PyObject *ctx_wisdom(CtxObject *c, PyObject *path, krt_result (*fn)(krt_context *, const char *))
{
    PyObject *b = path_bytes(path);
    if (!b) return NULL;
    krt_result r = fn(c->ctx, PyBytes_AsString(b));
    KPy_DECREF(b);
    if (r != KRT_SUCCESS) return raise_krt(r);
    Py_RETURN_NONE;
}

static PyObject *ctx_wisdom_save(CtxObject *c, PyObject *path)
{
    return ctx_wisdom(c, path, krt_wisdom_save);
}

static PyObject *ctx_wisdom_load(CtxObject *c, PyObject *path)
{
    return ctx_wisdom(c, path, krt_wisdom_load);
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

PyType_Slot ctx_slots[] = {
    {Py_tp_new, ctx_new},
    {Py_tp_dealloc, ctx_dealloc},
    {Py_tp_methods, ctx_methods},
    {Py_tp_getset, ctx_getset},
    {Py_tp_repr, ctx_repr},
    {Py_tp_doc,
     "Context(device=None, *, spill_budget=0, min_groups=0, checks=False)\n\n"
     "A krt context on one device, with its default queue. device: None (KRT_DEVICE, else the first GPU, else the "
     "first device), a kind \"gpu\", \"cpu\" or \"host\" (\"cpu:1\" the second CPU), an index into krt.devices(), a "
     "case-insensitive substring of a device name, or a krt.Device. spill_budget: scratch bytes a spilling kernel "
     "may use per work-group (0: 1 MiB); min_groups: groups a dynamic launch aims for on small ranges (0: 16); "
     "checks: True for checked launches (KRT_CHECK_BOUNDS; False: the KRT_CHECK environment variable decides): "
     "every global memory access of a kernel outside the context's arrays is not made, and the wait raises "
     "krt.OutOfBoundsError naming the kernel, the work-item and the array (ze_pocl and ze_cuda; the host device "
     "refuses it).\n\n"
     "A context is a context manager: leaving the with block calls close()."},
    {0, NULL},
};

/* ---------------------------------------------------------------------------------------------------------
 * Queue
 * ------------------------------------------------------------------------------------------------------- */

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
    kpy_free(q);
}

/* Waits for one queue; timeout in seconds (None: forever). Returns 1 done, 0 timed out, -1 error. */
int qstate_wait(CtxObject *c, qstate *s, uint64_t timeout_ns)
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

PyType_Slot queue_slots[] = {
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

PyObject *event_new_marker(CtxObject *c, PyObject *owner, qstate *s)
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
    kpy_free(e);
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
krt_event *event_driver(EventObject *e)
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

PyType_Slot event_slots[] = {
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_getset, event_getset},
    {Py_tp_doc, "What a kernel call returns: a marker after the launch in its queue. wait() blocks until it has run; "
                "pass it in wait=[...] of a call on another queue to order the two (on the same queue order is "
                "already given)."},
    {0, NULL},
};

