/*
 * kernel.c: krt.Kernel and the launch path. A kernel call converts each Python value by the kernel's reflected
 * signature (convert.c: a converter per argument, built once when the kernel is looked up), reads its keywords
 * (range=, group=, queue=, wait=, block=), fills krt_arg's on the stack and calls krt_launch; it returns a
 * krt.Event, a marker in the queue. Nothing on that path allocates except the returned event. Also here: config()
 * (krt_launch_config_get), tune() (krt_kernel_tune), bench_c() (a C loop of launches for bench/python) and the
 * kernel's reflection as namespaces.
 */
#include "kpy.h"

#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------------------------
 * Kernel: the launch path (arguments converted by convert.c), config, tune and bench_c, reflection
 * ------------------------------------------------------------------------------------------------------- */

PyObject *kernel_make(ModuleObject *m, PyObject *name, int attribute)
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
    kpy_free(k);
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

/* Fills o from a call's keywords: range= and group=; with allow_queue also queue=, wait= and block= (block: its
 * default, a call's 0 or sync()'s 1). */
static int parse_opts(KernelObject *k, PyObject *kw, launch_opts *o, int allow_queue, int block)
{
    memset(&o->d, 0, sizeof o->d);
    o->queue_obj = NULL;
    o->block = block;
    o->have_range = 0;
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
    if (parse_opts(k, kw, &o, 1, force_block) < 0) return NULL;
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

/* A call run from C, off the launch path (tune(), bench_c()): its launch description and its arguments, converted
 * into stack arrays. */
typedef struct {
    launch_opts o;
    krt_arg argv[STACK_ARGS];
    unsigned char scratch[STACK_ARGS][128];
    call_state cs;
} c_call;

/* Prepares p from a call of a method of two keywords of its own (names): each given one is taken out of a copy of
 * kw into values (read by as_uint), the rest are the launch's range= and group=; the arguments (at most 32, else
 * too_many is raised) are converted. Returns 0, the arguments then to release with call_state_release, or -1 with
 * an exception and nothing held. */
static int c_call_prepare(KernelObject *k, PyObject *args, PyObject *kw, const char *const names[2],
                          unsigned long long values[2], unsigned long long (*as_uint)(PyObject *),
                          const char *too_many, c_call *p)
{
    if (!ctx_usable(k->ctx)) return -1;
    PyObject *lkw = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!lkw) return -1;
    for (int i = 0; i < 2 && !PyErr_Occurred(); i++) {
        PyObject *v = PyDict_GetItemString(lkw, names[i]);
        if (v) {
            values[i] = as_uint(v);
            PyDict_DelItemString(lkw, names[i]);
        }
    }
    int rc = PyErr_Occurred() ? -1 : parse_opts(k, lkw, &p->o, 0, 0);
    KPy_DECREF(lkw);
    if (rc < 0) return -1;
    if (k->nargs > STACK_ARGS) {
        raise_code(KRT_ERROR_UNSUPPORTED_FEATURE, "%s", too_many);
        return -1;
    }
    p->cs.nviews = p->cs.nkeep = 0;
    if (convert_args(k, args, p->argv, p->scratch, &p->cs) < 0) {
        call_state_release(&p->cs, 0, k->ctx);
        return -1;
    }
    p->o.d.args = p->argv;
    p->o.d.num_args = k->nargs;
    return 0;
}

/* tune()'s keywords are read as C unsigned longs (bench_c()'s as unsigned long longs), with their messages. */
static unsigned long long as_ulong(PyObject *v)
{
    return PyLong_AsUnsignedLong(v);
}

