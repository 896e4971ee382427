/*
 * reflect.c: kernel signatures read from the SPIR-V itself with SPIRV-Tools' binary parser: kernel names in
 * module order, per argument its kind, type, size and name, and the reqd_work_group_size /
 * work_group_size_hint execution modes. libkrt's runtime checks a launch's arguments against it without asking
 * the driver, language runtimes marshal arguments from it, and krt's host driver builds its call interfaces
 * from it (reflect.h). Plain C over SPIRV-Tools, in the front end's own types (reflect.h), which the runtime
 * translates into krt.h's.
 */
#include "reflect.h"

/* libspirv.h defines (not declares) a const in C, which would collide with the other C file of libkrt that
 * includes it (runtime/src/validate.c); the rename gives each file its own copy. */
#define kDefaultMaxIdBound krt__spv_id_bound_reflect
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SPIR-V numbers this file needs (SPIR-V 1.x specification, section 3). The unified headers are not
 * installed with Debian's SPIRV-Tools, and these values are frozen by the specification. */
enum {
    OP_NAME = 5,
    OP_STRING = 7,
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
    OP_TYPE_FORWARD_POINTER = 39,
    OP_CONSTANT = 43,
    OP_SPEC_CONSTANT_TRUE = 48,
    OP_SPEC_CONSTANT_FALSE = 49,
    OP_SPEC_CONSTANT = 50,
    OP_FUNCTION = 54,
    OP_FUNCTION_PARAMETER = 55,
    OP_FUNCTION_END = 56,
    OP_DECORATE = 71,
    OP_FUNCTION_CALL = 57,
    OP_VARIABLE = 59,
    OP_CONTROL_BARRIER = 224,
    OP_GROUP_ALL = 261, /* OpGroupAll .. OpGroupSMax: work-group collectives, a barrier each */
    OP_GROUP_SMAX = 271,
    SCOPE_WORKGROUP = 2,

    /* SPIR-V's universal limit on the id bound (specification section 2.17), which SPIRV-Tools' validator
     * also enforces. */
    MAX_ID_BOUND = 0x3FFFFF,

    EXEC_MODEL_KERNEL = 6,
    EXEC_MODE_LOCAL_SIZE = 17,
    EXEC_MODE_LOCAL_SIZE_HINT = 18,
    ADDRESSING_PHYSICAL32 = 1,
    DECORATION_SPEC_ID = 1,
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

/* What the parser learned about one id. Types get their layout when they are defined, from the layouts of
 * the types they are made of, which SPIR-V requires to be defined earlier: each layout is computed once, the
 * type graph cannot loop, and nothing recurses (a self-referencing vector or 16 levels of structs of 8
 * members cost what their instructions cost). */
typedef struct id_info {
    uint32_t id;     /* the key in the table; 0 = an empty slot */
    uint16_t op;     /* the defining opcode, for types and constants */
    uint16_t flags;  /* ID_BYVAL, ID_PACKED, ID_SPEC */
    uint32_t a, b;   /* operands: int/float width, vector (component, count), pointer (storage, pointee), ... */
    uint32_t first_member, num_members; /* structs: a range in members[] */
    uint32_t size, align; /* a type's layout under OpenCL C's rules; align 0 = none (unknown or unsized) */
    uint32_t entry;  /* functions: index + 1 of the first kernel entry point naming it */
    uint32_t spec_id; /* ID_SPEC: the SpecId decoration */
    uint32_t stamp;   /* build(): index + 1 of the last kernel whose call tree visited this function or variable */
    char *name;
    /* Types: the size in 64 bits, saturating at UINT64_MAX, also past the 4 GiB a layout has (0: unknown), what a
     * private variable of the type takes. Functions: the bytes of their own Function-storage variables, saturating.
     * Private memory is counted so (krt_spv_kernel.private_bytes) because a module may ask for more than any stack
     * holds: 0xFFFFFFFF00000010 ulongs of private array per work-item in the fuzzed module of issue 39. */
    uint64_t big;
} id_info;

enum { ID_BYVAL = 1, ID_PACKED = 2, ID_SPEC = 4 };
/* What the launch configuration wants to know of a function (flags on the function's id) and of a module-scope
 * variable: a work-group barrier or collective, a use of Workgroup (static __local) storage. */
enum { ID_FN_BARRIER = 8, ID_FN_LOCAL = 16, ID_WORKGROUP_VAR = 32, ID_MODULE_VAR = 64 };

/* The marker KRT_ANY_GROUP(kernel) of krt_kernel.h declares: a module-scope variable of this name prefix followed by
 * the kernel's name says that the kernel computes the same result whatever its group size. */
#define ANY_GROUP_PREFIX "krt_any_group__"

typedef struct entry {
    uint32_t function;
    char *name;
    uint32_t local[3], hint[3];
    uint32_t first_param, num_params;
    int defined; /* its OpFunction was seen */
    const char *types; /* its declared parameter types (declared_types), found once by build() */
    char *local_vars;  /* its call tree's Workgroup variables for messages (local_vars), or NULL */
    int any_group;     /* the module declares KRT_ANY_GROUP(name) */
} entry;

typedef struct parse_state {
    size_t num_words;
    uint32_t bound;
    /* The ids, in an open-addressing table sized by the module rather than by its header's id bound: every
     * id the parser records comes from an instruction of at least two words, so a module of n words needs
     * at most n / 2 entries whatever bound it declares. */
    id_info *ids;
    uint32_t id_cap, id_count;
    entry *entries;
    uint32_t num_entries, cap_entries;
    uint32_t *members, num_members, cap_members;
    uint32_t *params, num_params, cap_params; /* parameter result ids, grouped per entry */
    uint32_t *spec_ids, num_spec_ids, cap_spec_ids; /* result ids of specialization constants */
    uint32_t current_entry;                   /* index + 1 of the entry whose OpFunction is open; 0 = none */
    uint32_t current_function;                /* id of the open OpFunction (any function); 0 = none */
    uint32_t *calls, num_calls, cap_calls;    /* (callee, caller) pairs of OpFunctionCall */
    uint32_t *uses, num_uses, cap_uses;       /* (function, Workgroup variable) pairs: which uses which */
    /* OpStrings "kernel_arg_type.KERNEL.T0,T1,...,": the OpenCL C types as declared, which llvm-spirv keeps when
     * asked (krt-cc does); the integers' sign lives only there. */
    char **arg_types;
    uint32_t num_arg_types, cap_arg_types;
    uint32_t pointer_size;
    int fp16, fp64, int64_atomics;
    int oom;
    size_t word_at;    /* word offset of the instruction being parsed (the parser gives a copy's pointer) */
    size_t error_word;
    char error[256]; /* why reflection refused the module, when it did, and at which word */
} parse_state;

/* The entry every lookup of an id the module never defined sees: op 0, no layout, no name. */
static const id_info no_id;

static uint32_t id_slot(const parse_state *s, uint32_t id)
{
    uint32_t h = id * 0x9E3779B1u;
    return (h ^ (h >> 15)) & (s->id_cap - 1);
}

static const id_info *id_find(const parse_state *s, uint32_t id)
{
    if (id == 0 || !s->ids)
        return &no_id;
    for (uint32_t i = id_slot(s, id);; i = (i + 1) & (s->id_cap - 1)) {
        if (s->ids[i].id == id)
            return &s->ids[i];
        if (s->ids[i].id == 0)
            return &no_id;
    }
}

/* The entry of an id the table holds, writable; NULL for one it does not. */
static id_info *id_known(parse_state *s, uint32_t id)
{
    const id_info *i = id_find(s, id);
    return i == &no_id ? NULL : (id_info *)i;
}

/* The entry of id, created zeroed on first use; NULL when the table is full, which the sizing rules out for
 * a module that parses (the caller treats it as a malformed module). */
static id_info *id_get(parse_state *s, uint32_t id)
{
    for (uint32_t i = id_slot(s, id);; i = (i + 1) & (s->id_cap - 1)) {
        if (s->ids[i].id == id)
            return &s->ids[i];
        if (s->ids[i].id == 0) {
            if ((s->id_count + 1) * 4 > s->id_cap * 3)
                return NULL;
            s->id_count++;
            s->ids[i].id = id;
            return &s->ids[i];
        }
    }
}

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
    (void)endian, (void)magic, (void)version, (void)generator, (void)reserved;
    parse_state *s = user;
    s->bound = id_bound;
    /* At most one entry per two words, and never more than the bound; at most 3/4 full. */
    uint64_t need = s->num_words / 2 + 1;
    if (need > id_bound)
        need = id_bound;
    uint64_t cap = 16;
    while (cap * 3 < need * 4 + 4)
        cap *= 2;
    s->id_cap = (uint32_t)cap;
    s->ids = calloc(cap, sizeof *s->ids);
    if (!s->ids) {
        s->oom = 1;
        return SPV_ERROR_OUT_OF_MEMORY;
    }
    return SPV_SUCCESS;
}

