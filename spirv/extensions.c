/*
 * extensions.c: what SPIRV-Tools' validator cannot judge in a module (extensions.h): the decoration-only
 * extensions krt checks itself, the extensions the installed SPIRV-Tools does not know, and a copy of the module
 * without what the validator cannot judge, for libkrt's validation and the drivers' front end alike.
 */
#include "extensions.h"

/* libspirv.h defines (not declares) a const in C, which would collide with the other C files of libkrt that
 * include it; the rename gives each file its own copy. */
#define kDefaultMaxIdBound krt__spv_id_bound_extensions
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SPIR-V numbers (SPIR-V 1.x specification, section 3, and SPV_INTEL_memory_access_aliasing), frozen by the
 * specifications; the unified headers are not installed with Debian's SPIRV-Tools. */
enum {
    OP_UNDEF = 1,
    OP_NAME = 5,
    OP_EXTENSION = 10,
    OP_MEMORY_MODEL = 14,
    OP_EXECUTION_MODE = 16,
    OP_CAPABILITY = 17,
    OP_FUNCTION = 54,
    OP_LOAD = 61,
    OP_STORE = 62,
    OP_COPY_MEMORY = 63,
    OP_COPY_MEMORY_SIZED = 64,
    OP_DECORATE = 71,
    OP_MEMBER_DECORATE = 72,
    OP_EXECUTION_MODE_ID = 331,
    OP_DECORATE_ID = 332,
    OP_DECORATE_STRING = 5632,
    OP_MEMBER_DECORATE_STRING = 5633,
    OP_ALIAS_DOMAIN_DECL = 5911,
    OP_ALIAS_SCOPE_DECL = 5912,
    OP_ALIAS_SCOPE_LIST_DECL = 5913,
    DEC_ALIAS_SCOPE = 5914,
    DEC_NO_ALIAS = 5915,
    /* Memory operand bits: those with an operand (Aligned, MakePointerAvailable, MakePointerVisible), those
     * without (Volatile, Nontemporal, NonPrivatePointer), and the aliasing ones (an operand each). */
    MEM_WITH_OPERAND = 0x2 | 0x8 | 0x10,
    MEM_WITHOUT_OPERAND = 0x1 | 0x4 | 0x20,
    MEM_ALIAS = 0x10000 | 0x20000,
    /* SPIR-V gives numbers from 4096 up only to extensions (the registry reserves 0-4095 to the core
     * specification; some extensions were later promoted to core with their numbers). */
    FIRST_EXTENSION_NUMBER = 4096,
    MAX_PROBES = 64,
};

static const char ALIASING[] = "SPV_INTEL_memory_access_aliasing";

int krt_spv_copy_init(krt_spv_copy *c, const uint32_t *words, size_t num_words)
{
    memset(c, 0, sizeof *c);
    c->words = malloc((num_words ? num_words : 1) * sizeof *c->words);
    c->origin = malloc((num_words ? num_words : 1) * sizeof *c->origin);
    if (!c->words || !c->origin) {
        krt_spv_copy_free(c);
        return 0;
    }
    memcpy(c->words, words, num_words * sizeof *words);
    for (size_t i = 0; i < num_words; i++)
        c->origin[i] = i;
    c->num_words = num_words;
    return 1;
}

void krt_spv_copy_free(krt_spv_copy *c)
{
    free(c->words);
    free(c->origin);
    memset(c, 0, sizeof *c);
}

/* The word offset of the copy's instruction number `instruction` (1-based), or (size_t)-1. */
static size_t instruction_at(const krt_spv_copy *c, size_t instruction)
{
    size_t i = 5;
    for (size_t k = 1; k < instruction && i < c->num_words; k++) {
        uint32_t wc = c->words[i] >> 16;
        if (wc == 0)
            return (size_t)-1;
        i += wc;
    }
    return instruction >= 1 && i < c->num_words ? i : (size_t)-1;
}

size_t krt_spv_copy_origin(const krt_spv_copy *c, size_t instruction)
{
    size_t at = instruction_at(c, instruction);
    return at == (size_t)-1 ? at : c->origin[at];
}

/* The output of a pass over a copy: words and origins appended instruction by instruction, never more than the
 * input holds. */
typedef struct out_buf {
    uint32_t *words;
    size_t *origin;
    size_t n;
} out_buf;

