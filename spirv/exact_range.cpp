// Exact ranges (ZE_krt_exact_range, driver/include/ze_krt_exact_range.h) in the translated module, shared by
// every backend that compiles the module's LLVM (ze_pocl and ze_cuda).
//
// Each kernel k gets a variant, k followed by ZP_EXACT_SUFFIX, for the launches that are not uniform; k itself
// stays as the module has it, so a uniform launch costs what it did (no hidden argument, which PoCL would copy
// at every enqueue, and no entry check). The variant has one hidden parameter after its own, a ulong8 the
// backend sets per launch from zp_ndrange (zp_exact_desc, driver/backend.h): lanes 0-2 the whole launch's range, lanes 3-5 the
// enqueued group size in the low 32 bits and the piece's first group id in the high 32 bits. The work-item builtins the kernel calls are answered from
// it, from the backend's own ("raw") answers for the group the backend runs:
//   get_global_size(d)        range[d]
//   get_enqueued_local_size   enq[d]
//   get_num_groups            ceil(range / enq)
//   get_group_id              raw group id + base
//   get_local_size            min(enq, range - group_id * enq): the real size of a partial group
//   get_global_offset         raw offset - base * enq
//   get_global_linear_id, get_local_linear_id from the above; get_global_id, get_local_id, get_work_dim raw.
// A kernel that does not need whole groups also returns at once from items past the range (the masked items
// of a partial last group). One that does (a barrier, a work-group or sub-group function) never sees such an
// item: driver/exec.c launches its partial groups as pieces of their own size. reqd_work_group_size goes from the
// compiled module, so that such a piece may run with its real size (the driver enforces the size itself).
#include "exact_range.h"

#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "module.h"

namespace zp {

bool needs_whole_groups(const llvm::Function &f) {
    // Set by spirv/groups.cpp on kernels that reach a sub-group or work-group function, whose library code leaves
    // no such name once inlined.
    if (f.hasFnAttribute("zp-whole-groups")) return true;
    for (const llvm::BasicBlock &bb : f)
        for (const llvm::Instruction &i : bb)
            if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
                if (const llvm::Function *callee = call->getCalledFunction()) {
                    llvm::StringRef n = callee->getName();
                    if (n.contains("barrier") || n.contains("work_group_") || n.contains("sub_group_") ||
                        n.contains("__spirv_Group") || n.contains("__spirv_SubgroupBlock"))
                        return true;
                }
    return false;
}

namespace {

struct Builtins {
    llvm::Module &m;
    llvm::IRBuilder<> &b;
    llvm::Value *desc;

    llvm::Value *raw(const char *name, llvm::Value *d) {
        llvm::Type *i64 = b.getInt64Ty(), *i32 = b.getInt32Ty();
        llvm::FunctionCallee fc = m.getOrInsertFunction(name, llvm::FunctionType::get(i64, {i32}, false));
        if (auto *fn = llvm::dyn_cast<llvm::Function>(fc.getCallee())) {
            fn->setCallingConv(llvm::CallingConv::SPIR_FUNC);
            fn->setDoesNotThrow();
        }
        llvm::CallInst *c = b.CreateCall(fc, {d});
        c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
        return c;
    }
    // Lane (at + d) of the descriptor for d in 0..2 (lane `at` for any other d, which the callers replace).
    llvm::Value *lane(unsigned at, llvm::Value *d) {
        if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(d))
            return b.CreateExtractElement(desc, b.getInt32(at + (c->getZExtValue() < 3 ? c->getZExtValue() : 0)));
        llvm::Value *in = b.CreateICmpULT(d, b.getInt32(3));
        return b.CreateExtractElement(desc, b.CreateAdd(b.getInt32(at), b.CreateSelect(in, d, b.getInt32(0))));
    }
    // Without a descriptor (the kernel itself, for uniform launches) the launch is what the backend says.
    llvm::Value *range(llvm::Value *d) { return desc ? lane(0, d) : raw("_Z15get_global_sizej", d); }
    llvm::Value *enq(llvm::Value *d) {
        return desc ? b.CreateAnd(lane(3, d), b.getInt64(0xffffffffu)) : raw("_Z14get_local_sizej", d);
    }
    llvm::Value *base(llvm::Value *d) { return desc ? b.CreateLShr(lane(3, d), b.getInt64(32)) : b.getInt64(0); }
    llvm::Value *group_id(llvm::Value *d) { return b.CreateAdd(raw("_Z12get_group_idj", d), base(d)); }
    llvm::Value *offset(llvm::Value *d) {
        return b.CreateSub(raw("_Z17get_global_offsetj", d), b.CreateMul(base(d), enq(d)));
    }
    llvm::Value *local_size(llvm::Value *d) {
        if (!desc) return raw("_Z14get_local_sizej", d);
        llvm::Value *e = enq(d), *left = b.CreateSub(range(d), b.CreateMul(group_id(d), e));
        return b.CreateSelect(b.CreateICmpULT(left, e), left, e);
    }
    llvm::Value *num_groups(llvm::Value *d) {
        llvm::Value *e = enq(d);
        return b.CreateUDiv(b.CreateSub(b.CreateAdd(range(d), e), b.getInt64(1)), e);
    }
    // What OpenCL answers for a dimension past 2: `other`; else v.
    llvm::Value *in_dims(llvm::Value *d, llvm::Value *v, uint64_t other) {
        if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(d)) return c->getZExtValue() < 3 ? v : b.getInt64(other);
        return b.CreateSelect(b.CreateICmpULT(d, b.getInt32(3)), v, b.getInt64(other));
    }
};