static PyObject *kernel_tune(KernelObject *k, PyObject *args, PyObject *kw)
{
    static const char *const names[2] = {"samples", "local_bytes_per_item"};
    unsigned long long v[2] = {0, 0};
    c_call p;
    if (c_call_prepare(k, args, kw, names, v, as_ulong, "tune() takes kernels of up to 32 arguments", &p) < 0)
        return NULL;
    CtxObject *c = k->ctx;
    krt_tune_desc td = {.samples = (uint32_t)v[0], .local_bytes_per_item = (uint32_t)v[1]};
    krt_tune_result tr;
    krt_result r;
    uint64_t snap = c->dq.ticket;
    Py_BEGIN_ALLOW_THREADS
    r = krt_kernel_tune(k->k, &p.o.d, &td, &tr);
    Py_END_ALLOW_THREADS
    call_state_release(&p.cs, 0, c);
    if (r != KRT_SUCCESS) return raise_krt(r);
    if (c->dq.done < snap) c->dq.done = snap;
    return new_namespace(Py_BuildValue("{s:N,s:N,s:d,s:d,s:I}", "group", triple(tr.group), "rule_group",
                                       triple(tr.rule_group), "best_ns", tr.best_ns, "rule_ns", tr.rule_ns,
                                       "candidates", tr.candidates));
}

/* bench_c(args, range=..., n=N, sync_every=M): N launches of the same arguments from C, for bench/python: what the
 * Python call adds is measured against this loop in one process. Returns nanoseconds per launch. */
static PyObject *kernel_bench_c(KernelObject *k, PyObject *args, PyObject *kw)
{
    static const char *const names[2] = {"n", "sync_every"};
    unsigned long long v[2] = {1, 0};
    c_call p;
    if (c_call_prepare(k, args, kw, names, v, PyLong_AsUnsignedLongLong, "up to 32 arguments", &p) < 0) return NULL;
    unsigned long long n = v[0], every = v[1];
    krt_result r = KRT_SUCCESS;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned long long i = 0; i < n && r == KRT_SUCCESS; i++) {
        r = krt_launch(k->k, &p.o.d);
        if (r == KRT_SUCCESS && every && (i + 1) % every == 0) r = krt_queue_synchronize(p.o.d.queue);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    krt_result rs = krt_queue_synchronize(p.o.d.queue);
    call_state_release(&p.cs, 0, k->ctx);
    if (r == KRT_SUCCESS) r = rs;
    if (r != KRT_SUCCESS) return raise_krt(r);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    return PyFloat_FromDouble(n ? ns / (double)n : 0.0);
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
        PyObject *ns = new_namespace(Py_BuildValue("{s:I,s:s,s:s,s:s,s:s,s:I,s:I,s:s}", "index", i, "name",
                                                   ai.name ? ai.name : "", "kind", krt_arg_kind_name(ai.kind), "type",
                                                   krt_scalar_type_name(ai.type), "declared",
                                                   ai.type_name ? ai.type_name : "", "vector_width", ai.vector_width,
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
     "The reflected arguments: index, name, kind, type, vector_width, size, declared (the OpenCL C type as the "
     "kernel declares it, \"uint*\"; \"\" where the module keeps none), and takes (what the parameter is, as "
     "messages name it: \"global uint*\").", NULL},
    {"info", (getter)kernel_get_info, NULL,
     "Reflection of the kernel (krt_kernel_info): required_group, group_hint, uses_barrier, ...", NULL},
    {"properties", (getter)kernel_get_properties, NULL,
     "The driver's view (krt_kernel_properties): max_group_size, preferred_multiple, spill_mem_size, ...", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyType_Slot kernel_slots[] = {
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
     "numbers; structs their bytes; __local pointers krt.Local(nbytes). Where the module keeps its declared types "
     "(krt-cc's modules do: args[i].declared), a pointer's array must hold the pointee's element type: float32 for "
     "float* and float4*, uint32 for uint*, float16 for half*, and so on; byte pointers (char*, uchar*), void* and "
     "structs take any array. A value of the wrong type raises krt.ArgumentTypeError (also a TypeError), naming the "
     "fix for an array of the wrong dtype (.astype(np.float32), or .view(np.uint32) for the other sign); one that "
     "does not fit krt.KernelArgumentError (a ValueError); a NumPy host array is refused with the copy to make.\n\n"
     "The caller owns the arrays' extent: each must cover every element the kernel touches for the range. krt does "
     "not know how a kernel indexes its arrays, so an array too short for the range is not caught; on the CPU "
     "devices the kernel then reads and writes past its end (undefined behaviour, which may corrupt the process). "
     "Every array a queued launch uses stays alive until it has run."},
    {0, NULL},
};


