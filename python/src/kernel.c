/*
 * kernel.c: krt.Kernel and the launch path. A kernel call converts each Python value by the kernel's reflected
 * signature (convert.c: a converter per argument, built once when the kernel is looked up), reads its keywords
 * (range=, group=, queue=, wait=, block=; a bad value is a krt error that names the keyword, raised before
 * anything is launched), fills krt_arg's on the stack and calls krt_launch; it returns a krt.Event, a marker in the
 * queue. Nothing on that path allocates except the returned event. Also here: config() (krt_launch_config_get),
 * tune() (krt_kernel_tune), bench_c() (a C loop of launches for bench/python) and the kernel's reflection as
 * namespaces.
 */
#include "kpy.h"

#include <limits.h>
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

/* ---------------------------------------------------------------------------------------------------------
 * A call's keywords. Each bad value is a krt error that names the keyword and shows the value: one of the wrong
 * type (range=1.5, queue=3) raises krt.ArgumentTypeError, also a TypeError, as a kernel argument of the wrong type
 * does; one of the right type that krt cannot launch with raises the class of the C API's result for it
 * (range=0: krt.NDRangeError; group=(0,): krt.GroupSizeError; a queue of another context:
 * krt.InvalidArgumentError), also a ValueError.
 * ------------------------------------------------------------------------------------------------------- */

/* One size of range= or group= (key, its whole value val): an int (a Python int, or what has __index__, as NumPy's
 * integers do; not a bool, which is an int to Python but never a size, and not a float) from 1 to max, which
 * max_text spells. A size of 0 is refused rather than passed on: krt_launch_desc.group all 0 means "krt chooses",
 * so group=(0,) would launch with a group the caller did not ask for. */
static int parse_size(PyObject *val, PyObject *item, const char *key, krt_result code, unsigned long long max,
                      const char *max_text, uint64_t *out)
{
    if (PyLong_CheckExact(item)) {
        /* The launch path's case, a plain int that fits: one conversion. */
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (!overflow && x > 0 && (unsigned long long)x <= max) {
            *out = (uint64_t)x;
            return 0;
        }
        PyErr_Clear();
    }
    /* A NumPy array has __index__ but refuses it unless it is one integer: that TypeError is the same mistake. */
    PyObject *v = PyBool_Check(item) || PyFloat_Check(item) || !PyIndex_Check(item) ? NULL : PyNumber_Index(item);
    if (!v) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
        PyObject *tn = type_name(item);
        if (item == val)
            raise_type("%s=%R: a %s is a positive int or a tuple of 1 to 3 positive ints, not %U", key, val, key, tn);
        else
            raise_type("%s=%R: each size must be a positive int, not %U", key, val, tn);
        KPy_XDECREF(tn);
        return -1;
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    unsigned long long u = (unsigned long long)x;
    int positive = overflow > 0 || (overflow == 0 && x > 0), fits = 1;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(v);
        if (u == ULLONG_MAX && PyErr_Occurred()) {
            PyErr_Clear();
            fits = 0;
        }
    }
    KPy_DECREF(v);
    if (x == -1 && !overflow && PyErr_Occurred()) return -1;
    if (!positive) {
        raise_code(code, "%s=%R: each size must be a positive int", key, val);
        return -1;
    }
    if (!fits || u > max) {
        raise_code(code, "%s=%R: each size must be at most %s", key, val, max_text);
        return -1;
    }
    *out = u;
    return 0;
}

/* range= or group= (key): an int, or a sequence of 1 to 3 (a tuple, a list, a NumPy array), each a size as
 * parse_size reads it, into out (the unused dimensions 0) and *dims. */
