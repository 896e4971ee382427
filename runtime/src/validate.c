/*
 * validate.c: SPIRV-Tools validation before the driver sees a module, under krt's policy.
 *
 * Optimised clang + llvm-spirv output for kernels with loops breaks two structured-order rules of spirv-val
 * (a block placed before its dominator; OpLoopMerge not immediately before the loop's branch). llvm-spirv
 * reads such modules back and drivers build them, so rejecting them would refuse what users actually
 * produce. Producers' SPIR-V also holds extensions the installed SPIRV-Tools judges wrongly (DPC++'s
 * SPV_INTEL_memory_access_aliasing hints) or does not know at all, and those are the driver's to judge. The
 * default policy turns exactly those diagnostics into a warning (none for the aliasing hints, which krt checks
 * itself); every other diagnostic rejects the module (lenient below says how). STRICT rejects all; NONE skips
 * the validator (the module must still parse for reflection).
 */
#include "krt_internal.h"
#include "../../spirv/extensions.h"

/* libspirv.h defines (not declares) a const in C, which would collide between the files of libkrt including it;
 * the rename gives each file its own copy. */
#define kDefaultMaxIdBound krt__spv_id_bound_validate
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The diagnostics that a block placed before its dominator produces: the CFG check itself, and the ID check
 * that sees a use in an earlier block than its definition (it runs first and reports that instead). */
static int is_order_diagnostic(const char *msg)
{
    return strstr(msg, "appears in the binary before its dominator") != NULL ||
           strstr(msg, "has not been defined") != NULL;
}

/* The OpLoopMerge placement rule, which reordering cannot repair and the default policy tolerates. */
static int is_loop_merge_diagnostic(const char *msg)
{
    return strstr(msg, "OpLoopMerge must immediately precede") != NULL ||
           strstr(msg, "must be the second-to-last instruction in its block") != NULL;
}

enum {
    OP_FUNCTION = 54,
    OP_FUNCTION_END = 56,
    OP_LABEL = 248,
    OP_BRANCH = 249,
    OP_BRANCH_CONDITIONAL = 250,
    OP_SWITCH = 251,
    OP_KILL = 252,
    OP_RETURN = 253,
    OP_RETURN_VALUE = 254,
    OP_UNREACHABLE = 255,
};

typedef struct block {
    uint32_t label;
    size_t begin, end; /* word range, OpLabel to terminator inclusive */
    size_t term;       /* word index of the terminator */
} block;

/* Blocks by label: an open-addressing table of index + 1 (0 = empty), so that the search below costs a lookup
 * per edge rather than a scan of the function (a function of many blocks stays linear). Where a label is
 * given twice, the first block keeps it. */
static uint32_t label_slot(uint32_t label, uint32_t mask)
{
    uint32_t h = label * 0x9E3779B1u;
    return (h ^ (h >> 15)) & mask;
}

static uint32_t *label_map(const block *b, uint32_t n, uint32_t *mask)
{
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)n)
        cap *= 2;
    uint32_t *map = calloc(cap, sizeof *map);
    if (!map)
        return NULL;
    *mask = cap - 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = label_slot(b[i].label, *mask);
        while (map[h] && b[map[h] - 1].label != b[i].label)
            h = (h + 1) & *mask;
        if (!map[h])
            map[h] = i + 1;
    }
    return map;
}

static int find_block(const block *b, const uint32_t *map, uint32_t mask, uint32_t label)
{
    for (uint32_t h = label_slot(label, mask); map[h]; h = (h + 1) & mask)
        if (b[map[h] - 1].label == label)
            return (int)(map[h] - 1);
    return -1;
}

/* Depth-first search from block i, appending blocks in post-order. Iterative, with an explicit stack of
 * (block, next successor operand) pairs, so that deep CFGs do not exhaust the C stack. */
