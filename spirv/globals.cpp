// Program-scope variables: the ones a module exports (OpenCL C 2.0's `global` and `constant` variables at program
// scope, SPIR-V CrossWorkgroup and UniformConstant variables with Export linkage), listed for
// zeModuleGetGlobalPointer with a constant's value; and, for a backend whose compiler gives each kernel its own copy
// of them (PoCL 3.1), the global ones moved into one storage that the kernels take as a hidden argument, with the
// kernel that initialises it (ZP_GLOBALS_KERNEL, spirv/module.h).
#include "steps.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "exact_range.h"

namespace zp::spirv {
namespace {

// Exported program-scope variables in the translated module's order: definitions in the global (1) or constant (2)
// address space with a linkage another module could name.
std::vector<llvm::GlobalVariable *> exported(llvm::Module &mod) {
    std::vector<llvm::GlobalVariable *> out;
    for (llvm::GlobalVariable &g : mod.globals()) {
        unsigned as = g.getAddressSpace();
        if ((as != 1 && as != 2) || g.isDeclaration() || g.hasLocalLinkage() || !g.hasName()) continue;
        if (g.getName().startswith("llvm.") || g.getName().startswith("__spirv_")) continue;
        out.push_back(&g);
    }
    return out;
}

// Writes the value of c, of c's type, as it lies in memory (little-endian, the data layout's offsets) into out,
// which is zeroed and large enough. False for what has no fixed bytes (addresses, constant expressions).
bool to_bytes(const llvm::Constant *c, const llvm::DataLayout &dl, uint8_t *out) {
    if (llvm::isa<llvm::ConstantAggregateZero>(c) || llvm::isa<llvm::UndefValue>(c) || c->isNullValue()) return true;
    if (!dl.isLittleEndian()) return false;
    auto put = [&](const llvm::APInt &v) {
        unsigned bytes = (v.getBitWidth() + 7) / 8;
        for (unsigned i = 0; i < bytes; i++) out[i] = (uint8_t)v.extractBitsAsZExtValue(std::min(8u, v.getBitWidth() - 8 * i), 8 * i);
        return true;
    };
    if (auto *ci = llvm::dyn_cast<llvm::ConstantInt>(c)) return put(ci->getValue());
    if (auto *cf = llvm::dyn_cast<llvm::ConstantFP>(c)) return put(cf->getValueAPF().bitcastToAPInt());
    if (auto *cd = llvm::dyn_cast<llvm::ConstantDataSequential>(c)) {
        llvm::Type *et = cd->getElementType();
        uint64_t stride = llvm::isa<llvm::VectorType>(cd->getType()) ? dl.getTypeStoreSize(et) : dl.getTypeAllocSize(et);
        for (unsigned i = 0; i < cd->getNumElements(); i++)
            if (!to_bytes(cd->getElementAsConstant(i), dl, out + i * stride)) return false;
        return true;
    }
    if (auto *ca = llvm::dyn_cast<llvm::ConstantArray>(c)) {
        uint64_t stride = dl.getTypeAllocSize(ca->getType()->getElementType());
        for (unsigned i = 0; i < ca->getNumOperands(); i++)
            if (!to_bytes(ca->getOperand(i), dl, out + i * stride)) return false;
        return true;
    }
    if (auto *cv = llvm::dyn_cast<llvm::ConstantVector>(c)) {
        uint64_t stride = dl.getTypeStoreSize(cv->getType()->getElementType());
        for (unsigned i = 0; i < cv->getNumOperands(); i++)
            if (!to_bytes(cv->getOperand(i), dl, out + i * stride)) return false;
        return true;
    }
    if (auto *cs = llvm::dyn_cast<llvm::ConstantStruct>(c)) {
        const llvm::StructLayout *sl = dl.getStructLayout(cs->getType());
        for (unsigned i = 0; i < cs->getNumOperands(); i++)
            if (!to_bytes(cs->getOperand(i), dl, out + sl->getElementOffset(i))) return false;
        return true;
    }
    return false;
}

} // namespace

int extract_globals(llvm::Module &mod, zp_module_meta *meta) {
    std::vector<llvm::GlobalVariable *> gs = exported(mod);
    if (gs.empty()) return ZP_SPIRV_OK;
    const llvm::DataLayout &dl = mod.getDataLayout();
    meta->globals = static_cast<zp_global_meta *>(std::calloc(gs.size(), sizeof(zp_global_meta)));
    if (!meta->globals) return ZP_SPIRV_OUT_OF_MEMORY;
    for (llvm::GlobalVariable *g : gs) {
        zp_global_meta *m = &meta->globals[meta->num_globals];
        m->name = dup_string(g->getName().str());
        if (!m->name) return ZP_SPIRV_OUT_OF_MEMORY;
        m->size = dl.getTypeAllocSize(g->getValueType());
        m->constant = g->getAddressSpace() == 2;
        m->offset = UINT64_MAX;
        if (m->constant && g->hasInitializer()) {
            m->init = static_cast<uint8_t *>(std::calloc(m->size ? m->size : 1, 1));
            if (!m->init) return ZP_SPIRV_OUT_OF_MEMORY;
            if (!to_bytes(g->getInitializer(), dl, m->init)) {
                std::free(m->init);
                m->init = nullptr;
            }
        }
        meta->num_globals++;
    }
    return ZP_SPIRV_OK;
}

namespace {

// Every instruction that uses c, through constant expressions.
void instruction_users(llvm::Constant *c, std::set<llvm::Instruction *> &out, bool &other, int depth = 0) {
    for (llvm::User *u : c->users()) {
        if (auto *i = llvm::dyn_cast<llvm::Instruction>(u))
            out.insert(i);
        else if (auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(u); ce && depth < 32)
            instruction_users(ce, out, other, depth + 1);
        else
            other = true; /* another global's initializer, metadata: not an instruction */
    }
}

// The uses of g in functions, each an instruction operand of its own (constant expressions made instructions);
// false when g is used elsewhere too (another variable's initializer), where it cannot be moved.
bool materialize_uses(llvm::GlobalVariable *g) {
    std::set<llvm::Instruction *> insts;
    bool other = false;
    instruction_users(g, insts, other);
    if (other) return false;
    for (llvm::Instruction *i : insts) {
        if (llvm::isa<llvm::PHINode>(i)) return false;
        for (llvm::Use &op : i->operands())
            if (auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(op.get())) llvm::convertConstantExprsToInstructions(i, ce);
    }
    for (llvm::User *u : g->users())
        if (!llvm::isa<llvm::Instruction>(u) && !llvm::isa<llvm::ConstantExpr>(u)) return false;
    return true;
}

// Sets the kernel_arg_* metadata of a new kernel with one global char pointer parameter.
void new_kernel_metadata(llvm::Function &f, const char *name) {
    llvm::LLVMContext &ctx = f.getContext();
    auto md = [&](llvm::Metadata *m) { return llvm::MDNode::get(ctx, {m}); };
    f.setMetadata("kernel_arg_addr_space",
                  md(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))));
    f.setMetadata("kernel_arg_access_qual", md(llvm::MDString::get(ctx, "none")));
    f.setMetadata("kernel_arg_type", md(llvm::MDString::get(ctx, "char*")));
    f.setMetadata("kernel_arg_base_type", md(llvm::MDString::get(ctx, "char*")));
    f.setMetadata("kernel_arg_type_qual", md(llvm::MDString::get(ctx, "")));
    f.setMetadata("kernel_arg_name", md(llvm::MDString::get(ctx, name)));
}

