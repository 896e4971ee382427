// The forms of a few OpenCL builtins, as the backend's kernel library takes them (ZP_SPIRV_FENCES_TO_LLVM,
// ZP_SPIRV_WAIT_PRIVATE).
#include "steps.h"

#include <vector>

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace zp::spirv {


// Builtins the translator names in ways some kernel library lacks (the build fails, or PoCL aborts at launch
// on the missing symbol). PoCL 3.1's SPIR wrappers have no mem_fence family and no working generic-pointer
// wait_group_events: fences become LLVM fences, and wait_group_events on a generic pointer (OpenCL 2.0 style)
// becomes the private-pointer form, the one libclc's NVPTX library (ze_cuda) has as well. PoCL 4.0 and later
// have both, and their library (built with generic address space support) has no private-pointer
// wait_group_events at all, so each rewrite runs only when flags ask for it.
void fix_builtins(llvm::Module &mod, unsigned flags) {
    const bool do_fences = flags & ZP_SPIRV_FENCES_TO_LLVM, do_waits = flags & ZP_SPIRV_WAIT_PRIVATE;
    std::vector<llvm::CallInst *> fences, waits;
    for (llvm::Function &f : mod)
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i))
                    if (llvm::Function *callee = call->getCalledFunction()) {
                        llvm::StringRef n = callee->getName();
                        if (do_fences &&
                            (n == "_Z9mem_fencej" || n == "_Z14read_mem_fencej" || n == "_Z15write_mem_fencej"))
                            fences.push_back(call);
                        else if (do_waits && n == "_Z17wait_group_eventsiPU3AS49ocl_event" && call->arg_size() == 2)
                            waits.push_back(call);
                    }
    for (llvm::CallInst *call : fences) {
        new llvm::FenceInst(mod.getContext(), llvm::AtomicOrdering::SequentiallyConsistent, llvm::SyncScope::System,
                            call);
        call->eraseFromParent();
    }
    for (llvm::CallInst *call : waits) {
        llvm::Value *list = call->getArgOperand(1);
        auto *gptr = llvm::dyn_cast<llvm::PointerType>(list->getType());
        if (!gptr || gptr->isOpaque()) continue;
        llvm::PointerType *pptr = llvm::PointerType::get(gptr->getNonOpaquePointerElementType(), 0);
        llvm::FunctionType *ft = llvm::FunctionType::get(call->getType(), {call->getArgOperand(0)->getType(), pptr}, false);
        llvm::FunctionCallee target = mod.getOrInsertFunction("_Z17wait_group_eventsiP9ocl_event", ft);
        auto *cast = new llvm::AddrSpaceCastInst(list, pptr, "", call);
        auto *repl = llvm::CallInst::Create(target, {call->getArgOperand(0), cast}, "", call);
        repl->setCallingConv(call->getCallingConv());
        call->eraseFromParent();
    }
    for (const char *name : {"_Z9mem_fencej", "_Z14read_mem_fencej", "_Z15write_mem_fencej",
                             "_Z17wait_group_eventsiPU3AS49ocl_event"})
        if (llvm::Function *f = mod.getFunction(name))
            if (f->use_empty()) f->eraseFromParent();
}

} // namespace zp::spirv
