// Flat kernels: every helper of the translated module inlined into the kernels that call it.
#include "steps.h"

#include <llvm/IR/Attributes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>

namespace zp::spirv {

// PoCL builds work-group functions by inlining everything a kernel calls; a helper left out of line
// that asks for its work-item id refers to symbols that only exist inside the kernel (the load fails
// with "undefined symbol: _group_id_x"), and PoCL aborts the process. clang -O0 marks every function
// noinline, and the translator repeats the mark on every call site: both marks go, helpers become
// always-inline, and the inliner runs here so PoCL gets flat kernels. The exact-range variants
// (exact_range.cpp) and ze_cuda's launch parameters (driver/cuda/ptx.cpp) count on flat kernels too.
void make_inlinable(llvm::Module &mod) {
    for (llvm::Function &f : mod) {
        if (f.isDeclaration()) continue;
        f.removeFnAttr(llvm::Attribute::OptimizeNone);
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) call->removeFnAttr(llvm::Attribute::NoInline);
        if (f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) continue;
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
    llvm::legacy::PassManager pm;
    pm.add(llvm::createAlwaysInlinerLegacyPass());
    pm.run(mod);
}

} // namespace zp::spirv
