/*
 * reflect.c: kernel signatures read from the SPIR-V itself with SPIRV-Tools' binary parser: kernel names in
 * module order, per argument its kind, type, size and name, and the reqd_work_group_size /
 * work_group_size_hint execution modes. Language runtimes marshal arguments from this, and krt_launch checks
 * arguments against it without asking the driver.
 */
#include "krt_internal.h"

/* libspirv.h defines (not declares) a const in C, which would collide between the two files including it;
 * the rename gives each file its own copy. */
#define kDefaultMaxIdBound krt__spv_id_bound_reflect
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SPIR-V numbers this file needs (SPIR-V 1.x specification, section 3). The unified headers are not
 * installed with Debian's SPIRV-Tools, and these values are frozen by the specification. */
enum {
    OP_NAME = 5,
    OP_MEMORY_MODEL = 14,
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    OP_CAPABILITY = 17,
    OP_TYPE_VOID = 19,
    OP_TYPE_BOOL = 20,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_FUNCTION = 54,
    OP_FUNCTION_PARAMETER = 55,
    OP_FUNCTION_END = 56,
    OP_DECORATE = 71,

    EXEC_MODEL_KERNEL = 6,
    EXEC_MODE_LOCAL_SIZE = 17,
    EXEC_MODE_LOCAL_SIZE_HINT = 18,
    ADDRESSING_PHYSICAL32 = 1,
    DECORATION_CPACKED = 10,
    DECORATION_FUNC_PARAM_ATTR = 38,
    FUNC_PARAM_ATTR_BYVAL = 2,
    CAP_FLOAT16 = 9,
    CAP_FLOAT64 = 10,
    CAP_INT64_ATOMICS = 12,

    SC_UNIFORM_CONSTANT = 0,
    SC_WORKGROUP = 4,
    SC_CROSS_WORKGROUP = 5,
    SC_FUNCTION = 7,
    SC_GENERIC = 8,
};

/* What the parser learned about one id. */
typedef struct id_info {
    uint16_t op;     /* the defining opcode, for types and constants */
    uint16_t flags;  /* ID_BYVAL, ID_PACKED */
    uint32_t a, b;   /* operands: int/float width, vector (component, count), pointer (storage, pointee), ... */
    uint32_t first_member, num_members; /* structs: a range in members[] */
    char *name;
} id_info;

enum { ID_BYVAL = 1, ID_PACKED = 2 };

typedef struct entry {
    uint32_t function;
    char *name;
    uint32_t local[3], hint[3];
    uint32_t first_param, num_params;
    int defined; /* its OpFunction was seen */
} entry;

typedef struct parse_state {
    uint32_t bound;
    id_info *ids;
    entry *entries;
    uint32_t num_entries, cap_entries;
    uint32_t *members, num_members, cap_members;
    uint32_t *params, num_params, cap_params; /* parameter result ids, grouped per entry */
    uint32_t current_entry;                   /* index + 1 of the entry whose OpFunction is open; 0 = none */
    uint32_t pointer_size;
    int fp16, fp64, int64_atomics;
    int oom;
} parse_state;

static int push_u32(uint32_t **arr, uint32_t *n, uint32_t *cap, uint32_t v)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        uint32_t *p = realloc(*arr, nc * sizeof *p);
        if (!p)
            return 0;
        *arr = p;
        *cap = nc;
    }
    (*arr)[(*n)++] = v;
    return 1;
}

/* The one table of argument-kind and scalar-type names, for krt_arg_kind_name / krt_scalar_type_name: launch
 * errors, krt-info and the Python binding print these. */
static const char *const arg_kind_names[] = { "global pointer", "constant pointer", "local pointer",
                                              "scalar",         "struct",           "other" };
_Static_assert(sizeof arg_kind_names / sizeof arg_kind_names[0] == KRT_ARG_OTHER + 1, "one name per krt_arg_kind");
static const char *const scalar_type_names[] = { "none",    "int8",    "int16",   "int32", "int64",
                                                 "float16", "float32", "float64", "bool" };