static int parse_dims(PyObject *val, const char *key, krt_result code, unsigned long long max, const char *max_text,
                      uint64_t out[3], uint32_t *dims)
{
    out[0] = out[1] = out[2] = 0;
    *dims = 1;
    if (PyLong_CheckExact(val)) return parse_size(val, val, key, code, max, max_text, &out[0]);
    int seq = PySequence_Check(val) && !PyUnicode_Check(val) && !PyBytes_Check(val) && !PyLong_Check(val);
    Py_ssize_t n = seq ? PySequence_Size(val) : -1;
    if (n < 0) {
        PyErr_Clear(); /* not a sequence, or a 0-d NumPy array: one size */
        return parse_size(val, val, key, code, max, max_text, &out[0]);
    }
    if (n < 1 || n > 3) {
        raise_type("%s=%R: a %s has 1 to 3 sizes, not %zd", key, val, key, n);
        return -1;
    }
    for (Py_ssize_t d = 0; d < n; d++) {
        PyObject *it = PySequence_GetItem(val, d);
        if (!it) return -1;
        int rc = parse_size(val, it, key, code, max, max_text, &out[d]);
        KPy_DECREF(it);
        if (rc < 0) return -1;
    }
    *dims = (uint32_t)n;
    return 0;
}

/* block=: True or False; also 0 or 1, and NumPy's bool, which int() makes 0 or 1. Anything else (a str, None, 2)
 * is refused rather than read by its truth: block="no" would block. */
static int parse_block(PyObject *val, int *out)
{
    if (PyBool_Check(val)) {
        *out = val == Py_True;
        return 0;
    }
    if (PyNumber_Check(val) && !PyFloat_Check(val) && !PyComplex_Check(val) && !PyUnicode_Check(val)) {
        PyObject *v = PyNumber_Long(val);
        long x = v ? PyLong_AsLong(v) : -1;
        KPy_XDECREF(v);
        PyErr_Clear();
        if (x == 0 || x == 1) {
            *out = (int)x;
            return 0;
        }
    }
    raise_type("block=%R: block= takes True or False", val);
    return -1;
}

typedef struct {
    krt_launch_desc d;
    krt_event *waits[STACK_ARGS];
    qstate *s;
    PyObject *queue_obj; /* borrowed: the QueueObject given, or NULL for the default queue */
    PyObject *range_val, *group_val; /* borrowed from the call's keywords (NULL: not given), for messages */
    uint32_t group_dims;
    int block;
} launch_opts;

/* The wait= list (val) into o->waits, once the queue is known: events of the kernel's context, at most 32 of other
 * queues (the same queue is in order already, and a completed marker needs no wait). */
static int parse_wait(KernelObject *k, PyObject *val, launch_opts *o)
{
    if (KPy_IS_TYPE(val, EventType)) {
        raise_type("wait=%R: wait= takes a list of krt events; for one event pass wait=[event]", val);
        return -1;
    }
    Py_ssize_t n = PyUnicode_Check(val) || PyBytes_Check(val) || !PySequence_Check(val) ? -1 : PySequence_Size(val);
    if (n < 0) {
        PyErr_Clear();
        PyObject *tn = type_name(val);
        raise_type("wait=%R: wait= takes a list of krt events, not %U", val, tn);
        KPy_XDECREF(tn);
        return -1;
    }
    uint32_t nw = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PySequence_GetItem(val, i);
        if (!e) return -1;
        int rc = 0;
        if (!KPy_IS_TYPE(e, EventType)) {
            PyObject *tn = type_name(e);
            raise_type("wait=%R: item %zd is a %U, not a krt.Event", val, i, tn);
            KPy_XDECREF(tn);
            rc = -1;
        } else if (((EventObject *)e)->ctx != k->ctx) {
            raise_code(KRT_ERROR_INVALID_ARGUMENT, "wait=%R: item %zd is an event of another context than the "
                                                   "kernel's", val, i);
            rc = -1;
        } else {
            EventObject *ev = (EventObject *)e;
            if (ev->s != o->s && ev->s->done < ev->ticket) {
                if (nw >= STACK_ARGS) {
                    raise_code(KRT_ERROR_INVALID_ARGUMENT, "wait=: at most %d events of other queues than the "
                                                           "launch's", STACK_ARGS);
                    rc = -1;
                } else {
                    krt_event *de = event_driver(ev);
                    if (de) o->waits[nw++] = de;
                    else rc = -1;
                }
            }
        }
        KPy_DECREF(e);
        if (rc < 0) return -1;
    }
    o->d.wait = nw ? o->waits : NULL;
    o->d.num_wait = nw;
    return 0;
}