static int out_open(out_buf *o, const krt_spv_copy *c)
{
    o->words = malloc(c->num_words * sizeof *o->words);
    o->origin = malloc(c->num_words * sizeof *o->origin);
    o->n = 0;
    if (!o->words || !o->origin) {
        free(o->words);
        free(o->origin);
        return 0;
    }
    memcpy(o->words, c->words, 5 * sizeof *o->words);
    memcpy(o->origin, c->origin, 5 * sizeof *o->origin);
    o->n = 5;
    return 1;
}

static void out_copy(out_buf *o, const krt_spv_copy *c, size_t at, size_t count)
{
    memcpy(o->words + o->n, c->words + at, count * sizeof *o->words);
    memcpy(o->origin + o->n, c->origin + at, count * sizeof *o->origin);
    o->n += count;
}

/* Replaces the copy's words with the output's. */
static void out_close(out_buf *o, krt_spv_copy *c)
{
    free(c->words);
    free(c->origin);
    c->words = o->words;
    c->origin = o->origin;
    c->num_words = o->n;
}

static void out_drop(out_buf *o)
{
    free(o->words);
    free(o->origin);
}

/* The literal string of an instruction starting at word `first` of an instruction of wc words, or NULL when it is
 * not terminated inside the instruction. */
static const char *literal(const uint32_t *inst, uint32_t wc, uint32_t first)
{
    if (wc <= first)
        return NULL;
    const char *s = (const char *)(inst + first);
    size_t max = (size_t)(wc - first) * 4;
    return memchr(s, '\0', max) ? s : NULL;
}

static int declares(const uint32_t *w, size_t n, const char *extension)
{
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xFFFF;
        if (wc == 0 || i + wc > n)
            return 0;
        const char *name = op == OP_EXTENSION ? literal(w + i, wc, 1) : NULL;
        if (name && strcmp(name, extension) == 0)
            return 1;
        if (op == OP_FUNCTION)
            return 0; /* OpExtension comes before any function */
        i += wc;
    }
    return 0;
}

/* ---- decoration-only extensions ------------------------------------------------------------------------- */

/* Sets of ids, kept sorted, for the aliasing declarations (a module has a few of them, tens in DPC++'s output). */
typedef struct id_set {
    uint32_t *ids;
    size_t n, cap;
} id_set;

/* The index of the first id not below id. */
static size_t set_find(const id_set *s, uint32_t id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int set_has(const id_set *s, uint32_t id)
{
    size_t k = set_find(s, id);
    return k < s->n && s->ids[k] == id;
}

/* 0 when out of memory. */
static int set_add(id_set *s, uint32_t id)
{
    size_t k = set_find(s, id);
    if (k < s->n && s->ids[k] == id)
        return 1;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        uint32_t *p = realloc(s->ids, cap * sizeof *p);
        if (!p)
            return 0;
        s->ids = p;
        s->cap = cap;
    }
    memmove(s->ids + k + 1, s->ids + k, (s->n - k) * sizeof *s->ids);
    s->ids[k] = id;
    s->n++;
    return 1;
}

/* Copies the memory operands of the instruction at `at` (from word `first` on: a mask and its operands, `sets`
 * times) without the aliasing bits and their operands, which must name scope lists. Returns 1 when copied (with
 * *bad set when an aliasing operand names something else), 0 when a mask holds bits whose operands it cannot
 * count (the instruction is then left as it is, to the validator). */
static int strip_memory_operands(const uint32_t *w, size_t first, size_t end, int sets, const id_set *lists,
                                 uint32_t *out, size_t *out_n, int *bad)
{
    size_t at = first;
    for (int set = 0; set < sets && at < end; set++) {
        uint32_t mask = w[at++];
        if (mask & ~(uint32_t)(MEM_ALIAS | MEM_WITH_OPERAND | MEM_WITHOUT_OPERAND))
            return 0;
        out[(*out_n)++] = mask & ~(uint32_t)MEM_ALIAS;
        /* The operands follow in the order of their bits. */
        static const uint32_t order[] = { 0x2, 0x8, 0x10, 0x10000, 0x20000 };
        for (size_t b = 0; b < sizeof order / sizeof order[0]; b++) {
            if (!(mask & order[b]))
                continue;
            if (at >= end)
                return 0;
            if (!(order[b] & MEM_ALIAS))
                out[(*out_n)++] = w[at];
            else if (!set_has(lists, w[at]))
                *bad = 1;
            at++;
        }
    }
    return at == end;
}

static int fail_why(char *why, size_t why_size, const char *fmt, unsigned id)
{
    if (why && why_size)
        snprintf(why, why_size, fmt, id);
    return 0;
}