static spv_result_t refuse(parse_state *s, const char *fmt, uint32_t a, uint32_t b)
{
    snprintf(s->error, sizeof s->error, fmt, a, b);
    return SPV_ERROR_INVALID_BINARY;
}

static spv_result_t too_many_ids(parse_state *s, uint32_t id)
{
    snprintf(s->error, sizeof s->error, "id %%%u: more distinct ids than a module of %zu words can define", id,
             s->num_words);
    return SPV_ERROR_INVALID_BINARY;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static int is_scalar(const id_info *t)
{
    return t->op == OP_TYPE_BOOL || t->op == OP_TYPE_INT || t->op == OP_TYPE_FLOAT;
}

/* The layout of a type being defined, from the layouts of its parts (OpenCL C's rules: 3-component vectors
 * take 4). A part without a layout leaves the type without one; sizes past 4 GiB too, as krt_spv_arg's size
 * has 32 bits. Returns an error for the malformed vectors that would otherwise divide by zero or loop. */
static spv_result_t set_layout(parse_state *s, id_info *t)
{
    uint64_t size = 0, align = 0;
    switch (t->op) {
    case OP_TYPE_BOOL:
        size = align = 1;
        break;
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT:
        if (t->a == 8 || t->a == 16 || t->a == 32 || t->a == 64)
            size = align = t->a / 8;
        break;
    case OP_TYPE_VECTOR: {
        const id_info *c = id_find(s, t->a);
        if (c == t || !is_scalar(c))
            return refuse(s, "OpTypeVector %%%u: the component type %%%u is not a scalar type defined before it",
                          t->id, t->a);
        if (t->b != 2 && t->b != 3 && t->b != 4 && t->b != 8 && t->b != 16)
            return refuse(s, "OpTypeVector %%%u: %u components (SPIR-V allows 2, 3, 4, 8 and 16)", t->id, t->b);
        if (c->align)
            size = align = (uint64_t)c->size * (t->b == 3 ? 4 : t->b);
        break;
    }
    case OP_TYPE_POINTER:
    case OP_TYPE_FORWARD_POINTER:
        size = align = s->pointer_size;
        break;
    case OP_TYPE_ARRAY: {
        const id_info *e = id_find(s, t->a), *len = id_find(s, t->b);
        /* The length in 64 bits: a constant of a 64-bit type keeps its high word in b. */
        uint64_t n = len->op == OP_CONSTANT ? (uint64_t)len->b << 32 | len->a : 0;
        if (e != t && e->big && n > 0)
            t->big = sat_mul(e->big, n);
        if (e != t && e->align && len->op == OP_CONSTANT && len->b == 0 && len->a > 0) {
            size = (uint64_t)e->size * len->a;
            align = e->align;
        }
        break;
    }
    case OP_TYPE_STRUCT: {
        int packed = (t->flags & ID_PACKED) != 0;
        /* The 64-bit size first (members past 4 GiB have no alignment here: taken as 1, which only matters below
         * that size). */
        uint64_t big = 0;
        for (uint32_t i = 0; i < t->num_members; i++) {
            const id_info *m = id_find(s, s->members[t->first_member + i]);
            if (m == t || !m->big) {
                big = 0;
                break;
            }
            uint64_t ma = packed || !m->align ? 1 : m->align;
            big = sat_add(sat_add(big, ma - 1) / ma * ma, m->big);
        }
        t->big = big; /* tail padding left out: a struct with a layout gets its exact size below */
        uint64_t off = 0, max_align = 1;
        for (uint32_t i = 0; i < t->num_members; i++) {
            const id_info *m = id_find(s, s->members[t->first_member + i]);
            if (m == t || !m->align || off > UINT32_MAX)
                return SPV_SUCCESS;
            uint64_t ma = packed ? 1 : m->align;
            off = (off + ma - 1) / ma * ma + m->size;
            if (ma > max_align)
                max_align = ma;
        }
        size = (off + max_align - 1) / max_align * max_align;
        align = max_align;
        break;
    }
    default:
        break;
    }
    if (align && size <= UINT32_MAX) {
        t->size = (uint32_t)size;
        t->align = (uint32_t)align;
    }
    /* Every type with a layout has its size in 64 bits too, that size; arrays and structs past 4 GiB keep theirs from
     * above. */
    if (align && size <= UINT32_MAX)
        t->big = size;
    return SPV_SUCCESS;
}

/* A scope operand that is a known constant other than Workgroup (a subgroup barrier) does not count; an
 * unknown one does, since a barrier missed would give a barrier kernel large groups. */
static int workgroup_scope(const parse_state *s, uint32_t scope_id)
{
    const id_info *c = id_find(s, scope_id);
    if (c->op != OP_CONSTANT)
        return 1;
    return c->a == SCOPE_WORKGROUP;
}

/* Inside a function body: marks the function for a work-group barrier or collective and for a use of a
 * module-scope Workgroup variable, and records calls, so that build() can give each kernel the union over
 * its call tree. Returns -1 when out of memory. */
static int note_function_use(parse_state *s, const spv_parsed_instruction_t *inst)
{
    id_info *fn = id_get(s, s->current_function); /* entered by its OpFunction */
    if (!fn)
        return 0;
    uint16_t op = inst->opcode;
    if (op == OP_CONTROL_BARRIER && inst->num_operands >= 1 && workgroup_scope(s, word(inst, 0)))
        fn->flags |= ID_FN_BARRIER;
    else if (op >= OP_GROUP_ALL && op <= OP_GROUP_SMAX && inst->num_operands >= 3 &&
             workgroup_scope(s, word(inst, 2)))
        fn->flags |= ID_FN_BARRIER;
    else if (op == OP_FUNCTION_CALL && inst->num_operands >= 3) {
        if (!push_u32(&s->calls, &s->num_calls, &s->cap_calls, word(inst, 2)) ||
            !push_u32(&s->calls, &s->num_calls, &s->cap_calls, s->current_function))
            return -1;
    } else if (op == OP_VARIABLE && inst->num_operands >= 3 && word(inst, 2) == SC_FUNCTION) {
        /* A private variable: its pointee's bytes (0 when unknown, an event or an image). */
        fn->big = sat_add(fn->big, id_find(s, id_find(s, inst->type_id)->b)->big);
    }
    for (uint16_t i = 0; i < inst->num_operands; i++) {
        uint32_t v = inst->words[inst->operands[i].offset];
        if (inst->operands[i].type != SPV_OPERAND_TYPE_ID || !(id_find(s, v)->flags & ID_WORKGROUP_VAR))
            continue;
        fn->flags |= ID_FN_LOCAL;
        /* The pair, for the names in messages; a repeat of the last one (the same variable again) is left out. */
        if (s->num_uses >= 2 && s->uses[s->num_uses - 2] == s->current_function && s->uses[s->num_uses - 1] == v)
            continue;
        if (!push_u32(&s->uses, &s->num_uses, &s->cap_uses, s->current_function) ||
            !push_u32(&s->uses, &s->num_uses, &s->cap_uses, v))
            return -1;
    }
    return 0;
}

static int cmp_call(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The call tree's union: a caller gets its callees' flags. The (callee, caller) pairs are sorted by callee;
 * a worklist of functions whose flags grew visits each one's callers, so each function enters the list at
 * most once per flag: linear in the calls (after the sort) whatever the module, recursion included (which
 * only an unvalidated module can have). Returns 0 when out of memory. */
static int propagate_calls(parse_state *s)
{
    uint32_t n = s->num_calls / 2;
    if (n == 0)
        return 1;
    qsort(s->calls, n, 2 * sizeof *s->calls, cmp_call);
    uint32_t *work = malloc((size_t)s->num_calls * 2 * sizeof *work + sizeof *work);
    if (!work)
        return 0;
    uint32_t top = 0;
    for (uint32_t i = 0; i < n; i++) /* every callee with a flag starts the list (duplicates are harmless) */
        if (id_find(s, s->calls[2 * i])->flags & (ID_FN_BARRIER | ID_FN_LOCAL))
            work[top++] = s->calls[2 * i];
    while (top) {
        uint32_t callee = work[--top];
        uint16_t add = id_find(s, callee)->flags & (ID_FN_BARRIER | ID_FN_LOCAL);
        /* The first pair of this callee, by binary search. */
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (s->calls[2 * mid] < callee)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t i = lo; i < n && s->calls[2 * i] == callee; i++) {
            id_info *caller = id_get(s, s->calls[2 * i + 1]);
            if (caller && (caller->flags & add) != add) {
                caller->flags |= add;
                if (top < s->num_calls * 2)
                    work[top++] = s->calls[2 * i + 1];
            }
        }
    }
    free(work);
    return 1;
}

static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *inst)
{
    parse_state *s = user;
    uint32_t rid = inst->result_id;
    s->error_word = s->word_at;
    s->word_at += inst->num_words;
    if (rid >= s->bound)
        return refuse(s, "result id %%%u is not below the header's id bound %u", rid, s->bound);
    id_info *id = NULL;
    /* Only ids reflection keeps are entered in the table: typeless results (types, labels, imports), the
     * parameters and constants, functions, and module-scope variables (static __local memory is one). */
    if (rid && (!inst->type_id || inst->opcode == OP_FUNCTION_PARAMETER || inst->opcode == OP_CONSTANT ||
                inst->opcode == OP_SPEC_CONSTANT || inst->opcode == OP_SPEC_CONSTANT_TRUE ||
                inst->opcode == OP_SPEC_CONSTANT_FALSE || inst->opcode == OP_FUNCTION ||
                (inst->opcode == OP_VARIABLE && !s->current_function))) {
        if (!(id = id_get(s, rid)))
            return too_many_ids(s, rid);
    }
    if (s->current_function && note_function_use(s, inst) < 0)
        goto oom;
    switch (inst->opcode) {
    case OP_NAME: {
        id_info *t = id_get(s, word(inst, 0));
        if (!t)
            return too_many_ids(s, word(inst, 0));
        if (!t->name) {
            t->name = strdup(literal_string(inst, 1));
            if (!t->name)
                goto oom;
        }
        break;
    }
    case OP_STRING: {
        const char *str = literal_string(inst, 1);
        if (strncmp(str, "kernel_arg_type.", 16) != 0)
            break;
        if (s->num_arg_types == s->cap_arg_types) {
            uint32_t nc = s->cap_arg_types ? s->cap_arg_types * 2 : 8;
            char **p = realloc(s->arg_types, nc * sizeof *p);
            if (!p)
                goto oom;
            s->arg_types = p;
            s->cap_arg_types = nc;
        }
        if (!(s->arg_types[s->num_arg_types] = strdup(str + 16)))
            goto oom;
        s->num_arg_types++;
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
            id_info *f = id_get(s, e->function);
            if (!f)
                return too_many_ids(s, e->function);
            if (!f->entry)
                f->entry = s->num_entries;
        }
        break;
    case OP_EXECUTION_MODE: {
        uint32_t k = id_find(s, word(inst, 0))->entry;
        uint32_t mode = word(inst, 1);
        if (k && inst->num_operands >= 5 && (mode == EXEC_MODE_LOCAL_SIZE || mode == EXEC_MODE_LOCAL_SIZE_HINT)) {
            entry *e = &s->entries[k - 1];
            uint32_t *dst = mode == EXEC_MODE_LOCAL_SIZE ? e->local : e->hint;
            for (int d = 0; d < 3; d++)
                dst[d] = word(inst, (uint16_t)(2 + d));
        }
        break;
    }
    case OP_DECORATE: {
        uint32_t deco = word(inst, 1);
        int byval = deco == DECORATION_FUNC_PARAM_ATTR && inst->num_operands >= 3 &&
                    word(inst, 2) == FUNC_PARAM_ATTR_BYVAL;
        int spec = deco == DECORATION_SPEC_ID && inst->num_operands >= 3;
        if (byval || spec || deco == DECORATION_CPACKED) {
            id_info *t = id_get(s, word(inst, 0));
            if (!t)
                return too_many_ids(s, word(inst, 0));
            if (byval)
                t->flags |= ID_BYVAL;
            else if (spec) {
                t->flags |= ID_SPEC;
                t->spec_id = word(inst, 2);
            } else
                t->flags |= ID_PACKED;
        }
        break;
    }
    case OP_TYPE_VOID:
    case OP_TYPE_BOOL:
        id->op = inst->opcode;
        return set_layout(s, id);
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT:
    case OP_TYPE_VECTOR:
    case OP_TYPE_ARRAY:
    case OP_TYPE_POINTER:
        id->op = inst->opcode;
        id->a = word(inst, 1);
        id->b = inst->num_operands > 2 ? word(inst, 2) : 0;
        return set_layout(s, id);
    case OP_TYPE_FORWARD_POINTER: {
        /* The pointer type is defined later by its OpTypePointer; a struct may hold it before that. */
        id_info *t = id_get(s, word(inst, 0));
        if (!t)
            return too_many_ids(s, word(inst, 0));
        if (!t->op) {
            t->op = OP_TYPE_FORWARD_POINTER;
            t->a = word(inst, 1);
            return set_layout(s, t);
        }
        break;
    }
    case OP_TYPE_STRUCT:
        id->op = inst->opcode;
        id->first_member = s->num_members;
        for (uint16_t i = 1; i < inst->num_operands; i++)
            if (!push_u32(&s->members, &s->num_members, &s->cap_members, word(inst, i)))
                goto oom;
        id->num_members = s->num_members - id->first_member;
        return set_layout(s, id);
    case OP_CONSTANT:
        /* The low word, and the high one of a 64-bit constant (an array length of 2^32 or more has no layout, but its
         * 64-bit size counts a private array's bytes). */
        id->op = inst->opcode;
        id->a = inst->num_operands > 2 ? word(inst, 2) : 0;
        id->b = inst->num_operands > 2 && inst->operands[2].num_words > 1 ? inst->words[inst->operands[2].offset + 1]
                                                                          : 0;
        break;
    case OP_SPEC_CONSTANT:
    case OP_SPEC_CONSTANT_TRUE:
    case OP_SPEC_CONSTANT_FALSE:
        /* The type's layout is the width a caller's value must have (krt_spec_constant.size). */
        id->op = inst->opcode;
        id->a = inst->type_id;
        if (!push_u32(&s->spec_ids, &s->num_spec_ids, &s->cap_spec_ids, rid))
            goto oom;
        break;
    case OP_VARIABLE:
        if (!s->current_function && id) {
            id->flags |= ID_MODULE_VAR;
            id->a = inst->type_id;
            if (inst->num_operands >= 3 && word(inst, 2) == SC_WORKGROUP)
                id->flags |= ID_WORKGROUP_VAR;
        }
        break;
    case OP_FUNCTION: {
        s->current_function = rid;
        uint32_t k = id->entry;
        s->current_entry = k;
        if (k) {
            entry *e = &s->entries[k - 1];
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
        s->current_function = 0;
        break;
    default:
        /* Any other instruction defining a typed value. Types not listed above (images, samplers, events,
         * opaque) keep op at the generic marker so that arguments of those types are KRT_SPV_ARG_OTHER. */
        if (id && !inst->type_id && !id->op)
            id->op = 0xFFFF;
        break;
    }
    return SPV_SUCCESS;
oom:
    s->oom = 1;
    return SPV_ERROR_OUT_OF_MEMORY;
}

/* The element type and width of a scalar or a vector type; vectors hold scalars by construction (set_layout
 * refuses any other component), so this looks one level down at most. */
static krt_spv_scalar scalar_type(const parse_state *s, uint32_t type, uint32_t *width)
{
    *width = 1;
    const id_info *t = id_find(s, type);
    if (t->op == OP_TYPE_VECTOR) {
        *width = t->b;
        t = id_find(s, t->a);
    }
    if (t->op == OP_TYPE_BOOL)
        return KRT_SPV_TYPE_BOOL;
    if (t->op == OP_TYPE_INT)
        return t->a == 8    ? KRT_SPV_TYPE_INT8
               : t->a == 16 ? KRT_SPV_TYPE_INT16
               : t->a == 32 ? KRT_SPV_TYPE_INT32
                            : KRT_SPV_TYPE_INT64;
    if (t->op == OP_TYPE_FLOAT)
        return t->a == 16 ? KRT_SPV_TYPE_FLOAT16 : t->a == 32 ? KRT_SPV_TYPE_FLOAT32 : KRT_SPV_TYPE_FLOAT64;
    return KRT_SPV_TYPE_NONE;
}

static void describe_arg(const parse_state *s, uint32_t param, krt_spv_arg *out)
{
    const id_info *p = id_find(s, param);
    uint32_t type = p->a;
    const id_info *t = id_find(s, type);
    uint32_t width = 1;
    out->kind = KRT_SPV_ARG_OTHER;
    out->type = KRT_SPV_TYPE_NONE;
    out->vector_width = 1;
    out->size = 0;
    if (t == &no_id)
        return;
    if (t->op == OP_TYPE_POINTER) {
        uint32_t storage = t->a;
        if ((p->flags & ID_BYVAL) && storage == SC_FUNCTION) {
            /* A by-value struct whose size krt cannot know (a part without a layout, or over 4 GiB) stays
             * KRT_SPV_ARG_OTHER (krt_launch refuses KRT_ARG_OTHER), rather than a struct of 0 bytes. */
            const id_info *pointee = id_find(s, t->b);
            if (pointee->align) {
                out->kind = KRT_SPV_ARG_STRUCT;
                out->size = pointee->size;
            }
            return;
        }
        out->type = scalar_type(s, t->b, &width);
        out->vector_width = width;
        switch (storage) {
        case SC_CROSS_WORKGROUP:
        case SC_GENERIC:
            out->kind = KRT_SPV_ARG_GLOBAL_POINTER;
            out->size = s->pointer_size;
            break;
        case SC_UNIFORM_CONSTANT:
            out->kind = KRT_SPV_ARG_CONSTANT_POINTER;
            out->size = s->pointer_size;
            break;
        case SC_WORKGROUP:
            out->kind = KRT_SPV_ARG_LOCAL_POINTER;
            out->size = 0;
            break;
        default:
            out->type = KRT_SPV_TYPE_NONE;
            break;
        }
        return;
    }
    if (t->op == OP_TYPE_INT || t->op == OP_TYPE_FLOAT || t->op == OP_TYPE_BOOL || t->op == OP_TYPE_VECTOR) {
        out->type = scalar_type(s, type, &width);
        out->vector_width = width;
        if (t->align) {
            out->kind = KRT_SPV_ARG_SCALAR;
            out->size = t->size;
        }
        return;
    }
    if (t->op == OP_TYPE_STRUCT && t->align) {
        out->kind = KRT_SPV_ARG_STRUCT;
        out->size = t->size;
    }
}

static void state_free(parse_state *s)
{
    if (s->ids)
        for (uint32_t i = 0; i < s->id_cap; i++)
            free(s->ids[i].name);
    for (uint32_t i = 0; i < s->num_entries; i++) {
        free(s->entries[i].name);
        free(s->entries[i].local_vars);
    }
    for (uint32_t i = 0; i < s->num_arg_types; i++)
        free(s->arg_types[i]);
    free(s->arg_types);
    free(s->ids);
    free(s->entries);
    free(s->members);
    free(s->params);
    free(s->spec_ids);
    free(s->calls);
    free(s->uses);
}

/* Writes the message into err (err_size bytes, truncated) and returns code. */
static krt_spv_status fail(char *err, size_t err_size, krt_spv_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static krt_spv_status fail(char *err, size_t err_size, krt_spv_status code, const char *fmt, ...)
{
    if (err && err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* The declared types of entry e's parameters: "T0,T1,...," from its kernel_arg_type string when the module has
 * one with exactly a type per parameter, else NULL. */
static const char *declared_types(const parse_state *s, const entry *e)
{
    size_t n = strlen(e->name);
    for (uint32_t i = 0; i < s->num_arg_types; i++) {
        const char *t = s->arg_types[i];
        if (strncmp(t, e->name, n) != 0 || t[n] != '.')
            continue;
        t += n + 1;
        uint32_t commas = 0;
        for (const char *c = t; *c; c++)
            commas += *c == ',';
        size_t len = strlen(t);
        return commas == e->num_params && (len == 0 || t[len - 1] == ',') ? t : NULL;
    }
    return NULL;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sorts n (key, value) pairs and drops repeats; returns the new count. */
static uint32_t sort_unique_pairs(uint32_t *p, uint32_t n)
{
    if (n == 0)
        return 0;
    qsort(p, n, 2 * sizeof *p, cmp_pair);
    uint32_t w = 1;
    for (uint32_t i = 1; i < n; i++)
        if (p[2 * i] != p[2 * (w - 1)] || p[2 * i + 1] != p[2 * (w - 1) + 1]) {
            p[2 * w] = p[2 * i];
            p[2 * w + 1] = p[2 * i + 1];
            w++;
        }
    return w;
}

/* The index of the first of n sorted pairs whose key is at least key. */
static uint32_t first_pair(const uint32_t *p, uint32_t n, uint32_t key)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p[2 * mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Appends to a growing string; 0 when out of memory. */
static int str_append(char **buf, size_t *len, size_t *cap, const char *add)
{
    size_t n = strlen(add);
    if (*len + n + 1 > *cap) {
        size_t nc = (*len + n + 1) * 2;
        char *p = realloc(*buf, nc);
        if (!p)
            return 0;
        *buf = p;
        *cap = nc;
    }
    memcpy(*buf + *len, add, n + 1);
    *len += n;
    return 1;
}

/* For each kernel, the Workgroup variables (static __local memory) its call tree uses, as messages name them:
 * "tile (1296 bytes), bins (1024 bytes)", each name without the "KERNEL." prefix clang gives a kernel's own
 * __local variables; at most 8, then "and N more". A walk over the call graph per kernel, bounded in total: past
 * the bound (a generated module of thousands of kernels) the remaining kernels get no list, which only shortens a
 * message. Returns 0 when out of memory. */
#define LOCAL_VARS_SHOWN 8
#define LOCAL_VARS_STEPS (1u << 22)
static int local_vars(parse_state *s)
{
    uint32_t nuses = sort_unique_pairs(s->uses, s->num_uses / 2);
    if (nuses == 0)
        return 1;
    uint32_t ncalls = s->num_calls / 2;
    uint32_t *down = malloc(((size_t)ncalls * 2 + 1) * sizeof *down); /* (caller, callee), sorted */
    uint32_t *stack = malloc(((size_t)ncalls + 1) * sizeof *stack);
    if (!down || !stack) {
        free(down);
        free(stack);
        return 0;
    }
    for (uint32_t i = 0; i < ncalls; i++) {
        down[2 * i] = s->calls[2 * i + 1];
        down[2 * i + 1] = s->calls[2 * i];
    }
    ncalls = sort_unique_pairs(down, ncalls);
    uint64_t steps = 0;
    int ok = 1;
    for (uint32_t k = 0; k < s->num_entries && ok && steps < LOCAL_VARS_STEPS; k++) {
        entry *e = &s->entries[k];
        id_info *f0 = id_known(s, e->function);
        if (!f0 || !(f0->flags & ID_FN_LOCAL))
            continue;
        char *buf = NULL, item[320];
        size_t len = 0, cap = 0, prefix = strlen(e->name);
        uint32_t shown = 0, more = 0, top = 0;
        f0->stamp = k + 1;
        stack[top++] = e->function;
        while (top && ok && steps++ < LOCAL_VARS_STEPS) {
            uint32_t f = stack[--top];
            for (uint32_t i = first_pair(s->uses, nuses, f); i < nuses && s->uses[2 * i] == f; i++) {
                id_info *v = id_known(s, s->uses[2 * i + 1]);
                if (!v || v->stamp == k + 1)
                    continue;
                v->stamp = k + 1;
                if (shown == LOCAL_VARS_SHOWN) {
                    more++;
                    continue;
                }
                const char *name = v->name ? v->name : "(unnamed)";
                if (strncmp(name, e->name, prefix) == 0 && name[prefix] == '.' && name[prefix + 1])
                    name += prefix + 1;
                uint32_t bytes = id_find(s, id_find(s, v->a)->b)->size;
                snprintf(item, sizeof item, "%s%.256s (%u bytes)", shown ? ", " : "", name, bytes);
                ok = str_append(&buf, &len, &cap, item);
                shown++;
            }
            for (uint32_t i = first_pair(down, ncalls, f); i < ncalls && down[2 * i] == f && ok; i++) {
                id_info *c = id_known(s, down[2 * i + 1]);
                if (c && c->stamp != k + 1 && top <= ncalls) {
                    c->stamp = k + 1;
                    stack[top++] = c->id;
                }
            }
        }
        if (ok && more) {
            snprintf(item, sizeof item, ", and %u more", more);
            ok = str_append(&buf, &len, &cap, item);
        }
        e->local_vars = buf;
    }
    free(down);
    free(stack);
    return ok;
}

/* Each kernel's private memory (krt_spv_kernel.private_bytes): a function's own Function-storage variables plus its
 * deepest callee's, as a stack holds them, saturating. One iterative walk over the call graph for all kernels
 * (post-order, each function once, in the id's stamp): linear in the calls whatever the module, a recursion (only an
 * unvalidated module has one) counted once, and no C recursion however deep the calls nest. On return every function's
 * big holds its total. Returns 0 when out of memory. */
#define STAMP_ON_STACK 0xFFFFFFFEu
#define STAMP_DONE 0xFFFFFFFFu
static int private_totals(parse_state *s)
{
    uint32_t ncalls = s->num_calls / 2;
    uint32_t *down = malloc(((size_t)ncalls * 2 + 1) * sizeof *down); /* (caller, callee), sorted */
    struct frame {
        uint32_t fn, edge;
        uint64_t best;
    } *st = malloc(((size_t)ncalls + 2) * sizeof *st);
    if (!down || !st) {
        free(down);
        free(st);
        return 0;
    }
    for (uint32_t i = 0; i < ncalls; i++) {
        down[2 * i] = s->calls[2 * i + 1];
        down[2 * i + 1] = s->calls[2 * i];
    }
    ncalls = sort_unique_pairs(down, ncalls);
    for (uint32_t k = 0; k < s->num_entries; k++) {
        id_info *root = id_known(s, s->entries[k].function);
        if (!root || root->stamp == STAMP_DONE)
            continue;
        uint32_t top = 0;
        root->stamp = STAMP_ON_STACK;
        st[top++] = (struct frame){ root->id, first_pair(down, ncalls, root->id), 0 };
        while (top) {
            struct frame *f = &st[top - 1];
            if (f->edge < ncalls && down[2 * f->edge] == f->fn) {
                id_info *c = id_known(s, down[2 * f->edge + 1]);
                f->edge++;
                if (!c || c->stamp == STAMP_ON_STACK)
                    continue;
                if (c->stamp == STAMP_DONE) {
                    if (c->big > f->best)
                        f->best = c->big;
                    continue;
                }
                c->stamp = STAMP_ON_STACK;
                st[top++] = (struct frame){ c->id, first_pair(down, ncalls, c->id), 0 };
                continue;
            }
            id_info *fi = id_known(s, f->fn);
            fi->big = sat_add(fi->big, f->best);
            fi->stamp = STAMP_DONE;
            top--;
            if (top && fi->big > st[top - 1].best)
                st[top - 1].best = fi->big;
        }
    }
    free(down);
    free(st);
    return 1;
}

static int cmp_entry_name(const void *a, const void *b, void *user)
{
    const entry *e = user;
    return strcmp(e[*(const uint32_t *)a].name, e[*(const uint32_t *)b].name);
}

/* The kernels the module marks with KRT_ANY_GROUP: module-scope variables named ANY_GROUP_PREFIX + a kernel's
 * name. Returns 0 when out of memory. */
static int any_group_markers(parse_state *s)
{
    uint32_t *order = NULL, n = 0;
    size_t plen = strlen(ANY_GROUP_PREFIX);
    for (uint32_t i = 0; i < s->id_cap; i++) {
        const id_info *v = &s->ids[i];
        if (!v->id || !(v->flags & ID_MODULE_VAR) || !v->name || strncmp(v->name, ANY_GROUP_PREFIX, plen) != 0)
            continue;
        if (!order) {
            if (!(order = malloc((s->num_entries ? s->num_entries : 1) * sizeof *order)))
                return 0;
            for (n = 0; n < s->num_entries; n++)
                order[n] = n;
            qsort_r(order, n, sizeof *order, cmp_entry_name, s->entries);
        }
        const char *want = v->name + plen;
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int c = strcmp(s->entries[order[mid]].name, want);
            if (c == 0) {
                s->entries[order[mid]].any_group = 1;
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    free(order);
    return 1;
}

/* Everything the reflection keeps goes into one allocation of strings plus the arrays, so that the module
 * frees it in three calls and the names stay valid as long as the module. */
static krt_spv_status build(parse_state *s, krt_spv_reflection *out, char *err, size_t err_size)
{
    for (uint32_t k = 0; k < s->num_entries; k++)
        if (!s->entries[k].defined)
            return fail(err, err_size, KRT_SPV_INVALID_MODULE,
                        "kernel %s has an entry point but no function body (truncated module?)", s->entries[k].name);
    if (!propagate_calls(s) || !local_vars(s) || !any_group_markers(s) || !private_totals(s))
        return fail(err, err_size, KRT_SPV_OUT_OF_MEMORY,
                    "out of host memory for the module's reflection");
    size_t strings = 0;
    uint32_t total_args = 0;
    for (uint32_t k = 0; k < s->num_entries; k++) {
        entry *e = &s->entries[k];
        strings += strlen(e->name) + 1;
        total_args += e->num_params;
        for (uint32_t i = 0; i < e->num_params; i++) {
            const char *n = id_find(s, s->params[e->first_param + i])->name;
            strings += (n ? strlen(n) : 0) + 1;
        }
        e->types = declared_types(s, e);
        strings += (e->types ? strlen(e->types) : 0) + 1; /* the list, its commas becoming NULs, and one "" */
        strings += (e->local_vars ? strlen(e->local_vars) : 0) + 1;
    }
    memset(out, 0, sizeof *out);
    out->kernels = calloc(s->num_entries ? s->num_entries : 1, sizeof *out->kernels);
    out->kernel_names = calloc(s->num_entries ? s->num_entries : 1, sizeof *out->kernel_names);
    krt_spv_arg *args = calloc(total_args ? total_args : 1, sizeof *args);
    out->strings = malloc(strings ? strings : 1);
    out->spec_constants = calloc(s->num_spec_ids ? s->num_spec_ids : 1, sizeof *out->spec_constants);
    if (!out->kernels || !out->kernel_names || !args || !out->strings || !out->spec_constants) {
        free(args);
        krt_spv_reflection_free(out);
        return fail(err, err_size, KRT_SPV_OUT_OF_MEMORY,
                    "out of host memory for the module's reflection");
    }
    out->all_args = args;
    char *str = out->strings;
    krt_spv_arg *next_arg = args;
    for (uint32_t k = 0; k < s->num_entries; k++) {
        entry *e = &s->entries[k];
        krt_spv_kernel *kr = &out->kernels[k];
        size_t len = strlen(e->name) + 1;
        memcpy(str, e->name, len);
        kr->name = str;
        str += len;
        out->kernel_names[k] = kr->name;
        kr->num_args = e->num_params;
        kr->args = next_arg;
        memcpy(kr->required_group, e->local, sizeof e->local);
        memcpy(kr->group_hint, e->hint, sizeof e->hint);
        kr->uses_barrier = (id_find(s, e->function)->flags & ID_FN_BARRIER) != 0;
        kr->uses_static_local = (id_find(s, e->function)->flags & ID_FN_LOCAL) != 0;
        kr->any_group = e->any_group;
        kr->private_bytes = id_find(s, e->function)->big;
        len = (e->local_vars ? strlen(e->local_vars) : 0) + 1;
        memcpy(str, e->local_vars ? e->local_vars : "", len);
        kr->local_vars = str;
        str += len;
        /* The declared types: the list copied, each comma ending one type; "" for all when the module has none. */
        const char *types = e->types;
        char *type = str;
        len = types ? strlen(types) : 0;
        memcpy(str, types ? types : "", len);
        str[len] = '\0';
        const char *none = str + len;
        str += len + 1;
        for (uint32_t i = 0; i < e->num_params; i++) {
            if (types) {
                char *comma = strchr(type, ',');
                *comma = '\0';
                next_arg[i].type_name = type;
                type = comma + 1;
            } else {
                next_arg[i].type_name = none;
            }
            uint32_t pid = s->params[e->first_param + i];
            describe_arg(s, pid, &next_arg[i]);
            kr->local_args += next_arg[i].kind == KRT_SPV_ARG_LOCAL_POINTER;
            const char *n = id_find(s, pid)->name ? id_find(s, pid)->name : "";
            len = strlen(n) + 1;
            memcpy(str, n, len);
            next_arg[i].name = str;
            str += len;
        }
        next_arg += e->num_params;
    }
    out->num_kernels = s->num_entries;
    for (uint32_t i = 0; i < s->num_spec_ids; i++) {
        const id_info *c = id_find(s, s->spec_ids[i]);
        if (!(c->flags & ID_SPEC))
            continue;
        const id_info *t = id_find(s, c->a);
        krt_spv_spec *sr = &out->spec_constants[out->num_spec_constants++];
        sr->spec_id = c->spec_id;
        sr->size = t->align ? t->size : 0;
    }
    out->pointer_size = s->pointer_size;
    out->uses_fp16 = s->fp16;
    out->uses_fp64 = s->fp64;
    out->uses_int64_atomics = s->int64_atomics;
    return KRT_SPV_OK;
}

krt_spv_status krt_spv_reflect(const uint32_t *words, size_t num_words, krt_spv_reflection *out, char *err,
                               size_t err_size)
{
    spv_context sctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    if (!sctx)
        return fail(err, err_size, KRT_SPV_OUT_OF_MEMORY, "out of host memory for the SPIR-V parser");
    parse_state s;
    memset(&s, 0, sizeof s);
    s.pointer_size = 8;
    s.num_words = num_words;
    s.word_at = 5;
    /* The bound is checked before anything is sized by it (a header claiming 2^32 ids would otherwise cost
     * gigabytes before the first instruction is read). */
    if (num_words >= 5 && words[3] > MAX_ID_BOUND) {
        spvContextDestroy(sctx);
        return fail(err, err_size, KRT_SPV_INVALID_MODULE,
                    "the module's id bound %u (header word 3) exceeds SPIR-V's limit of %u ids", words[3],
                    (unsigned)MAX_ID_BOUND);
    }
    spv_diagnostic diag = NULL;
    spv_result_t sr = spvBinaryParse(sctx, &s, words, num_words, on_header, on_inst, &diag);
    krt_spv_status r = KRT_SPV_OK;
    if (s.oom) {
        r = fail(err, err_size, KRT_SPV_OUT_OF_MEMORY,
                 "out of host memory while parsing the SPIR-V module");
    } else if (sr != SPV_SUCCESS && s.error[0]) {
        r = fail(err, err_size, KRT_SPV_INVALID_MODULE,
                 "the SPIR-V module cannot be reflected: %s (at word %zu)", s.error, s.error_word);
    } else if (sr != SPV_SUCCESS) {
        r = fail(err, err_size, KRT_SPV_INVALID_MODULE, "the SPIR-V module does not parse: %s (at word %zu)",
                 diag && diag->error ? diag->error : "malformed instruction stream",
                 diag ? diag->position.index : (size_t)0);
    } else {
        r = build(&s, out, err, err_size);
    }
    spvDiagnosticDestroy(diag);
    spvContextDestroy(sctx);
    state_free(&s);
    return r;
}

void krt_spv_reflection_free(krt_spv_reflection *refl)
{
    free(refl->all_args);
    free(refl->kernels);
    free(refl->kernel_names);
    free(refl->strings);
    free(refl->spec_constants);
    memset(refl, 0, sizeof *refl);
}

const krt_spv_kernel *krt_spv_reflection_find(const krt_spv_reflection *refl, const char *name, uint32_t *index)
{
    for (uint32_t i = 0; i < refl->num_kernels; i++)
        if (strcmp(refl->kernels[i].name, name) == 0) {
            if (index)
                *index = i;
            return &refl->kernels[i];
        }
    return NULL;
}
