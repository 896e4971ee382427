// SPIR-V -> PTX for ze_cuda.
//
// The front half is the SPIR-V front end ze_pocl uses too (spirv/: the structural pre-checks, the SPIR-V
// translator, specialization constants, inlining, the per-kernel facts and the exact-range variants). The back
// half here retargets that SPIR 1.2 module to NVPTX: address spaces, calling conventions, __local arguments,
// libclc's builtins, then LLVM's optimizer and the NVPTX code generator.
#include "ptx.h"
#include "../../spirv/exact_range.h"
#include "../../spirv/spirv.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>


extern "C" {
void LLVMInitializeNVPTXTargetInfo(void);
void LLVMInitializeNVPTXTarget(void);
void LLVMInitializeNVPTXTargetMC(void);
void LLVMInitializeNVPTXAsmPrinter(void);
}

namespace {

const char *const kTriple = "nvptx64-nvidia-cuda";
const char *const kLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";
// The extern .shared block every __local pointer argument points into (see rewrite_local_args).
const char *const kDynLocal = "__zc_dynamic_local";

char *dup_string(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p) std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

// SPIR address spaces -> NVPTX's. SPIR: 0 private, 1 global, 2 constant, 3 local, 4 generic. NVPTX: 0
// generic (private allocas live there until NVPTX lowers them), 1 global, 3 shared, 4 const. __constant
// becomes global: a __constant kernel argument is a cuMemAlloc pointer, which CUDA's constant bank cannot
// hold, and one space for both arguments and program-scope constants keeps helper functions valid.
unsigned map_as(unsigned as) { return as == 2 ? 1 : as == 4 ? 0 : as; }

struct AsRemap : llvm::ValueMapTypeRemapper {
    llvm::LLVMContext &ctx;
    std::map<llvm::Type *, llvm::Type *> memo;
    explicit AsRemap(llvm::LLVMContext &c) : ctx(c) {}
    llvm::Type *remapType(llvm::Type *t) override {
        auto it = memo.find(t);
        if (it != memo.end()) return it->second;
        llvm::Type *r = t;
        if (auto *p = llvm::dyn_cast<llvm::PointerType>(t)) {
            r = llvm::PointerType::get(ctx, map_as(p->getAddressSpace()));
        } else if (auto *v = llvm::dyn_cast<llvm::VectorType>(t)) {
            r = llvm::VectorType::get(remapType(v->getElementType()), v->getElementCount());
        } else if (auto *a = llvm::dyn_cast<llvm::ArrayType>(t)) {
            r = llvm::ArrayType::get(remapType(a->getElementType()), a->getNumElements());
        } else if (auto *f = llvm::dyn_cast<llvm::FunctionType>(t)) {
            std::vector<llvm::Type *> ps;
            for (llvm::Type *p : f->params()) ps.push_back(remapType(p));
            r = llvm::FunctionType::get(remapType(f->getReturnType()), ps, f->isVarArg());
        } else if (auto *s = llvm::dyn_cast<llvm::StructType>(t)) {
            if (!s->isOpaque()) {
                std::vector<llvm::Type *> els;
                bool changed = false;
                for (llvm::Type *e : s->elements()) {
                    els.push_back(remapType(e));
                    changed |= els.back() != e;
                }
                if (changed) {
                    if (s->isLiteral())
                        r = llvm::StructType::get(ctx, els, s->isPacked());
                    else
                        r = llvm::StructType::create(ctx, els, s->getName().str() + ".nvptx", s->isPacked());
                }
            }
        }
        memo[t] = r;
        return r;
    }
};

// A copy of the module with every type's address spaces mapped; the module's own types cannot be changed
// in place (constants are uniqued by type).
std::unique_ptr<llvm::Module> remap_module(llvm::Module &m) {
    llvm::LLVMContext &ctx = m.getContext();
    auto out = std::make_unique<llvm::Module>(m.getName(), ctx);
    llvm::ValueToValueMapTy vm;
    AsRemap remap(ctx);
    for (llvm::GlobalVariable &g : m.globals()) {
        auto *ng = new llvm::GlobalVariable(*out, remap.remapType(g.getValueType()), g.isConstant(), g.getLinkage(),
                                            nullptr, g.getName(), nullptr, g.getThreadLocalMode(),
                                            map_as(g.getAddressSpace()));
        ng->copyAttributesFrom(&g);
        vm[&g] = ng;
    }
    for (llvm::Function &f : m) {
        auto *nf = llvm::Function::Create(llvm::cast<llvm::FunctionType>(remap.remapType(f.getFunctionType())),
                                          f.getLinkage(), f.getAddressSpace(), f.getName(), out.get());
        nf->copyAttributesFrom(&f);
        vm[&f] = nf;
    }
    for (llvm::GlobalVariable &g : m.globals())
        if (g.hasInitializer())
            llvm::cast<llvm::GlobalVariable>(vm[&g])->setInitializer(
                llvm::MapValue(g.getInitializer(), vm, llvm::RF_None, &remap));
    for (llvm::Function &f : m) {
        if (f.isDeclaration()) continue;
        auto *nf = llvm::cast<llvm::Function>(vm[&f]);
        auto dst = nf->arg_begin();
        for (llvm::Argument &a : f.args()) {
            dst->setName(a.getName());
            vm[&a] = &*dst++;
        }
        llvm::SmallVector<llvm::ReturnInst *, 8> rets;
        llvm::CloneFunctionInto(nf, &f, vm, llvm::CloneFunctionChangeType::DifferentModule, rets, "", nullptr,
                                &remap);
    }
    // Casts between spaces that are now one (private -> generic) become no-ops.
    for (llvm::Function &f : *out) {
        std::vector<llvm::Instruction *> dead;
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *c = llvm::dyn_cast<llvm::AddrSpaceCastInst>(&i))
                    if (c->getSrcAddressSpace() == c->getDestAddressSpace()) {
                        c->replaceAllUsesWith(c->getOperand(0));
                        dead.push_back(c);
                    }
        for (llvm::Instruction *i : dead) i->eraseFromParent();
    }
    // Intrinsic names spell their pointer types' address spaces; declarations get their right names.
    std::vector<llvm::Function *> intr;
    for (llvm::Function &f : *out)
        if (f.isIntrinsic()) intr.push_back(&f);
    for (llvm::Function *f : intr)
        if (auto nf = llvm::Intrinsic::remangleIntrinsicFunction(f)) {
            f->replaceAllUsesWith(*nf);
            f->eraseFromParent();
        }
    return out;
}