/* Fills o from a call's keywords: range= and group=; with allow_queue also queue=, wait= and block= (block: its
 * default, a call's 0 or sync()'s 1). */
static int parse_opts(KernelObject *k, PyObject *kw, launch_opts *o, int allow_queue, int block)
{
    memset(&o->d, 0, sizeof o->d);
    o->queue_obj = NULL;
    o->range_val = o->group_val = NULL;
    o->group_dims = 0;
    o->block = block;
    o->s = &k->ctx->dq;
    PyObject *wait_val = NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (kw && PyDict_Next(kw, &pos, &key, &val)) {
        if (key == s_range || PyUnicode_Compare(key, s_range) == 0) {
            uint64_t sz[3];
            uint32_t dims;
            if (parse_dims(val, "range", KRT_ERROR_INVALID_NDRANGE, UINT64_MAX, "2**64-1", sz, &dims) < 0)
                return -1;
            o->d.range.dims = dims;
            memcpy(o->d.range.size, sz, sizeof sz);
            o->range_val = val;
        } else if (key == s_group || PyUnicode_Compare(key, s_group) == 0) {
            if (val == Py_None) continue;
            uint64_t g[3];
            if (parse_dims(val, "group", KRT_ERROR_INVALID_GROUP_SIZE, UINT32_MAX, "2**32-1", g, &o->group_dims) <
                0)
                return -1;
            for (int d = 0; d < 3; d++) o->d.group[d] = (uint32_t)g[d];
            o->group_val = val;
        } else if (allow_queue && (key == s_queue || PyUnicode_Compare(key, s_queue) == 0)) {
            if (val == Py_None) continue;
            if (!KPy_IS_TYPE(val, QueueType)) {
                PyObject *tn = type_name(val);
                raise_type("queue=%R: queue= takes a krt.Queue (ctx.queue(), ctx.default_queue), not %U", val, tn);
                KPy_XDECREF(tn);
                return -1;
            }
            if (((QueueObject *)val)->ctx != k->ctx) {
                raise_code(KRT_ERROR_INVALID_ARGUMENT, "queue=%R: a queue of another context than the kernel's", val);
                return -1;
            }
            o->s = ((QueueObject *)val)->s;
            o->queue_obj = ((QueueObject *)val)->owned ? val : NULL;
        } else if (allow_queue && (key == s_wait || PyUnicode_Compare(key, s_wait) == 0)) {
            if (val != Py_None) wait_val = val; /* read once the queue is known */
        } else if (allow_queue && (key == s_block || PyUnicode_Compare(key, s_block) == 0)) {
            if (parse_block(val, &o->block) < 0) return -1;
        } else {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", k->cname, key);
            return -1;
        }
    }
    if (wait_val && parse_wait(k, wait_val, o) < 0) return -1;
    if (!o->range_val) {
        raise_code(KRT_ERROR_INVALID_NDRANGE, "%s(...) needs range=: the number of work-items, an int or a tuple of "
                                              "1 to 3 ints", k->cname);
        return -1;
    }
    /* krt_launch_desc reads unused dimensions of a group as 0 or 1; from Python a group of another number of
     * dimensions than the range's is a mistake to say, not one to guess the meaning of. */
    if (o->group_val && o->group_dims != o->d.range.dims) {
        raise_code(KRT_ERROR_INVALID_GROUP_SIZE,
                   "group=%R: range=%R has %u dimension%s, so the group needs %u size%s, not %u", o->group_val,
                   o->range_val, o->d.range.dims, o->d.range.dims == 1 ? "" : "s", o->d.range.dims,
                   o->d.range.dims == 1 ? "" : "s", o->group_dims);
        return -1;
    }
    o->d.queue = o->s->q;
    return 0;
}

/* A launch's (or config's, tune's) failed result, raised with the keyword it is about first: krt's
 * INVALID_NDRANGE is about range= (more groups than the device allows), INVALID_GROUP_SIZE about group= where the
 * call gave one (larger than the range, over the device's or the kernel's limits); krt's message follows. */
