// Sub-groups, work-group collectives, generic pointers and float atomics in the translated module: the SPIR-V
// instructions neither PoCL's kernel library nor libclc's NVPTX one implements (PoCL 3.1 has no sub-group or
// work-group function, no to_global; libclc none of them either), lowered here for both backends.
//
// The translator reads the module in its SPIR-V friendly form (translate.cpp), where each such instruction is a
// call of __spirv_<Op> with its operands as SPIR-V orders them, scopes and group operations included; the OpenCL
// form it lowers to afterwards would lose what matters here (a sub-group barrier becomes a work-group barrier).
// lower_groups replaces each call by calls of the group library (groups_lib.cl, linked by link_groups), by its
// scope, operation and type, so that one library function serves every type: values cross as 64-bit slots with a
// constant operation code (groups_ops.h). The sub-groups are the backend's: one work-item on ze_pocl, the warp of
// 32 on ze_cuda (ZP_SPIRV_WARP_SUBGROUPS). What stays a __spirv_ call after the OpenCL lowering is an instruction no
// one implements, and the module is refused naming it (leftover_instructions).
//
// Generic pointers: on ze_cuda the hardware says where a pointer points (isspacep, in the library); on ze_pocl the
// answer comes from the pointer's origin once every helper is inlined (spaces.cpp). Float atomics and atomics on
// generic pointers become LLVM's own (atomics.cpp).
#include "steps.h"
#include "groups_ops.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

// The group library's bitcode, one build per kind of sub-group (groups_lib.S).
extern "C" {
extern const char zp_groups_lib_1[], zp_groups_lib_1_end[];
extern const char zp_groups_lib_32[], zp_groups_lib_32_end[];
}

namespace zp::spirv {

std::string builtin_base_name(llvm::StringRef n) {
    if (!n.startswith("_Z")) return n.str();
    size_t p = 2, len = 0;
    while (p < n.size() && n[p] >= '0' && n[p] <= '9') len = len * 10 + (n[p++] - '0');
    if (len == 0 || p + len > n.size()) return n.str();
    return n.substr(p, len).str();
}

namespace {

enum { SCOPE_WORKGROUP = 2, SCOPE_SUBGROUP = 3 };
enum { GROUP_REDUCE = 0, GROUP_INCLUSIVE = 1, GROUP_EXCLUSIVE = 2, GROUP_CLUSTERED = 3 };
// The attribute that marks a kernel whose every work-item of a group must take part (needs_whole_groups).
const char *const kWholeGroups = "zp-whole-groups";
const char *const kScratch = "__zp_group_scratch";

// The operation of a collective instruction, by the name after __spirv_Group / __spirv_GroupNonUniform.
struct OpInfo {
    const char *name;
    int op;
    bool logical; // on booleans
};
const OpInfo kOps[] = {
    {"IAdd", ZP_GOP_IADD, false},       {"FAdd", ZP_GOP_FADD, false},       {"IMul", ZP_GOP_IMUL, false},
    {"FMul", ZP_GOP_FMUL, false},       {"SMin", ZP_GOP_SMIN, false},       {"UMin", ZP_GOP_UMIN, false},
    {"FMin", ZP_GOP_FMIN, false},       {"SMax", ZP_GOP_SMAX, false},       {"UMax", ZP_GOP_UMAX, false},
    {"FMax", ZP_GOP_FMAX, false},       {"BitwiseAnd", ZP_GOP_AND, false},  {"BitwiseOr", ZP_GOP_OR, false},
    {"BitwiseXor", ZP_GOP_XOR, false},  {"LogicalAnd", ZP_GOP_AND, true},   {"LogicalOr", ZP_GOP_OR, true},
    {"LogicalXor", ZP_GOP_XOR, true},
};

const OpInfo *find_op(llvm::StringRef s) {
    for (const OpInfo &o : kOps)
        if (s == o.name) return &o;
    return nullptr;
}

// The SPIR-V instruction a __spirv_ call stands for, for messages.
std::string instruction(const std::string &base) {
    llvm::StringRef s(base);
    s.consume_front("__spirv_");
    return "Op" + s.str();
}

struct Lowering {
    llvm::Module &m;
    unsigned flags;
    const zp_module_src *src;
    std::string why;
    std::set<llvm::Function *> group_users; // functions that call a sub-group or work-group function
    llvm::GlobalVariable *scratch = nullptr;

    llvm::LLVMContext &ctx() { return m.getContext(); }
    bool warp() const { return flags & ZP_SPIRV_WARP_SUBGROUPS; }
    llvm::Type *i32() { return llvm::Type::getInt32Ty(ctx()); }
    llvm::Type *i64() { return llvm::Type::getInt64Ty(ctx()); }

    llvm::Value *lib(llvm::IRBuilder<> &b, const char *name, llvm::Type *ret, llvm::ArrayRef<llvm::Value *> args) {
        std::vector<llvm::Type *> tys;
        for (llvm::Value *a : args) tys.push_back(a->getType());
        llvm::FunctionCallee fc = m.getOrInsertFunction(name, llvm::FunctionType::get(ret, tys, false));
        if (auto *f = llvm::dyn_cast<llvm::Function>(fc.getCallee())) f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
        llvm::CallInst *c = b.CreateCall(fc, args);
        c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
        return c;
    }
    llvm::Value *lib32(llvm::IRBuilder<> &b, const char *name, llvm::ArrayRef<llvm::Value *> args = {}) {
        return lib(b, name, i32(), args);
    }