// Builtins named for a space libclc has no overload for: __constant overloads become the __global ones
// (the space __constant now is), generic ones the private ones (generic and private are both NVPTX 0).
void rename_builtins(llvm::Module &m) {
    std::vector<std::pair<llvm::Function *, std::string>> todo;
    for (llvm::Function &f : m) {
        if (!f.isDeclaration() || f.isIntrinsic()) continue;
        std::string n = f.getName().str(), w = n;
        for (size_t p; (p = w.find("U3AS2")) != std::string::npos;) w.replace(p, 5, "U3AS1");
        for (size_t p; (p = w.find("PU3AS4")) != std::string::npos;) w.replace(p, 6, "P");
        if (w != n) todo.push_back({&f, w});
    }
    for (auto &t : todo) {
        llvm::Function *f = t.first;
        if (llvm::Function *e = m.getFunction(t.second)) {
            if (e->getFunctionType() == f->getFunctionType()) {
                f->replaceAllUsesWith(e);
                f->eraseFromParent();
            }
            continue;
        }
        f->setName(t.second);
    }
}

void add_annotation(llvm::Module &m, llvm::Function *f, const char *key, uint32_t value) {
    llvm::LLVMContext &ctx = m.getContext();
    llvm::Metadata *ops[] = {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx, key),
                             llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
    m.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, ops));
}

// Kernels become PTX entries (calling convention and the nvvm.annotations mark), everything else the C
// convention libclc's functions have; a required group size becomes .reqntid.
void retarget(llvm::Module &m, std::vector<llvm::Function *> &kernels) {
    m.setTargetTriple(kTriple);
    m.setDataLayout(kLayout);
    for (llvm::Function &f : m) {
        if (f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) {
            f.setCallingConv(llvm::CallingConv::PTX_Kernel);
            if (!f.isDeclaration()) kernels.push_back(&f);
        } else {
            f.setCallingConv(llvm::CallingConv::C);
        }
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) call->setCallingConv(llvm::CallingConv::C);
    }
    for (llvm::Function *f : kernels) {
        add_annotation(m, f, "kernel", 1);
        if (llvm::MDNode *md = f->getMetadata("reqd_work_group_size")) {
            static const char *keys[] = {"reqntidx", "reqntidy", "reqntidz"};
            for (unsigned d = 0; d < 3 && d < md->getNumOperands(); d++)
                if (auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(d)))
                    add_annotation(m, f, keys[d], (uint32_t)c->getZExtValue());
        }
    }
}

// CUDA cannot pass a __local pointer: a kernel's shared memory beyond its static variables is one dynamic
// block. Each __local pointer argument keeps its place and type, but the launch passes its byte offset into
// that block (ze_cuda's kernel_set_arg lays the arguments out and sizes the block), and the kernel adds the
// block's address on entry.
void rewrite_local_args(llvm::Module &m, const std::vector<llvm::Function *> &kernels) {
    llvm::LLVMContext &ctx = m.getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(ctx), *i64 = llvm::Type::getInt64Ty(ctx);
    auto *block = new llvm::GlobalVariable(m, llvm::ArrayType::get(i8, 0), false, llvm::GlobalValue::ExternalLinkage,
                                           nullptr, kDynLocal, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    block->setAlignment(llvm::Align(128));
    for (llvm::Function *f : kernels) {
        llvm::IRBuilder<> b(&*f->getEntryBlock().getFirstInsertionPt());
        for (llvm::Argument &a : f->args()) {
            auto *pt = llvm::dyn_cast<llvm::PointerType>(a.getType());
            if (!pt || pt->getAddressSpace() != 3 || a.use_empty()) continue;
            auto *off = llvm::cast<llvm::Instruction>(b.CreatePtrToInt(&a, i64));
            llvm::Value *p = b.CreateGEP(i8, block, off);
            a.replaceAllUsesWith(p);
            off->setOperand(0, &a);
        }
    }
    if (block->use_empty()) block->eraseFromParent();
}

// NVPTX in LLVM 15 cannot select an LLVM fence (the front end turns mem_fence into one): a device-wide
// membar orders every space a fence can name.
void lower_fences(llvm::Module &m) {
    std::vector<llvm::FenceInst *> fences;
    for (llvm::Function &f : m)
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *fe = llvm::dyn_cast<llvm::FenceInst>(&i)) fences.push_back(fe);
    if (fences.empty()) return;
    llvm::Function *membar = llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::nvvm_membar_gl);
    for (llvm::FenceInst *fe : fences) {
        llvm::CallInst::Create(membar, "", fe);
        fe->eraseFromParent();
    }
}