static PyObject *raise_launch(krt_result r, PyObject *range_val, PyObject *group_val)
{
    PyObject *val = r == KRT_ERROR_INVALID_NDRANGE ? range_val : r == KRT_ERROR_INVALID_GROUP_SIZE ? group_val : NULL;
    if (!val) return raise_krt(r);
    const char *detail = krt_last_error_message();
    return raise_code(r, "%s=%R: %s", r == KRT_ERROR_INVALID_NDRANGE ? "range" : "group", val,
                      detail && detail[0] ? detail : krt_result_string(r));
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
        raise_launch(r, o.range_val, o.group_val);
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
    if (parse_dims(range, "range", KRT_ERROR_INVALID_NDRANGE, UINT64_MAX, "2**64-1", sz, &nd.dims) < 0) return NULL;
    memcpy(nd.size, sz, sizeof sz);
    krt_launch_config cfg;
    krt_result r = krt_launch_config_get(k->k, &nd, &cfg);
    if (r != KRT_SUCCESS) return raise_launch(r, range, NULL);
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

/* A count keyword of tune() or bench_c() (name=val): an int from 0 to max, which max_text spells. */
static int parse_count(const char *name, PyObject *val, unsigned long long max, const char *max_text,
                       unsigned long long *out)
{
    if (PyBool_Check(val) || PyFloat_Check(val) || !PyIndex_Check(val)) {
        PyObject *tn = type_name(val);
        raise_type("%s=%R: %s= takes an int, not %U", name, val, name, tn);
        KPy_XDECREF(tn);
        return -1;
    }
    PyObject *v = PyNumber_Index(val);
    if (!v) return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    unsigned long long u = (unsigned long long)x;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(v);
        if (u == ULLONG_MAX && PyErr_Occurred()) PyErr_Clear(); /* over 64 bits: over max too */
    }
    KPy_DECREF(v);
    if (x == -1 && !overflow && PyErr_Occurred()) return -1;
    if (overflow < 0 || (!overflow && x < 0) || u > max) {
        raise_code(KRT_ERROR_INVALID_ARGUMENT, "%s=%R: %s= takes an int from 0 to %s", name, val, name, max_text);
        return -1;
    }
    *out = u;
    return 0;
}

/* Prepares p from a call of a method of two count keywords of its own (names, read by parse_count up to max): each
 * given one is taken out of a copy of kw into values, the rest are the launch's range= and group=; the arguments
 * (at most 32, else too_many is raised) are converted. Returns 0, the arguments then to release with
 * call_state_release, or -1 with an exception and nothing held. */
static int c_call_prepare(KernelObject *k, PyObject *args, PyObject *kw, const char *const names[2],
                          unsigned long long values[2], unsigned long long max, const char *max_text,
                          const char *too_many, c_call *p)
{
    if (!ctx_usable(k->ctx)) return -1;
    PyObject *lkw = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!lkw) return -1;
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        PyObject *v = PyDict_GetItemString(lkw, names[i]);
        if (v) rc = parse_count(names[i], v, max, max_text, &values[i]) < 0 ? -1 : PyDict_DelItemString(lkw, names[i]);
    }
    /* The values stay alive in kw, the caller's, after the copy goes: parse_opts keeps borrowed range_val and
     * group_val for messages. */
    if (rc == 0) rc = parse_opts(k, lkw, &p->o, 0, 0);
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