int krt_spv_strip_hints(krt_spv_copy *c, char *why, size_t why_size)
{
    const uint32_t *w = c->words;
    size_t n = c->num_words;
    if (!declares(w, n, ALIASING))
        return 1;
    id_set domains = { 0 }, scopes = { 0 }, lists = { 0 };
    int rc = 1, in_function = 0, malformed = 0;
    /* The declarations first: decorations name them before they are declared. Each names only what is declared
     * before it. A stream the walk cannot follow is left as it is, for the validator to say what is wrong. */
    for (size_t i = 5; i < n && rc == 1 && !malformed;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xFFFF;
        if (wc == 0 || i + wc > n) {
            malformed = 1;
            break;
        }
        if (op == OP_FUNCTION)
            in_function = 1;
        if (op == OP_ALIAS_DOMAIN_DECL || op == OP_ALIAS_SCOPE_DECL || op == OP_ALIAS_SCOPE_LIST_DECL) {
            if (in_function) {
                rc = 0;
                if (why && why_size)
                    snprintf(why, why_size, "aliasing declaration inside a function (%s declares them at module "
                             "scope)", ALIASING);
            } else if (wc < 2) {
                malformed = 1;
            } else if (op == OP_ALIAS_DOMAIN_DECL) {
                rc = set_add(&domains, w[i + 1]) ? 1 : -1;
            } else if (op == OP_ALIAS_SCOPE_DECL) {
                if (wc < 3 || !set_has(&domains, w[i + 2]))
                    rc = fail_why(why, why_size, "OpAliasScopeDeclINTEL %%%u names no alias domain", w[i + 1]);
                else
                    rc = set_add(&scopes, w[i + 1]) ? 1 : -1;
            } else {
                for (uint32_t k = 2; k < wc && rc == 1; k++)
                    if (!set_has(&scopes, w[i + k]))
                        rc = fail_why(why, why_size,
                                      "OpAliasScopeListDeclINTEL %%%u names something other than an alias scope",
                                      w[i + 1]);
                if (rc == 1)
                    rc = set_add(&lists, w[i + 1]) ? 1 : -1;
            }
        }
        i += wc;
    }
    out_buf o = { 0 };
    if (rc == 1 && !malformed && !out_open(&o, c))
        rc = -1;
    size_t i = 5;
    while (rc == 1 && !malformed && i < n) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xFFFF;
        if (wc == 0 || i + wc > n) { /* the validator says what is wrong with the stream */
            out_copy(&o, c, i, n - i);
            break;
        }
        if (op == OP_ALIAS_DOMAIN_DECL || op == OP_ALIAS_SCOPE_DECL || op == OP_ALIAS_SCOPE_LIST_DECL ||
            (op == OP_NAME && wc >= 2 &&
             (set_has(&domains, w[i + 1]) || set_has(&scopes, w[i + 1]) || set_has(&lists, w[i + 1])))) {
            i += wc;
            continue;
        }
        if (op == OP_DECORATE_ID && wc >= 3 && (w[i + 2] == DEC_ALIAS_SCOPE || w[i + 2] == DEC_NO_ALIAS)) {
            if (wc != 4 || !set_has(&lists, w[i + 3]))
                rc = fail_why(why, why_size, "AliasScopeINTEL/NoAliasINTEL decoration of %%%u names no alias scope "
                              "list", w[i + 1]);
            i += wc;
            continue;
        }
        if ((op == OP_LOAD && wc > 4) || ((op == OP_STORE || op == OP_COPY_MEMORY) && wc > 3) ||
            (op == OP_COPY_MEMORY_SIZED && wc > 4)) {
            size_t first = op == OP_STORE || op == OP_COPY_MEMORY ? 3 : 4;
            int sets = op == OP_COPY_MEMORY || op == OP_COPY_MEMORY_SIZED ? 2 : 1;
            size_t start = o.n;
            out_copy(&o, c, i, first);
            int bad = 0;
            if (!strip_memory_operands(w, i + first, i + wc, sets, &lists, o.words, &o.n, &bad)) {
                o.n = start;
                out_copy(&o, c, i, wc);
            } else if (bad) {
                rc = fail_why(why, why_size, "an aliasing memory operand at word %u names no alias scope list",
                              (unsigned)i);
            } else {
                o.words[start] = (uint32_t)((o.n - start) << 16) | op;
            }
            i += wc;
            continue;
        }
        out_copy(&o, c, i, wc);
        i += wc;
    }
    if (rc == 1 && o.words)
        out_close(&o, c);
    else if (o.words)
        out_drop(&o);
    free(domains.ids);
    free(scopes.ids);
    free(lists.ids);
    return rc;
}