// What CUDA does not know of an NDRange: its dimension count and global offset. Every kernel gets four
// hidden parameters after its own and the exact-range descriptor (i32 work_dim, i64 offset x, y, z; ze_cuda's launch passes them), and
// get_work_dim, get_global_offset and get_global_id (libclc's has no offset) read them. The front end has
// inlined every helper into its kernels, so the calls sit in kernel bodies.
std::vector<llvm::Function *> add_launch_params(llvm::Module &m, const std::vector<llvm::Function *> &kernels) {
    llvm::LLVMContext &ctx = m.getContext();
    llvm::Type *i32 = llvm::Type::getInt32Ty(ctx), *i64 = llvm::Type::getInt64Ty(ctx);
    std::vector<llvm::Function *> out;
    for (llvm::Function *f : kernels) {
        unsigned nuser = (unsigned)f->arg_size();
        llvm::Function *nf = zp::append_params(m, f, {i32, i64, i64, i64});
        llvm::Argument *dim = nf->getArg(nuser);
        dim->setName("__zc_work_dim");
        llvm::Value *off[3] = {nf->getArg(nuser + 1), nf->getArg(nuser + 2), nf->getArg(nuser + 3)};
        std::vector<llvm::CallInst *> calls;
        for (llvm::BasicBlock &bb : *nf)
            for (llvm::Instruction &i : bb)
                if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
                    if (llvm::Function *callee = c->getCalledFunction()) {
                        llvm::StringRef n = callee->getName();
                        if (n == "_Z12get_work_dimv" || n == "_Z17get_global_offsetj" || n == "_Z13get_global_idj")
                            calls.push_back(c);
                    }
        for (llvm::CallInst *c : calls) {
            llvm::StringRef n = c->getCalledFunction()->getName();
            llvm::IRBuilder<> b(c->getNextNode());
            if (n == "_Z12get_work_dimv") {
                c->replaceAllUsesWith(dim);
                c->eraseFromParent();
                continue;
            }
            llvm::Value *d = c->getArgOperand(0);
            llvm::Value *o = b.CreateSelect(b.CreateICmpEQ(d, b.getInt32(0)), off[0],
                             b.CreateSelect(b.CreateICmpEQ(d, b.getInt32(1)), off[1],
                             b.CreateSelect(b.CreateICmpEQ(d, b.getInt32(2)), off[2], b.getInt64(0))));
            if (o->getType() != c->getType()) o = b.CreateZExtOrTrunc(o, c->getType());
            if (n == "_Z17get_global_offsetj") {
                c->replaceAllUsesWith(o);
                c->eraseFromParent();
            } else {
                auto *sum = llvm::cast<llvm::Instruction>(b.CreateAdd(c, o));
                c->replaceAllUsesWith(sum);
                sum->setOperand(0, c);
            }
        }
        out.push_back(nf);
    }
    for (const char *n : {"_Z12get_work_dimv", "_Z17get_global_offsetj"})
        if (llvm::Function *f = m.getFunction(n))
            if (f->use_empty()) f->eraseFromParent();
    return out;
}

// OpenCL's atom_* / atomic_* builtins that libclc lacks for NVPTX (the 64-bit ones of
// cl_khr_int64_*_atomics) become LLVM atomic instructions, which NVPTX selects as atom.*.
void lower_atomics(llvm::Module &m) {
    struct Op { const char *name; llvm::AtomicRMWInst::BinOp op; int kind; }; // kind 0: rmw, 1: inc/dec, 2: cmpxchg
    static const Op ops[] = {
        {"add", llvm::AtomicRMWInst::Add, 0}, {"sub", llvm::AtomicRMWInst::Sub, 0},
        {"xchg", llvm::AtomicRMWInst::Xchg, 0}, {"and", llvm::AtomicRMWInst::And, 0},
        {"or", llvm::AtomicRMWInst::Or, 0}, {"xor", llvm::AtomicRMWInst::Xor, 0},
        {"min", llvm::AtomicRMWInst::Min, 0}, {"max", llvm::AtomicRMWInst::Max, 0},
        {"inc", llvm::AtomicRMWInst::Add, 1}, {"dec", llvm::AtomicRMWInst::Sub, 1},
        {"cmpxchg", llvm::AtomicRMWInst::Xchg, 2}};
    std::vector<llvm::Function *> decls;
    for (llvm::Function &f : m)
        if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty()) decls.push_back(&f);
    for (llvm::Function *f : decls) {
        std::string n = f->getName().str();
        if (n.compare(0, 2, "_Z") != 0) continue;
        size_t p = 2, len = 0;
        while (p < n.size() && isdigit((unsigned char)n[p])) len = len * 10 + (n[p++] - '0');
        if (len == 0 || p + len > n.size()) continue;
        std::string base = n.substr(p, len), params = n.substr(p + len);
        std::string op;
        if (base.compare(0, 5, "atom_") == 0) op = base.substr(5);
        else if (base.compare(0, 7, "atomic_") == 0) op = base.substr(7);
        else continue;
        const Op *o = nullptr;
        for (const Op &c : ops)
            if (op == c.name) o = &c;
        if (!o || params.find("U3AS") == std::string::npos || params.empty()) continue;
        // The pointee's mangled type: the first letter after "V" (volatile) of the pointer parameter.
        size_t v = params.find('V');
        char t = v != std::string::npos && v + 1 < params.size() ? params[v + 1] : 0;
        llvm::AtomicRMWInst::BinOp bop = o->op;
        bool is_unsigned = t == 'm' || t == 'j';
        if (bop == llvm::AtomicRMWInst::Min && is_unsigned) bop = llvm::AtomicRMWInst::UMin;
        if (bop == llvm::AtomicRMWInst::Max && is_unsigned) bop = llvm::AtomicRMWInst::UMax;
        std::vector<llvm::CallInst *> calls;
        for (llvm::User *u : f->users())
            if (auto *c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
        for (llvm::CallInst *c : calls) {
            llvm::IRBuilder<> b(c);
            llvm::Value *ptr = c->getArgOperand(0), *r = nullptr;
            llvm::Type *ty = c->getType();
            if (!ty->isIntegerTy()) break;
            llvm::MaybeAlign al(ty->getPrimitiveSizeInBits() / 8);
            if (o->kind == 0 && c->arg_size() == 2) {
                r = b.CreateAtomicRMW(bop, ptr, c->getArgOperand(1), al, llvm::AtomicOrdering::Monotonic);
            } else if (o->kind == 1 && c->arg_size() == 1) {
                r = b.CreateAtomicRMW(bop, ptr, llvm::ConstantInt::get(ty, 1), al, llvm::AtomicOrdering::Monotonic);
            } else if (o->kind == 2 && c->arg_size() == 3) {
                auto *x = b.CreateAtomicCmpXchg(ptr, c->getArgOperand(1), c->getArgOperand(2), al,
                                                llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
                r = b.CreateExtractValue(x, 0);
            }
            if (!r) continue;
            c->replaceAllUsesWith(r);
            c->eraseFromParent();
        }
    }
}

// OpenCL C 2.0's ctz (count trailing zeros), which libclc 15 lacks: LLVM's cttz with a defined result at zero (the
// width, as OpenCL says), on any integer or integer vector. DPC++'s sort (dpnp.tensor's sort and argsort) calls it.
void lower_ctz(llvm::Module &m) {
    std::vector<llvm::Function *> decls;
    for (llvm::Function &f : m)
        if (f.isDeclaration() && !f.use_empty() && f.getName().startswith("_Z3ctz") && f.arg_size() == 1 &&
            f.getReturnType() == f.getArg(0)->getType() && f.getReturnType()->isIntOrIntVectorTy())
            decls.push_back(&f);
    for (llvm::Function *f : decls) {
        std::vector<llvm::CallInst *> calls;
        for (llvm::User *u : f->users())
            if (auto *c = llvm::dyn_cast<llvm::CallInst>(u))
                if (c->getCalledFunction() == f) calls.push_back(c);
        for (llvm::CallInst *c : calls) {
            llvm::IRBuilder<> b(c);
            llvm::Value *r = b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, c->getArgOperand(0), b.getFalse());
            c->replaceAllUsesWith(r);
            c->eraseFromParent();
        }
    }
}