_Static_assert(sizeof scalar_type_names / sizeof scalar_type_names[0] == KRT_TYPE_BOOL + 1,
               "one name per krt_scalar_type");

const char *krt_arg_kind_name(krt_arg_kind kind)
{
    return (unsigned)kind < sizeof arg_kind_names / sizeof arg_kind_names[0] ? arg_kind_names[kind] : "unknown";
}

const char *krt_scalar_type_name(krt_scalar_type type)
{
    return (unsigned)type < sizeof scalar_type_names / sizeof scalar_type_names[0] ? scalar_type_names[type]
                                                                                   : "unknown";
}

static const char *literal_string(const spv_parsed_instruction_t *inst, uint16_t operand)
{
    return (const char *)(inst->words + inst->operands[operand].offset);
}

static uint32_t word(const spv_parsed_instruction_t *inst, uint16_t operand)
{
    return inst->words[inst->operands[operand].offset];
}

static spv_result_t on_header(void *user, spv_endianness_t endian, uint32_t magic, uint32_t version,
                              uint32_t generator, uint32_t id_bound, uint32_t reserved)
{
    KRT__UNUSED(endian), KRT__UNUSED(magic), KRT__UNUSED(version), KRT__UNUSED(generator), KRT__UNUSED(reserved);
    parse_state *s = user;
    s->bound = id_bound;
    s->ids = calloc(id_bound ? id_bound : 1, sizeof *s->ids);
    if (!s->ids) {
        s->oom = 1;
        return SPV_ERROR_OUT_OF_MEMORY;
    }
    return SPV_SUCCESS;
}

static entry *find_entry(parse_state *s, uint32_t function)
{
    for (uint32_t i = 0; i < s->num_entries; i++)
        if (s->entries[i].function == function)
            return &s->entries[i];
    return NULL;
}