static PyObject *kernel_tune(KernelObject *k, PyObject *args, PyObject *kw)
{
    static const char *const names[2] = {"samples", "local_bytes_per_item"};
    unsigned long long v[2] = {0, 0};
    c_call p;
    /* krt_tune_desc's counts are 32-bit: a larger one would wrap (2**32 samples would be 0, the default). */
    if (c_call_prepare(k, args, kw, names, v, UINT32_MAX, "2**32-1", "tune() takes kernels of up to 32 arguments",
                       &p) < 0)
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
    if (r != KRT_SUCCESS) return raise_launch(r, p.o.range_val, p.o.group_val);
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
    if (c_call_prepare(k, args, kw, names, v, ULLONG_MAX, "2**64-1", "up to 32 arguments", &p) < 0) return NULL;
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
    if (r != KRT_SUCCESS) return raise_launch(r, p.o.range_val, p.o.group_val);
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
    return new_namespace(Py_BuildValue("{s:s,s:I,s:N,s:N,s:O,s:O,s:I,s:s,s:O,s:O}", "name", ki.name, "num_args",
                                       ki.num_args, "required_group", triple(ki.required_group), "group_hint",
                                       triple(ki.group_hint), "uses_barrier", ki.uses_barrier ? Py_True : Py_False,
                                       "uses_static_local", ki.uses_static_local ? Py_True : Py_False, "local_args",
                                       ki.local_args, "local_vars", ki.local_vars, "any_group",
                                       ki.any_group ? Py_True : Py_False, "group_dependent",
                                       ki.group_dependent ? Py_True : Py_False));
}

static PyObject *kernel_get_any_group(KernelObject *k, void *closure)
{
    (void)closure;
    krt_kernel_info ki;
    krt_result r = krt_kernel_info_get(k->k, &ki);
    if (r != KRT_SUCCESS) return raise_krt(r);
    return PyBool_FromLong(ki.any_group);
}

static int kernel_set_any_group(KernelObject *k, PyObject *v, void *closure)
{
    (void)closure;
    if (!v || !PyBool_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "kernel.any_group takes True or False");
        return -1;
    }
    krt_result r = krt_kernel_set_any_group(k->k, v == Py_True);
    if (r != KRT_SUCCESS) {
        raise_krt(r);
        return -1;
    }
    return 0;
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
     "max_group_size, preferred_multiple, spill_mem_size. range is checked as a call's range= is."},
    {"tune", (PyCFunction)(void (*)(void))kernel_tune, METH_VARARGS | METH_KEYWORDS,
     "tune(*args, range, samples=0, local_bytes_per_item=0) -> namespace\n\nTimes candidate group sizes with these "
     "arguments (krt_kernel_tune, which launches the kernel repeatedly) and keeps the fastest as wisdom for later "
     "dynamic launches: group, rule_group, best_ns, rule_ns, candidates. The arguments and range= are checked as a "
     "call's are; samples and local_bytes_per_item are ints from 0 to 2**32-1 (krt.InvalidArgumentError beyond)."},
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
     "Reflection of the kernel (krt_kernel_info): required_group, group_hint, uses_barrier, uses_static_local, "
     "local_args, local_vars, any_group, group_dependent.", NULL},
    {"any_group", (getter)kernel_get_any_group, (setter)kernel_set_any_group,
     "True when krt may choose the group of a kernel whose result could depend on it: its source marks it "
     "KRT_ANY_GROUP, or this was set True (krt_kernel_set_any_group: the caller's word that any group is right). "
     "Setting False takes the caller's word back (a source mark stays).", NULL},
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
     "Keywords: range= (required) and group= are a positive int or a tuple of 1 to 3 of them, group= with as many "
     "as range= (None: krt chooses); queue= a krt.Queue of the kernel's context; wait= a list of its events; "
     "block= True or False. A value of the wrong type raises krt.ArgumentTypeError, a bad size krt.NDRangeError or "
     "krt.GroupSizeError, a queue or event of another context krt.InvalidArgumentError; each message starts with "
     "the keyword and its value (range=-1: ...).\n\n"
     "The caller owns the arrays' extent: each must cover every element the kernel touches for the range. krt does "
     "not know how a kernel indexes its arrays, so an array too short for the range is not caught before the "
     "launch; on the CPU devices the kernel then reads and writes past its end (undefined behaviour, which may "
     "corrupt the process), unless the context was made with checks=True: then the access is not made and the "
     "wait raises krt.OutOfBoundsError naming the kernel, the work-item and the array. "
     "Every array a queued launch uses stays alive until it has run."},
    {0, NULL},
};