// A byte loop in f's builder copying size bytes from src to dst; the builder is left after the loop.
void copy_bytes(llvm::IRBuilder<> &b, llvm::Function *f, llvm::Value *dst, llvm::Value *src, uint64_t size) {
    if (size == 0) return;
    llvm::LLVMContext &ctx = f->getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(ctx), *i64 = llvm::Type::getInt64Ty(ctx);
    llvm::BasicBlock *pre = b.GetInsertBlock();
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(ctx, "copy", f);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx, "copied", f);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode *i = b.CreatePHI(i64, 2);
    i->addIncoming(b.getInt64(0), pre);
    llvm::Value *v = b.CreateLoad(i8, b.CreateGEP(i8, src, i));
    b.CreateStore(v, b.CreateGEP(i8, dst, i));
    llvm::Value *next = b.CreateAdd(i, b.getInt64(1));
    i->addIncoming(next, loop);
    b.CreateCondBr(b.CreateICmpULT(next, b.getInt64(size)), loop, after);
    b.SetInsertPoint(after);
}

} // namespace

bool place_globals(llvm::Module &mod, zp_module_meta *meta, std::string &why) {
    for (uint32_t i = 0; i < meta->num_globals; i++) meta->globals[i].offset = UINT64_MAX;
    // Variables of the global address space move into the storage (when every use is in a function). Constants stay
    // with each kernel: their values never change, and the host reads the copy the driver makes of meta's init.
    const llvm::DataLayout &dl = mod.getDataLayout();
    struct Placed {
        llvm::GlobalVariable *g;
        uint64_t offset, size;
        bool moved;
    };
    std::vector<Placed> placed;
    uint64_t at = 0;
    auto place = [&](llvm::GlobalVariable *g, bool moved) {
        uint64_t size = dl.getTypeAllocSize(g->getValueType());
        uint64_t align = std::max<uint64_t>(16, g->getAlign() ? g->getAlign()->value() : 1);
        at = (at + align - 1) / align * align;
        placed.push_back({g, at, size, moved});
        at += size;
    };
    std::vector<llvm::GlobalVariable *> gs;
    for (llvm::GlobalVariable &g : mod.globals()) gs.push_back(&g);
    for (llvm::GlobalVariable *g : gs) {
        if (g->isDeclaration() || !g->hasName() || g->getName().startswith("llvm.") ||
            g->getName().startswith("__spirv_"))
            continue;
        if (g->getAddressSpace() == 1 && materialize_uses(g)) place(g, true);
    }
    if (placed.empty()) return true;
    if (mod.getFunction(ZP_GLOBALS_KERNEL)) {
        why = std::string("the module has a function named ") + ZP_GLOBALS_KERNEL +
              ", the name of the kernel the driver adds for the module's global variables";
        return false;
    }
    for (const Placed &p : placed)
        for (uint32_t i = 0; i < meta->num_globals; i++)
            if (p.g->getName() == meta->globals[i].name) meta->globals[i].offset = p.offset;
    meta->globals_size = at ? at : 1;

    llvm::LLVMContext &ctx = mod.getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(ctx);
    llvm::PointerType *storage_ty = llvm::PointerType::get(i8, 1);
    // A kernel called by another kernel is inlined into it first (as for the exact-range variants), so that no
    // call passes a kernel fewer arguments than it now takes.
    std::vector<llvm::CallInst *> kernel_calls;
    for (llvm::Function &fn : mod)
        for (llvm::BasicBlock &bb : fn)
            for (llvm::Instruction &i : bb)
                if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
                    if (llvm::Function *callee = c->getCalledFunction())
                        if (!callee->isDeclaration() && callee->getCallingConv() == llvm::CallingConv::SPIR_KERNEL)
                            kernel_calls.push_back(c);
    for (llvm::CallInst *c : kernel_calls) {
        llvm::InlineFunctionInfo ifi;
        llvm::InlineFunction(*c, ifi);
    }
    // Every kernel takes the storage after its own parameters and reaches the moved variables in it.
    std::vector<llvm::Function *> kernels;
    for (llvm::Function &f : mod)
        if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) kernels.push_back(&f);
    for (llvm::Function *f : kernels) {
        unsigned n = (unsigned)f->arg_size();
        llvm::Function *nf = append_params(mod, f, {storage_ty});
        nf->getArg(n)->setName("__zp_globals");
        extend_arg_metadata(*nf, n, 1, "char*", "__zp_globals"); // a global char pointer
    }
    for (const Placed &p : placed) {
        if (!p.moved) continue;
        std::map<llvm::Function *, llvm::Value *> at_fn;
        std::vector<llvm::Instruction *> users;
        for (llvm::User *u : p.g->users())
            if (auto *i = llvm::dyn_cast<llvm::Instruction>(u)) users.push_back(i);
        for (llvm::Instruction *i : users) {
            llvm::Function *f = i->getFunction();
            if (f->getCallingConv() != llvm::CallingConv::SPIR_KERNEL) continue; /* only kernels remain after inlining */
            llvm::Value *&v = at_fn[f];
            if (!v) {
                llvm::BasicBlock &entry = f->getEntryBlock();
                llvm::BasicBlock::iterator it = entry.getFirstInsertionPt();
                while (llvm::isa<llvm::AllocaInst>(&*it)) ++it;
                llvm::IRBuilder<> b(&entry, it);
                llvm::Value *ptr = b.CreateConstGEP1_64(i8, f->getArg(f->arg_size() - 1), p.offset);
                v = b.CreateBitCast(ptr, p.g->getType());
            }
            i->replaceUsesOfWith(p.g, v);
        }
    }
    // The kernel that writes every variable's initial value (its own copy's) into the storage.
    auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {storage_ty}, false),
                                     llvm::GlobalValue::ExternalLinkage, ZP_GLOBALS_KERNEL, &mod);
    f->setCallingConv(llvm::CallingConv::SPIR_KERNEL);
    f->getArg(0)->setName("storage");
    new_kernel_metadata(*f, "storage");
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
    for (const Placed &p : placed) {
        llvm::Value *dst = b.CreateConstGEP1_64(i8, f->getArg(0), p.offset);
        llvm::Value *src = b.CreateBitCast(p.g, llvm::PointerType::get(i8, p.g->getAddressSpace()));
        copy_bytes(b, f, dst, src, p.size);
    }
    b.CreateRetVoid();
    return true;
}

} // namespace zp::spirv
