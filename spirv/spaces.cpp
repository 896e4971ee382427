// ze_pocl's answer to to_global, to_local, to_private and get_fence (OpGenericCastToPtrExplicit,
// OpGenericPtrMemSemantics): on a CPU every address space is the same memory, and PoCL keeps no record of which
// bytes are a work-group's __local ones, so the answer comes from where the pointer came from. groups.cpp leaves a
// call __zp_space_of(pointer, opcode) for each; once every helper is inlined, resolve_spaces follows each such
// pointer back through its casts, offsets, selects and phis to the cast from a named space, and the space travels
// beside it. A pointer whose origin is not in the kernel's registers (loaded from memory, made from an integer) has
// no answer: the module is refused rather than given a guess. On ze_cuda the group library answers from the
// hardware (isspacep) and there is nothing to resolve.
#include "steps.h"
#include "groups_ops.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/SROA.h>

namespace zp::spirv {

namespace {

bool is_kernel(const llvm::Function &f) { return f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL; }

// The space a generic pointer was cast from, as an i32 value at `at` (see the file's comment), or null when its
// origin is not in registers. memo holds the answers found so far, phis included (so that loops close).
struct Spaces {
    std::map<llvm::Value *, llvm::Value *> memo;
    std::string why;

    llvm::Value *of(llvm::Value *v) {
        auto it = memo.find(v);
        if (it != memo.end()) return it->second;
        llvm::LLVMContext &ctx = v->getContext();
        llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
        auto known = [&](unsigned as) { return llvm::ConstantInt::get(i32, as); };
        llvm::Value *r = nullptr;
        if (llvm::isa<llvm::ConstantPointerNull>(v) || llvm::isa<llvm::UndefValue>(v)) {
            r = known(ZP_GSPACE_NULL);
        } else if (auto *op = llvm::dyn_cast<llvm::Operator>(v)) {
            unsigned code = op->getOpcode();
            if (code == llvm::Instruction::AddrSpaceCast) {
                unsigned as = op->getOperand(0)->getType()->getPointerAddressSpace();
                r = as == 4 ? of(op->getOperand(0)) : known(as);
            } else if (code == llvm::Instruction::BitCast || code == llvm::Instruction::GetElementPtr) {
                r = of(op->getOperand(0));
            } else if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(v)) {
                llvm::Value *a = of(sel->getTrueValue()), *b = of(sel->getFalseValue());
                if (a && b) r = a == b ? a : llvm::SelectInst::Create(sel->getCondition(), a, b, "zp.space", sel);
            } else if (auto *phi = llvm::dyn_cast<llvm::PHINode>(v)) {
                auto *sp = llvm::PHINode::Create(i32, phi->getNumIncomingValues(), "zp.space", phi);
                memo[v] = sp;
                for (unsigned k = 0; k < phi->getNumIncomingValues(); k++) {
                    llvm::Value *in = of(phi->getIncomingValue(k));
                    if (!in) {
                        memo[v] = nullptr;
                        return nullptr;
                    }
                    sp->addIncoming(in, phi->getIncomingBlock(k));
                }
                return sp;
            }
        } else if (v->getType()->getPointerAddressSpace() != 4) {
            r = known(v->getType()->getPointerAddressSpace());
        }
        memo[v] = r;
        return r;
    }
};

} // namespace

int resolve_spaces(llvm::Module &m, unsigned flags, std::string &why) {
    llvm::Function *space_of = m.getFunction("__zp_space_of");
    if ((flags & ZP_SPIRV_WARP_SUBGROUPS) || !space_of || space_of->use_empty()) return ZP_SPIRV_OK;
    std::set<llvm::Function *> fns;
    for (llvm::User *u : space_of->users())
        if (auto *c = llvm::dyn_cast<llvm::CallInst>(u)) fns.insert(c->getFunction());
    // Pointers kept in private variables (clang -O0 keeps every local there) come back into registers first.
    llvm::FunctionAnalysisManager fam;
    llvm::PassBuilder pb;
    pb.registerFunctionAnalyses(fam);
    for (llvm::Function *f : fns) {
        llvm::FunctionPassManager fpm;
        fpm.addPass(llvm::SROAPass());
        fpm.run(*f, fam);
    }
    std::vector<llvm::CallInst *> calls;
    for (llvm::User *u : space_of->users())
        if (auto *c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
    Spaces sp;
    for (llvm::CallInst *c : calls) {
        // A helper's own copy, left behind once inlined into every caller (it keeps its linkage, as an exported
        // function of a library module does), runs for no kernel: its casts never run.
        llvm::Function *in = c->getFunction();
        if (!is_kernel(*in) && in->use_empty()) {
            c->replaceAllUsesWith(llvm::ConstantInt::get(c->getType(), ZP_GSPACE_NULL));
            c->eraseFromParent();
            continue;
        }
        llvm::Value *s = sp.of(c->getArgOperand(0));
        if (!s) {
            uint32_t op = 0;
            if (auto *k = llvm::dyn_cast<llvm::ConstantInt>(c->getArgOperand(1))) op = (uint32_t)k->getZExtValue();
            why = std::string("SPIR-V ") + (op == 69 ? "OpGenericPtrMemSemantics" : "OpGenericCastToPtrExplicit") +
                  " (get_fence, to_global, to_local, to_private) in " + c->getFunction()->getName().str() +
                  " reads a generic pointer whose address space ze_pocl cannot tell: on the CPU every space is the "
                  "same memory, so ze_pocl follows a generic pointer back to the cast that made it, and this one "
                  "comes from memory or an integer, not from such a cast in the kernel";
            return ZP_SPIRV_BUILD_FAILURE;
        }
        c->replaceAllUsesWith(s);
        c->eraseFromParent();
    }
    if (space_of->use_empty()) space_of->eraseFromParent();
    return ZP_SPIRV_OK;
}

} // namespace zp::spirv
