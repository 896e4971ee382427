/*
 * validate.c: SPIRV-Tools validation before the driver sees a module, under krt's policy.
 *
 * Optimised clang + llvm-spirv output for kernels with loops breaks two structured-order rules of spirv-val
 * (a block placed before its dominator; OpLoopMerge not immediately before the loop's branch). llvm-spirv
 * reads such modules back and drivers build them, so rejecting them would refuse what users actually
 * produce. The default policy turns exactly those diagnostics into a warning; every other diagnostic rejects
 * the module. STRICT rejects all; NONE skips the validator (the module must still parse for reflection).
 */
#include "krt_internal.h"

/* libspirv.h defines (not declares) a const in C, which would collide between the two files including it;
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

/* A copy of the module whose blocks are in reverse post-order in every function, which places each block
 * after its dominators. Returns NULL when out of memory or when the function bodies are not as expected. */
static uint32_t *reorder_blocks(const uint32_t *w, size_t n)
{
    uint32_t *out = malloc(n * sizeof *out);
    block *blocks = NULL;
    uint32_t *order = NULL, *stack_blk = NULL, *stack_op = NULL;
    uint8_t *seen = NULL;
    size_t cap = 0;
    if (!out)
        return NULL;
    memcpy(out, w, 5 * sizeof *w);
    size_t i = 5, o = 5;
    int ok = 1;
    while (ok && i < n) {
        uint32_t op = w[i] & 0xFFFF, wc = w[i] >> 16;
        if (wc == 0 || i + wc > n) {
            ok = 0;
            break;
        }
        if (op != OP_LABEL) {
            memcpy(out + o, w + i, wc * sizeof *w);
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
            memcpy(out + o, w + bk->begin, (bk->end - bk->begin) * sizeof *w);
            o += bk->end - bk->begin;
        }
        /* Unreachable blocks keep their place after the reachable ones. */
        for (uint32_t k = 0; k < nb; k++)
            if (!seen[k]) {
                memcpy(out + o, w + blocks[k].begin, (blocks[k].end - blocks[k].begin) * sizeof *w);
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
        return NULL;
    }
    return out;
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

static spv_result_t run_validator(spv_const_context sctx, spv_const_validator_options opts, const uint32_t *words,
                                  size_t num_words, spv_diagnostic *diag)
{
    spv_const_binary_t bin = { words, num_words };
    return spvValidateWithOptions(sctx, opts, &bin, diag);
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
    const char *msg = diag && diag->error ? diag->error : "rejected by the SPIR-V validator";
    if (sr != SPV_SUCCESS && policy == KRT_VALIDATION_DEFAULT &&
        (is_order_diagnostic(msg) || is_loop_merge_diagnostic(msg))) {
        /* Validate a copy whose blocks are in dominator order: what remains is a real error, or the loop
         * merge placement, which the default policy accepts. */
        char first[512];
        snprintf(first, sizeof first, "%s", msg);
        uint32_t *copy = reorder_blocks(words, num_words);
        spv_diagnostic diag2 = NULL;
        spv_result_t sr2 = copy ? run_validator(sctx, opts, copy, num_words, &diag2) : sr;
        const char *msg2 = copy ? (diag2 && diag2->error ? diag2->error : "rejected by the SPIR-V validator") : msg;
        if (sr2 == SPV_SUCCESS || is_loop_merge_diagnostic(msg2)) {
            krt__warn(log, warnings,
                      "SPIR-V block order breaks a structured-order rule (accepted, as drivers do): %s", first);
            sr = SPV_SUCCESS;
        } else if (copy) {
            /* The error that remains in dominator order is the one to report. */
            spvDiagnosticDestroy(diag);
            diag = diag2;
            diag2 = NULL;
            msg = msg2;
        }
        spvDiagnosticDestroy(diag2);
        free(copy);
    }
    if (sr != SPV_SUCCESS) {
        size_t inst = diag ? diag->position.index : 0;
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "SPIR-V validation failed: %s (at word %zu, instruction %zu)", msg,
                      word_offset(words, num_words, inst), inst);
    }
    spvDiagnosticDestroy(diag);
    spvValidatorOptionsDestroy(opts);
    spvContextDestroy(sctx);
    return r;
}