// OpenCL's printf becomes CUDA's vprintf(format, buffer): the arguments, promoted as C promotes variadic
// arguments, are laid out in a private buffer each at its natural alignment, which is the layout vprintf reads.
// CUDA prints the buffer at the next synchronization. Vector arguments (%v4f) have no vprintf form: refused.
std::string lower_printf(llvm::Module &m) {
    llvm::Function *pf = m.getFunction("printf");
    if (!pf || pf->use_empty()) return "";
    llvm::LLVMContext &ctx = m.getContext();
    llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
    llvm::PointerType *gen = llvm::PointerType::get(ctx, 0);
    llvm::FunctionCallee vprintf = m.getOrInsertFunction("vprintf", llvm::FunctionType::get(i32, {gen, gen}, false));
    std::vector<llvm::CallInst *> calls;
    for (llvm::User *u : pf->users())
        if (auto *c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
    const llvm::DataLayout &dl = m.getDataLayout();
    for (llvm::CallInst *c : calls) {
        llvm::IRBuilder<> b(c);
        std::vector<llvm::Value *> vals;
        std::vector<llvm::Type *> tys;
        for (unsigned a = 1; a < c->arg_size(); a++) {
            llvm::Value *v = c->getArgOperand(a);
            llvm::Type *t = v->getType();
            if (t->isVectorTy()) return "printf with a vector argument has no CUDA form";
            if (t->isFloatTy() || t->isHalfTy()) v = b.CreateFPExt(v, b.getDoubleTy());
            else if (t->isIntegerTy() && t->getIntegerBitWidth() < 32) v = b.CreateSExt(v, i32);
            else if (t->isPointerTy() && t->getPointerAddressSpace() != 0) v = b.CreateAddrSpaceCast(v, gen);
            vals.push_back(v);
            tys.push_back(v->getType());
        }
        llvm::Value *buf = llvm::ConstantPointerNull::get(gen);
        if (!vals.empty()) {
            llvm::StructType *st = llvm::StructType::get(ctx, tys);
            llvm::IRBuilder<> entry(&*c->getFunction()->getEntryBlock().getFirstInsertionPt());
            llvm::AllocaInst *al = entry.CreateAlloca(st);
            al->setAlignment(llvm::Align(8));
            for (unsigned k = 0; k < vals.size(); k++) b.CreateStore(vals[k], b.CreateStructGEP(st, al, k));
            buf = al;
            (void)dl;
        }
        llvm::Value *fmt = c->getArgOperand(0);
        if (fmt->getType()->getPointerAddressSpace() != 0) fmt = b.CreateAddrSpaceCast(fmt, gen);
        llvm::CallInst *nc = b.CreateCall(vprintf, {fmt, buf});
        c->replaceAllUsesWith(nc);
        c->eraseFromParent();
    }
    if (pf->use_empty()) pf->eraseFromParent();
    return "";
}

// Math intrinsics NVPTX selects only under unsafe-math (libclc's native_* and half_* builtins use them): the
// f32 ones become PTX's approximate instructions, which is what native_* asks for. Whatever else of the kind is
// left cannot be selected, and LLVM would abort the process on it: named instead.
std::string lower_math(llvm::Module &m) {
    struct Map { llvm::Intrinsic::ID from, to; };
    static const Map maps[] = {{llvm::Intrinsic::sin, llvm::Intrinsic::nvvm_sin_approx_f},
                               {llvm::Intrinsic::cos, llvm::Intrinsic::nvvm_cos_approx_f},
                               {llvm::Intrinsic::exp2, llvm::Intrinsic::nvvm_ex2_approx_f},
                               {llvm::Intrinsic::log2, llvm::Intrinsic::nvvm_lg2_approx_f}};
    std::vector<llvm::Function *> fs;
    for (llvm::Function &f : m)
        if (f.isIntrinsic() && !f.use_empty()) fs.push_back(&f);
    std::string bad;
    for (llvm::Function *f : fs) {
        llvm::Intrinsic::ID id = f->getIntrinsicID();
        for (const Map &mp : maps) {
            if (id != mp.from || !f->getReturnType()->isFloatTy()) continue;
            llvm::Function *to = llvm::Intrinsic::getDeclaration(&m, mp.to);
            std::vector<llvm::CallInst *> calls;
            for (llvm::User *u : f->users())
                if (auto *c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
            for (llvm::CallInst *c : calls) {
                auto *nc = llvm::CallInst::Create(to, {c->getArgOperand(0)}, "", c);
                c->replaceAllUsesWith(nc);
                c->eraseFromParent();
            }
        }
        switch (id) {
        case llvm::Intrinsic::sin: case llvm::Intrinsic::cos: case llvm::Intrinsic::exp:
        case llvm::Intrinsic::exp2: case llvm::Intrinsic::log: case llvm::Intrinsic::log2:
        case llvm::Intrinsic::log10: case llvm::Intrinsic::pow: case llvm::Intrinsic::powi:
            if (!f->use_empty()) bad += (bad.empty() ? "" : ", ") + f->getName().str();
            break;
        default: break;
        }
    }
    return bad.empty() ? "" : "math the NVPTX code generator cannot select: " + bad;
}

// libclc 15 has no half-precision builtin but vload_half and its kin, while every CUDA device ze_cuda runs has fp16
// and NVPTX selects half arithmetic. A builtin on half values (mad, fmin, sqrt, ... on half or its vectors) that
// libclc lacks becomes its float form, the half arguments widened (exactly) and a half result rounded back once,
// within OpenCL's half-precision bounds. Builtins that take a pointer (fract(half, half *) would write a float
// through it) are left, and named as missing after the link.
// nextafter of half (or halfN), which libclc lacks, by its bits: computed in float it would step by a float's ulp
// and round back to x (dpnp's test_nextafter_basic[f2] found it). NaN in, NaN out; x == y gives y; from zero the
// smallest subnormal with y's sign; otherwise one step of x's magnitude, up when y lies farther from zero on x's side.
void define_half_nextafter(llvm::Function *f) {
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(f->getContext(), "", f));
    llvm::Value *x = f->getArg(0), *y = f->getArg(1);
    llvm::Type *ht = x->getType(), *it = b.getInt16Ty();
    if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(ht)) it = llvm::FixedVectorType::get(it, v->getNumElements());
    auto c16 = [&](uint16_t k) { return llvm::ConstantInt::get(it, k); };
    llvm::Value *ix = b.CreateBitCast(x, it), *iy = b.CreateBitCast(y, it);
    llvm::Value *zero = b.CreateICmpEQ(b.CreateAnd(ix, c16(0x7fff)), c16(0));
    llvm::Value *from_zero = b.CreateOr(b.CreateAnd(iy, c16(0x8000)), c16(1));
    llvm::Value *up = b.CreateXor(b.CreateFCmpOLT(x, y), b.CreateICmpSLT(ix, c16(0)));
    llvm::Value *step = b.CreateSelect(up, b.CreateAdd(ix, c16(1)), b.CreateSub(ix, c16(1)));
    llvm::Value *r = b.CreateBitCast(b.CreateSelect(zero, from_zero, step), ht);
    r = b.CreateSelect(b.CreateFCmpOEQ(x, y), y, r);
    r = b.CreateSelect(b.CreateFCmpUNO(x, y), b.CreateFAdd(x, y), r);
    b.CreateRet(r);
}

