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

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
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

// Builtins with a pointer parameter on a generic pointer (ZP_SPIRV_GENERIC_BUILTINS). OpenCL C 2.0 code and DPC++
// call frexp, modf, fract, sincos, remquo, lgamma_r, vloadN, vstoreN and the vload_half / vstore_half family with
// a generic pointer (_Z5frexpfPU3AS4i), and PoCL 3.1's kernel library has only the private, global, local (and, for
// loads, constant) overloads: its build failed with "Cannot find symbol ... in kernel library". Once every helper is
// inlined, each such call is made a call of the overload of the space the pointer came from, followed back as
// resolve_spaces follows one (without making anything: an answer only where every path gives the same named
// space). Where the space is unknown (from memory, a select or phi of two spaces), the private overload works on a
// private copy: the result it writes is then copied through the generic pointer, and what it reads is copied into
// the temporary first, with plain loads and stores, which on a CPU reach every space alike. vloadN and vstoreN
// need no library there: they become N element loads or stores at p + offset * N.

namespace {

enum { ORIGIN_UNKNOWN = -1, ORIGIN_CYCLE = -2 };

int join(int a, int b) {
    if (a == ORIGIN_CYCLE) return b;
    if (b == ORIGIN_CYCLE) return a;
    return a == b ? a : ORIGIN_UNKNOWN;
}

// The named space (0 private, 1 global, 2 constant, 3 local) a pointer was cast from, or ORIGIN_UNKNOWN.
int origin(llvm::Value *v, std::set<llvm::Value *> &seen) {
    if (auto *t = llvm::dyn_cast<llvm::PointerType>(v->getType()); t && t->getAddressSpace() != 4)
        return t->getAddressSpace() <= 3 ? (int)t->getAddressSpace() : ORIGIN_UNKNOWN;
    if (auto *op = llvm::dyn_cast<llvm::Operator>(v)) {
        unsigned code = op->getOpcode();
        if (code == llvm::Instruction::AddrSpaceCast || code == llvm::Instruction::BitCast ||
            code == llvm::Instruction::GetElementPtr)
            return origin(op->getOperand(0), seen);
        if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(v))
            return join(origin(sel->getTrueValue(), seen), origin(sel->getFalseValue(), seen));
        if (auto *phi = llvm::dyn_cast<llvm::PHINode>(v)) {
            if (!seen.insert(v).second) return ORIGIN_CYCLE;
            int r = ORIGIN_CYCLE;
            for (llvm::Value *in : phi->incoming_values()) r = join(r, origin(in, seen));
            return r;
        }
    }
    return ORIGIN_UNKNOWN;
}

enum Shape {
    SHAPE_NONE,
    SHAPE_OUT,    // frexp, modf, fract, sincos, remquo, lgamma_r: writes one value of the pointee's type
    SHAPE_VLOAD,  // vloadN(offset, p): N elements at p + offset * N
    SHAPE_VSTORE, // vstoreN(data, offset, p)
    SHAPE_HLOAD,  // vload_half[N], vloada_half[N](offset, p): N halves at p + offset * stride
    SHAPE_HSTORE, // vstore_half[N][_r..], vstorea_half[N][_r..](data, offset, p)
};

struct Kind {
    Shape shape = SHAPE_NONE;
    unsigned n = 1;      // elements (halves for the half family)
    unsigned stride = 1; // elements between consecutive offsets
};

// The width of a vector suffix at the front of s ("", "2", "3", "4", "8", "16"), consumed; 0 when not one.
unsigned take_width(llvm::StringRef &s) {
    for (unsigned w : {16u, 2u, 3u, 4u, 8u})
        if (s.consume_front(std::to_string(w))) return w;
    return s.empty() || s.startswith("_") ? 1 : 0;
}

Kind kind_of(const std::string &base) {
    Kind k;
    llvm::StringRef s(base);
    if (s == "frexp" || s == "modf" || s == "fract" || s == "sincos" || s == "remquo" || s == "lgamma_r") {
        k.shape = SHAPE_OUT;
        return k;
    }
    bool aligned = false, load = false;
    if (s.consume_front("vloada_half")) aligned = load = true;
    else if (s.consume_front("vload_half")) load = true;
    else if (s.consume_front("vstorea_half")) aligned = true;
    else if (!s.consume_front("vstore_half")) {
        bool vl = s.consume_front("vload"), vs = !vl && s.consume_front("vstore");
        unsigned w = (vl || vs) ? take_width(s) : 0;
        if (w > 1 && s.empty()) {
            k.shape = vl ? SHAPE_VLOAD : SHAPE_VSTORE;
            k.n = k.stride = w;
        }
        return k;
    }
    unsigned w = take_width(s);
    if (!w) return k;
    if (!load && !s.empty() && s != "_rte" && s != "_rtz" && s != "_rtp" && s != "_rtn") return k;
    if (load && !s.empty()) return k;
    k.shape = load ? SHAPE_HLOAD : SHAPE_HSTORE;
    k.n = w;
    k.stride = aligned && w == 3 ? 4 : w;
    return k;
}

