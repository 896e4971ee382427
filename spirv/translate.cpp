// The front end's translation, step by step (steps.h): the checks of the binary, the SPIR-V translator
// (libLLVMSPIRVLib, in process) with the specialization constants applied, the group functions, generic pointer
// casts and float atomics lowered and their library linked in, the builtin forms asked for, a backend's own passes
// (passes.h), inlining, the bounds checks of a checked module (bounds.cpp), the per-kernel facts, the exact-range variants, and the module written out as SPIR 1.2
// bitcode or SPIR-V 1.2.
#include "passes.h"
#include "steps.h"
#include "exact_range.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Pass.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace zp {
namespace {

using namespace zp::spirv;

// The translator keeps some global tables; module builds are rare, so one lock is the simple answer.
std::mutex translator_lock;

// The SPIR-V friendly form carries the module's decorations as metadata (spirv.Decorations and
// spirv.ParameterDecorations), which the OpenCL form has never had; without them the module is what the OpenCL
// form gave before, byte for byte.
void strip_decorations(llvm::Module &m) {
    for (llvm::GlobalVariable &g : m.globals()) g.setMetadata("spirv.Decorations", nullptr);
    for (llvm::Function &f : m) {
        f.setMetadata("spirv.Decorations", nullptr);
        f.setMetadata("spirv.ParameterDecorations", nullptr);
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb) i.setMetadata("spirv.Decorations", nullptr);
    }
}

// The translator declares only Float16Buffer for a module that computes in half precision (llvm-spirv 15 does
// so for OpenCL C's half arithmetic), so the capability check of the binary (precheck.cpp) misses it. Half values
// loaded, stored, converted and computed with LLVM's own operations run anywhere (LLVM widens them to float and
// rounds each result back, which for these operations is the correctly rounded half result); a builtin on half
// values (mad, fmin, ... on half) exists only in the kernel library of a device with fp16, and without one PoCL's
// build fails on a missing symbol. Such a call is refused here by name. Pointers to half (vload_half,
// vstore_half) are Float16Buffer's and pass. Empty, or why.
std::string half_builtins(llvm::Module &m) {
    for (llvm::Function &f : m) {
        if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty()) continue;
        bool half = f.getReturnType()->getScalarType()->isHalfTy();
        for (llvm::Type *t : f.getFunctionType()->params()) half |= t->getScalarType()->isHalfTy();
        if (half)
            return "the device does not support SPIR-V capability Float16 (no cl_khr_fp16): the module calls the "
                   "builtin " + f.getName().str() + " on half-precision values (it declares only Float16Buffer, as "
                   "llvm-spirv 15 writes for OpenCL C's half arithmetic)";
    }
    return "";
}