void promote_half_builtins(llvm::Module &m, llvm::Module &clc) {
    std::vector<llvm::Function *> todo;
    for (llvm::Function &f : m)
        if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty() && f.getName().startswith("_Z") &&
            !clc.getFunction(f.getName()))
            todo.push_back(&f);
    auto widen = [&](llvm::Type *t) -> llvm::Type * {
        if (t->isHalfTy()) return llvm::Type::getFloatTy(m.getContext());
        if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t))
            if (v->getElementType()->isHalfTy())
                return llvm::FixedVectorType::get(llvm::Type::getFloatTy(m.getContext()), v->getNumElements());
        return t;
    };
    for (llvm::Function *f : todo) {
        std::string n = f->getName().str();
        size_t p = 2, len = 0;
        while (p < n.size() && isdigit((unsigned char)n[p])) len = len * 10 + (n[p++] - '0');
        if (len == 0 || p + len > n.size()) continue;
        std::string params = n.substr(p + len), fparams = params;
        if (params.find("Dh") == std::string::npos) continue;
        if (n.substr(p, len) == "nextafter" && f->arg_size() == 2 && f->getReturnType()->getScalarType()->isHalfTy() &&
            f->getArg(0)->getType() == f->getReturnType() && f->getArg(1)->getType() == f->getReturnType()) {
            define_half_nextafter(f);
            continue;
        }
        for (size_t at; (at = fparams.find("Dh")) != std::string::npos;) fparams.replace(at, 2, "f");
        std::string fname = n.substr(0, p + len) + fparams;
        if (!clc.getFunction(fname)) continue;
        llvm::FunctionType *ft = f->getFunctionType();
        bool pointer = false;
        std::vector<llvm::Type *> ps;
        for (llvm::Type *t : ft->params()) {
            pointer |= t->isPointerTy();
            ps.push_back(widen(t));
        }
        if (pointer) continue;
        // The float builtin's own result type: a relational function of halfN answers shortN, of floatN intN
        // (isnan, isinf, signbit of half4 return short4; called as the float4 one, the result is int4).
        llvm::Type *ret = ft->getReturnType(), *fret = clc.getFunction(fname)->getReturnType();
        bool fp_back = ret->isFPOrFPVectorTy() && fret->isFPOrFPVectorTy();
        bool int_back = ret->isIntOrIntVectorTy() && fret->isIntOrIntVectorTy() &&
                        (!ret->isVectorTy() || (fret->isVectorTy() && llvm::cast<llvm::FixedVectorType>(ret)->getNumElements() ==
                                                                          llvm::cast<llvm::FixedVectorType>(fret)->getNumElements()));
        if (ret != fret && !fp_back && !int_back) continue;
        llvm::FunctionType *fft = llvm::FunctionType::get(fret, ps, false);
        llvm::FunctionCallee callee = m.getOrInsertFunction(fname, fft);
        f->setLinkage(llvm::GlobalValue::InternalLinkage);
        llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "", f));
        std::vector<llvm::Value *> args;
        for (llvm::Argument &a : f->args())
            args.push_back(a.getType() == widen(a.getType()) ? static_cast<llvm::Value *>(&a)
                                                             : b.CreateFPExt(&a, widen(a.getType())));
        llvm::Value *r = b.CreateCall(callee, args);
        if (ret->isVoidTy()) b.CreateRetVoid();
        else if (r->getType() == ret) b.CreateRet(r);
        else b.CreateRet(fp_back ? b.CreateFPTrunc(r, ret) : b.CreateSExtOrTrunc(r, ret));
    }
}