// The name of the overload for address space `as` (0 private) of a builtin whose one generic pointer parameter is
// its last: "PU3AS4" made "P" or "PU3ASn" (nothing mangled after it refers back to it).
std::string overload(llvm::StringRef name, unsigned as) {
    size_t at = name.rfind("PU3AS4");
    return (name.substr(0, at) + (as ? "PU3AS" + std::to_string(as) : "P") + name.substr(at + 6)).str();
}

llvm::CallInst *call_overload(llvm::CallInst *c, unsigned as, llvm::Value *ptr) {
    llvm::Function *callee = c->getCalledFunction();
    llvm::FunctionType *ft = callee->getFunctionType();
    std::vector<llvm::Type *> params(ft->param_begin(), ft->param_end());
    params.back() = ptr->getType();
    llvm::FunctionCallee target = callee->getParent()->getOrInsertFunction(
        overload(callee->getName(), as), llvm::FunctionType::get(ft->getReturnType(), params, false),
        callee->getAttributes());
    std::vector<llvm::Value *> args(c->arg_begin(), c->arg_end());
    args.back() = ptr;
    auto *nc = llvm::CallInst::Create(target, args, "", c);
    nc->setCallingConv(c->getCallingConv());
    nc->setAttributes(c->getAttributes());
    return nc;
}

void rewrite(llvm::CallInst *c, const Kind &k) {
    llvm::Function *fn = c->getFunction();
    const llvm::DataLayout &dl = fn->getParent()->getDataLayout();
    llvm::LLVMContext &ctx = c->getContext();
    llvm::Value *gptr = c->getArgOperand(c->arg_size() - 1);
    llvm::Type *elem = llvm::cast<llvm::PointerType>(gptr->getType())->getNonOpaquePointerElementType();
    std::set<llvm::Value *> seen;
    int as = origin(gptr, seen);
    bool load = k.shape == SHAPE_VLOAD || k.shape == SHAPE_HLOAD;
    llvm::IRBuilder<> b(c);
    if (as == 1 || as == 3 || as == 0 || (as == 2 && load)) {
        llvm::Value *named = b.CreateAddrSpaceCast(gptr, llvm::PointerType::get(elem, (unsigned)as));
        llvm::CallInst *nc = call_overload(c, (unsigned)as, named);
        c->replaceAllUsesWith(nc);
        c->eraseFromParent();
        return;
    }
    llvm::Value *off = k.shape == SHAPE_OUT ? nullptr : c->getArgOperand(c->arg_size() - 2);
    if (k.shape == SHAPE_VLOAD || k.shape == SHAPE_VSTORE) {
        llvm::Align align(dl.getABITypeAlign(elem));
        llvm::Value *first = b.CreateMul(off, llvm::ConstantInt::get(off->getType(), k.n));
        llvm::Type *vty = k.shape == SHAPE_VLOAD ? c->getType() : c->getArgOperand(0)->getType();
        llvm::Value *result = llvm::UndefValue::get(vty);
        for (unsigned i = 0; i < k.n; i++) {
            llvm::Value *at = b.CreateInBoundsGEP(elem, gptr, b.CreateAdd(first, llvm::ConstantInt::get(off->getType(), i)));
            if (k.shape == SHAPE_VSTORE)
                b.CreateAlignedStore(b.CreateExtractElement(c->getArgOperand(0), (uint64_t)i), at, align);
            else
                result = b.CreateInsertElement(result, b.CreateAlignedLoad(elem, at, align), (uint64_t)i);
        }
        if (k.shape == SHAPE_VLOAD) c->replaceAllUsesWith(result);
        c->eraseFromParent();
        return;
    }
    // The private temporary, in the function's entry block: the pointee (SHAPE_OUT) or the stride's halves.
    llvm::IRBuilder<> entry(&*fn->getEntryBlock().getFirstInsertionPt());
    llvm::Type *tty = k.shape == SHAPE_OUT ? elem : llvm::ArrayType::get(elem, k.stride);
    llvm::AllocaInst *tmp = entry.CreateAlloca(tty, 0u, nullptr, "zp.generic.tmp");
    tmp->setAlignment(llvm::Align(std::max<uint64_t>(32, dl.getABITypeAlign(tty).value())));
    llvm::Value *tptr = b.CreateBitCast(tmp, llvm::PointerType::get(elem, 0));
    if (k.shape == SHAPE_OUT) {
        llvm::CallInst *nc = call_overload(c, 0, tptr);
        b.SetInsertPoint(c);
        llvm::Value *v = b.CreateLoad(elem, tmp);
        b.CreateAlignedStore(v, gptr, dl.getABITypeAlign(elem->getScalarType()));
        c->replaceAllUsesWith(nc);
        c->eraseFromParent();
        return;
    }
    // The half family: the halves copied as 16-bit integers, at p + offset * stride.
    llvm::Type *i16 = llvm::Type::getInt16Ty(ctx);
    llvm::Value *g16 = b.CreateBitCast(gptr, llvm::PointerType::get(i16, 4));
    llvm::Value *t16 = b.CreateBitCast(tmp, llvm::PointerType::get(i16, 0));
    llvm::Value *first = b.CreateMul(off, llvm::ConstantInt::get(off->getType(), k.stride));
    auto copy = [&](bool in) {
        for (unsigned i = 0; i < k.n; i++) {
            llvm::Value *g = b.CreateInBoundsGEP(i16, g16, b.CreateAdd(first, llvm::ConstantInt::get(off->getType(), i)));
            llvm::Value *t = b.CreateInBoundsGEP(i16, t16, b.getInt64(i));
            if (in) b.CreateAlignedStore(b.CreateAlignedLoad(i16, g, llvm::Align(2)), t, llvm::Align(2));
            else b.CreateAlignedStore(b.CreateAlignedLoad(i16, t, llvm::Align(2)), g, llvm::Align(2));
        }
    };
    if (k.shape == SHAPE_HLOAD) copy(true);
    c->setArgOperand(c->arg_size() - 2, llvm::ConstantInt::get(off->getType(), 0));
    llvm::CallInst *nc = call_overload(c, 0, tptr);
    c->replaceAllUsesWith(nc);
    c->eraseFromParent();
    if (k.shape == SHAPE_HSTORE) {
        b.SetInsertPoint(nc->getNextNode());
        copy(false);
    }
}

} // namespace