// desc is the variant's hidden parameter; NULL for the kernel itself, in which only OpenCL 2.0's three work-item
// functions are answered (from the backend's own, as a uniform launch has them: libclc for NVPTX lacks them).
void answer_builtins(llvm::Module &m, llvm::Function &f, llvm::Value *desc, bool guard) {
    std::vector<llvm::CallInst *> calls;
    for (llvm::BasicBlock &bb : f)
        for (llvm::Instruction &i : bb)
            if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
                if (llvm::Function *callee = c->getCalledFunction()) {
                    llvm::StringRef n = callee->getName();
                    if (n == "_Z23get_enqueued_local_sizej" || n == "_Z20get_global_linear_idv" ||
                        n == "_Z19get_local_linear_idv" ||
                        (desc && (n == "_Z15get_global_sizej" || n == "_Z14get_num_groupsj" ||
                                  n == "_Z12get_group_idj" || n == "_Z14get_local_sizej" ||
                                  n == "_Z17get_global_offsetj")))
                        calls.push_back(c);
                }
    for (llvm::CallInst *c : calls) {
        llvm::IRBuilder<> b(c);
        Builtins bi{m, b, desc};
        llvm::StringRef n = c->getCalledFunction()->getName();
        llvm::Value *v;
        if (n == "_Z20get_global_linear_idv" || n == "_Z19get_local_linear_idv") {
            bool global = n == "_Z20get_global_linear_idv";
            v = b.getInt64(0);
            for (int d = 2; d >= 0; d--) {
                llvm::Value *dd = b.getInt32(d);
                llvm::Value *id = global ? b.CreateSub(bi.raw("_Z13get_global_idj", dd), bi.offset(dd))
                                         : bi.raw("_Z12get_local_idj", dd);
                v = b.CreateAdd(b.CreateMul(v, global ? bi.range(dd) : bi.local_size(dd)), id);
            }
        } else {
            llvm::Value *d = c->getArgOperand(0);
            if (n == "_Z15get_global_sizej") v = bi.in_dims(d, bi.range(d), 1);
            else if (n == "_Z23get_enqueued_local_sizej") v = bi.in_dims(d, bi.enq(d), 1);
            else if (n == "_Z14get_num_groupsj") v = bi.in_dims(d, bi.num_groups(d), 1);
            else if (n == "_Z12get_group_idj") v = bi.in_dims(d, bi.group_id(d), 0);
            else if (n == "_Z14get_local_sizej") v = bi.in_dims(d, bi.local_size(d), 1);
            else v = bi.in_dims(d, bi.offset(d), 0);
        }
        if (v->getType() != c->getType()) v = b.CreateZExtOrTrunc(v, c->getType());
        c->replaceAllUsesWith(v);
        c->eraseFromParent();
    }
    if (!guard) return;
    // Items past the range return before anything else, after the entry block's allocas (which must stay in
    // the entry block to be static) and a checked kernel's lookups of its arguments' allocations (bounds.cpp,
    // marked zp.bounds.entry: they read nothing the work-item's id changes, and ahead of the test they stay
    // where LLVM may hoist them out of PoCL's work-item loops).
    llvm::BasicBlock &entry = f.getEntryBlock();
    llvm::BasicBlock::iterator at = entry.getFirstInsertionPt();
    while (llvm::isa<llvm::AllocaInst>(&*at) || at->getMetadata("zp.bounds.entry")) ++at;
    llvm::BasicBlock *body = entry.splitBasicBlock(at, "zp.in_range");
    llvm::BasicBlock *masked = llvm::BasicBlock::Create(f.getContext(), "zp.masked", &f);
    llvm::IRBuilder<>(masked).CreateRetVoid();
    entry.getTerminator()->eraseFromParent();
    llvm::IRBuilder<> b(&entry);
    Builtins bi{m, b, desc};
    llvm::Value *in = b.getTrue();
    for (int d = 0; d < 3; d++) {
        llvm::Value *dd = b.getInt32(d);
        llvm::Value *idx = b.CreateSub(bi.raw("_Z13get_global_idj", dd), bi.offset(dd));
        in = b.CreateAnd(in, b.CreateICmpULT(idx, bi.range(dd)));
    }
    b.CreateCondBr(in, body, masked);
}

} // namespace