// CUDA passes a kernel's parameters in a 4 KiB constant bank (the limit every architecture and driver takes;
// more needs CUDA 12.1 and an opt-in), and NVPTX's instruction selection flattens every by-value aggregate
// into its scalars, so a huge by-value struct (a valid module may declare one of terabytes) would never finish
// building. Kernels whose parameters exceed the bank are refused, naming the kernel and the size.
constexpr uint64_t kParamBytes = 4096;

std::string check_param_sizes(const llvm::Module &m, const std::vector<llvm::Function *> &kernels) {
    const llvm::DataLayout &dl = m.getDataLayout();
    for (const llvm::Function *f : kernels) {
        uint64_t total = 0;
        for (const llvm::Argument &a : f->args()) {
            llvm::Type *ty = a.hasByValAttr() ? a.getParamByValType() : a.getType();
            uint64_t bytes = ty->isSized() ? dl.getTypeAllocSize(ty).getKnownMinSize() : 0;
            total = bytes > kParamBytes ? kParamBytes + 1 : total + bytes;
            if (total > kParamBytes)
                return "kernel " + f->getName().str() + ": its parameters (argument " + std::to_string(a.getArgNo()) +
                       " takes " + std::to_string(bytes) + " bytes) exceed the " + std::to_string(kParamBytes) +
                       " bytes CUDA passes to a kernel; pass large data through a buffer";
        }
    }
    return "";
}

const llvm::Target *nvptx_target(std::string &err) {
    static std::once_flag once;
    std::call_once(once, [] {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
    });
    return llvm::TargetRegistry::lookupTarget(kTriple, err);
}

std::string verify(llvm::Module &m) {
    std::string verr;
    llvm::raw_string_ostream vos(verr);
    if (!llvm::verifyModule(m, &vos)) return "";
    vos.flush();
    return verr.empty() ? "invalid module" : verr;
}

// Issue 39: a kernel whose private memory is past what CUDA gives a thread (ZC_LOCAL_MAX, as zc_front's meta counts
// it) would fail the whole module in ptxas, or worse (NVPTX emits PTX without the stack frame of a private array of
// 2^64 bytes). Its body becomes a trap, its exact-range variant's too: the entry stays, so that the module's other
// kernels build and run and zeKernelCreate finds it, and the object model refuses its launches (zc_kernel_create).
void stub_private_hogs(llvm::Module &m, const zp_module_meta *meta) {
    if (!meta) return;
    std::set<std::string> hogs;
    for (uint32_t i = 0; i < meta->count; i++)
        if (meta->kernels[i].private_size > ZC_LOCAL_MAX && meta->kernels[i].name) {
            hogs.insert(meta->kernels[i].name);
            hogs.insert(std::string(meta->kernels[i].name) + ZP_EXACT_SUFFIX);
        }
    if (hogs.empty()) return;
    for (llvm::Function &f : m) {
        if (f.isDeclaration() || f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL || !hogs.count(f.getName().str()))
            continue;
        f.dropAllReferences(); // the body goes; the function stays a definition with its linkage
        llvm::BasicBlock *bb = llvm::BasicBlock::Create(m.getContext(), "private_memory_refused", &f);
        llvm::IRBuilder<> b(bb);
        b.CreateCall(llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::trap));
        b.CreateUnreachable();
    }
}

// LLVM 15's NVPTX back end emits a 64-bit rotate by a register amount as shl by the amount, shr by 64 minus it,
// and an add (its ROTL64reg_sw and ROTR64reg_sw templates), which is right only for amounts below 64, while the
// rotate it selects from is modular: the DAG drops the "and 63" of the source as bits a rotate does not need
// (OpenCL C's ~(1L << (i % 63)) becomes a rotate of -2 by i + i / 63, and every work-item past the first 63 got 0).
// Each such block gets the amount reduced modulo 64 in a register of its own first.
void mask_rotate_amounts(std::string &ptx) {
    static const char decl[] = ".reg .u32 %amt2;";
    for (size_t at = 0; (at = ptx.find(decl, at)) != std::string::npos;) {
        size_t end = ptx.find('}', at);
        if (end == std::string::npos) break;
        // The first shift of the block: "sh[lr].b64 \t%lhs, SRC, AMT;".
        size_t sh = ptx.find("%lhs, ", at);
        size_t comma = sh == std::string::npos ? sh : ptx.find(", ", sh + 6);
        size_t semi = comma == std::string::npos ? comma : ptx.find(';', comma);
        if (semi == std::string::npos || semi > end) {
            at = end;
            continue;
        }
        std::string amt = ptx.substr(comma + 2, semi - comma - 2);
        size_t line = ptx.rfind('\n', sh) + 1;
        while (ptx[line] == '\t') line++;
        ptx.insert(line, "and.b32 \t%amt1, " + amt + ", 63;\n\t");
        ptx.replace(at, sizeof decl - 1, ".reg .u32 %amt1;\n\t.reg .u32 %amt2;");
        end = ptx.find('}', at);
        // The amount as the two shifts use it: the first shift's last operand, and the subtraction's.
        for (const char *use : {", 64, ", "%lhs, "}) {
            size_t u = ptx.find(use, at);
            if (u == std::string::npos || u > end) continue;
            size_t a = use[2] == '6' ? u + std::strlen(use) : ptx.find(", ", ptx.find(", ", u) + 2) + 2;
            if (ptx.compare(a, amt.size(), amt) == 0 && ptx[a + amt.size()] == ';') ptx.replace(a, amt.size(), "%amt1");
        }
        at = end;
    }
}