/* ---- extensions this SPIRV-Tools does not know ----------------------------------------------------------- */

static spv_target_env env_for(uint32_t version)
{
    switch (version >> 8 & 0xFF) {
    case 0: return SPV_ENV_UNIVERSAL_1_0;
    case 1: return SPV_ENV_UNIVERSAL_1_1;
    case 2: return SPV_ENV_UNIVERSAL_1_2;
    case 3: return SPV_ENV_UNIVERSAL_1_3;
    case 4: return SPV_ENV_UNIVERSAL_1_4;
    case 5: return SPV_ENV_UNIVERSAL_1_5;
    default: return SPV_ENV_UNIVERSAL_1_6;
    }
}

/* Whether the validator remarks on an extension of this name: a minimal valid module that declares it (a kernel
 * library, no functions) validates, and the validator's last message, which it only gives when it has something to
 * say, names the extension ("Found unrecognized extension NAME" in SPIRV-Tools 2023.1). -1 when out of memory. */
static int unknown_to_validator(spv_const_context sctx, uint32_t version, const uint32_t *inst, uint32_t wc,
                                const char *name)
{
    uint32_t *probe = malloc((11 + (size_t)wc + 3) * sizeof *probe);
    if (!probe)
        return -1;
    size_t n;
    const uint32_t head[] = { 0x07230203u, version, 0, 1, 0,
                        2u << 16 | OP_CAPABILITY, 4 /* Addresses */, 2u << 16 | OP_CAPABILITY, 5 /* Linkage */,
                        2u << 16 | OP_CAPABILITY, 6 /* Kernel */ };
    memcpy(probe, head, sizeof head);
    n = sizeof head / sizeof head[0];
    memcpy(probe + n, inst, wc * sizeof *inst);
    n += wc;
    probe[n++] = 3u << 16 | OP_MEMORY_MODEL;
    probe[n++] = 2; /* Physical64 */
    probe[n++] = 2; /* OpenCL */
    spv_const_binary_t bin = { probe, n };
    spv_diagnostic diag = NULL;
    spv_validator_options opts = spvValidatorOptionsCreate();
    int unknown = -1;
    if (opts) {
        spv_result_t r = spvValidateWithOptions(sctx, opts, &bin, &diag);
        unknown = r == SPV_SUCCESS && diag && diag->error && strstr(diag->error, name) != NULL;
    }
    spvDiagnosticDestroy(diag);
    spvValidatorOptionsDestroy(opts);
    free(probe);
    return unknown;
}

int krt_spv_unknown_extensions(const uint32_t *w, size_t n, const char **found, int max_found)
{
    if (n < 5)
        return 0;
    uint32_t version = w[1];
    if ((version & 0xFF0000FFu) != 0 || (version >> 16) != 1 || (version >> 8 & 0xFF) > 6)
        version = 0x00010600u;
    spv_context sctx = NULL;
    int count = 0, probes = 0;
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xFFFF;
        if (wc == 0 || i + wc > n || op == OP_FUNCTION)
            break;
        /* A probe per declaration, at most MAX_PROBES (a real module declares a few): past them, an extension
         * counts as known, which leaves its instructions to the validator. */
        const char *name = op == OP_EXTENSION && probes < MAX_PROBES ? literal(w + i, wc, 1) : NULL;
        if (name) {
            probes++;
            if (!sctx && !(sctx = spvContextCreate(env_for(version))))
                return -1;
            int unknown = unknown_to_validator(sctx, version, w + i, wc, name);
            if (unknown < 0) {
                spvContextDestroy(sctx);
                return -1;
            }
            if (unknown && count < max_found)
                found[count] = name;
            count += unknown;
        }
        i += wc;
    }
    spvContextDestroy(sctx);
    return count;
}

/* ---- taking out what the validator cannot judge ---------------------------------------------------------- */

enum { KIND_OPCODE = 1, KIND_CAPABILITY, KIND_DECORATION, KIND_EXECUTION_MODE };