static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *inst)
{
    parse_state *s = user;
    uint32_t rid = inst->result_id;
    if (rid >= s->bound)
        return SPV_ERROR_INVALID_ID;
    id_info *id = rid ? &s->ids[rid] : NULL;
    switch (inst->opcode) {
    case OP_NAME: {
        uint32_t target = word(inst, 0);
        if (target < s->bound && !s->ids[target].name) {
            s->ids[target].name = strdup(literal_string(inst, 1));
            if (!s->ids[target].name)
                goto oom;
        }
        break;
    }
    case OP_MEMORY_MODEL:
        s->pointer_size = word(inst, 0) == ADDRESSING_PHYSICAL32 ? 4 : 8;
        break;
    case OP_CAPABILITY:
        switch (word(inst, 0)) {
        case CAP_FLOAT16:
            s->fp16 = 1;
            break;
        case CAP_FLOAT64:
            s->fp64 = 1;
            break;
        case CAP_INT64_ATOMICS:
            s->int64_atomics = 1;
            break;
        }
        break;
    case OP_ENTRY_POINT:
        if (word(inst, 0) == EXEC_MODEL_KERNEL) {
            if (s->num_entries == s->cap_entries) {
                uint32_t nc = s->cap_entries ? s->cap_entries * 2 : 8;
                entry *p = realloc(s->entries, nc * sizeof *p);
                if (!p)
                    goto oom;
                s->entries = p;
                s->cap_entries = nc;
            }
            entry *e = &s->entries[s->num_entries];
            memset(e, 0, sizeof *e);
            e->function = word(inst, 1);
            e->name = strdup(literal_string(inst, 2));
            if (!e->name)
                goto oom;
            s->num_entries++;
        }
        break;
    case OP_EXECUTION_MODE: {
        entry *e = find_entry(s, word(inst, 0));
        uint32_t mode = word(inst, 1);
        if (e && inst->num_operands >= 5 && (mode == EXEC_MODE_LOCAL_SIZE || mode == EXEC_MODE_LOCAL_SIZE_HINT)) {
            uint32_t *dst = mode == EXEC_MODE_LOCAL_SIZE ? e->local : e->hint;
            for (int d = 0; d < 3; d++)
                dst[d] = word(inst, (uint16_t)(2 + d));
        }
        break;
    }
    case OP_DECORATE: {
        uint32_t target = word(inst, 0), deco = word(inst, 1);
        if (target < s->bound) {
            if (deco == DECORATION_FUNC_PARAM_ATTR && inst->num_operands >= 3 && word(inst, 2) == FUNC_PARAM_ATTR_BYVAL)
                s->ids[target].flags |= ID_BYVAL;
            else if (deco == DECORATION_CPACKED)
                s->ids[target].flags |= ID_PACKED;
        }
        break;
    }
    case OP_TYPE_VOID:
    case OP_TYPE_BOOL:
        id->op = inst->opcode;
        break;
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT:
    case OP_TYPE_VECTOR:
    case OP_TYPE_ARRAY:
    case OP_TYPE_POINTER:
        id->op = inst->opcode;
        id->a = word(inst, 1);
        id->b = inst->num_operands > 2 ? word(inst, 2) : 0;
        break;
    case OP_TYPE_STRUCT:
        id->op = inst->opcode;
        id->first_member = s->num_members;
        for (uint16_t i = 1; i < inst->num_operands; i++)
            if (!push_u32(&s->members, &s->num_members, &s->cap_members, word(inst, i)))
                goto oom;
        id->num_members = s->num_members - id->first_member;
        break;
    case OP_CONSTANT:
        /* The low word is enough for array lengths. */
        id->op = inst->opcode;
        id->a = inst->num_operands > 2 ? word(inst, 2) : 0;
        break;
    case OP_FUNCTION: {
        entry *e = find_entry(s, rid);
        s->current_entry = e ? (uint32_t)(e - s->entries) + 1 : 0;
        if (e) {
            e->first_param = s->num_params;
            e->defined = 1;
        }
        break;
    }
    case OP_FUNCTION_PARAMETER:
        if (s->current_entry) {
            if (!push_u32(&s->params, &s->num_params, &s->cap_params, rid))
                goto oom;
            s->entries[s->current_entry - 1].num_params++;
            /* The parameter's type, kept on the parameter's own id. */
            id->a = inst->type_id;
        }
        break;
    case OP_FUNCTION_END:
        s->current_entry = 0;
        break;
    default:
        /* Any other instruction defining a typed value. Types not listed above (images, samplers, events,
         * opaque) keep op at the generic marker so that arguments of those types are KRT_ARG_OTHER. */
        if (id && !inst->type_id && !id->op)
            id->op = 0xFFFF;
        break;
    }
    return SPV_SUCCESS;
oom:
    s->oom = 1;
    return SPV_ERROR_OUT_OF_MEMORY;
}

/* Size and alignment of a type under OpenCL C's layout rules (3-component vectors take 4). */
static int type_layout(const parse_state *s, uint32_t type, int depth, uint64_t *size, uint64_t *align)
{
    if (type >= s->bound || depth > 16)
        return 0;
    const id_info *t = &s->ids[type];
    switch (t->op) {
    case OP_TYPE_BOOL:
        *size = *align = 1;
        return 1;
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT:
        *size = *align = t->a / 8;
        return *size > 0;
    case OP_TYPE_VECTOR: {
        uint64_t cs, ca;
        if (!type_layout(s, t->a, depth + 1, &cs, &ca))
            return 0;
        uint32_t n = t->b == 3 ? 4 : t->b;
        *size = *align = cs * n;
        return 1;
    }
    case OP_TYPE_POINTER:
        *size = *align = s->pointer_size;
        return 1;
    case OP_TYPE_ARRAY: {
        uint64_t es, ea;
        if (!type_layout(s, t->a, depth + 1, &es, &ea) || t->b >= s->bound)
            return 0;
        *size = es * s->ids[t->b].a;
        *align = ea;
        return 1;
    }
    case OP_TYPE_STRUCT: {
        int packed = (t->flags & ID_PACKED) != 0;
        uint64_t off = 0, max_align = 1;
        for (uint32_t i = 0; i < t->num_members; i++) {
            uint64_t ms, ma;
            if (!type_layout(s, s->members[t->first_member + i], depth + 1, &ms, &ma))
                return 0;
            if (packed)
                ma = 1;
            off = (off + ma - 1) / ma * ma;
            off += ms;
            if (ma > max_align)
                max_align = ma;
        }
        *size = (off + max_align - 1) / max_align * max_align;
        *align = max_align;
        return 1;
    }
    default:
        return 0;
    }
}