int translate(const zp_module_src *src, unsigned flags, SpirvPasses *passes, void **bitcode, size_t *bitcode_size,
              zp_module_meta *meta, std::string &log) {
    {
        std::vector<uint32_t> words;
        int checked = precheck(src, words, log);
        if (checked == ZP_SPIRV_OK) checked = validate(words, log);
        if (checked != ZP_SPIRV_OK) return checked;
    }

    llvm::LLVMContext ctx;
    ctx.setOpaquePointers(false);
    SPIRV::TranslatorOpts opts;
    opts.enableAllExtensions();
    // The SPIR-V friendly form first (every instruction the translator does not make LLVM IR is a __spirv_ call
    // with all its operands), so that groups.cpp sees scopes and group operations; then the OpenCL lowering the
    // translator would have run itself, with the same result for everything else.
    opts.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::SPIRVFriendlyIR);
    set_spec_consts(src, opts);

    std::string bytes(reinterpret_cast<const char *>(src->spirv), src->size);
    std::istringstream is(bytes);
    llvm::Module *raw = nullptr;
    std::string err;
    if (!llvm::readSpirv(ctx, opts, is, raw, err) || !raw) {
        delete raw;
        log = "SPIR-V translation failed: " + err;
        return ZP_SPIRV_BUILD_FAILURE;
    }
    std::unique_ptr<llvm::Module> mod(raw);
    strip_decorations(*mod);
    int rc = lower_groups(*mod, flags, src, log);
    if (rc != ZP_SPIRV_OK) return rc;
    {
        llvm::legacy::PassManager pm;
        pm.add((flags & ZP_SPIRV_OCL20) ? llvm::createSPIRVToOCL20Legacy() : llvm::createSPIRVToOCL12Legacy());
        pm.run(*mod);
    }
    log = leftover_instructions(*mod);
    if (!log.empty()) return ZP_SPIRV_BUILD_FAILURE;
    std::string verr;
    llvm::raw_string_ostream vos(verr);
    if (llvm::verifyModule(*mod, &vos)) {
        vos.flush();
        log = "translated module is invalid: " + verr;
        return ZP_SPIRV_BUILD_FAILURE;
    }
    if (!src->fp16 && !(log = half_builtins(*mod)).empty()) return ZP_SPIRV_BUILD_FAILURE;
    rc = link_groups(*mod, flags, log);
    if (rc != ZP_SPIRV_OK) return rc;
    fix_builtins(*mod, flags);
    if (passes) passes->translated(*mod);
    make_inlinable(*mod);
    if (src->bounds_table) {
        // Checked after inlining, where an access's underlying object is the kernel's own (bounds.cpp); the check
        // itself is then linked and inlined like the group library's other functions.
        rc = add_bounds_checks(*mod, src->bounds_table, !(flags & ZP_SPIRV_WARP_SUBGROUPS),
                               (flags & ZP_SPIRV_BOUNDS_AT_EXIT) != 0, log);
        if (rc == ZP_SPIRV_OK) rc = link_groups(*mod, flags, log);
        if (rc != ZP_SPIRV_OK) return rc;
        make_inlinable(*mod);
    }
    rc = resolve_spaces(*mod, flags, log);
    if (rc != ZP_SPIRV_OK) return rc;
    generic_builtins(*mod, flags);
    if (passes) {
        std::string refused = passes->inlined(*mod);
        if (!refused.empty()) {
            log = refused;
            return ZP_SPIRV_BUILD_FAILURE;
        }
    }
    rc = extract_meta(*mod, meta);
    if (rc == ZP_SPIRV_OK) rc = extract_globals(*mod, meta);
    if (rc != ZP_SPIRV_OK) return rc;
    if ((flags & ZP_SPIRV_GLOBALS_KERNEL) && !place_globals(*mod, meta, log)) return ZP_SPIRV_BUILD_FAILURE;
    if ((flags & (ZP_SPIRV_SHORT_NAMES | ZP_SPIRV_PTX_NAMES)) &&
        (rc = shorten_kernel_names(*mod, meta, (flags & ZP_SPIRV_PTX_NAMES) != 0)) != ZP_SPIRV_OK)
        return rc;
    std::string clash;
    if ((flags & ZP_SPIRV_EXACT_RANGE) && !add_exact_range(*mod, clash)) {
        log = "the module has a function named " + clash + ", the name the driver gives a kernel's exact-range "
              "variant";
        return ZP_SPIRV_BUILD_FAILURE;
    }

    if (flags & ZP_SPIRV_EMIT_SPIRV) {
        // SPIR-V 1.2: the newest version PoCL's CPU devices list in CL_DEVICE_IL_VERSION.
        SPIRV::TranslatorOpts wopts(SPIRV::VersionNumber::SPIRV_1_2);
        wopts.enableAllExtensions();
        std::ostringstream os;
        std::string werr;
        if (!llvm::writeSpirv(mod.get(), wopts, os, werr)) {
            log = "SPIR-V could not be written back for PoCL: " + werr;
            return ZP_SPIRV_BUILD_FAILURE;
        }
        std::string out = os.str();
        *bitcode = std::malloc(out.size() ? out.size() : 1);
        if (!*bitcode) return ZP_SPIRV_OUT_OF_MEMORY;
        std::memcpy(*bitcode, out.data(), out.size());
        *bitcode_size = out.size();
        return ZP_SPIRV_OK;
    }

    llvm::SmallVector<char, 0> buf;
    llvm::raw_svector_ostream os(buf);
    llvm::WriteBitcodeToFile(*mod, os);
    *bitcode = std::malloc(buf.size());
    if (!*bitcode) return ZP_SPIRV_OUT_OF_MEMORY;
    std::memcpy(*bitcode, buf.data(), buf.size());
    *bitcode_size = buf.size();
    return ZP_SPIRV_OK;
}

} // namespace

int spirv_translate(const zp_module_src *src, unsigned flags, SpirvPasses *passes, void **out, size_t *out_size,
                    zp_module_meta *meta, char **log) {
    *out = nullptr;
    *out_size = 0;
    *log = nullptr;
    meta->count = 0;
    meta->kernels = nullptr;
    meta->num_globals = 0;
    meta->globals = nullptr;
    meta->globals_size = 0;
    std::string text;
    int rc;
    try {
        std::lock_guard<std::mutex> g(translator_lock);
        rc = translate(src, flags, passes, out, out_size, meta, text);
    } catch (const std::bad_alloc &) {
        rc = ZP_SPIRV_OUT_OF_MEMORY;
        text = "out of memory";
    } catch (...) {
        rc = ZP_SPIRV_BUILD_FAILURE;
        text = "SPIR-V translation failed";
    }
    if (rc != ZP_SPIRV_OK) {
        zp_spirv_meta_free(meta);
        std::free(*out);
        *out = nullptr;
    }
    if (!text.empty()) *log = dup_string(text);
    return rc;
}

} // namespace zp

extern "C" int zp_spirv_translate(const zp_module_src *src, unsigned flags, void **out, size_t *out_size,
                                  zp_module_meta *meta, char **log) {
    return zp::spirv_translate(src, flags, nullptr, out, out_size, meta, log);
}

extern "C" void zp_spirv_warm_up(void) {
    // OpCapability Addresses, Linkage, Kernel; OpMemoryModel Physical64 OpenCL: a valid empty library.
    static const uint32_t empty[] = {0x07230203, 0x00010000, 0x00070000, 1, 0, 0x00020011, 4, 0x00020011, 5,
                                     0x00020011, 6, 0x0003000e, 2, 2};
    zp_module_src src{};
    src.spirv = reinterpret_cast<const uint8_t *>(empty);
    src.size = sizeof empty;
    void *bc = nullptr;
    size_t bc_size = 0;
    zp_module_meta meta{};
    char *log = nullptr;
    zp_spirv_translate(&src, ZP_SPIRV_FENCES_TO_LLVM | ZP_SPIRV_WAIT_PRIVATE | ZP_SPIRV_EXACT_RANGE, &bc, &bc_size,
                       &meta, &log);
    std::free(bc);
    std::free(log);
    zp_spirv_meta_free(&meta);
}