static void post_order(const uint32_t *w, const block *b, const uint32_t *map, uint32_t mask, uint8_t *seen,
                       uint32_t *order, uint32_t *count, uint32_t *stack_blk, uint32_t *stack_op)
{
    uint32_t sp = 0;
    stack_blk[sp] = 0;
    stack_op[sp] = 0;
    sp++;
    seen[0] = 1;
    while (sp) {
        uint32_t cur = stack_blk[sp - 1];
        const uint32_t *t = w + b[cur].term;
        uint32_t op = t[0] & 0xFFFF, wc = t[0] >> 16;
        /* Successor label operands: OpBranch 1; OpBranchConditional 2, 3; OpSwitch 2, then every second
         * word after the selector's literal (one-word literals assumed, as in OpenCL kernels). */
        uint32_t next = 0;
        int found = 0;
        while (!found) {
            uint32_t k = stack_op[sp - 1]++;
            uint32_t idx;
            if (op == OP_BRANCH)
                idx = k == 0 ? 1 : 0;
            else if (op == OP_BRANCH_CONDITIONAL)
                idx = k < 2 ? 2 + k : 0;
            else if (op == OP_SWITCH)
                idx = k == 0 ? 2 : (4 + 2 * (k - 1) < wc ? 4 + 2 * (k - 1) : 0);
            else
                idx = 0;
            if (idx == 0 || idx >= wc)
                break;
            int s = find_block(b, map, mask, t[idx]);
            if (s >= 0 && !seen[s]) {
                seen[s] = 1;
                next = (uint32_t)s;
                found = 1;
            }
        }
        if (found) {
            stack_blk[sp] = next;
            stack_op[sp] = 0;
            sp++;
        } else {
            order[(*count)++] = cur;
            sp--;
        }
    }
}

/* Copies count words from w + from to out + to, with their origins (where each instruction came from). */
static void copy_words(uint32_t *out, size_t *out_origin, size_t to, const uint32_t *w, const size_t *origin,
                       size_t from, size_t count)
{
    memcpy(out + to, w + from, count * sizeof *w);
    memcpy(out_origin + to, origin + from, count * sizeof *origin);
}

/* The copy c with its blocks in reverse post-order in every function, which places each block after its
 * dominators (c's words and origins are replaced). Returns 0, leaving c as it was, when out of memory or when the
 * function bodies are not as expected. */
static int reorder_blocks(krt_spv_copy *c)
{
    const uint32_t *w = c->words;
    size_t n = c->num_words;
    uint32_t *out = malloc(n * sizeof *out);
    size_t *out_origin = malloc(n * sizeof *out_origin);
    block *blocks = NULL;
    uint32_t *order = NULL, *stack_blk = NULL, *stack_op = NULL;
    uint8_t *seen = NULL;
    size_t cap = 0;
    if (!out || !out_origin) {
        free(out);
        free(out_origin);
        return 0;
    }
    copy_words(out, out_origin, 0, w, c->origin, 0, 5);
    size_t i = 5, o = 5;
    int ok = 1;
    while (ok && i < n) {
        uint32_t op = w[i] & 0xFFFF, wc = w[i] >> 16;
        if (wc == 0 || i + wc > n) {
            ok = 0;
            break;
        }
        if (op != OP_LABEL) {
            copy_words(out, out_origin, o, w, c->origin, i, wc);
            o += wc;
            i += wc;
            continue;
        }
        /* The blocks of one function: from this OpLabel to OpFunctionEnd. */
        uint32_t nb = 0;
        while (i < n && (w[i] & 0xFFFF) != OP_FUNCTION_END) {
            uint32_t bop = w[i] & 0xFFFF, bwc = w[i] >> 16;
            if (bop != OP_LABEL || bwc < 2) {
                ok = 0;
                break;
            }
            if (nb == cap) {
                size_t nc = cap ? cap * 2 : 64;
                block *nbk = realloc(blocks, nc * sizeof *nbk);
                if (!nbk) {
                    ok = 0;
                    break;
                }
                blocks = nbk;
                cap = nc;
            }
            block *bk = &blocks[nb++];
            bk->label = w[i + 1];
            bk->begin = i;
            for (;;) {
                uint32_t iop = w[i] & 0xFFFF, iwc = w[i] >> 16;
                if (iwc == 0 || i + iwc > n) {
                    ok = 0;
                    break;
                }
                bk->term = i;
                i += iwc;
                if (iop == OP_BRANCH || iop == OP_BRANCH_CONDITIONAL || iop == OP_SWITCH || iop == OP_KILL ||
                    iop == OP_RETURN || iop == OP_RETURN_VALUE || iop == OP_UNREACHABLE || iop == 4416)
                    break;
                if (i >= n) {
                    ok = 0;
                    break;
                }
            }
            if (!ok)
                break;
            bk->end = i;
        }
        if (!ok || i >= n)
            break;
        free(order);
        free(seen);
        free(stack_blk);
        free(stack_op);
        order = malloc(nb * sizeof *order);
        seen = calloc(nb, 1);
        stack_blk = malloc(nb * sizeof *stack_blk);
        stack_op = malloc(nb * sizeof *stack_op);
        if (!order || !seen || !stack_blk || !stack_op) {
            ok = 0;
            break;
        }
        uint32_t mask = 0;
        uint32_t *map = label_map(blocks, nb, &mask);
        if (!map) {
            ok = 0;
            break;
        }
        uint32_t count = 0;
        post_order(w, blocks, map, mask, seen, order, &count, stack_blk, stack_op);
        free(map);
        for (uint32_t k = count; k-- > 0;) {
            const block *bk = &blocks[order[k]];
            copy_words(out, out_origin, o, w, c->origin, bk->begin, bk->end - bk->begin);
            o += bk->end - bk->begin;
        }
        /* Unreachable blocks keep their place after the reachable ones. */
        for (uint32_t k = 0; k < nb; k++)
            if (!seen[k]) {
                copy_words(out, out_origin, o, w, c->origin, blocks[k].begin, blocks[k].end - blocks[k].begin);
                o += blocks[k].end - blocks[k].begin;
            }
    }
    free(blocks);
    free(order);
    free(seen);
    free(stack_blk);
    free(stack_op);
    if (!ok || o != n) {
        free(out);
        free(out_origin);
        return 0;
    }
    free(c->words);
    free(c->origin);
    c->words = out;
    c->origin = out_origin;
    return 1;
}