void generic_builtins(llvm::Module &m, unsigned flags) {
    if (!(flags & ZP_SPIRV_GENERIC_BUILTINS)) return;
    std::vector<std::pair<llvm::Function *, Kind>> decls;
    for (llvm::Function &f : m) {
        if (!f.isDeclaration() || f.use_empty() || !f.getName().startswith("_Z") || f.arg_size() == 0) continue;
        auto *last = llvm::dyn_cast<llvm::PointerType>(f.getFunctionType()->params().back());
        if (!last || last->getAddressSpace() != 4 || last->isOpaque()) continue;
        bool one = true;
        for (unsigned i = 0; i + 1 < f.arg_size(); i++)
            if (f.getFunctionType()->getParamType(i)->isPointerTy()) one = false;
        size_t at = f.getName().find("PU3AS4");
        if (!one || at == llvm::StringRef::npos || f.getName().find("PU3AS4", at + 1) != llvm::StringRef::npos) continue;
        Kind k = kind_of(builtin_base_name(f.getName()));
        if (k.shape == SHAPE_NONE) continue;
        if ((k.shape == SHAPE_HLOAD || k.shape == SHAPE_HSTORE) && !last->getNonOpaquePointerElementType()->isHalfTy())
            continue;
        if (k.shape != SHAPE_OUT && f.arg_size() < 2) continue;
        decls.push_back({&f, k});
    }
    if (decls.empty()) return;
    // Pointers kept in private variables (clang -O0 keeps every local there) come back into registers first.
    std::set<llvm::Function *> fns;
    for (auto &[f, k] : decls)
        for (llvm::User *u : f->users())
            if (auto *c = llvm::dyn_cast<llvm::CallInst>(u)) fns.insert(c->getFunction());
    llvm::FunctionAnalysisManager fam;
    llvm::PassBuilder pb;
    pb.registerFunctionAnalyses(fam);
    for (llvm::Function *f : fns) {
        llvm::FunctionPassManager fpm;
        fpm.addPass(llvm::SROAPass());
        fpm.run(*f, fam);
    }
    for (auto &[f, k] : decls) {
        std::vector<llvm::CallInst *> calls;
        for (llvm::User *u : f->users())
            if (auto *c = llvm::dyn_cast<llvm::CallInst>(u); c && c->getCalledFunction() == f) calls.push_back(c);
        for (llvm::CallInst *c : calls) rewrite(c, k);
        if (f->use_empty()) f->eraseFromParent();
    }
}

} // namespace zp::spirv