int back(const void *bitcode, size_t size, const zp_module_meta *meta, std::string &ptx, std::string &log) {
    llvm::LLVMContext ctx;
    // libclc's bitcode has opaque pointers; LLVM 15 reads the front end's typed module into that mode too.
    ctx.setOpaquePointers(true);
    auto buf = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(static_cast<const char *>(bitcode), size), "spirv", false);
    auto parsed = llvm::parseBitcodeFile(buf->getMemBufferRef(), ctx);
    if (!parsed) {
        log = "reading the translated module failed: " + llvm::toString(parsed.takeError());
        return ZC_BUILD_FAILURE;
    }
    // The module's exported program-scope variables stay visible in the PTX, under their names, so that
    // zeModuleGetGlobalPointer finds them (cuModuleGetGlobal); everything else is internalized below.
    std::set<std::string> exported;
    for (llvm::GlobalVariable &g : (*parsed)->globals())
        if ((g.getAddressSpace() == 1 || g.getAddressSpace() == 2) && !g.isDeclaration() && !g.hasLocalLinkage() &&
            g.hasName() && !g.getName().startswith("llvm.") && !g.getName().startswith("__spirv_"))
            exported.insert(g.getName().str());
    stub_private_hogs(**parsed, meta);
    std::unique_ptr<llvm::Module> mod = remap_module(**parsed);
    parsed->reset();
    rename_builtins(*mod);
    std::vector<llvm::Function *> kernels;
    retarget(*mod, kernels);
    std::string pe0 = check_param_sizes(*mod, kernels);
    if (!pe0.empty()) {
        log = pe0;
        return ZC_BUILD_FAILURE;
    }
    kernels = add_launch_params(*mod, kernels);
    rewrite_local_args(*mod, kernels);
    lower_fences(*mod);
    std::string pe = lower_printf(*mod);
    if (!pe.empty()) {
        log = pe;
        return ZC_BUILD_FAILURE;
    }
    std::string v = verify(*mod);
    if (!v.empty()) {
        log = "the module could not be mapped to NVPTX: " + v;
        return ZC_BUILD_FAILURE;
    }

    const char *clc = zc_libclc_path();
    auto clc_buf = llvm::MemoryBuffer::getFile(clc);
    if (!clc_buf) {
        log = std::string("cannot read libclc's NVPTX library ") + clc + " (package libclc-15; or set ZE_CUDA_LIBCLC)";
        return ZC_BUILD_FAILURE;
    }
    // Lazily: only the functions the module calls are read from the 8 MB library.
    auto lib = llvm::getOwningLazyBitcodeModule(std::move(*clc_buf), ctx);
    if (!lib) {
        log = std::string("cannot parse ") + clc + ": " + llvm::toString(lib.takeError());
        return ZC_BUILD_FAILURE;
    }
    (*lib)->setTargetTriple(kTriple);
    (*lib)->setDataLayout(kLayout);
    promote_half_builtins(*mod, **lib);
    if (llvm::Linker::linkModules(*mod, std::move(*lib), llvm::Linker::LinkOnlyNeeded)) {
        log = "linking libclc failed";
        return ZC_BUILD_FAILURE;
    }
    lower_atomics(*mod);
    lower_ctz(*mod);
    // Whatever is still only declared has no definition anywhere: name it rather than let ptxas fail.
    std::string missing;
    for (llvm::Function &f : *mod)
        if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty() && f.getName() != "vprintf")
            missing += (missing.empty() ? "" : ", ") + f.getName().str();
    if (!missing.empty()) {
        log = "functions with no NVPTX definition (not in libclc): " + missing;
        return ZC_BUILD_FAILURE;
    }
    for (llvm::Function &f : *mod)
        if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
            f.setLinkage(llvm::GlobalValue::InternalLinkage);
    for (llvm::GlobalVariable &g : mod->globals())
        if (!g.isDeclaration() && g.getName() != kDynLocal && !g.getName().startswith("llvm.") &&
            !exported.count(g.getName().str()))
            g.setLinkage(llvm::GlobalValue::InternalLinkage);

    std::string err;
    const llvm::Target *target = nvptx_target(err);
    if (!target) {
        log = "LLVM has no NVPTX target: " + err;
        return ZC_BUILD_FAILURE;
    }
    llvm::TargetOptions topts;
    std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
        kTriple, ZC_PTX_ARCH, ZC_PTX_FEATURES, topts, llvm::None, llvm::None, llvm::CodeGenOpt::Aggressive));
    if (!tm) {
        log = "cannot create the NVPTX target machine";
        return ZC_BUILD_FAILURE;
    }
    mod->setDataLayout(tm->createDataLayout());

    {
        llvm::LoopAnalysisManager lam;
        llvm::FunctionAnalysisManager fam;
        llvm::CGSCCAnalysisManager cgam;
        llvm::ModuleAnalysisManager mam;
        llvm::PassBuilder pb(tm.get());
        pb.registerModuleAnalyses(mam);
        pb.registerCGSCCAnalyses(cgam);
        pb.registerFunctionAnalyses(fam);
        pb.registerLoopAnalyses(lam);
        pb.crossRegisterProxies(lam, fam, cgam, mam);
        llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
        mpm.run(*mod, mam);
    }
    v = verify(*mod);
    if (!v.empty()) {
        log = "optimized module is invalid: " + v;
        return ZC_BUILD_FAILURE;
    }
    std::string me = lower_math(*mod);
    if (!me.empty()) {
        log = me;
        return ZC_BUILD_FAILURE;
    }

    llvm::SmallString<0> out;
    llvm::raw_svector_ostream os(out);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile)) {
        log = "the NVPTX code generator cannot emit PTX";
        return ZC_BUILD_FAILURE;
    }
    pm.run(*mod);
    ptx.assign(out.begin(), out.end());
    mask_rotate_amounts(ptx);
    return ZC_OK;
}

