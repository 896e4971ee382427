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
#include <string.h>

/* The block-order diagnostics of SPIRV-Tools' CFG checks that -O1..-O3 llvm-spirv output triggers. */
static int is_block_order_diagnostic(const char *msg)
{
    static const char *const patterns[] = {
        "appears in the binary before its dominator",
        "OpLoopMerge must immediately precede",
        "must be the second-to-last instruction in its block",
    };
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (strstr(msg, patterns[i]))
            return 1;
    return 0;
}

krt_result krt__validate(const krt__log *log, const uint32_t *words, size_t num_words, krt_validation policy)
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
    spv_const_binary_t bin = { words, num_words };
    spv_diagnostic diag = NULL;
    spv_result_t sr = spvValidateWithOptions(sctx, opts, &bin, &diag);
    krt_result r = KRT_SUCCESS;
    if (sr != SPV_SUCCESS) {
        const char *msg = diag && diag->error ? diag->error : "rejected by the SPIR-V validator";
        size_t at = diag ? diag->position.index : 0;
        if (policy == KRT_VALIDATION_DEFAULT && is_block_order_diagnostic(msg)) {
            /* SPIRV-Tools stops at its first error, so the checks after the CFG pass did not run on this
             * module; the driver's own checks are what remains. */
            krt__logf(log, KRT_LOG_WARNING,
                      "SPIR-V block order breaks a structured-order rule (accepted, as drivers do): %s (at word %zu)",
                      msg, at);
        } else {
            r = krt__fail(KRT_ERROR_INVALID_MODULE, "SPIR-V validation failed: %s (at word %zu)", msg, at);
        }
    }
    spvDiagnosticDestroy(diag);
    spvValidatorOptionsDestroy(opts);
    spvContextDestroy(sctx);
    return r;
}
