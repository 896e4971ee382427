/*
 * convert.c: a kernel call's arguments, converted by the kernel's reflected signature. kernel_build_spec makes a
 * converter per argument once, when the kernel is looked up (argspec: what the kernel takes and how a Python value
 * becomes it); convert_args runs them per call, filling krt_arg's from values on the caller's stack: ints that fit
 * the width, floats, halves, vectors, structs as bytes, krt.Array pointers (or foreign arrays imported in place,
 * import.c) whose element type is the declared pointee's where the module declares one, and krt.Local, the value of
 * a __local argument. A value of the wrong type (an array of the wrong dtype among them) raises
 * krt.ArgumentTypeError, one that does not fit krt.KernelArgumentError, each naming the argument.
 */
#include "kpy.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Reflection-driven argument conversion
 * ------------------------------------------------------------------------------------------------------- */

enum conv { CV_PTR, CV_LOCAL, CV_INT, CV_BOOL, CV_F16, CV_F32, CV_F64, CV_VEC, CV_STRUCT, CV_OTHER };

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

/* An integer type's sign from its OpenCL C name as the kernel declares it: -1 unsigned, 1 signed, 0 not known (a
 * typedef of the kernel's own, or no declared types in the module). */
static int8_t declared_sign(const char *t)
{
    static const char *const uns[] = {"uchar", "ushort", "uint", "ulong", "size_t", "uintptr_t", "uint8_t",
                                      "uint16_t", "uint32_t", "uint64_t", "unsigned char", "unsigned short",
                                      "unsigned int", "unsigned long", "unsigned"};
    static const char *const sig[] = {"char", "short", "int", "long", "ptrdiff_t", "intptr_t", "int8_t", "int16_t",
                                      "int32_t", "int64_t", "signed char", "signed short", "signed int",
                                      "signed long", "signed"};
    for (size_t i = 0; i < sizeof uns / sizeof *uns; i++)
        if (strcmp(t, uns[i]) == 0)
            return -1;
    for (size_t i = 0; i < sizeof sig / sizeof *sig; i++)
        if (strcmp(t, sig[i]) == 0)
            return 1;
    return 0;
}

/* The element type an array passed for a pointer must have, from the pointer's declared type as the module keeps
 * it: "float*", "uint4*", "half*". (krt-cc's modules carry llvm-spirv's kernel_arg_type strings, which spell the
 * pointee alone, without const, volatile or an address space; such words are skipped all the same, should another
 * producer write them.) *kind is NumPy's kind of that type ('f', 'i', 'u') and *bytes its size; *kind stays 0 where
 * any array is taken:
 *   - char and uchar (and their vectors): byte pointers, through which a kernel reads or writes the bytes of any
 *     data, as C's char* may alias every object;
 *   - void*, a struct, a typedef krt does not know, a pointer to a pointer, and no declared type at all ("": a
 *     module built other than by krt-cc), where krt would only guess.
 * A vector pointee (float4*) takes an array of its element type (float32): its lanes are consecutive elements, so
 * that an (n, 4) float32 array is n float4's. size_t and its kin take the pointer's width (ptr_bytes). */
