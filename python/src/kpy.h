/*
 * kpy.h: what the files of the extension krt._krt share: the stable-ABI helper macros, the limits, the registry
 * (what krt/__init__.py hands over at import, the interned strings, the type objects) and the error helpers, the
 * object types (context, queue, event, array, local, module, kernel), and each file's functions that another file
 * calls. Calls between the files go one way (docs/python.md):
 *
 *     _krt.c -> module.c -> kernel.c -> convert.c -> import.c -> array.c -> context.c -> registry.c
 *
 * Everything declared here is hidden: the extension's one exported symbol stays PyInit__krt.
 */
#ifndef KPY_H
#define KPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <krt.h>

#include <stdint.h>

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

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------------------------------------------------
 * Registry (registry.c): what krt/__init__.py hands over at import; the error helpers
 * ------------------------------------------------------------------------------------------------------- */

extern PyObject *error_by_code;       /* dict: int code -> exception class */
extern PyObject *error_base;          /* krt.Error */
extern PyObject *argument_type_error; /* krt.ArgumentTypeError */
extern PyObject *module_warning;      /* krt.ModuleWarning */
extern PyObject *device_class;        /* krt.Device, built from a dict */
extern PyObject *namespace_class;     /* types.SimpleNamespace */

extern PyObject *s_range, *s_group, *s_queue, *s_wait, *s_block, *s_dlpack, *s_dlpack_device, *s_cai, *s_stream,
    *s_max_version;

extern PyTypeObject *ContextType, *QueueType, *EventType, *ArrayType, *ModuleType, *KernelType, *LocalType;

PyObject *raise_krt(krt_result r);
PyObject *raise_code(krt_result r, const char *fmt, ...);
PyObject *raise_type(const char *fmt, ...);
PyObject *new_namespace(PyObject *dict);
PyObject *type_name(PyObject *o);
PyObject *path_bytes(PyObject *path);
void kpy_free(void *o);

/* ---------------------------------------------------------------------------------------------------------
 * Context, queues, events and the deferred-release list (context.c)
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
    int lost; /* a synchronize answered KRT_ERROR_DEVICE_LOST: the context can only be closed (docs/python.md) */
    int is_cuda;
    krt_device_info info;
    qstate dq;       /* the default queue; user queues follow on dq.next */
    deferred *defer; /* released when the context is next idle */
    size_t ndefer, capdefer;
    void *native_stream; /* krt_queue_native of the default queue, or NULL */
    int native_known;
} CtxObject;

typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    qstate *s;
    int owned; /* a queue of ctx.queue(), destroyed with the object; 0 for the default queue */
} QueueObject;

/* Event: a marker in a queue, (queue, ticket) */
typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    PyObject *owner; /* the QueueObject of a user queue (keeps its qstate), or NULL for the default queue */
    qstate *s;
    uint64_t ticket;
    krt_event *ev; /* a driver event, made when another queue first waits on this one */
} EventObject;

extern PyType_Slot ctx_slots[], queue_slots[], event_slots[];

int ctx_dirty(CtxObject *c);
void ctx_drain(CtxObject *c);
int ctx_sync(CtxObject *c);
void ctx_defer(CtxObject *c, int tag, void *p);
int ctx_usable(CtxObject *c);
PyObject *make_device(const krt_device_info *d, uint32_t index);
int qstate_wait(CtxObject *c, qstate *s, uint64_t timeout_ns);
PyObject *event_new_marker(CtxObject *c, PyObject *owner, qstate *s);
krt_event *event_driver(EventObject *e);

/* ---------------------------------------------------------------------------------------------------------
 * Arrays (array.c) and importing another library's memory (import.c)
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
    PyObject *base;   /* a view (Array.view): the array whose memory this is, held as one of its exports; else NULL */
} ArrayObject;

extern PyType_Slot array_slots[];

int parse_typestr(const char *ts, char *format, krt_dl_dtype *dt, int *itemsize);
int dtype_to_typestr(krt_dl_dtype dt, char *ts);
Py_ssize_t array_set_shape(ArrayObject *a, PyObject *shape);
PyObject *mod_alloc(PyObject *self, PyObject *args);
PyObject *mod_fill_zero(PyObject *self, PyObject *arg);
PyObject *mod_view(PyObject *self, PyObject *args);

PyObject *import_any(CtxObject *c, PyObject *obj, int *not_here);
PyObject *mod_import_array(PyObject *self, PyObject *args);

/* ---------------------------------------------------------------------------------------------------------
 * Modules (module.c), kernels (kernel.c) and their arguments (convert.c)
 * ------------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    CtxObject *ctx;
    krt_module *m;
    PyObject *names; /* tuple of str */
} ModuleObject;

/* One argument's converter, built from the kernel's reflection (convert.c). */
typedef struct {
    uint8_t conv;
    uint8_t elem;      /* CV_VEC: the element's converter */
    uint8_t elem_size; /* bytes per element */
    uint32_t width;
    uint32_t size;     /* bytes krt takes */
    krt_arg_type tag;
    int8_t sign;       /* integers: 1 signed, -1 unsigned by the declared type (krt_arg_info.type_name), 0 unknown */
    char elem_kind;    /* pointers: the element type an array must have, NumPy's kind ('f', 'i', 'u'), from the
                        * declared pointee; 0 where any array is taken (convert.c, pointee_dtype) */
    uint8_t elem_bytes; /* pointers: that element type's size */
    char name[48];     /* the argument's OpName, or "" */
    char declared[48]; /* the declared type (krt_arg_info.type_name), "uint*", or "" */
    char what[64];     /* what the kernel takes, for messages: "float", "uint", "float4", "global float*" */
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

/* Local: a __local argument's size, per work-group or per work-item */
typedef struct {
    PyObject_HEAD
    Py_ssize_t nbytes;
    int per_item; /* nbytes is per work-item of the launch's group (KRT_ARG_LOCAL_PER_ITEM) */
} LocalObject;

/* Per-call state of the arguments that need releasing. */
typedef struct {
    Py_buffer views[STACK_ARGS];
    int nviews;
    PyObject *keep[STACK_ARGS]; /* foreign arrays imported for this call */
    int nkeep;
} call_state;

extern PyType_Slot module_slots[], kernel_slots[], local_slots[];

PyObject *kernel_make(ModuleObject *m, PyObject *name, int attribute);

int kernel_build_spec(KernelObject *k);
int convert_args(KernelObject *k, PyObject *args, krt_arg *argv, unsigned char (*scratch)[128], call_state *cs);
void call_state_release(call_state *cs, int keep_alive, CtxObject *c);

#pragma GCC visibility pop

#endif