/* The kind of the instruction inst (wc words) when only an extension gives it: 1 with *kind and *value, else 0. */
static int extension_kind(const uint32_t *inst, uint32_t wc, uint32_t *kind, uint32_t *value)
{
    uint32_t op = inst[0] & 0xFFFF;
    /* Where the number that names the kind sits: the capability, decoration or execution mode operand. */
    uint32_t word = 0;
    switch (op) {
    case OP_CAPABILITY:
        *kind = KIND_CAPABILITY;
        word = 1;
        break;
    case OP_DECORATE:
    case OP_DECORATE_ID:
    case OP_DECORATE_STRING:
        *kind = KIND_DECORATION;
        word = 2;
        break;
    case OP_MEMBER_DECORATE:
    case OP_MEMBER_DECORATE_STRING:
        *kind = KIND_DECORATION;
        word = 3;
        break;
    case OP_EXECUTION_MODE:
    case OP_EXECUTION_MODE_ID:
        *kind = KIND_EXECUTION_MODE;
        word = 2;
        break;
    default:
        *kind = KIND_OPCODE;
        break;
    }
    *value = word == 0 ? op : word < wc ? inst[word] : 0;
    return *value >= FIRST_EXTENSION_NUMBER;
}

/* The result type and result id of every instruction of one opcode, in module order, from SPIRV-Tools' parser
 * (only the grammar knows whether an opcode has them). */
typedef struct results {
    uint32_t opcode;
    uint32_t *pairs; /* (type, result) per instruction of the opcode */
    size_t n, cap;
    int oom;
} results;

static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *inst)
{
    results *r = user;
    if (inst->opcode != r->opcode)
        return SPV_SUCCESS;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        uint32_t *p = realloc(r->pairs, 2 * cap * sizeof *p);
        if (!p) {
            r->oom = 1;
            return SPV_ERROR_OUT_OF_MEMORY;
        }
        r->pairs = p;
        r->cap = cap;
    }
    r->pairs[2 * r->n] = inst->type_id;
    r->pairs[2 * r->n + 1] = inst->result_id;
    r->n++;
    return SPV_SUCCESS;
}

static int matches(const uint32_t *inst, uint32_t wc, uint32_t kind, uint32_t value)
{
    uint32_t k, v;
    if (kind == KIND_OPCODE)
        return (inst[0] & 0xFFFF) == value;
    extension_kind(inst, wc, &k, &v);
    return k == kind && v == value;
}

int krt_spv_exclude(krt_spv_copy *c, size_t instruction, krt_spv_excluded *done, char *what, size_t what_size)
{
    size_t at = instruction_at(c, instruction);
    if (at == (size_t)-1)
        return 0;
    uint32_t wc = c->words[at] >> 16, kind, value;
    if (wc == 0 || at + wc > c->num_words || !extension_kind(c->words + at, wc, &kind, &value))
        return 0;
    for (uint32_t i = 0; i < done->count; i++)
        if (done->kind[i] == kind && done->value[i] == value)
            return 0;
    if (done->count == sizeof done->kind / sizeof done->kind[0])
        return 0;
    results res = { .opcode = kind == KIND_OPCODE ? value : 0 };
    if (kind == KIND_OPCODE) {
        spv_context sctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
        if (!sctx)
            return -1;
        spv_result_t pr = spvBinaryParse(sctx, &res, c->words, c->num_words, NULL, on_inst, NULL);
        spvContextDestroy(sctx);
        if (res.oom) {
            free(res.pairs);
            return -1;
        }
        int ok = pr == SPV_SUCCESS;
        for (size_t i = 0; ok && i < res.n; i++)
            ok = (res.pairs[2 * i] != 0) == (res.pairs[2 * i + 1] != 0); /* a result without a type stays */
        if (!ok) {
            free(res.pairs);
            return 0;
        }
    }
    out_buf o;
    if (!out_open(&o, c)) {
        free(res.pairs);
        return -1;
    }
    size_t next = 0;
    for (size_t i = 5; i < c->num_words;) {
        uint32_t n = c->words[i] >> 16;
        if (n == 0 || i + n > c->num_words) {
            out_copy(&o, c, i, c->num_words - i);
            break;
        }
        if (!matches(c->words + i, n, kind, value)) {
            out_copy(&o, c, i, n);
        } else if (kind == KIND_OPCODE && next < res.n && res.pairs[2 * next]) {
            /* OpUndef of the same type and id, where the instruction was. */
            o.words[o.n] = 3u << 16 | OP_UNDEF;
            o.words[o.n + 1] = res.pairs[2 * next];
            o.words[o.n + 2] = res.pairs[2 * next + 1];
            o.origin[o.n] = c->origin[i];
            o.n += 3;
        }
        next += kind == KIND_OPCODE && matches(c->words + i, n, kind, value);
        i += n;
    }
    out_close(&o, c);
    free(res.pairs);
    done->kind[done->count] = kind;
    done->value[done->count++] = value;
    static const char *const names[] = { "", "opcode", "capability", "decoration", "execution mode" };
    if (what && what_size)
        snprintf(what, what_size, "%s %u", names[kind], value);
    return 1;
}