static void pointee_dtype(const char *declared, uint32_t ptr_bytes, char *kind, uint8_t *bytes)
{
    static const struct {
        const char *name;
        char kind;
        uint8_t bytes; /* 0: the pointer's width */
        uint8_t vectors; /* OpenCL C has vectors of it: "float4" */
    } types[] = {
        {"float", 'f', 4, 1}, {"double", 'f', 8, 1}, {"half", 'f', 2, 1}, {"short", 'i', 2, 1},
        {"ushort", 'u', 2, 1}, {"int", 'i', 4, 1}, {"uint", 'u', 4, 1}, {"long", 'i', 8, 1}, {"ulong", 'u', 8, 1},
        {"signed short", 'i', 2, 0}, {"unsigned short", 'u', 2, 0}, {"signed int", 'i', 4, 0},
        {"signed", 'i', 4, 0}, {"unsigned int", 'u', 4, 0}, {"unsigned", 'u', 4, 0}, {"signed long", 'i', 8, 0},
        {"unsigned long", 'u', 8, 0}, {"size_t", 'u', 0, 0}, {"uintptr_t", 'u', 0, 0}, {"ptrdiff_t", 'i', 0, 0},
        {"intptr_t", 'i', 0, 0},
    };
    static const char *const qualifiers[] = {"const", "volatile", "restrict", "global", "__global", "constant",
                                             "__constant", "local", "__local", "private", "__private", "generic",
                                             "__generic"};
    *kind = 0;
    *bytes = 0;
    char buf[64], base[64];
    size_t n = strlen(declared);
    if (n >= sizeof buf) return;
    memcpy(buf, declared, n + 1);
    while (n && buf[n - 1] == ' ') buf[--n] = 0;
    if (!n || buf[n - 1] != '*') return;
    buf[--n] = 0;
    while (n && buf[n - 1] == ' ') buf[--n] = 0;
    if (n && buf[n - 1] == '*') return; /* a pointer to a pointer */
    /* The words of the pointee, qualifiers left out, joined by single spaces (base is no longer than buf). */
    size_t len = 0;
    for (char *w = buf; *w;) {
        if (*w == ' ') {
            w++;
            continue;
        }
        size_t wl = strcspn(w, " ");
        int qualifier = 0;
        for (size_t q = 0; q < sizeof qualifiers / sizeof *qualifiers; q++)
            qualifier |= strlen(qualifiers[q]) == wl && memcmp(w, qualifiers[q], wl) == 0;
        if (!qualifier) {
            if (len) base[len++] = ' ';
            memcpy(base + len, w, wl);
            len += wl;
        }
        w += wl;
    }
    base[len] = 0;
    if (!len) return;
    /* A vector's width: the digits that end its name (2, 3, 4, 8, 16). */
    size_t stem = len;
    while (stem && base[stem - 1] >= '0' && base[stem - 1] <= '9') stem--;
    int width = stem == len ? 1 : len - stem <= 2 && base[stem] != '0' ? (int)strtol(base + stem, NULL, 10) : 0;
    if (width != 1 && width != 2 && width != 3 && width != 4 && width != 8 && width != 16) return;
    base[stem] = 0;
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        if (strcmp(base, types[t].name) != 0 || (width != 1 && !types[t].vectors) || (stem < len && width == 1))
            continue;
        *kind = types[t].kind;
        *bytes = types[t].bytes ? types[t].bytes : (uint8_t)ptr_bytes;
        return;
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

int kernel_build_spec(KernelObject *k)
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
        case KRT_ARG_CONSTANT_POINTER: {
            s->conv = CV_PTR;
            s->tag = KRT_ARG_TYPE_POINTER;
            /* The declared pointee where the module keeps it ("global uint*"), else the SPIR-V element type's C
             * name, which carries no sign ("global int*"). */
            const char *space = ai.kind == KRT_ARG_GLOBAL_POINTER ? "global" : "constant";
            const char *declared = ai.type_name ? ai.type_name : "";
            snprintf(s->declared, sizeof s->declared, "%s", declared);
            if (declared[0])
                snprintf(s->what, sizeof s->what, "%s %s", space, s->declared);
            else
                snprintf(s->what, sizeof s->what, "%s %s*", space,
                         ai.type == KRT_TYPE_NONE ? "void" : scalar_c_name(ai.type));
            pointee_dtype(declared, ai.size, &s->elem_kind, &s->elem_bytes);
            break;
        }
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
                /* The declared type where the module keeps it ("uint"), else the width's C name ("int"). */
                const char *declared = ai.type_name ? ai.type_name : "";
                snprintf(s->what, sizeof s->what, "%s", declared[0] ? declared : scalar_c_name(ai.type));
                s->sign = declared_sign(declared);
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

/* "argument 2 (a) of saxpy" */
#define ARG_FMT "argument %u%s%s%s of %s"
#define ARG_VALS(i, s, k) (i), (s)->name[0] ? " (" : "", (s)->name, (s)->name[0] ? ")" : "", (k)->cname

/* Raises krt.ArgumentTypeError "argument ... is WHAT but a TYPE was passed" with hint after it. Returns -1. */
static int wrong_type(KernelObject *k, uint32_t i, const argspec *s, const char *what, PyObject *o, const char *hint)
{
    PyObject *tn = type_name(o);
    raise_type(ARG_FMT " is %s but a %U was passed%s", ARG_VALS(i, s, k), what, tn, hint);
    KPy_XDECREF(tn);
    return -1;
}

static int conv_int(KernelObject *k, uint32_t i, const argspec *s, PyObject *o, unsigned size, void *out)
{
    if (!PyLong_Check(o)) {
        if (PyFloat_Check(o) || !PyIndex_Check(o))
            return wrong_type(k, i, s, s->what, o, " (an integer argument takes an int or a NumPy integer)");
        o = PyNumber_Index(o);
        if (!o) return -1;
    } else {
        KPy_INCREF(o);
    }
    /* The range the parameter takes: by its declared sign, else the values of its width of either sign. */
    unsigned bits = size * 8;
    long long lo = s->sign < 0 ? 0 : bits == 64 ? LLONG_MIN : -(1ll << (bits - 1));
    unsigned long long hi = s->sign > 0 ? (1ull << (bits - 1)) - 1 : bits == 64 ? ULLONG_MAX : (1ull << bits) - 1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    unsigned long long u = 0;
    int fits;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(o);
        fits = !(u == ULLONG_MAX && PyErr_Occurred()) && u <= hi;
        PyErr_Clear();
    } else if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        fits = 0;
    } else {
        u = (unsigned long long)v;
        fits = v < 0 ? v >= lo : u <= hi;
    }
    if (!fits) {
        if (s->sign < 0)
            raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT, ARG_FMT " is %s (%u bits): %R does not fit (0 .. 2**%u-1)",
                       ARG_VALS(i, s, k), s->what, bits, o, bits);
        else if (s->sign > 0)
            raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                       ARG_FMT " is %s (%u bits): %R does not fit (-2**%u .. 2**%u-1)", ARG_VALS(i, s, k), s->what,
                       bits, o, bits - 1, bits - 1);
        else
            raise_code(KRT_ERROR_INVALID_KERNEL_ARGUMENT,
                       ARG_FMT " is %s (%u bits): %R does not fit (SPIR-V integers carry no sign, so %u bits take "
                       "-2**%u .. 2**%u-1)",
                       ARG_VALS(i, s, k), s->what, bits, o, bits, bits - 1, bits);
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
        /* NumPy scalars and 0-d arrays convert; a sequence (an array of several values) never does. */
        int ok = !PyUnicode_Check(o) && !PyBytes_Check(o) && !PySequence_Check(o) &&
                 PyObject_HasAttrString(o, "__float__");
        if (!ok)
            return wrong_type(k, i, s, s->what, o, " (a float argument takes a float, an int or a NumPy scalar)");
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
        if (!PyBool_Check(o) && !PyLong_Check(o) && !PyIndex_Check(o)) return wrong_type(k, i, s, "bool", o, "");
        int t = PyObject_IsTrue(o);
        if (t < 0) return -1;
        *(uint8_t *)out = (uint8_t)t;
        return 0;
    }
    default: return conv_float(k, i, s, o, conv, out);
    }
}