// What CUDA has nothing to map to, found in the SPIR-V itself: the Shader capability (graphics modules), and
// image and pipe types. A sampler argument alone is let through: such a kernel builds, and setting the argument
// is refused (ZE_RESULT_ERROR_UNSUPPORTED_FEATURE), as ze_pocl does.
std::string unmappable(const zp_module_src *src) {
    enum { OP_CAPABILITY = 17, OP_TYPE_IMAGE = 25, OP_TYPE_SAMPLED_IMAGE = 27, OP_TYPE_PIPE = 38, CAP_SHADER = 1 };
    size_t n = src->size / 4;
    std::vector<uint32_t> w(n);
    std::memcpy(w.data(), src->spirv, n * 4);
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > n) break;
        if (op == OP_CAPABILITY && wc >= 2 && w[i + 1] == CAP_SHADER)
            return "the module declares the Shader capability: ze_cuda runs OpenCL kernels only";
        if (op == OP_TYPE_IMAGE || op == OP_TYPE_SAMPLED_IMAGE)
            return "the module uses an image type (an image argument or variable): ze_cuda cannot map images to CUDA";
        if (op == OP_TYPE_PIPE) return "the module uses a pipe type: ze_cuda cannot map pipes to CUDA";
        i += wc;
    }
    return "";
}

// Build options: what the translation honours or may ignore; anything else is refused, as an OpenCL compiler
// refuses an option it does not know.
std::string bad_option(const char *flags) {
    static const char *const known[] = {
        "-cl-fast-relaxed-math", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only", "-cl-denorms-are-zero", "-cl-single-precision-constant", "-cl-opt-disable",
        "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp",
        "-cl-kernel-arg-info", "-w", "-Werror", "-g", "-cl-intel-greater-than-4GB-buffer-required"};
    static const char *const stds[] = {"-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0",
                                       "-cl-std=CL3.0"};
    if (!flags) return "";
    std::string f(flags);
    size_t i = 0;
    while (i < f.size()) {
        while (i < f.size() && std::isspace((unsigned char)f[i])) i++;
        size_t j = i;
        while (j < f.size() && !std::isspace((unsigned char)f[j])) j++;
        if (j == i) break;
        std::string t = f.substr(i, j - i);
        i = j;
        bool ok = t.compare(0, 2, "-D") == 0 || t.compare(0, 2, "-I") == 0 || t.compare(0, 4, "-ze-") == 0;
        for (const char *k : known) ok |= t == k;
        for (const char *k : stds) ok |= t == k;
        if (!ok) return "unknown or unsupported build option '" + t + "'";
        if ((t == "-D" || t == "-I") && i < f.size()) { // the value is the next word
            while (i < f.size() && std::isspace((unsigned char)f[i])) i++;
            while (i < f.size() && !std::isspace((unsigned char)f[i])) i++;
        }
    }
    return "";
}

} // namespace

extern "C" const char *zc_libclc_path(void) {
    const char *p = std::getenv("ZE_CUDA_LIBCLC");
    return p && *p ? p : "/usr/lib/clc/nvptx64--nvidiacl.bc";
}

extern "C" int zc_front(const zp_module_src *src, void **bitcode, size_t *size, zp_module_meta *meta, char **log) {
    // mem_fence as an LLVM fence (lower_fences makes it a membar) and wait_group_events in the private-pointer
    // form, the one libclc's NVPTX library defines; sub-groups are warps.
    int rc = zp_spirv_translate(src,
                                ZP_SPIRV_FENCES_TO_LLVM | ZP_SPIRV_WAIT_PRIVATE | ZP_SPIRV_EXACT_RANGE |
                                    ZP_SPIRV_WARP_SUBGROUPS | ZP_SPIRV_BOUNDS_AT_EXIT | ZP_SPIRV_PTX_NAMES,
                                bitcode, size, meta, log);
    if (rc != ZP_SPIRV_OK) return rc;
    std::string why;
    try {
        why = unmappable(src);
        if (why.empty()) why = bad_option(src->flags);
    } catch (...) {
        why = "out of memory";
    }
    if (why.empty()) return ZC_OK;
    std::free(*log);
    *log = dup_string(why);
    std::free(*bitcode);
    *bitcode = nullptr;
    *size = 0;
    zp_spirv_meta_free(meta);
    return ZC_BUILD_FAILURE;
}

extern "C" int zc_back(const void *bitcode, size_t size, const zp_module_meta *meta, char **ptx, char **log) {
    *ptx = nullptr;
    *log = nullptr;
    std::string text, out;
    int rc;
    try {
        rc = back(bitcode, size, meta, out, text);
    } catch (const std::bad_alloc &) {
        rc = ZC_OUT_OF_MEMORY;
        text = "out of memory";
    } catch (...) {
        rc = ZC_BUILD_FAILURE;
        text = "NVPTX translation failed";
    }
    if (rc == ZC_OK) {
        *ptx = dup_string(out);
        if (!*ptx) rc = ZC_OUT_OF_MEMORY;
    }
    if (!text.empty()) *log = dup_string(text);
    return rc;
}