void extend_arg_metadata(llvm::Function &f, unsigned old_count, unsigned addr_space, const char *type,
                         const char *name) {
    llvm::LLVMContext &ctx = f.getContext();
    llvm::SmallVector<llvm::StringRef, 32> kinds;
    ctx.getMDKindNames(kinds);
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 8> mds;
    f.getAllMetadata(mds);
    for (auto &kv : mds) {
        if (kv.first >= kinds.size()) continue;
        llvm::StringRef kind = kinds[kv.first];
        if (!kind.startswith("kernel_arg_") || kv.second->getNumOperands() != old_count) continue;
        llvm::SmallVector<llvm::Metadata *, 8> ops(kv.second->op_begin(), kv.second->op_end());
        if (kind == "kernel_arg_addr_space")
            ops.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), addr_space)));
        else if (kind == "kernel_arg_access_qual")
            ops.push_back(llvm::MDString::get(ctx, "none"));
        else if (kind == "kernel_arg_type" || kind == "kernel_arg_base_type")
            ops.push_back(llvm::MDString::get(ctx, type));
        else if (kind == "kernel_arg_name")
            ops.push_back(llvm::MDString::get(ctx, name));
        else
            ops.push_back(llvm::MDString::get(ctx, ""));
        f.setMetadata(kv.first, llvm::MDNode::get(ctx, ops));
    }
}

llvm::Function *append_params(llvm::Module &m, llvm::Function *f, llvm::ArrayRef<llvm::Type *> extra) {
    std::vector<llvm::Type *> ps(f->getFunctionType()->param_begin(), f->getFunctionType()->param_end());
    ps.insert(ps.end(), extra.begin(), extra.end());
    auto *nf = llvm::Function::Create(llvm::FunctionType::get(f->getReturnType(), ps, false), f->getLinkage(),
                                      f->getAddressSpace(), "", &m);
    nf->copyAttributesFrom(f);
    nf->setCallingConv(f->getCallingConv());
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 8> mds;
    f->getAllMetadata(mds);
    for (auto &md : mds) nf->addMetadata(md.first, *md.second);
    nf->getBasicBlockList().splice(nf->begin(), f->getBasicBlockList());
    auto na = nf->arg_begin();
    for (llvm::Argument &a : f->args()) {
        na->takeName(&a);
        a.replaceAllUsesWith(&*na++);
    }
    std::string name = f->getName().str();
    if (!f->use_empty()) f->replaceAllUsesWith(llvm::ConstantExpr::getBitCast(nf, f->getType()));
    f->eraseFromParent();
    nf->setName(name);
    return nf;
}

bool add_exact_range(llvm::Module &m, std::string &clash) {
    // A kernel called by another kernel is inlined into it first, so that every call reaches a kernel's body
    // with that kernel's descriptor at hand.
    std::vector<llvm::CallInst *> kernel_calls;
    for (llvm::Function &f : m)
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
                    if (llvm::Function *callee = c->getCalledFunction())
                        if (!callee->isDeclaration() && callee->getCallingConv() == llvm::CallingConv::SPIR_KERNEL)
                            kernel_calls.push_back(c);
    for (llvm::CallInst *c : kernel_calls) {
        llvm::InlineFunctionInfo ifi;
        llvm::InlineFunction(*c, ifi);
    }
    std::vector<llvm::Function *> kernels;
    for (llvm::Function &f : m)
        if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL &&
            f.getReturnType()->isVoidTy())
            kernels.push_back(&f);
    for (llvm::Function *f : kernels)
        if (m.getFunction((f->getName() + ZP_EXACT_SUFFIX).str())) {
            clash = (f->getName() + ZP_EXACT_SUFFIX).str();
            return false;
        }
    for (llvm::Function *f : kernels) {
        bool guard = !needs_whole_groups(*f);
        unsigned nuser = (unsigned)f->arg_size();
        // The kernel itself stays as it was, for uniform launches; the variant gets the descriptor.
        llvm::ValueToValueMapTy vmap;
        llvm::Function *copy = llvm::CloneFunction(f, vmap);
        copy->setName(f->getName() + ZP_EXACT_SUFFIX);
        llvm::Function *nf = append_params(m, copy, {llvm::FixedVectorType::get(llvm::Type::getInt64Ty(m.getContext()), 8)});
        nf->getArg(nuser)->setName("__zp_exact_range");
        extend_arg_metadata(*nf, nuser, 0, "ulong8", "__zp_exact_range"); // the hidden descriptor
        // A required group size stays the driver's to enforce (zeKernelSetGroupSize, from zp_kernel_meta): the
        // compiler must not hold the variant to it, since a partial group runs as a piece of its own size; nor
        // the kernel, since PoCL 3.1 held the variant to the kernel's size too (CL_INVALID_WORK_GROUP_SIZE).
        nf->setMetadata("reqd_work_group_size", nullptr);
        f->setMetadata("reqd_work_group_size", nullptr);
        answer_builtins(m, *nf, nf->getArg(nuser), guard);
        answer_builtins(m, *f, nullptr, false);
    }
    return true;
}

} // namespace zp