/* "int32", "float64", "bool" (NumPy's dtype names) for an array-interface kind and size. */
static void dtype_name(char kind, int bytes, char *out, size_t cap)
{
    const char *stem = kind == 'i' ? "int" : kind == 'u' ? "uint" : kind == 'f' ? "float" : kind == 'c' ? "complex" : "";
    if (kind == 'b') snprintf(out, cap, "bool");
    else snprintf(out, cap, "%s%d", stem[0] ? stem : "?", bytes * 8);
}

/* Whether the array's element type is what the pointer's declared type asks (s->elem_kind, pointee_dtype; any
 * where that is 0). On the launch path: two compares. */
static int elements_fit(const argspec *s, const ArrayObject *a)
{
    return !s->elem_kind || (a->typestr[1] == s->elem_kind && a->itemsize == s->elem_bytes);
}

/* Refuses an array (a, passed as o) whose element type does not fit (elements_fit), naming both types and the fix:
 * a reinterpretation (.view) where one gives the right elements of the same memory, an integer of the same width
 * and the other sign (the values both types hold read the same) or a complex array of the float's pairs; else a
 * conversion (.astype, a copy). A krt.Array has both methods (as NumPy and CuPy arrays do); for another library's
 * array torch's spelling is given too. Returns -1. */
static int wrong_elements(KernelObject *k, uint32_t i, const argspec *s, PyObject *o, const ArrayObject *a)
{
    char kind = a->typestr[1];
    char have[16], want[16], torch[48] = "", fix[160];
    dtype_name(kind, a->itemsize, have, sizeof have);
    dtype_name(s->elem_kind, s->elem_bytes, want, sizeof want);
    int other_sign = (kind == 'i' || kind == 'u') && s->elem_kind != 'f' && a->itemsize == s->elem_bytes;
    int pairs = kind == 'c' && s->elem_kind == 'f' && a->itemsize == 2 * s->elem_bytes;
    int ours = KPy_IS_TYPE(o, ArrayType);
    if (other_sign || pairs) {
        if (!ours) snprintf(torch, sizeof torch, " (torch: .view(torch.%s))", want);
        snprintf(fix, sizeof fix, "reinterpret it with .view(np.%s)%s: the same memory, %s", want, torch,
                 pairs ? "as (real, imaginary) pairs" : "values that both types hold unchanged");
    } else {
        if (!ours) snprintf(torch, sizeof torch, " (torch: .to(torch.%s))", want);
        snprintf(fix, sizeof fix, "convert it with .astype(np.%s)%s, a %s copy", want, torch, want);
    }
    PyObject *tn = ours ? PyUnicode_FromString("krt.Array") : type_name(o);
    if (!tn) return -1;
    raise_type(ARG_FMT " is %s (%s elements) but a %U of %s was passed; %s", ARG_VALS(i, s, k), s->declared, want,
               tn, have, fix);
    KPy_DECREF(tn);
    return -1;
}

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
        if (!elements_fit(s, a)) return wrong_elements(k, i, s, o, a);
        *out = a->ptr;
        return 0;
    }
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    if (KPy_IS_TYPE(o, LocalType) || PyLong_Check(o) || PyFloat_Check(o) || PyUnicode_Check(o))
        return wrong_type(k, i, s, s->what, o,
                          " (pass a krt.Array, or an array of the context's device with __dlpack__)");
    int not_here = 1;
    PyObject *imported = import_any(k->ctx, o, &not_here);
    if (imported) {
        if (!elements_fit(s, (ArrayObject *)imported)) {
            wrong_elements(k, i, s, o, (ArrayObject *)imported);
            KPy_DECREF(imported);
            return -1;
        }
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
int convert_args(KernelObject *k, PyObject *args, krt_arg *argv, unsigned char (*scratch)[128], call_state *cs)
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
            if (!KPy_IS_TYPE(o, LocalType))
                return wrong_type(k, i, s, "a __local pointer", o,
                                  " (pass krt.Local(nbytes) per group, or krt.Local(per_item=nbytes))");
            argv[i].value = NULL;
            argv[i].size = (size_t)((LocalObject *)o)->nbytes;
            argv[i].type = ((LocalObject *)o)->per_item ? KRT_ARG_TYPE_LOCAL_PER_ITEM : KRT_ARG_TYPE_NONE;
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
                char hint[48];
                snprintf(hint, sizeof hint, " (pass a sequence of %u numbers)", s->width);
                return wrong_type(k, i, s, s->what, o, hint);
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
                return wrong_type(k, i, s, s->what, o,
                                  " (pass its bytes: bytes, a ctypes.Structure, a NumPy structured scalar)");
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

void call_state_release(call_state *cs, int keep_alive, CtxObject *c)
{
    for (int i = 0; i < cs->nviews; i++) PyBuffer_Release(&cs->views[i]);
    for (int i = 0; i < cs->nkeep; i++) {
        if (keep_alive) ctx_defer(c, DEFER_OBJECT, cs->keep[i]);
        else KPy_DECREF(cs->keep[i]);
    }
    cs->nviews = cs->nkeep = 0;
}


/* ---------------------------------------------------------------------------------------------------------
 * Local: a __local argument's size
 * ------------------------------------------------------------------------------------------------------- */

static PyObject *local_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"nbytes", "per_item", NULL};
    PyObject *group = Py_None, *item = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$O:Local", kwlist, &group, &item)) return NULL;
    if ((group == Py_None) == (item == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "krt.Local takes nbytes (bytes per work-group) or per_item= (bytes per "
                                         "work-item of the launch's group), one of the two");
        return NULL;
    }
    PyObject *v = group != Py_None ? group : item;
    Py_ssize_t n = PyLong_Check(v) ? PyLong_AsSsize_t(v) : -1;
    if (n == -1 && PyErr_Occurred()) PyErr_Clear();
    if (!PyLong_Check(v) || n <= 0) {
        PyErr_Format(PyExc_ValueError, "krt.Local(%s%R): the bytes must be an int > 0",
                     group != Py_None ? "" : "per_item=", v);
        return NULL;
    }
    LocalObject *l = (LocalObject *)PyType_GenericAlloc(type, 0);
    if (l) {
        l->nbytes = n;
        l->per_item = item != Py_None;
    }
    return (PyObject *)l;
}

