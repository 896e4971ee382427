/*
 * registry.c: what krt/__init__.py hands over at import (the exception classes, krt.Device, SimpleNamespace;
 * mod_init in _krt.c stores them), the interned keyword strings and the type objects PyInit__krt makes, and the
 * error helpers every file raises krt's exceptions through: a krt result with krt's own message (raise_krt), a krt
 * code with the binding's message (raise_code), a wrong argument type (raise_type); and the small helpers the files
 * share: a namespace from a dict, a type's name, a path's bytes, the end of a dealloc. kpy.h says what each global
 * holds.
 *
 * Errors: krt's result codes map to the exception classes krt/__init__.py defines and registers through _init().
 * The message is krt_last_error_message(), the build log included.
 */
#include "kpy.h"

PyObject *error_by_code, *error_base, *argument_type_error, *module_warning, *device_class, *namespace_class;

PyObject *s_range, *s_group, *s_queue, *s_wait, *s_block, *s_dlpack, *s_dlpack_device, *s_cai, *s_stream,
    *s_max_version;

PyTypeObject *ContextType, *QueueType, *EventType, *ArrayType, *ModuleType, *KernelType, *LocalType;

static PyObject *error_class(int code)
{
    PyObject *key = PyLong_FromLong(code);
    PyObject *cls = key && error_by_code ? PyDict_GetItemWithError(error_by_code, key) : NULL;
    KPy_XDECREF(key);
    if (cls) return cls;
    if (PyErr_Occurred()) PyErr_Clear();
    return error_base ? error_base : PyExc_RuntimeError;
}

/* Raises cls(msg) with its code attribute set to code; msg is a new reference, consumed. Returns NULL. */
static PyObject *raise_as(PyObject *cls, PyObject *msg, krt_result code)
{
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    KPy_DECREF(msg);
    if (!exc) return NULL;
    PyObject *c = PyLong_FromLong(code);
    if (c) {
        PyObject_SetAttrString(exc, "code", c);
        KPy_DECREF(c);
    }
    PyErr_SetObject(cls, exc);
    KPy_DECREF(exc);
    return NULL;
}

/* Raises the exception of a krt result, with krt's own message for it. */
PyObject *raise_krt(krt_result r)
{
    const char *detail = krt_last_error_message();
    PyObject *cls = error_class(r);
    PyObject *msg = detail && detail[0] ? PyUnicode_FromString(detail)
                                        : PyUnicode_FromFormat("%s: %s", krt_result_name(r), krt_result_string(r));
    if (!msg) return NULL;
    return raise_as(cls, msg, r);
}

/* Raises the class of a krt code with a message of the binding's own. */
PyObject *raise_code(krt_result r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!msg) return NULL;
    PyObject *cls = error_class(r);
    return raise_as(cls, msg, r);
}

PyObject *raise_type(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!msg) return NULL;
    PyObject *cls = argument_type_error ? argument_type_error : PyExc_TypeError;
    return raise_as(cls, msg, KRT_ERROR_INVALID_KERNEL_ARGUMENT);
}

PyObject *new_namespace(PyObject *dict)
{
    if (!dict) return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *ns = empty ? PyObject_Call(namespace_class, empty, dict) : NULL;
    KPy_XDECREF(empty);
    KPy_DECREF(dict);
    return ns;
}

/* The type name of o, for messages: a new reference to a str. */
PyObject *type_name(PyObject *o)
{
    return PyType_GetName(KPy_TYPE(o));
}


/* The bytes of a path-like object (str, bytes, os.PathLike), for krt's const char * paths: a new reference. */
PyObject *path_bytes(PyObject *path)
{
    PyObject *p = PyOS_FSPath(path);
    if (!p) return NULL;
    PyObject *b = PyUnicode_Check(p) ? PyUnicode_EncodeFSDefault(p) : (KPy_INCREF(p), p);
    KPy_DECREF(p);
    return b;
}

/* The end of every type's dealloc: frees o through its type's tp_free, then drops the reference an instance of a
 * heap type holds to its type. */
void kpy_free(void *o)
{
    PyTypeObject *tp = KPy_TYPE(o);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(o);
    KPy_DECREF(tp);
}
