// Atomics the kernel libraries lack, as LLVM's own atomics, for both drivers: float add, min and max
// (SPV_EXT_shader_atomic_float_add and _min_max: OpenCL C's atomic_fetch_add/min/max on atomic_float and
// atomic_double), which neither PoCL's library nor libclc has, and every atomic on a generic pointer (OpenCL C
// 2.0's atomic_* functions take one), for which PoCL 3.1's library has no overload ("Cannot find symbol
// _Z8atom_addPU3AS4Vll" at build) and which libclc lacks too. groups.cpp calls lower_atomic for each such
// __spirv_Atomic* call of the translator's SPIR-V friendly form.
#include "steps.h"

#include <cstdint>
#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

namespace zp::spirv {
namespace {

bool const_u32(llvm::Value *v, uint32_t &out) {
    auto *c = llvm::dyn_cast<llvm::ConstantInt>(v);
    if (!c || c->getBitWidth() > 64) return false;
    out = (uint32_t)c->getZExtValue();
    return true;
}

// The order of an atomic's memory semantics (SPIR-V 3.25): whether it orders other memory at all. LLVM's
// atomics are made relaxed, with sequentially consistent fences around those that order: NVPTX in LLVM 15
// selects no ordered atomic load or store, and ze_cuda lowers fences itself (driver/cuda/ptx.cpp).
bool orders(uint32_t sem) { return (sem & 0x1e) != 0; }

// Whether an atomic instruction takes a value after its pointer, scope and semantics.
bool rmw_like(llvm::StringRef n) {
    for (const char *k : {"Exchange", "IAdd", "ISub", "SMin", "UMin", "SMax", "UMax", "And", "Or", "Xor",
                          "FAddEXT", "FMinEXT", "FMaxEXT"})
        if (n == k) return true;
    return false;
}

} // namespace

// Any scope runs at the system's, the widest. An ordering instruction is a relaxed atomic between fences.
llvm::Value *lower_atomic(llvm::CallInst *c, const std::string &base, std::string &why) {
    llvm::IRBuilder<> b(c);
    llvm::StringRef n(base);
    n.consume_front("__spirv_Atomic");
    auto arg = [&](unsigned i) { return c->getArgOperand(i); };
    if (n == "Store" && c->arg_size() < 4) {
        why = "has fewer operands than SPIR-V gives it";
        return nullptr;
    }
    llvm::Value *ptr = arg(0);
    uint32_t sem = 0, sem2 = 0;
    if (c->arg_size() < 3 || !const_u32(arg(2), sem)) {
        why = "has memory semantics that are not a constant";
        return nullptr;
    }
    bool cmpxchg = n == "CompareExchange" || n == "CompareExchangeWeak";
    if (cmpxchg && (c->arg_size() < 6 || !const_u32(arg(3), sem2))) {
        why = "has memory semantics that are not a constant";
        return nullptr;
    }
    bool fenced = orders(sem) || orders(sem2);
    llvm::Type *t = n == "FlagTestAndSet" || n == "FlagClear" ? b.getInt32Ty()
                    : n == "Store"                            ? arg(3)->getType()
                    : c->getType();
    if (!t->isIntegerTy() && !t->isFloatTy() && !t->isDoubleTy()) {
        why = "on a value of a type this driver does not implement it for";
        return nullptr;
    }
    // The pointer, and every value operand of the result's type (SPIR-V's rule, which the translator trusts).
    bool typed = ptr->getType()->isPointerTy();
    unsigned values = n == "Store" || (rmw_like(n) && c->arg_size() >= 4) ? 1 : cmpxchg ? 2 : 0;
    for (unsigned v = 0; v < values; v++) typed &= arg(3 + (cmpxchg ? 1 : 0) + v)->getType() == t;
    if (!typed) {
        why = "has an operand of a type SPIR-V does not allow there";
        return nullptr;
    }
    unsigned as = llvm::cast<llvm::PointerType>(ptr->getType())->getAddressSpace();
    ptr = b.CreatePointerBitCastOrAddrSpaceCast(ptr, t->getPointerTo(as));
    llvm::MaybeAlign al(t->getPrimitiveSizeInBits() / 8);
    const auto relaxed = llvm::AtomicOrdering::Monotonic;
    if (fenced) b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    llvm::Value *r = nullptr;
    using RMW = llvm::AtomicRMWInst;
    static const struct { const char *name; RMW::BinOp op; } rmws[] = {
        {"Exchange", RMW::Xchg}, {"IAdd", RMW::Add},   {"ISub", RMW::Sub},   {"SMin", RMW::Min},
        {"UMin", RMW::UMin},     {"SMax", RMW::Max},   {"UMax", RMW::UMax},  {"And", RMW::And},
        {"Or", RMW::Or},         {"Xor", RMW::Xor},    {"FAddEXT", RMW::FAdd}, {"FMinEXT", RMW::FMin},
        {"FMaxEXT", RMW::FMax}};
    for (const auto &k : rmws)
        if (n == k.name) {
            bool fp = k.op == RMW::FAdd || k.op == RMW::FMin || k.op == RMW::FMax;
            bool fits = fp ? t->isFloatingPointTy() : t->isIntegerTy() || k.op == RMW::Xchg;
            if (!fits || c->arg_size() < 4) {
                why = "on a value of a type this driver does not implement it for";
                return nullptr;
            }
            r = b.CreateAtomicRMW(k.op, ptr, arg(3), al, relaxed);
        }
    if (r) {
        // done above
    } else if (n == "Load") {
        auto *ld = b.CreateAlignedLoad(t, ptr, al);
        ld->setAtomic(relaxed);
        r = ld;
    } else if (n == "Store") {
        auto *st = b.CreateAlignedStore(arg(3), ptr, al);
        st->setAtomic(relaxed);
        r = c;
    } else if ((n == "IIncrement" || n == "IDecrement") && t->isIntegerTy()) {
        r = b.CreateAtomicRMW(n == "IIncrement" ? RMW::Add : RMW::Sub, ptr, llvm::ConstantInt::get(t, 1), al,
                              relaxed);
    } else if (cmpxchg && t->isIntegerTy()) {
        // (pointer, scope, semantics if equal, semantics if not, value, comparator) -> the original value.
        auto *x = b.CreateAtomicCmpXchg(ptr, arg(5), arg(4), al, relaxed, relaxed);
        r = b.CreateExtractValue(x, 0);
    } else if (n == "FlagTestAndSet") {
        r = b.CreateICmpNE(b.CreateAtomicRMW(RMW::Xchg, ptr, b.getInt32(1), al, relaxed), b.getInt32(0));
    } else if (n == "FlagClear") {
        auto *st = b.CreateAlignedStore(b.getInt32(0), ptr, al);
        st->setAtomic(relaxed);
        r = c;
    } else {
        why = "on a generic pointer is not implemented by this driver";
        return nullptr;
    }
    if (fenced) b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    return r;
}

} // namespace zp::spirv