static krt_scalar_type scalar_type(const parse_state *s, uint32_t type, uint32_t *width)
{
    *width = 1;
    if (type >= s->bound)
        return KRT_TYPE_NONE;
    const id_info *t = &s->ids[type];
    if (t->op == OP_TYPE_VECTOR) {
        *width = t->b;
        uint32_t ignored;
        return scalar_type(s, t->a, &ignored);
    }
    if (t->op == OP_TYPE_BOOL)
        return KRT_TYPE_BOOL;
    if (t->op == OP_TYPE_INT)
        return t->a == 8 ? KRT_TYPE_INT8 : t->a == 16 ? KRT_TYPE_INT16 : t->a == 32 ? KRT_TYPE_INT32 : KRT_TYPE_INT64;
    if (t->op == OP_TYPE_FLOAT)
        return t->a == 16 ? KRT_TYPE_FLOAT16 : t->a == 32 ? KRT_TYPE_FLOAT32 : KRT_TYPE_FLOAT64;
    return KRT_TYPE_NONE;
}

static void describe_arg(const parse_state *s, uint32_t param, krt_arg_info *out)
{
    const id_info *p = &s->ids[param];
    uint32_t type = p->a;
    const id_info *t = type < s->bound ? &s->ids[type] : NULL;
    uint32_t width = 1;
    out->kind = KRT_ARG_OTHER;
    out->type = KRT_TYPE_NONE;
    out->vector_width = 1;
    out->size = 0;
    if (!t)
        return;
    if (t->op == OP_TYPE_POINTER) {
        uint32_t storage = t->a;
        if ((p->flags & ID_BYVAL) && storage == SC_FUNCTION) {
            uint64_t size, align;
            out->kind = KRT_ARG_STRUCT;
            if (type_layout(s, t->b, 0, &size, &align))
                out->size = (uint32_t)size;
            return;
        }
        out->type = scalar_type(s, t->b, &width);
        out->vector_width = width;
        switch (storage) {
        case SC_CROSS_WORKGROUP:
        case SC_GENERIC:
            out->kind = KRT_ARG_GLOBAL_POINTER;
            out->size = s->pointer_size;
            break;
        case SC_UNIFORM_CONSTANT:
            out->kind = KRT_ARG_CONSTANT_POINTER;
            out->size = s->pointer_size;
            break;
        case SC_WORKGROUP:
            out->kind = KRT_ARG_LOCAL_POINTER;
            out->size = 0;
            break;
        default:
            out->type = KRT_TYPE_NONE;
            break;
        }
        return;
    }
    if (t->op == OP_TYPE_INT || t->op == OP_TYPE_FLOAT || t->op == OP_TYPE_BOOL || t->op == OP_TYPE_VECTOR) {
        uint64_t size, align;
        out->type = scalar_type(s, type, &width);
        out->vector_width = width;
        if (type_layout(s, type, 0, &size, &align)) {
            out->kind = KRT_ARG_SCALAR;
            out->size = (uint32_t)size;
        }
        return;
    }
    if (t->op == OP_TYPE_STRUCT) {
        uint64_t size, align;
        if (type_layout(s, type, 0, &size, &align)) {
            out->kind = KRT_ARG_STRUCT;
            out->size = (uint32_t)size;
        }
    }
}

static void state_free(parse_state *s)
{
    if (s->ids)
        for (uint32_t i = 0; i < s->bound; i++)
            free(s->ids[i].name);
    for (uint32_t i = 0; i < s->num_entries; i++)
        free(s->entries[i].name);
    free(s->ids);
    free(s->entries);
    free(s->members);
    free(s->params);
}

/* Everything the reflection keeps goes into one allocation of strings plus the arrays, so that the module
 * frees it in three calls and the names stay valid as long as the module. */
