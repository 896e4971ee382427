// The front end's translation (spirv/spirv.h) with a backend's own LLVM passes run inside it, for backends whose
// kernel library or compiler needs the module changed in ways no other backend wants (driver/pocl/pocl_rewrites.cpp).
// C++ only; the passes run under the front end's lock, on the module the translator made.
#ifndef ZP_SPIRV_PASSES_H
#define ZP_SPIRV_PASSES_H

#include <string>

#include "spirv.h"

namespace llvm {
class Module;
}

namespace zp {

// Where a backend's passes run in the translation: after the translator and the builtin forms the flags ask for,
// while helpers are still out of line; and once every helper is inlined into its kernels, before the per-kernel
// facts are read and the exact-range variants added.
class SpirvPasses {
  public:
    virtual ~SpirvPasses() = default;
    virtual void translated(llvm::Module &m) { (void)m; }
    // A non-empty result refuses the module: ZP_SPIRV_BUILD_FAILURE with that log.
    virtual std::string inlined(llvm::Module &m) {
        (void)m;
        return "";
    }
};

// zp_spirv_translate with passes (may be null) run at their points. Thread-safe.
int spirv_translate(const zp_module_src *src, unsigned flags, SpirvPasses *passes, void **out, size_t *out_size,
                    zp_module_meta *meta, char **log);

} // namespace zp

#endif