    // A value's slot and back (groups_ops.h); signed extends the sign (SMin, SMax). Null for a type that has none.
    llvm::Value *to_slot(llvm::IRBuilder<> &b, llvm::Value *v, bool is_signed) {
        llvm::Type *t = v->getType();
        if (t->isHalfTy() || t->isFloatTy() || t->isDoubleTy())
            v = b.CreateBitCast(v, llvm::IntegerType::get(ctx(), t->getPrimitiveSizeInBits()));
        else if (!t->isIntegerTy() || t->getIntegerBitWidth() > 64)
            return nullptr;
        return is_signed ? b.CreateSExt(v, i64()) : b.CreateZExt(v, i64());
    }
    llvm::Value *from_slot(llvm::IRBuilder<> &b, llvm::Value *s, llvm::Type *t) {
        unsigned bits = t->getPrimitiveSizeInBits();
        llvm::Value *v = b.CreateTrunc(s, llvm::IntegerType::get(ctx(), bits));
        return t->isIntegerTy() ? v : b.CreateBitCast(v, t);
    }
    static unsigned bits_of(llvm::Type *t) { return t->getScalarType()->getPrimitiveSizeInBits(); }

    // The identity of an operation on a type, as a slot.
    llvm::Value *identity(int op, llvm::Type *t) {
        unsigned bits = t->getPrimitiveSizeInBits();
        llvm::APInt v(64, 0);
        auto fbits = [&](double d) {
            llvm::APFloat f(d);
            bool lost;
            f.convert(t->isHalfTy() ? llvm::APFloat::IEEEhalf() : t->isFloatTy() ? llvm::APFloat::IEEEsingle()
                                                                                 : llvm::APFloat::IEEEdouble(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
            return f.bitcastToAPInt().zext(64);
        };
        switch (op) {
        case ZP_GOP_IMUL: v = llvm::APInt(64, 1); break;
        case ZP_GOP_AND:
        case ZP_GOP_UMIN: v = llvm::APInt::getAllOnes(bits).zext(64); break;
        case ZP_GOP_SMIN: v = llvm::APInt::getSignedMaxValue(bits).sext(64); break;
        case ZP_GOP_SMAX: v = llvm::APInt::getSignedMinValue(bits).sext(64); break;
        case ZP_GOP_FADD: v = fbits(0.0); break;
        case ZP_GOP_FMUL: v = fbits(1.0); break;
        case ZP_GOP_FMIN: v = fbits(HUGE_VAL); break;
        case ZP_GOP_FMAX: v = fbits(-HUGE_VAL); break;
        default: break;
        }
        return llvm::ConstantInt::get(i64(), v);
    }

    // f applied to each element of a vector value (or to the scalar).
    template <typename F> llvm::Value *per_element(llvm::IRBuilder<> &b, llvm::Value *v, F f) {
        auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
        if (!vt) return f(v);
        llvm::Value *out = llvm::UndefValue::get(vt);
        for (unsigned i = 0; i < vt->getNumElements(); i++) {
            llvm::Value *r = f(b.CreateExtractElement(v, b.getInt32(i)));
            if (!r) return nullptr;
            out = b.CreateInsertElement(out, r, b.getInt32(i));
        }
        return out;
    }

    llvm::Value *scratch_ptr(llvm::IRBuilder<> &b) {
        if (!scratch) {
            uint64_t slots = warp() ? ZP_GWARP_SCRATCH : (uint64_t)src->max_group_size + 1;
            auto *at = llvm::ArrayType::get(i64(), slots);
            scratch = new llvm::GlobalVariable(m, at, false, llvm::GlobalValue::InternalLinkage,
                                               llvm::UndefValue::get(at), kScratch, nullptr,
                                               llvm::GlobalValue::NotThreadLocal, 3);
            scratch->setAlignment(llvm::Align(8));
        }
        return b.CreateConstInBoundsGEP2_32(scratch->getValueType(), scratch, 0, 0);
    }

    // A collective of `kind` (groups_ops.h) with operation op over v at a scope.
    llvm::Value *collective(llvm::IRBuilder<> &b, unsigned scope, int op, bool logical, unsigned kind, llvm::Value *v,
                            llvm::Value *cluster) {
        bool is_signed = op == ZP_GOP_SMIN || op == ZP_GOP_SMAX;
        return per_element(b, v, [&](llvm::Value *e) -> llvm::Value * {
            llvm::Type *t = e->getType();
            if (logical != t->isIntegerTy(1)) return nullptr;
            llvm::Value *s = to_slot(b, e, is_signed);
            if (!s) return nullptr;
            llvm::Value *code = b.getInt32(ZP_GOP(op, bits_of(t)));
            llvm::Value *r;
            if (scope == SCOPE_WORKGROUP)
                r = lib(b, "__zp_wg_collective", i64(), {s, code, identity(op, t), b.getInt32(kind), scratch_ptr(b)});
            else
                r = lib(b, "__zp_sg_collective", i64(),
                        {s, code, identity(op, t), b.getInt32(kind), cluster ? cluster : b.getInt32(0)});
            return from_slot(b, r, t);
        });
    }

    // A shuffle-like library function of (slot, index, mode) on each element of v.
    llvm::Value *shuffle(llvm::IRBuilder<> &b, const char *fn, llvm::Value *v, llvm::Value *index, bool nonuniform) {
        if (index && index->getType() != i32()) index = b.CreateZExtOrTrunc(index, i32());
        return per_element(b, v, [&](llvm::Value *e) -> llvm::Value * {
            llvm::Value *s = to_slot(b, e, false);
            if (!s) return nullptr;
            unsigned mode = (bits_of(e->getType()) > 32 ? ZP_GMODE_WIDE : 0) | (nonuniform ? ZP_GMODE_NONUNIFORM : 0);
            llvm::Value *r = index ? lib(b, fn, i64(), {s, index, b.getInt32(mode)})
                                   : lib(b, fn, i64(), {s, b.getInt32(mode)});
            return from_slot(b, r, e->getType());
        });
    }

    llvm::Value *as_bool(llvm::IRBuilder<> &b, llvm::Value *v) { return b.CreateICmpNE(v, b.getInt32(0)); }
    llvm::Value *from_bool(llvm::IRBuilder<> &b, llvm::Value *p) { return b.CreateZExt(p, i32()); }

    // A 4 x i32 ballot whose first word is w (a sub-group has at most 32 work-items).
    llvm::Value *ballot_vec(llvm::IRBuilder<> &b, llvm::Value *w, llvm::Type *t) {
        llvm::Value *z = llvm::Constant::getNullValue(t);
        return b.CreateInsertElement(z, w, b.getInt32(0));
    }

    llvm::Value *local_size(llvm::IRBuilder<> &b, unsigned d) {
        llvm::FunctionCallee fc =
            m.getOrInsertFunction("_Z14get_local_sizej", llvm::FunctionType::get(i64(), {i32()}, false));
        if (auto *f = llvm::dyn_cast<llvm::Function>(fc.getCallee())) f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
        llvm::CallInst *c = b.CreateCall(fc, {b.getInt32(d)});
        c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
        return c;
    }

    // The linear local id of OpGroupBroadcast's LocalId (a scalar, or 2 or 3 components: x + y*sx + z*sx*sy).
    llvm::Value *linear_id(llvm::IRBuilder<> &b, llvm::Value *id) {
        auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(id->getType());
        if (!vt) return b.CreateZExtOrTrunc(id, i64());
        llvm::Value *lin = b.getInt64(0), *stride = b.getInt64(1);
        for (unsigned d = 0; d < vt->getNumElements() && d < 3; d++) {
            llvm::Value *c = b.CreateZExtOrTrunc(b.CreateExtractElement(id, b.getInt32(d)), i64());
            lin = b.CreateAdd(lin, b.CreateMul(c, stride));
            stride = b.CreateMul(stride, local_size(b, d));
        }
        return lin;
    }

    static bool const_u32(llvm::Value *v, uint32_t &out) {
        auto *c = llvm::dyn_cast<llvm::ConstantInt>(v);
        if (!c || c->getBitWidth() > 64) return false;
        out = (uint32_t)c->getZExtValue();
        return true;
    }

    bool fail(const std::string &base, const std::string &what) {
        if (why.empty()) why = "SPIR-V " + instruction(base) + " " + what;
        return false;
    }

    // Lowers one call; false (with why) when the module must be refused. *group says whether it was a sub-group
    // or work-group function.
    bool lower(llvm::CallInst *c, const std::string &base, bool *group, bool *done);
};

// The operands a call of each instruction lowered here must have, as SPIR-V gives them (the validator has seen
// the module, but the translator is trusted with no more than that): how many at least, whether operand 1 or 2 is
// a ballot (a vector of 32-bit words) and whether operand 0 is a pointer.
struct Shape {
    const char *name;
    unsigned args;
    int ballot; // the operand that is a ballot, or -1
    bool pointer;
};
const Shape kShapes[] = {
    {"__spirv_ControlBarrier", 3, -1, false},
    {"__spirv_GroupAll", 2, -1, false},
    {"__spirv_GroupAny", 2, -1, false},
    {"__spirv_GroupBroadcast", 3, -1, false},
    {"__spirv_GroupNonUniformElect", 1, -1, false},
    {"__spirv_GroupNonUniformAll", 2, -1, false},
    {"__spirv_GroupNonUniformAny", 2, -1, false},
    {"__spirv_GroupNonUniformAllEqual", 2, -1, false},
    {"__spirv_GroupNonUniformBroadcast", 3, -1, false},
    {"__spirv_GroupNonUniformBroadcastFirst", 2, -1, false},
    {"__spirv_GroupNonUniformBallot", 2, -1, false},
    {"__spirv_GroupNonUniformInverseBallot", 2, 1, false},
    {"__spirv_GroupNonUniformBallotBitExtract", 3, 1, false},
    {"__spirv_GroupNonUniformBallotBitCount", 3, 2, false},
    {"__spirv_GroupNonUniformBallotFindLSB", 2, 1, false},
    {"__spirv_GroupNonUniformBallotFindMSB", 2, 1, false},
    {"__spirv_GroupNonUniformShuffle", 3, -1, false},
    {"__spirv_GroupNonUniformShuffleXor", 3, -1, false},
    {"__spirv_GroupNonUniformShuffleUp", 3, -1, false},
    {"__spirv_GroupNonUniformShuffleDown", 3, -1, false},
    {"__spirv_GroupNonUniformRotateKHR", 3, -1, false},
    {"__spirv_SubgroupShuffleINTEL", 2, -1, false},
    {"__spirv_SubgroupShuffleXorINTEL", 2, -1, false},
    {"__spirv_SubgroupShuffleDownINTEL", 3, -1, false},
    {"__spirv_SubgroupShuffleUpINTEL", 3, -1, false},
    {"__spirv_SubgroupBlockReadINTEL", 1, -1, true},
    {"__spirv_SubgroupBlockWriteINTEL", 2, -1, true},
    {"__spirv_GenericCastToPtrExplicit_ToGlobal", 1, -1, true},
    {"__spirv_GenericCastToPtrExplicit_ToLocal", 1, -1, true},
    {"__spirv_GenericCastToPtrExplicit_ToPrivate", 1, -1, true},
    {"__spirv_GenericPtrMemSemantics", 1, -1, true},
};

bool Lowering::lower(llvm::CallInst *c, const std::string &base, bool *group, bool *done) {
    llvm::IRBuilder<> b(c);
    llvm::StringRef n(base);
    llvm::Type *rt = c->getType();
    llvm::Value *r = nullptr;
    *done = true;
    *group = true;
    auto arg = [&](unsigned i) { return c->getArgOperand(i); };
    uint32_t scope = 0;
    // The collectives (scope, operation, value [, cluster]) and everything in kShapes: operands as SPIR-V has them.
    unsigned need = 0;
    int ballot = -1;
    bool pointer = false;
    for (const Shape &sh : kShapes)
        if (n == sh.name) {
            need = sh.args;
            ballot = sh.ballot;
            pointer = sh.pointer;
        }
    if (!need && (n.startswith("__spirv_Group") || n.startswith("__spirv_Atomic"))) need = 3;
    if (c->arg_size() < need) return fail(base, "has fewer operands than SPIR-V gives it");
    if (ballot >= 0 && !(arg(ballot)->getType()->isVectorTy() &&
                         arg(ballot)->getType()->getScalarType()->isIntegerTy(32)))
        return fail(base, "has a ballot that is not a vector of 32-bit words");
    if (pointer && !arg(0)->getType()->isPointerTy()) return fail(base, "has an operand that is not a pointer");
    // Operands SPIR-V types as integers or booleans (indexes, deltas, cluster sizes, predicates), which the validator
    // of SPIRV-Tools 2023.1 does not always check (the fuzz smoke: a float as OpGroupBroadcast's local id).
    auto is_int = [](llvm::Value *v) { return v->getType()->isIntOrIntVectorTy(); };
    auto is_bool = [](llvm::Value *v) { return v->getType()->isIntegerTy(1); };
    auto bad_operand = [&]() { return fail(base, "has an operand of a type SPIR-V does not allow there"); };

    // The sub-group built-in variables.
    if (n.consume_front("__spirv_BuiltIn")) {
        if (!rt->isIntOrIntVectorTy()) return bad_operand();
        static const struct { const char *name, *fn; } vars[] = {
            {"SubgroupSize", "__zp_sg_size"},       {"SubgroupMaxSize", "__zp_sg_max_size"},
            {"NumSubgroups", "__zp_sg_count"},       {"NumEnqueuedSubgroups", "__zp_sg_enqueued_count"},
            {"SubgroupId", "__zp_sg_id"},           {"SubgroupLocalInvocationId", "__zp_sg_local_id"}};
        for (const auto &v : vars)
            if (n == v.name) r = b.CreateZExtOrTrunc(lib32(b, v.fn), rt);
        static const struct { const char *name; int kind; } masks[] = {
            {"SubgroupEqMask", ZP_GMASK_EQ}, {"SubgroupGeMask", ZP_GMASK_GE}, {"SubgroupGtMask", ZP_GMASK_GT},
            {"SubgroupLeMask", ZP_GMASK_LE}, {"SubgroupLtMask", ZP_GMASK_LT}};
        for (const auto &mk : masks)
            if (n == mk.name || n == std::string(mk.name) + "KHR") {
                llvm::Value *w = lib32(b, "__zp_sg_lane_mask", {b.getInt32(mk.kind)});
                r = rt->isVectorTy() ? ballot_vec(b, w, rt) : b.CreateZExtOrTrunc(w, rt);
            }
        if (!r) {
            *done = false;
            return true;
        }
    } else if (n == "__spirv_ControlBarrier") {
        // Work-group barriers stay with the OpenCL lowering; a sub-group one is the sub-group's own.
        if (!const_u32(arg(0), scope)) return fail(base, "has an execution scope that is not a constant");
        if (scope != SCOPE_SUBGROUP) {
            *done = false;
            return true;
        }
        lib(b, "__zp_sg_barrier", b.getVoidTy(), {});
        c->eraseFromParent();
        return true;
    } else if (n.startswith("__spirv_Group") && !n.startswith("__spirv_GroupAsyncCopy") &&
               !n.startswith("__spirv_GroupWaitEvents")) {
        bool nonuniform = n.consume_front("__spirv_GroupNonUniform");
        if (!nonuniform) n.consume_front("__spirv_Group");
        bool khr = n.consume_back("KHR");
        if (!const_u32(arg(0), scope)) return fail(base, "has a scope that is not a constant");
        if (scope != SCOPE_SUBGROUP && (nonuniform || scope != SCOPE_WORKGROUP))
            return fail(base, "with scope " + std::to_string(scope) +
                                  ": only the sub-group scope (3) and, for OpGroup instructions, the work-group "
                                  "scope (2) are implemented");
        bool wg = scope == SCOPE_WORKGROUP;
        if (const OpInfo *o = find_op(n)) {
            // (scope, group operation, value [, cluster size])
            if (c->arg_size() >= 4 && !is_int(arg(3))) return bad_operand();
            uint32_t gop = 0;
            if (!const_u32(arg(1), gop) || gop > GROUP_CLUSTERED || (gop == GROUP_CLUSTERED && !nonuniform))
                return fail(base, "has a group operation this driver does not implement");
            if (khr == nonuniform && khr) return fail(base, "is not a known instruction");
            unsigned kind = gop == GROUP_REDUCE ? ZP_GKIND_REDUCE
                            : gop == GROUP_INCLUSIVE ? ZP_GKIND_INCLUSIVE
                            : gop == GROUP_EXCLUSIVE ? ZP_GKIND_EXCLUSIVE
                                                     : ZP_GKIND_CLUSTERED;
            if (nonuniform) kind |= ZP_GKIND_NONUNIFORM;
            llvm::Value *cluster = nullptr;
            if (gop == GROUP_CLUSTERED) {
                if (c->arg_size() < 4) return fail(base, "lacks its cluster size");
                cluster = b.CreateZExtOrTrunc(arg(3), i32());
            }
            r = collective(b, scope, o->op, o->logical, kind, arg(2), cluster);
            if (!r) return fail(base, "on a value of a type this driver does not implement it for");
        } else if (n == "All" || n == "Any") {
            if (!is_bool(arg(1))) return bad_operand();
            bool all = n == "All";
            if (wg) {
                llvm::Value *s = b.CreateZExt(arg(1), i64());
                llvm::Value *v = lib(b, "__zp_wg_collective", i64(),
                                     {s, b.getInt32(ZP_GOP(all ? ZP_GOP_AND : ZP_GOP_OR, 1)), b.getInt64(all ? 1 : 0),
                                      b.getInt32(ZP_GKIND_REDUCE), scratch_ptr(b)});
                r = b.CreateTrunc(v, rt);
            } else {
                r = as_bool(b, lib32(b, all ? "__zp_sg_all" : "__zp_sg_any",
                                     {from_bool(b, arg(1)), b.getInt32(nonuniform ? ZP_GMODE_NONUNIFORM : 0)}));
            }
        } else if (n == "Broadcast") {
            if (!is_int(arg(2))) return bad_operand();
            if (wg) {
                llvm::Value *from = linear_id(b, arg(2));
                r = per_element(b, arg(1), [&](llvm::Value *e) -> llvm::Value * {
                    llvm::Value *s = to_slot(b, e, false);
                    if (!s) return nullptr;
                    return from_slot(b, lib(b, "__zp_wg_broadcast", i64(), {s, from, scratch_ptr(b)}), e->getType());
                });
            } else {
                if (arg(2)->getType()->isVectorTy()) return fail(base, "with a vector sub-group index");
                r = shuffle(b, "__zp_sg_shuffle", arg(1), arg(2), nonuniform);
            }
            if (!r) return fail(base, "on a value of a type this driver does not implement it for");
        } else if (!nonuniform) {
            *done = false; // another OpGroup instruction: left for the check after the OpenCL lowering
            return true;
        } else if (n == "Elect") {
            r = as_bool(b, lib32(b, "__zp_sg_elect"));
        } else if (n == "AllEqual") {
            llvm::Value *first = shuffle(b, "__zp_sg_broadcast_first", arg(1), nullptr, true);
            if (!first) return fail(base, "on a value of a type this driver does not implement it for");
            llvm::Value *eq = nullptr;
            llvm::Value *x = arg(1);
            unsigned lanes = x->getType()->isVectorTy() ? llvm::cast<llvm::FixedVectorType>(x->getType())->getNumElements() : 1;
            for (unsigned i = 0; i < lanes; i++) {
                llvm::Value *a = lanes > 1 ? b.CreateExtractElement(x, b.getInt32(i)) : x;
                llvm::Value *f = lanes > 1 ? b.CreateExtractElement(first, b.getInt32(i)) : first;
                llvm::Value *e = a->getType()->isFPOrFPVectorTy() ? b.CreateFCmpOEQ(a, f) : b.CreateICmpEQ(a, f);
                eq = eq ? b.CreateAnd(eq, e) : e;
            }
            r = as_bool(b, lib32(b, "__zp_sg_all", {from_bool(b, eq), b.getInt32(ZP_GMODE_NONUNIFORM)}));
        } else if (n == "BroadcastFirst") {
            r = shuffle(b, "__zp_sg_broadcast_first", arg(1), nullptr, true);
        } else if ((n == "Shuffle" || n == "ShuffleXor" || n == "ShuffleUp" || n == "ShuffleDown" || n == "Rotate" ||
                    n == "BallotBitExtract") &&
                   (!is_int(arg(2)) || arg(2)->getType()->isVectorTy() ||
                    (n == "Rotate" && c->arg_size() >= 4 && !is_int(arg(3))))) {
            return bad_operand();
        } else if ((n == "Ballot" || n == "All" || n == "Any") && !is_bool(arg(1))) {
            return bad_operand();
        } else if (n == "Shuffle" || n == "ShuffleXor" || n == "ShuffleUp" || n == "ShuffleDown") {
            const char *fn = n == "Shuffle" ? "__zp_sg_shuffle" : n == "ShuffleXor" ? "__zp_sg_shuffle_xor"
                             : n == "ShuffleUp"                    ? "__zp_sg_shuffle_up"
                                                                   : "__zp_sg_shuffle_down";
            r = shuffle(b, fn, arg(1), arg(2), true);
        } else if (n == "Rotate") {
            // (scope, value, delta [, cluster size]): the value of lane (id + delta) mod the cluster (or sub-group).
            llvm::Value *lane = lib32(b, "__zp_sg_local_id");
            llvm::Value *size = c->arg_size() >= 4 ? b.CreateZExtOrTrunc(arg(3), i32()) : lib32(b, "__zp_sg_size");
            llvm::Value *delta = b.CreateZExtOrTrunc(arg(2), i32());
            llvm::Value *base_lane = c->arg_size() >= 4 ? b.CreateAnd(lane, b.CreateNeg(size)) : b.getInt32(0);
            llvm::Value *in = b.CreateSub(lane, base_lane);
            llvm::Value *src_lane = b.CreateAdd(base_lane, b.CreateURem(b.CreateAdd(in, delta), size));
            r = shuffle(b, "__zp_sg_shuffle", arg(1), src_lane, true);
        } else if (n == "Ballot") {
            r = ballot_vec(b, lib32(b, "__zp_sg_ballot", {from_bool(b, arg(1)), b.getInt32(ZP_GMODE_NONUNIFORM)}), rt);
        } else if (n == "InverseBallot") {
            r = as_bool(b, lib32(b, "__zp_sg_inverse_ballot", {b.CreateExtractElement(arg(1), b.getInt32(0))}));
        } else if (n == "BallotBitExtract") {
            llvm::Value *idx = b.CreateZExtOrTrunc(arg(2), i32());
            llvm::Value *word = b.CreateExtractElement(arg(1), b.CreateLShr(idx, b.getInt32(5)));
            r = b.CreateTrunc(b.CreateLShr(word, b.CreateAnd(idx, b.getInt32(31))), rt);
        } else if (n == "BallotBitCount") {
            uint32_t gop = 0;
            if (!const_u32(arg(1), gop) || gop > GROUP_EXCLUSIVE)
                return fail(base, "has a group operation this driver does not implement");
            unsigned kind = gop == GROUP_REDUCE ? ZP_GKIND_REDUCE : gop == GROUP_INCLUSIVE ? ZP_GKIND_INCLUSIVE
                                                                                          : ZP_GKIND_EXCLUSIVE;
            r = b.CreateZExtOrTrunc(
                lib32(b, "__zp_sg_bit_count", {b.CreateExtractElement(arg(2), b.getInt32(0)), b.getInt32(kind)}), rt);
        } else if (n == "BallotFindLSB" || n == "BallotFindMSB") {
            r = b.CreateZExtOrTrunc(lib32(b, n == "BallotFindLSB" ? "__zp_sg_find_lsb" : "__zp_sg_find_msb",
                                          {b.CreateExtractElement(arg(1), b.getInt32(0))}),
                                    rt);
        } else {
            *done = false;
            return true;
        }
    } else if (n == "__spirv_SubgroupShuffleINTEL" || n == "__spirv_SubgroupShuffleXorINTEL") {
        if (!is_int(arg(1)) || arg(1)->getType()->isVectorTy()) return bad_operand();
        r = shuffle(b, n == "__spirv_SubgroupShuffleINTEL" ? "__zp_sg_shuffle" : "__zp_sg_shuffle_xor", arg(0), arg(1),
                    false);
    } else if (n == "__spirv_SubgroupShuffleDownINTEL" || n == "__spirv_SubgroupShuffleUpINTEL") {
        // Down (current, next, delta): lane + delta of current, or past the sub-group's end, of next. Up (previous,
        // current, delta): lane - delta of current, or before its start, of previous from the end.
        bool down = n == "__spirv_SubgroupShuffleDownINTEL";
        if (!is_int(arg(2)) || arg(2)->getType()->isVectorTy() || arg(0)->getType() != arg(1)->getType())
            return bad_operand();
        llvm::Value *lane = lib32(b, "__zp_sg_local_id"), *size = lib32(b, "__zp_sg_max_size");
        llvm::Value *delta = b.CreateZExtOrTrunc(arg(2), i32());
        llvm::Value *l = down ? b.CreateAdd(lane, delta) : b.CreateSub(lane, delta);
        llvm::Value *inside = down ? b.CreateICmpULT(l, size) : b.CreateICmpUGE(lane, delta);
        llvm::Value *other = down ? b.CreateSub(l, size) : b.CreateAdd(l, size);
        llvm::Value *a = shuffle(b, "__zp_sg_shuffle", arg(down ? 0 : 1), l, false);
        llvm::Value *o = shuffle(b, "__zp_sg_shuffle", arg(down ? 1 : 0), other, false);
        r = a && o ? b.CreateSelect(inside, a, o) : nullptr;
    } else if (n == "__spirv_SubgroupBlockReadINTEL" || n == "__spirv_SubgroupBlockWriteINTEL") {
        // Component k of lane i is element k * max sub-group size + i (cl_intel_subgroups' layout).
        bool write = n == "__spirv_SubgroupBlockWriteINTEL";
        llvm::Value *ptr = arg(0);
        auto *pt = llvm::dyn_cast<llvm::PointerType>(ptr->getType());
        llvm::Type *vt = write ? arg(1)->getType() : rt;
        if (!vt->isIntOrIntVectorTy()) return bad_operand();
        llvm::Type *et = vt->getScalarType();
        if (!pt || !et->isIntegerTy()) return fail(base, "on a value of a type this driver does not implement it for");
        ptr = b.CreatePointerBitCastOrAddrSpaceCast(ptr, et->getPointerTo(pt->getAddressSpace()));
        unsigned lanes = vt->isVectorTy() ? llvm::cast<llvm::FixedVectorType>(vt)->getNumElements() : 1;
        llvm::Value *lane = b.CreateZExt(lib32(b, "__zp_sg_local_id"), i64());
        llvm::Value *size = b.CreateZExt(lib32(b, "__zp_sg_max_size"), i64());
        llvm::Value *out = write ? nullptr : llvm::UndefValue::get(vt);
        for (unsigned k = 0; k < lanes; k++) {
            llvm::Value *at = b.CreateInBoundsGEP(et, ptr, b.CreateAdd(b.CreateMul(size, b.getInt64(k)), lane));
            if (write) {
                llvm::Value *e = lanes > 1 ? b.CreateExtractElement(arg(1), b.getInt32(k)) : arg(1);
                b.CreateStore(e, at);
            } else {
                llvm::Value *e = b.CreateLoad(et, at);
                out = lanes > 1 ? b.CreateInsertElement(out, e, b.getInt32(k)) : e;
            }
        }
        r = out;
        if (write) {
            c->eraseFromParent();
            return true;
        }
    } else if (n.startswith("__spirv_GenericCastToPtrExplicit_To") || n == "__spirv_GenericPtrMemSemantics") {
        *group = false;
        // The space of the generic pointer (__zp_space_of: the library's on ze_cuda, resolve_spaces' on ze_pocl),
        // with the instruction's opcode for resolve_spaces' messages.
        bool sem = n == "__spirv_GenericPtrMemSemantics";
        llvm::Value *p = arg(0);
        auto *pt = llvm::cast<llvm::PointerType>(p->getType());
        llvm::Value *gp = b.CreatePointerBitCastOrAddrSpaceCast(p, llvm::Type::getInt8PtrTy(ctx(), pt->getAddressSpace()));
        llvm::Value *space = lib32(b, "__zp_space_of", {gp, b.getInt32(sem ? 69 : 123)});
        if (sem) {
            // Workgroup memory 0x100, CrossWorkgroup memory 0x200; private memory has no semantics bit.
            llvm::Value *v = b.CreateSelect(b.CreateICmpEQ(space, b.getInt32(ZP_GSPACE_LOCAL)), b.getInt32(0x100),
                                            b.CreateSelect(b.CreateICmpEQ(space, b.getInt32(ZP_GSPACE_GLOBAL)),
                                                           b.getInt32(0x200), b.getInt32(0)));
            r = b.CreateZExtOrTrunc(v, rt);
        } else {
            auto *rpt = llvm::dyn_cast<llvm::PointerType>(rt);
            if (!rpt) return fail(base, "does not return a pointer");
            unsigned want = rpt->getAddressSpace();
            if (warp()) {
                // The library converts (see __zp_to_global); the space is for GenericPtrMemSemantics only.
                llvm::cast<llvm::Instruction>(space)->eraseFromParent();
                const char *fn = want == ZP_GSPACE_GLOBAL ? "__zp_to_global"
                                 : want == ZP_GSPACE_LOCAL ? "__zp_to_local"
                                                           : "__zp_to_private";
                if (want != ZP_GSPACE_GLOBAL && want != ZP_GSPACE_LOCAL && want != ZP_GSPACE_PRIVATE)
                    return fail(base, "to a space other than global, local or private");
                llvm::Value *q = lib(b, fn, llvm::Type::getInt8PtrTy(ctx(), want), {gp});
                r = b.CreatePointerBitCastOrAddrSpaceCast(q, rt);
            } else {
                llvm::Value *cast = b.CreatePointerBitCastOrAddrSpaceCast(p, rt);
                r = b.CreateSelect(b.CreateICmpEQ(space, b.getInt32(want)), cast, llvm::ConstantPointerNull::get(rpt));
            }
        }
    } else if (n == "__spirv_AtomicFAddEXT" || n == "__spirv_AtomicFMinEXT" || n == "__spirv_AtomicFMaxEXT" ||
               (n.startswith("__spirv_Atomic") && c->arg_size() >= 1 && arg(0)->getType()->isPointerTy() &&
                arg(0)->getType()->getPointerAddressSpace() == 4)) {
        // Float atomics, which neither kernel library has, and every atomic on a generic pointer (OpenCL C 2.0's
        // atomic_* functions take one), for which PoCL 3.1's library has no overload: LLVM's own atomics.
        *group = false;
        std::string err;
        r = lower_atomic(c, base, err);
        if (!r) return fail(base, err);
        if (r == c) { // no result (a store, a flag clear)
            c->eraseFromParent();
            return true;
        }
    } else {
        *done = false;
        return true;
    }
    if (!r) return fail(base, "on a value of a type this driver does not implement it for");
    if (r->getType() != rt) {
        if (rt->isIntegerTy() && r->getType()->isIntegerTy()) r = b.CreateZExtOrTrunc(r, rt);
        else return fail(base, "has a result type this driver does not implement it for");
    }
    c->replaceAllUsesWith(r);
    c->eraseFromParent();
    return true;
}

bool is_kernel(const llvm::Function &f) { return f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL; }

} // namespace

int lower_groups(llvm::Module &m, unsigned flags, const zp_module_src *src, std::string &why) {
    Lowering lw{m, flags, src, {}, {}, nullptr};
    const uint32_t size = (flags & ZP_SPIRV_WARP_SUBGROUPS) ? 32 : 1;
    // intel_reqd_sub_group_size (SPIR-V's SubgroupSize execution mode) asks for one size; the backend has one.
    for (llvm::Function &f : m)
        if (llvm::MDNode *md = f.getMetadata("intel_reqd_sub_group_size"))
            if (md->getNumOperands() >= 1)
                if (auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(0)))
                    if (c->getZExtValue() != size) {
                        why = "kernel " + f.getName().str() + " requires a sub-group size of " +
                              std::to_string(c->getZExtValue()) +
                              " (intel_reqd_sub_group_size, SPIR-V's SubgroupSize execution mode); this device's "
                              "sub-groups have " + std::to_string(size) + (size == 1 ? " work-item" : " work-items");
                        return ZP_SPIRV_BUILD_FAILURE;
                    }
    std::vector<std::pair<llvm::CallInst *, std::string>> calls;
    for (llvm::Function &f : m)
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
                    if (llvm::Function *callee = c->getCalledFunction()) {
                        std::string base = builtin_base_name(callee->getName());
                        if (llvm::StringRef(base).startswith("__spirv_")) calls.push_back({c, base});
                    }
    for (auto &[c, base] : calls) {
        llvm::Function *in = c->getFunction();
        bool group = false, done = false;
        if (!lw.lower(c, base, &group, &done)) {
            why = lw.why;
            return ZP_SPIRV_BUILD_FAILURE;
        }
        if (done && group) lw.group_users.insert(in);
    }
    if (lw.scratch && !(flags & ZP_SPIRV_WARP_SUBGROUPS) && src->max_group_size == 0) {
        why = "work-group collectives need the device's largest group size, which the driver did not give";
        return ZP_SPIRV_BUILD_FAILURE;
    }
    // Every kernel that reaches a group function, through any chain of calls, needs whole groups.
    std::set<llvm::Function *> reach = lw.group_users;
    for (bool grew = true; grew;) {
        grew = false;
        for (llvm::Function &f : m)
            if (!reach.count(&f))
                for (llvm::BasicBlock &bb : f)
                    for (llvm::Instruction &i : bb)
                        if (auto *c = llvm::dyn_cast<llvm::CallBase>(&i))
                            if (c->getCalledFunction() && reach.count(c->getCalledFunction()) && reach.insert(&f).second)
                                grew = true;
    }
    for (llvm::Function *f : reach)
        if (is_kernel(*f)) f->addFnAttr(kWholeGroups);
    // Dead declarations of what was lowered.
    std::vector<llvm::Function *> dead;
    for (llvm::Function &f : m)
        if (f.isDeclaration() && f.use_empty() && llvm::StringRef(builtin_base_name(f.getName())).startswith("__spirv_"))
            dead.push_back(&f);
    for (llvm::Function *f : dead) f->eraseFromParent();
    return ZP_SPIRV_OK;
}

std::string leftover_instructions(llvm::Module &m) {
    std::set<std::string> left;
    for (llvm::Function &f : m) {
        if (!f.isDeclaration() || f.use_empty()) continue;
        std::string base = builtin_base_name(f.getName());
        if (llvm::StringRef(base).startswith("__spirv_")) left.insert(instruction(base));
    }
    if (left.empty()) return "";
    std::string list;
    for (const std::string &s : left) list += (list.empty() ? "" : ", ") + s;
    return "the module uses SPIR-V instructions this driver does not implement: " + list;
}

int link_groups(llvm::Module &m, unsigned flags, std::string &why) {
    bool needed = false;
    for (llvm::Function &f : m)
        if (f.isDeclaration() && f.getName().startswith("__zp_") && !f.use_empty() &&
            !(f.getName() == "__zp_space_of" && !(flags & ZP_SPIRV_WARP_SUBGROUPS)))
            needed = true;
    if (!needed) return ZP_SPIRV_OK;
    bool warp = flags & ZP_SPIRV_WARP_SUBGROUPS;
    const char *lo = warp ? zp_groups_lib_32 : zp_groups_lib_1, *hi = warp ? zp_groups_lib_32_end : zp_groups_lib_1_end;
    auto buf = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(lo, (size_t)(hi - lo)), "zp_groups_lib", false);
    auto lib = llvm::parseBitcodeFile(buf->getMemBufferRef(), m.getContext());
    if (!lib) {
        why = "the driver's group library does not load: " + llvm::toString(lib.takeError());
        return ZP_SPIRV_BUILD_FAILURE;
    }
    // The library is the module's own code: its target, and none of its compiler's module-level metadata.
    (*lib)->setTargetTriple(m.getTargetTriple());
    (*lib)->setDataLayout(m.getDataLayout());
    std::vector<llvm::NamedMDNode *> mds;
    for (llvm::NamedMDNode &md : (*lib)->named_metadata()) mds.push_back(&md);
    for (llvm::NamedMDNode *md : mds) (*lib)->eraseNamedMetadata(md);
    std::set<std::string> defined;
    for (llvm::Function &f : **lib)
        if (!f.isDeclaration()) defined.insert(f.getName().str());
    if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded)) {
        why = "the driver's group library could not be linked into the module";
        return ZP_SPIRV_BUILD_FAILURE;
    }
    for (llvm::Function &f : m)
        if (!f.isDeclaration() && defined.count(f.getName().str())) f.setLinkage(llvm::GlobalValue::InternalLinkage);
    return ZP_SPIRV_OK;
}

} // namespace zp::spirv