static krt_result build(parse_state *s, krt__reflection *out)
{
    for (uint32_t k = 0; k < s->num_entries; k++)
        if (!s->entries[k].defined)
            return krt__fail(KRT_ERROR_INVALID_MODULE,
                             "kernel %s has an entry point but no function body (truncated module?)",
                             s->entries[k].name);
    size_t strings = 0;
    uint32_t total_args = 0;
    for (uint32_t k = 0; k < s->num_entries; k++) {
        entry *e = &s->entries[k];
        strings += strlen(e->name) + 1;
        total_args += e->num_params;
        for (uint32_t i = 0; i < e->num_params; i++) {
            const char *n = s->ids[s->params[e->first_param + i]].name;
            strings += (n ? strlen(n) : 0) + 1;
        }
    }
    memset(out, 0, sizeof *out);
    out->kernels = calloc(s->num_entries ? s->num_entries : 1, sizeof *out->kernels);
    out->kernel_names = calloc(s->num_entries ? s->num_entries : 1, sizeof *out->kernel_names);
    krt_arg_info *args = calloc(total_args ? total_args : 1, sizeof *args);
    out->strings = malloc(strings ? strings : 1);
    if (!out->kernels || !out->kernel_names || !args || !out->strings) {
        free(args);
        krt__reflection_free(out);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the module's reflection");
    }
    out->all_args = args;
    char *str = out->strings;
    krt_arg_info *next_arg = args;
    for (uint32_t k = 0; k < s->num_entries; k++) {
        entry *e = &s->entries[k];
        krt__kernel_refl *kr = &out->kernels[k];
        size_t len = strlen(e->name) + 1;
        memcpy(str, e->name, len);
        kr->name = str;
        str += len;
        out->kernel_names[k] = kr->name;
        kr->num_args = e->num_params;
        kr->args = next_arg;
        memcpy(kr->required_group, e->local, sizeof e->local);
        memcpy(kr->group_hint, e->hint, sizeof e->hint);
        for (uint32_t i = 0; i < e->num_params; i++) {
            uint32_t pid = s->params[e->first_param + i];
            describe_arg(s, pid, &next_arg[i]);
            const char *n = s->ids[pid].name ? s->ids[pid].name : "";
            len = strlen(n) + 1;
            memcpy(str, n, len);
            next_arg[i].name = str;
            str += len;
        }
        next_arg += e->num_params;
    }
    out->num_kernels = s->num_entries;
    out->pointer_size = s->pointer_size;
    out->uses_fp16 = s->fp16;
    out->uses_fp64 = s->fp64;
    out->uses_int64_atomics = s->int64_atomics;
    return KRT_SUCCESS;
}

krt_result krt__reflect(const uint32_t *words, size_t num_words, krt__reflection *out)
{
    spv_context sctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    if (!sctx)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the SPIR-V parser");
    parse_state s;
    memset(&s, 0, sizeof s);
    s.pointer_size = 8;
    spv_diagnostic diag = NULL;
    spv_result_t sr = spvBinaryParse(sctx, &s, words, num_words, on_header, on_inst, &diag);
    krt_result r = KRT_SUCCESS;
    if (s.oom) {
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory while parsing the SPIR-V module");
    } else if (sr != SPV_SUCCESS) {
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "the SPIR-V module does not parse: %s (at word %zu)",
                      diag && diag->error ? diag->error : "malformed instruction stream",
                      diag ? diag->position.index : (size_t)0);
    } else {
        r = build(&s, out);
    }
    spvDiagnosticDestroy(diag);
    spvContextDestroy(sctx);
    state_free(&s);
    return r;
}

void krt__reflection_free(krt__reflection *refl)
{
    free(refl->all_args);
    free(refl->kernels);
    free(refl->kernel_names);
    free(refl->strings);
    memset(refl, 0, sizeof *refl);
}

const krt__kernel_refl *krt__reflection_find(const krt__reflection *refl, const char *name, uint32_t *index)
{
    for (uint32_t i = 0; i < refl->num_kernels; i++)
        if (strcmp(refl->kernels[i].name, name) == 0) {
            if (index)
                *index = i;
            return &refl->kernels[i];
        }
    return NULL;
}