static void local_dealloc(LocalObject *l)
{
    kpy_free(l);
}

static PyObject *local_get_nbytes(LocalObject *l, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(l->nbytes);
}

static PyObject *local_get_per_item(LocalObject *l, void *closure)
{
    (void)closure;
    return PyBool_FromLong(l->per_item);
}

static PyObject *local_repr(LocalObject *l)
{
    return l->per_item ? PyUnicode_FromFormat("krt.Local(per_item=%zd)", l->nbytes)
                       : PyUnicode_FromFormat("krt.Local(%zd)", l->nbytes);
}

static PyGetSetDef local_getset[] = {
    {"nbytes", (getter)local_get_nbytes, NULL, "Bytes per work-group, or per work-item when per_item.", NULL},
    {"per_item", (getter)local_get_per_item, NULL, "True: nbytes per work-item of the launch's group.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyType_Slot local_slots[] = {
    {Py_tp_new, local_new},
    {Py_tp_dealloc, local_dealloc},
    {Py_tp_getset, local_getset},
    {Py_tp_repr, local_repr},
    {Py_tp_doc, "Local(nbytes) or Local(per_item=nbytes)\n\nThe value of a __local pointer argument: nbytes of "
                "work-group local memory per group (KRT_ARG_LOCAL), or per work-item of whatever group the launch gets "
                "(KRT_ARG_LOCAL_PER_ITEM: a reduction's scratch of one float per item is Local(per_item=4)); krt "
                "then keeps the group within the device's local memory."},
    {0, NULL},
};