/* The validator counts positions in instructions (1-based); the message gives the word offset too. */
static size_t word_offset(const uint32_t *w, size_t n, size_t instruction)
{
    size_t i = 5;
    for (size_t k = 1; k < instruction && i < n; k++) {
        uint32_t wc = w[i] >> 16;
        if (wc == 0)
            break;
        i += wc;
    }
    return i < n ? i : n;
}

/* The number (1-based) of the instruction at word offset `word` of the module. */
static size_t instruction_number(const uint32_t *w, size_t n, size_t word)
{
    size_t k = 1;
    for (size_t i = 5; i < word && i < n; k++) {
        uint32_t wc = w[i] >> 16;
        if (wc == 0)
            break;
        i += wc;
    }
    return k;
}

/* Where a diagnostic of the validator points, in the original module: *word and *inst (1-based). The validator
 * counts instructions in what it was given, c when not NULL (a copy whose instructions know where they came from),
 * else the module itself. */
static void position(const uint32_t *words, size_t num_words, const krt_spv_copy *c, const spv_diagnostic diag,
                     size_t *word, size_t *inst)
{
    size_t index = diag ? diag->position.index : 0;
    size_t at = c ? krt_spv_copy_origin(c, index) : (size_t)-1;
    if (at == (size_t)-1) {
        *inst = index;
        *word = word_offset(words, num_words, index);
    } else {
        *word = at;
        *inst = instruction_number(words, num_words, at);
    }
}

static spv_result_t run_validator(spv_const_context sctx, spv_const_validator_options opts, const uint32_t *words,
                                  size_t num_words, spv_diagnostic *diag)
{
    spv_const_binary_t bin = { words, num_words };
    spvDiagnosticDestroy(*diag);
    *diag = NULL;
    return spvValidateWithOptions(sctx, opts, &bin, diag);
}

static const char *message(const spv_diagnostic diag)
{
    return diag && diag->error ? diag->error : "rejected by the SPIR-V validator";
}

/* The default policy once the validator has refused the module itself: the same validator on a copy that goes
 * without what it cannot judge, one step at a time, each step taken only for the diagnostic that calls for it:
 * - the decoration-only hints krt checks itself (spirv/extensions.h: SPV_INTEL_memory_access_aliasing, whose
 *   module-scope declarations SPIRV-Tools 2023.1 refuses); no warning, the module is valid and krt judged it;
 * - for a block-order diagnostic, the blocks in dominator order, then the OpLoopMerge placement accepted; a
 *   warning;
 * - where the module declares extensions this SPIRV-Tools does not know, each kind of instruction it refuses that
 *   only an extension gives (an opcode, capability, decoration or execution mode numbered from 4096 up) taken out
 *   of the copy, the rest validated again; a warning naming the extensions and the validator's first complaint.
 * Any other diagnostic rejects the module, pointing at the instruction of the module itself. *diag holds the
 * validator's refusal of the module on entry. */
static krt_result lenient(const krt__log *log, krt__warnings *warnings, spv_const_context sctx,
                          spv_const_validator_options opts, const uint32_t *words, size_t num_words,
                          spv_diagnostic *diag)
{
    krt_spv_copy c;
    if (!krt_spv_copy_init(&c, words, num_words))
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the SPIR-V validator");
    char why[512] = "", order[512] = "", ext[768] = "", what[64];
    krt_result r = KRT_SUCCESS;
    int st = krt_spv_strip_hints(&c, why, sizeof why);
    if (st < 0) {
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the SPIR-V validator");
        goto done;
    }
    if (st == 0) {
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "SPIR-V validation failed: %s", why);
        goto done;
    }
    spv_result_t sr = c.num_words == num_words && memcmp(c.words, words, num_words * sizeof *words) == 0
                          ? SPV_ERROR_INVALID_DATA /* the copy is the module: the validator said so already */
                          : run_validator(sctx, opts, c.words, c.num_words, diag);
    int reordered = 0, unknown = -2; /* -2: not asked yet */
    const char *found[8];
    krt_spv_excluded done = { 0 };
    while (sr != SPV_SUCCESS) {
        const char *msg = message(*diag);
        if (!reordered && (is_order_diagnostic(msg) || is_loop_merge_diagnostic(msg))) {
            snprintf(order, sizeof order, "%s", msg);
            if (!reorder_blocks(&c))
                break;
            reordered = 1;
            sr = run_validator(sctx, opts, c.words, c.num_words, diag);
            continue;
        }
        if (reordered && is_loop_merge_diagnostic(msg)) {
            sr = SPV_SUCCESS; /* the placement reordering cannot repair, which drivers accept */
            break;
        }
        if (unknown == -2 && (unknown = krt_spv_unknown_extensions(words, num_words, found, 8)) < 0) {
            r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the SPIR-V validator");
            goto done;
        }
        size_t word, inst;
        position(words, num_words, &c, *diag, &word, &inst);
        int x = unknown > 0 && *diag ? krt_spv_exclude(&c, (*diag)->position.index, &done, what, sizeof what) : 0;
        if (x < 0) {
            r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the SPIR-V validator");
            goto done;
        }
        if (x == 0)
            break;
        if (!ext[0])
            snprintf(ext, sizeof ext, "%s (at word %zu, instruction %zu)", msg, word, inst);
        sr = run_validator(sctx, opts, c.words, c.num_words, diag);
    }
    if (sr != SPV_SUCCESS) {
        size_t word, inst;
        position(words, num_words, &c, *diag, &word, &inst);
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "SPIR-V validation failed: %s (at word %zu, instruction %zu)",
                      message(*diag), word, inst);
        goto done;
    }
    if (reordered)
        krt__warn(log, warnings, "SPIR-V block order breaks a structured-order rule (accepted, as drivers do): %s",
                  order);
    if (done.count) {
        char names[256] = "";
        for (int k = 0, used = 0; k < unknown && k < 8 && used < (int)sizeof names; k++)
            used += snprintf(names + used, sizeof names - (size_t)used, "%s%s", k ? ", " : "", found[k]);
        krt__warn(log, warnings,
                  "SPIR-V validation: the module declares %s, which this SPIRV-Tools does not know, and its validator "
                  "refuses what only an extension gives (accepted, for the driver to judge): %s",
                  names, ext);
    }
done:
    krt_spv_copy_free(&c);
    return r;
}

krt_result krt__validate(const krt__log *log, const uint32_t *words, size_t num_words, krt_validation policy)
{
    return krt__validate_warn(log, words, num_words, policy, NULL);
}

krt_result krt__validate_warn(const krt__log *log, const uint32_t *words, size_t num_words, krt_validation policy,
                              krt__warnings *warnings)
{
    if (policy == KRT_VALIDATION_NONE)
        return KRT_SUCCESS;
    spv_context sctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    spv_validator_options opts = spvValidatorOptionsCreate();
    if (!sctx || !opts) {
        spvValidatorOptionsDestroy(opts);
        spvContextDestroy(sctx);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the SPIR-V validator");
    }
    spv_diagnostic diag = NULL;
    spv_result_t sr = run_validator(sctx, opts, words, num_words, &diag);
    krt_result r = KRT_SUCCESS;
    if (sr != SPV_SUCCESS && policy == KRT_VALIDATION_DEFAULT) {
        r = lenient(log, warnings, sctx, opts, words, num_words, &diag);
    } else if (sr != SPV_SUCCESS) {
        size_t word, inst;
        position(words, num_words, NULL, diag, &word, &inst);
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "SPIR-V validation failed: %s (at word %zu, instruction %zu)",
                      message(diag), word, inst);
    }
    spvDiagnosticDestroy(diag);
    spvValidatorOptionsDestroy(opts);
    spvContextDestroy(sctx);
    return r;
}
