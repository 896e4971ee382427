// Checked launches (ZE_krt_bounds_check, driver/include/ze_krt_bounds.h): every access a kernel makes to global or
// constant memory through a pointer krt may have given it (a kernel argument, or a pointer read from memory) is
// made only when it lies inside one of the allocations listed in the table whose device address the module source
// carries (zp_module_src.bounds_table). An access outside is not made: a load yields zero, a store or atomic is
// dropped, and the table records the first one for the runtime to report.
//
// Run once every helper is inlined (and private variables promoted to registers), so that an access's underlying
// object is the kernel's own argument, a pointer the kernel loaded, or a program-scope variable; the last are the
// module's own storage, not krt's allocations, and are left unchecked (as is an access whose pointer may come from
// either). __local and private memory, and generic pointers that do not come from a global one, are not checked.
//
// The fast path: a kernel looks up the allocation of each of its global and constant pointer arguments once, at its
// entry (arg_range), and an access whose only underlying object is such an argument is tested inline against it,
// addr - lo <= span - size. When that fails the access is refused, even where it lands in another allocation of
// the context (out of bounds of the array the kernel indexed, as a per-array bounds check says, and what a launch
// reads there depends on where the allocator put the arrays): __zp_bounds_refuse (groups_lib.cl) records it, in a
// block of its own that the branch weights mark cold; on the GPU that block only counts the refusal and keeps the
// first, and the record is made once at the kernel's exit (Deferred, below). In a loop, an access through an
// argument whose address steps by a fixed amount is tested once, at the loop's entry, over all its iterations
// (version_loop, below); on the CPU, an access whose address is an affine function of the work-item's ids is tested
// once per work-group (version_groups). Accesses through pointers of other
// origin (loaded from memory, chosen between arguments) call __zp_bounds_check, the binary search of the whole
// table, every time. A plain load or store is then made unconditionally through select(ok, p, slot), the slot being
// the table's zero words for a load and its sink for a store; atomics, memory intrinsics, builtins and larger
// accesses keep a branch around the access. The check is then linked and inlined like the group library's other
// functions (translate.cpp).
#include "steps.h"
#include "exact_range.h"
#include "../driver/include/ze_krt_bounds.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Transforms/Utils.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace zp::spirv {
namespace {

// What an access does, as the table records it (ze_krt_bounds.h).
enum { KIND_LOAD = 1, KIND_STORE = 2, KIND_ATOMIC = 3 };

// The low 32 bits of the 64-bit FNV-1a hash of a kernel's name: the table names the kernel of a fault by it, and
// the runtime, which knows its launches' kernels by name, hashes them alike.
uint32_t name_hash(llvm::StringRef s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return (uint32_t)h;
}

bool checked_space(unsigned as) { return as == 1 || as == 2; }

// Whether an access through p is to be checked: p is global or constant (or generic, cast from one), and none of
// its possible underlying objects is a program-scope variable.
bool wants_check(llvm::Value *p) {
    auto *pt = llvm::dyn_cast<llvm::PointerType>(p->getType());
    if (!pt) return false;
    llvm::SmallVector<const llvm::Value *, 4> objs;
    llvm::getUnderlyingObjects(p, objs, nullptr, 0);
    if (objs.empty()) return false;
    bool global_space = checked_space(pt->getAddressSpace());
    for (const llvm::Value *o : objs) {
        if (llvm::isa<llvm::GlobalVariable>(o) || llvm::isa<llvm::ConstantPointerNull>(o) ||
            llvm::isa<llvm::UndefValue>(o))
            return false;
        auto *ot = llvm::dyn_cast<llvm::PointerType>(o->getType());
        if (!ot) return false;
        if (checked_space(ot->getAddressSpace())) global_space = true;
        else if (ot->getAddressSpace() != 4) return false; // private or __local at its root
    }
    return global_space;
}

uint64_t store_size(const llvm::DataLayout &dl, llvm::Type *t) { return dl.getTypeStoreSize(t).getFixedSize(); }

// The pointee's size of a typed pointer, 1 when it has none (opaque, or a function).
uint64_t pointee_size(const llvm::DataLayout &dl, llvm::Value *p) {
    auto *pt = llvm::cast<llvm::PointerType>(p->getType());
    if (pt->isOpaque()) return 1;
    llvm::Type *e = pt->getNonOpaquePointerElementType();
    return e->isSized() ? store_size(dl, e) : 1;
}

// One range to check at an instruction: the address, its size in bytes and the kind.
struct Access {
    llvm::Value *ptr;
    llvm::Value *size; // i64
    int kind;
};

// vloadN / vstoreN and the half forms: N elements of the pointee's size (2 for half forms) at p + offset * N *
// size; vloada_half3 and vstorea_half3 step by 4. Returns 0 for another name.
unsigned vector_count(const std::string &base, bool &is_store, bool &half, bool &aligned) {
    llvm::StringRef s(base);
    is_store = s.consume_front("vstore");
    if (!is_store && !s.consume_front("vload")) return 0;
    aligned = s.consume_front("a");
    half = s.consume_front("_half");
    // vstore_half_rte and the like: the rounding suffix does not change what is written.
    size_t us = s.find('_');
    if (us != llvm::StringRef::npos) s = s.substr(0, us);
    if (s.empty()) return half ? 1 : 0;
    unsigned n = 0;
    if (s.getAsInteger(10, n)) return 0;
    return (n == 2 || n == 3 || n == 4 || n == 8 || n == 16) ? n : 0;
}

// The accesses a call to an OpenCL builtin makes through global pointers; none for the functions that take one
// without reading or writing through it per work-item (the group copies, prefetch).
void builtin_accesses(llvm::CallInst *call, const llvm::DataLayout &dl, std::vector<Access> &out) {
    llvm::Function *f = call->getCalledFunction();
    if (!f || !f->isDeclaration() || f->isIntrinsic()) return;
    std::string base = builtin_base_name(f->getName());
    if (base.rfind("__", 0) == 0 || base.rfind("async_work_group", 0) == 0 || base == "prefetch" ||
        base == "wait_group_events")
        return;
    llvm::LLVMContext &c = call->getContext();
    llvm::Type *i64 = llvm::Type::getInt64Ty(c);
    bool is_store = false, half = false, aligned = false;
    unsigned n = vector_count(base, is_store, half, aligned);
    if (n) {
        unsigned pi = is_store ? 2 : 1, oi = is_store ? 1 : 0;
        if (call->arg_size() <= pi) return;
        llvm::Value *p = call->getArgOperand(pi);
        if (!p->getType()->isPointerTy() || !wants_check(p)) return;
        uint64_t elem = half ? 2 : pointee_size(dl, p);
        uint64_t step = (aligned && n == 3) ? 4 : n;
        llvm::IRBuilder<> b(call);
        llvm::Value *off = b.CreateZExtOrTrunc(call->getArgOperand(oi), i64);
        llvm::Value *bytes = b.CreateMul(off, llvm::ConstantInt::get(i64, step * elem));
        llvm::Type *i8p = llvm::Type::getInt8PtrTy(c, llvm::cast<llvm::PointerType>(p->getType())->getAddressSpace());
        llvm::Value *at = b.CreateGEP(llvm::Type::getInt8Ty(c), b.CreatePointerCast(p, i8p), bytes);
        out.push_back({at, llvm::ConstantInt::get(i64, n * elem), is_store ? KIND_STORE : KIND_LOAD});
        return;
    }
    bool atomic = base.rfind("atom_", 0) == 0 || base.rfind("atomic_", 0) == 0;
    // Every other builtin with a global pointer (fract, modf, sincos, frexp, remquo, lgamma_r write one value
    // through it; the atomics read and write one).
    for (unsigned i = 0; i < call->arg_size(); i++) {
        llvm::Value *p = call->getArgOperand(i);
        if (!p->getType()->isPointerTy() || !wants_check(p)) continue;
        out.push_back({p, llvm::ConstantInt::get(i64, pointee_size(dl, p)), atomic ? KIND_ATOMIC : KIND_STORE});
    }
}

void collect(llvm::Instruction &i, const llvm::DataLayout &dl, std::vector<Access> &out) {
    llvm::Type *i64 = llvm::Type::getInt64Ty(i.getContext());
    auto add = [&](llvm::Value *p, uint64_t size, int kind) {
        if (wants_check(p)) out.push_back({p, llvm::ConstantInt::get(i64, size), kind});
    };
    if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&i)) {
        add(ld->getPointerOperand(), store_size(dl, ld->getType()), KIND_LOAD);
    } else if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i)) {
        add(st->getPointerOperand(), store_size(dl, st->getValueOperand()->getType()), KIND_STORE);
    } else if (auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&i)) {
        add(rmw->getPointerOperand(), store_size(dl, rmw->getValOperand()->getType()), KIND_ATOMIC);
    } else if (auto *cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&i)) {
        add(cx->getPointerOperand(), store_size(dl, cx->getNewValOperand()->getType()), KIND_ATOMIC);
    } else if (auto *mt = llvm::dyn_cast<llvm::MemTransferInst>(&i)) {
        llvm::IRBuilder<> b(&i);
        llvm::Value *len = b.CreateZExtOrTrunc(mt->getLength(), i64);
        if (wants_check(mt->getRawDest())) out.push_back({mt->getRawDest(), len, KIND_STORE});
        if (wants_check(mt->getRawSource())) out.push_back({mt->getRawSource(), len, KIND_LOAD});
    } else if (auto *ms = llvm::dyn_cast<llvm::MemSetInst>(&i)) {
        llvm::IRBuilder<> b(&i);
        if (wants_check(ms->getRawDest()))
            out.push_back({ms->getRawDest(), b.CreateZExtOrTrunc(ms->getLength(), i64), KIND_STORE});
    } else if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i)) {
        builtin_accesses(call, dl, out);
    }
}

// The allocation holding each pointer argument of a kernel, looked up once at its entry: lo and span (hi - lo), both
// 0 when the argument lies in no allocation. Straight (the CPU): 32 unrolled steps of a branch-free binary search
// whose loads are marked invariant (the table and its ranges are not written while a launch runs), so that LLVM
// hoists the whole lookup out of PoCL's work-item loops and it runs once per work-group; 32 steps cover any count
// below 2^32. Otherwise (the GPU, one thread per work-item): the group library's loop of log2(count) steps.
struct ArgRange {
    llvm::Value *lo, *span;
};

ArgRange arg_range(llvm::IRBuilder<> &b, llvm::Value *tab, llvm::Value *addr, bool straight,
                   llvm::FunctionCallee lookup) {
    llvm::LLVMContext &c = b.getContext();
    llvm::Type *i64 = llvm::Type::getInt64Ty(c);
    llvm::Value *zero = llvm::ConstantInt::get(i64, 0);
    if (!straight) {
        llvm::Value *r = b.CreateCall(lookup, {tab, addr});
        llvm::Value *lo = b.CreateExtractElement(r, (uint64_t)0), *hi = b.CreateExtractElement(r, (uint64_t)1);
        return {lo, b.CreateSub(hi, lo)};
    }
    llvm::PointerType *p64 = llvm::PointerType::get(i64, 1);
    llvm::MDNode *inv = llvm::MDNode::get(c, {});
    auto load = [&](llvm::Value *ptr) {
        llvm::LoadInst *l = b.CreateAlignedLoad(i64, ptr, llvm::Align(8));
        l->setMetadata(llvm::LLVMContext::MD_invariant_load, inv);
        return l;
    };
    auto word = [&](llvm::Value *r, llvm::Value *i) { return load(b.CreateGEP(i64, r, i)); };
    llvm::Value *r = b.CreateIntToPtr(load(b.CreateIntToPtr(tab, p64)), p64);
    llvm::Value *count = load(r), *n = count, *base = zero;
    llvm::Value *one = llvm::ConstantInt::get(i64, 1), *two = llvm::ConstantInt::get(i64, 2);
    for (int k = 0; k < 32; k++) {
        // base: the last entry known to start at or below addr (or 0); n: the entries left from base on.
        llvm::Value *half = b.CreateLShr(n, one);
        llvm::Value *mid = b.CreateAdd(base, half);
        llvm::Value *start = word(r, b.CreateAdd(two, b.CreateShl(mid, one)));
        base = b.CreateSelect(b.CreateICmpULE(start, addr), mid, base);
        n = b.CreateSub(n, half);
    }
    llvm::Value *at = b.CreateAdd(two, b.CreateShl(base, one));
    llvm::Value *lo = word(r, at), *hi = word(r, b.CreateAdd(at, one));
    llvm::Value *found = b.CreateAnd(b.CreateICmpNE(count, zero),
                                     b.CreateAnd(b.CreateICmpULE(lo, addr), b.CreateICmpULT(addr, hi)));
    return {b.CreateSelect(found, lo, zero), b.CreateSelect(found, b.CreateSub(hi, lo), zero)};
}

// The kernel argument an access's pointer comes from, when that is its only possible underlying object.
llvm::Argument *only_argument(llvm::Value *p) {
    llvm::SmallVector<const llvm::Value *, 4> objs;
    llvm::getUnderlyingObjects(p, objs, nullptr, 0);
    if (objs.size() != 1) return nullptr;
    return llvm::dyn_cast<llvm::Argument>(const_cast<llvm::Value *>(objs[0]));
}

// A call that versioned code's two copies must not each hold (here and in version_groups): a convergent one (a
// barrier, a collective, a warp operation), inline assembly, an indirect call, or a function whose name says it
// synchronizes or works on a group.
bool splits_group(const llvm::Instruction &i) {
    auto *cb = llvm::dyn_cast<llvm::CallBase>(&i);
    if (!cb) return false;
    const llvm::Function *fn = cb->getCalledFunction();
    if (cb->isConvergent() || cb->isInlineAsm() || !fn) return true;
    if (fn->isIntrinsic()) return false;
    llvm::StringRef n = fn->getName();
    for (const char *s : {"arrier", "roup", "ence", "huffle", "allot"})
        if (n.contains(s)) return true;
    return false;
}

// Loop versioning: a plain access in an innermost loop through a kernel argument, whose address steps through
// memory by a fixed amount each iteration (an affine recurrence of ScalarEvolution, or an address the loop does not
// change), is tested once at the loop's entry instead of at every iteration: its first and last addresses over
// the loop's iterations are tested against the argument's allocation, with no wrap on the way. Where every such
// test passes, the kernel runs the loop as it was, those accesses unchecked; otherwise a copy of the loop with every
// access checked, which refuses exactly the accesses that fall outside. So a loop that walks a row or a column
// costs one test per entry rather than one per access (docs/performance.md, "Checked launches"). A loop with a
// barrier, a collective or any other convergent call is left as it is: its two copies could split a group.
bool convergent_inside(const llvm::Loop *l) {
    for (llvm::BasicBlock *bb : l->blocks())
        for (llvm::Instruction &i : *bb)
            if (splits_group(i)) return true;
    return false;
}

// The analyses a versioning step reads, made afresh for f as it now is.
struct Analyses {
    llvm::TargetLibraryInfoImpl tlii;
    llvm::TargetLibraryInfo tli;
    llvm::DominatorTree dt;
    llvm::LoopInfo li;
    llvm::AssumptionCache ac;
    llvm::ScalarEvolution se;
    explicit Analyses(llvm::Function &f)
        : tlii(llvm::Triple(f.getParent()->getTargetTriple())), tli(tlii), dt(f), li(dt), ac(f),
          se(f, tli, ac, dt, li) {}
};

struct Affine {
    llvm::Instruction *inst;
    llvm::Argument *arg;
    const llvm::SCEV *start, *step; // step null: the loop does not change the address
    uint64_t size;
    bool after_exit_test; // runs only in iterations that passed the loop's exit test: one time fewer than its header
};

// Versions loop l of kernel f where it holds at least one access as above. Returns the checked copy's header, or
// null where l is left as it is; `proven` gets the accesses the original copy makes unchecked, `insts` the copy's
// instructions that correspond to instructions of `insts` (the ones to instrument).
llvm::BasicBlock *version_loop(llvm::Loop *l, llvm::DominatorTree &dt, llvm::LoopInfo &li, llvm::ScalarEvolution &se,
                               llvm::AssumptionCache &ac, const llvm::DataLayout &dl,
                               const std::map<llvm::Argument *, ArgRange> &ranges,
                               std::vector<llvm::Instruction *> &insts,
                               std::set<llvm::Instruction *> &proven, llvm::MDNode *likely) {
    llvm::simplifyLoop(l, &dt, &li, &se, &ac, nullptr, false);
    llvm::BasicBlock *ph = l->getLoopPreheader(), *exit = l->getExitBlock(), *ex = l->getExitingBlock();
    if (!ph || !exit || !ex || !l->getLoopLatch() || convergent_inside(l)) return nullptr;
    auto *br = llvm::dyn_cast<llvm::BranchInst>(ex->getTerminator());
    if (!br || !br->isConditional()) return nullptr;
    llvm::BasicBlock *stay = l->contains(br->getSuccessor(0)) ? br->getSuccessor(0) : br->getSuccessor(1);
    const llvm::SCEV *ec = se.getExitCount(l, ex); // times the loop's back edge is taken
    if (llvm::isa<llvm::SCEVCouldNotCompute>(ec) || !ec->getType()->isIntegerTy() ||
        ec->getType()->getIntegerBitWidth() > 64)
        return nullptr;
    llvm::Instruction *at = ph->getTerminator();
    llvm::SCEVExpander exp(se, dl, "zp.bounds");
    if (!exp.isSafeToExpandAt(ec, at)) return nullptr;
    std::vector<Affine> found;
    for (llvm::BasicBlock *bb : l->blocks())
        for (llvm::Instruction &i : *bb) {
            if (!llvm::isa<llvm::LoadInst>(i) && !llvm::isa<llvm::StoreInst>(i) && !llvm::isa<llvm::AtomicRMWInst>(i) &&
                !llvm::isa<llvm::AtomicCmpXchgInst>(i))
                continue;
            std::vector<Access> acc;
            collect(i, dl, acc);
            if (acc.size() != 1) continue;
            llvm::Argument *arg = only_argument(acc[0].ptr);
            if (!arg || !ranges.count(arg)) continue;
            const llvm::SCEV *s = se.getSCEV(acc[0].ptr), *start = s, *step = nullptr;
            if (auto *ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s)) {
                if (ar->getLoop() != l || !ar->isAffine()) continue;
                start = ar->getStart();
                step = ar->getStepRecurrence(se);
            } else if (!se.isLoopInvariant(s, l)) {
                continue;
            }
            if (!se.isLoopInvariant(start, l) || !exp.isSafeToExpandAt(start, at) ||
                (step && (!se.isLoopInvariant(step, l) || !exp.isSafeToExpandAt(step, at) ||
                          step->getType()->getIntegerBitWidth() > 64)))
                continue;
            bool after = stay != l->getHeader() && dt.dominates(llvm::BasicBlockEdge(ex, stay), bb);
            found.push_back({&i, arg, start, step, llvm::cast<llvm::ConstantInt>(acc[0].size)->getZExtValue(), after});
        }
    if (found.empty()) return nullptr;
    llvm::formLCSSA(*l, dt, &li, &se);

    // The test, in the preheader: every access's first and last address inside its argument's allocation.
    llvm::IRBuilder<> b(at);
    llvm::Type *i64 = b.getInt64Ty();
    llvm::Value *count = b.CreateZExtOrTrunc(exp.expandCodeFor(ec, ec->getType(), at), i64);
    llvm::Value *zero = llvm::ConstantInt::get(i64, 0), *none = b.CreateICmpEQ(count, zero);
    llvm::Function *umul = llvm::Intrinsic::getDeclaration(at->getModule(), llvm::Intrinsic::umul_with_overflow, {i64});
    llvm::Function *uadd = llvm::Intrinsic::getDeclaration(at->getModule(), llvm::Intrinsic::uadd_with_overflow, {i64});
    llvm::Function *usub = llvm::Intrinsic::getDeclaration(at->getModule(), llvm::Intrinsic::usub_with_overflow, {i64});
    llvm::Value *all = b.getTrue();
    for (const Affine &a : found) {
        const ArgRange &r = ranges.at(a.arg);
        llvm::Value *size = llvm::ConstantInt::get(i64, a.size);
        llvm::Value *room = b.CreateSub(r.span, size), *fits = b.CreateICmpULE(size, r.span);
        auto inside = [&](llvm::Value *p) {
            return b.CreateAnd(fits, b.CreateICmpULE(b.CreateSub(p, r.lo), room));
        };
        llvm::Value *first = exp.expandCodeFor(a.start, a.start->getType(), at);
        first = first->getType()->isPointerTy() ? b.CreatePtrToInt(first, i64) : b.CreateZExtOrTrunc(first, i64);
        llvm::Value *ok = inside(first);
        if (a.step) {
            // The last iteration that runs the access: count - 1 after the exit test (none when count is 0), count
            // before it. A step the recurrence gives as a negative constant goes down; any other is taken as
            // unsigned, so that a negative one not known as such overflows and fails the test.
            llvm::Value *last = a.after_exit_test ? b.CreateSub(count, llvm::ConstantInt::get(i64, 1)) : count;
            bool down = false;
            llvm::Value *step = exp.expandCodeFor(a.step, a.step->getType(), at);
            if (auto *c = llvm::dyn_cast<llvm::SCEVConstant>(a.step); c && c->getAPInt().isNegative()) {
                down = true;
                step = b.CreateNeg(b.CreateSExtOrTrunc(step, i64));
            } else {
                step = b.CreateZExtOrTrunc(step, i64);
            }
            llvm::Value *m = b.CreateCall(umul, {last, step});
            llvm::Value *e = b.CreateCall(down ? usub : uadd, {first, b.CreateExtractValue(m, 0)});
            ok = b.CreateAnd(ok, b.CreateAnd(inside(b.CreateExtractValue(e, 0)),
                                             b.CreateNot(b.CreateOr(b.CreateExtractValue(m, 1),
                                                                    b.CreateExtractValue(e, 1)))));
            if (a.after_exit_test) ok = b.CreateOr(ok, none);
        }
        all = b.CreateAnd(all, ok);
    }

    // The copy: the preheader splits into the test and the original loop's own preheader, and the copy of the loop
    // (with a copy of that preheader) takes the test's other branch; both leave to the same exit block.
    llvm::BasicBlock *fast = llvm::SplitBlock(ph, at, &dt, &li, nullptr, "zp.bounds.proven");
    llvm::ValueToValueMapTy vmap;
    llvm::SmallVector<llvm::BasicBlock *, 8> blocks;
    llvm::Loop *copy = llvm::cloneLoopWithPreheader(fast, ph, l, vmap, ".zp.checked", &li, &dt, blocks);
    llvm::remapInstructionsInBlocks(blocks, vmap);
    llvm::Instruction *t = ph->getTerminator();
    llvm::BranchInst *choose = llvm::BranchInst::Create(fast, llvm::cast<llvm::BasicBlock>(vmap[fast]), all, t);
    choose->setMetadata(llvm::LLVMContext::MD_prof, likely);
    t->eraseFromParent();
    for (llvm::PHINode &phi : exit->phis()) {
        std::vector<std::pair<llvm::Value *, llvm::BasicBlock *>> in;
        for (unsigned k = 0; k < phi.getNumIncomingValues(); k++)
            if (l->contains(phi.getIncomingBlock(k))) in.push_back({phi.getIncomingValue(k), phi.getIncomingBlock(k)});
        for (auto &[v, from] : in) {
            llvm::Value *nv = vmap.lookup(v);
            phi.addIncoming(nv ? nv : v, llvm::cast<llvm::BasicBlock>(vmap[from]));
        }
    }
    std::set<llvm::Instruction *> listed(insts.begin(), insts.end());
    for (llvm::BasicBlock *bb : l->blocks())
        for (llvm::Instruction &i : *bb)
            if (listed.count(&i)) insts.push_back(llvm::cast<llvm::Instruction>(vmap[&i]));
    for (const Affine &a : found) proven.insert(a.inst);
    return copy->getHeader();
}

// Versions every innermost loop of kernel f that version_loop takes, one at a time, the analyses made afresh for
// each.
void version_loops(llvm::Function &f, const llvm::DataLayout &dl, const std::map<llvm::Argument *, ArgRange> &ranges,
                   std::vector<llvm::Instruction *> &insts, std::set<llvm::Instruction *> &proven,
                   llvm::MDNode *likely) {
    std::set<llvm::BasicBlock *> done;
    for (;;) {
        Analyses an(f);
        llvm::Loop *pick = nullptr;
        for (llvm::Loop *l : an.li.getLoopsInPreorder())
            if (l->isInnermost() && !done.count(l->getHeader())) {
                pick = l;
                break;
            }
        if (!pick) return;
        done.insert(pick->getHeader());
        if (llvm::BasicBlock *h = version_loop(pick, an.dt, an.li, an.se, an.ac, dl, ranges, insts, proven, likely))
            done.insert(h);
    }
}

// An address as a linear function of the work-item's ids: rest + c[0] id0 + c[1] id1 + c[2] id2 (null: 0), found by
// walking its SCEV; false where an id appears any other way.
struct Linear {
    const llvm::SCEV *rest = nullptr;
    const llvm::SCEV *c[3] = {};
};

template <typename HasGid>
bool linear(const llvm::SCEV *e, llvm::ScalarEvolution &se, const HasGid &has_gid,
            const std::map<const llvm::Value *, unsigned> &gid, Linear &out) {
    out = Linear{};
    if (!has_gid(e, -1)) {
        out.rest = e;
        return true;
    }
    if (auto *u = llvm::dyn_cast<llvm::SCEVUnknown>(e)) {
        out.rest = se.getZero(e->getType());
        out.c[gid.at(u->getValue())] = se.getOne(e->getType());
        return true;
    }
    if (auto *a = llvm::dyn_cast<llvm::SCEVAddExpr>(e)) {
        out.rest = se.getZero(e->getType());
        for (const llvm::SCEV *op : a->operands()) {
            Linear l;
            if (!linear(op, se, has_gid, gid, l)) return false;
            out.rest = se.getAddExpr(out.rest, l.rest);
            for (unsigned d = 0; d < 3; d++)
                if (l.c[d]) out.c[d] = out.c[d] ? se.getAddExpr(out.c[d], l.c[d]) : l.c[d];
        }
        return true;
    }
    if (auto *m = llvm::dyn_cast<llvm::SCEVMulExpr>(e)) {
        // One factor holds ids; the product of the others scales it.
        const llvm::SCEV *other = se.getOne(e->getType());
        const llvm::SCEV *with = nullptr;
        for (const llvm::SCEV *op : m->operands()) {
            if (has_gid(op, -1)) {
                if (with) return false;
                with = op;
            } else {
                other = se.getMulExpr(other, op);
            }
        }
        Linear l;
        if (!with || !linear(with, se, has_gid, gid, l)) return false;
        out.rest = se.getMulExpr(l.rest, other);
        for (unsigned d = 0; d < 3; d++)
            if (l.c[d]) out.c[d] = se.getMulExpr(l.c[d], other);
        return true;
    }
    return false;
}

// Group versioning (the CPU, straight): PoCL runs a work-group as a loop over its work-items around the whole
// kernel, and LLVM's loop vectorizer takes no loop whose body can reach the refusal's call or atomic, so a checked
// stencil runs scalar where the unchecked one runs 8 or 16 work-items an instruction. A plain access through an
// argument whose address is an affine function of the work-item's global id (a stencil's a[i * n + j + 1]: no
// loop recurrence in it) is tested once for the whole group at the kernel's entry: its address at the group's
// first work-item, and at every corner of the group's box of ids (the first id plus, in each dimension, nothing or
// the local size less one times the address's step in that dimension), in 64-bit arithmetic checked for overflow.
// An affine function inside its allocation at every corner is inside it at every id in between. Where every such
// test passes the kernel runs a copy of itself with those accesses unchecked; otherwise itself, checked access by
// access. The test depends on the group alone (the group's id, size and offset, the arguments and the table), so
// LLVM hoists it out of PoCL's work-item loop and unswitches the loop on it, and the unchecked copy vectorizes
// (docs/performance.md, "Checked launches"). Not for a kernel with a convergent call (a barrier in each
// copy would split the group) nor on the GPU, whose threads gain nothing from it.
void version_groups(llvm::Function &f, const llvm::DataLayout &dl, const std::map<llvm::Argument *, ArgRange> &ranges,
                    std::vector<llvm::Instruction *> &insts, std::set<llvm::Instruction *> &proven,
                    llvm::MDNode *likely, llvm::MDNode *mark) {
    // Not a kernel whose groups must run whole (exact_range.cpp: it reaches a collective, whose library code leaves
    // no such name once inlined), nor one with a call splits_group names.
    if (needs_whole_groups(f)) return;
    for (llvm::BasicBlock &bb : f)
        for (llvm::Instruction &i : bb)
            if (splits_group(i)) return;
    // The work-item's global ids: calls of get_global_id with a constant dimension.
    std::map<const llvm::Value *, unsigned> gid;
    llvm::Function *gidfn = nullptr;
    for (llvm::BasicBlock &bb : f)
        for (llvm::Instruction &i : bb)
            if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
                if (llvm::Function *fn = c->getCalledFunction(); fn && fn->getName() == "_Z13get_global_idj")
                    if (auto *d = llvm::dyn_cast<llvm::ConstantInt>(c->getArgOperand(0)); d && d->getZExtValue() < 3) {
                        gid[c] = (unsigned)d->getZExtValue();
                        gidfn = fn;
                    }
    if (!gidfn || !gidfn->getReturnType()->isIntegerTy(64)) return;
    // The translator reads the id as a vector of the three calls and takes an element of it.
    for (llvm::BasicBlock &bb : f)
        for (llvm::Instruction &i : bb)
            if (auto *ee = llvm::dyn_cast<llvm::ExtractElementInst>(&i))
                if (auto *ix = llvm::dyn_cast<llvm::ConstantInt>(ee->getIndexOperand()))
                    if (llvm::Value *v = llvm::findScalarElement(ee->getVectorOperand(), (unsigned)ix->getZExtValue()))
                        if (auto g = gid.find(v); g != gid.end()) gid[ee] = g->second;
    // Where the test goes: after the entry's allocas and the arguments' lookups (marked), before the kernel's own code.
    llvm::BasicBlock &entry = f.getEntryBlock();
    llvm::Instruction *at = nullptr;
    for (llvm::Instruction &i : entry)
        if (!llvm::isa<llvm::AllocaInst>(i) && !i.getMetadata("zp.bounds.entry")) {
            at = &i;
            break;
        }
    if (!at || at->isTerminator()) return;
    // The entry ends there, and the test goes at its end: the kernel's own code begins in body.
    llvm::BasicBlock *body = llvm::SplitBlock(&entry, at);
    at = entry.getTerminator();

    Analyses an(f);
    // A kernel with a loop of its own keeps PoCL's work-item loop scalar anyway (LLVM vectorizes no loop around
    // another), and a copy of it only doubles the code: gemm's checked time went from 1.05 to 1.9 times the
    // unchecked one with it. Its loops are version_loop's.
    if (!an.li.empty()) return;
    llvm::ScalarEvolution &se = an.se;
    llvm::IRBuilder<> b(at);
    llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
    llvm::Module &m = *f.getParent();
    auto builtin = [&](const char *name, unsigned d) {
        llvm::FunctionCallee fc = m.getOrInsertFunction(name, llvm::FunctionType::get(i64, {i32}, false));
        if (auto *fn = llvm::dyn_cast<llvm::Function>(fc.getCallee())) fn->setCallingConv(gidfn->getCallingConv());
        llvm::CallInst *c = b.CreateCall(fc, {llvm::ConstantInt::get(i32, d)});
        c->setCallingConv(gidfn->getCallingConv());
        return c;
    };
    // The group's box of ids: from its first work-item's, get_group_id * get_enqueued_local_size +
    // get_global_offset (as the exact-range variant answers them, also in a piece of a launch), over get_local_size
    // (there the real size of a partial group, whose items past the range return before the kernel's code). Not
    // get_global_id - get_local_id, which PoCL's work-item loop keeps per work-item: the test would not leave it.
    llvm::Value *lo[3] = {}, *ext[3] = {};
    for (unsigned d = 0; d < 3; d++) {
        lo[d] = b.CreateAdd(b.CreateMul(builtin("_Z12get_group_idj", d), builtin("_Z23get_enqueued_local_sizej", d)),
                            builtin("_Z17get_global_offsetj", d));
        ext[d] = b.CreateSub(builtin("_Z14get_local_sizej", d), llvm::ConstantInt::get(i64, 1));
    }
    llvm::SCEVExpander exp(se, dl, "zp.group");
    llvm::Function *smul = llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::smul_with_overflow, {i64});
    llvm::Function *sadd = llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::sadd_with_overflow, {i64});
    llvm::Value *all = b.getTrue();
    std::vector<llvm::Instruction *> found;
    for (llvm::Instruction *i : insts) {
        if (proven.count(i) || i->getParent() == &entry) continue;
        if (!llvm::isa<llvm::LoadInst>(i) && !llvm::isa<llvm::StoreInst>(i) && !llvm::isa<llvm::AtomicRMWInst>(i) &&
            !llvm::isa<llvm::AtomicCmpXchgInst>(i))
            continue;
        std::vector<Access> acc;
        collect(*i, dl, acc);
        if (acc.size() != 1) continue;
        llvm::Argument *arg = only_argument(acc[0].ptr);
        auto r = arg ? ranges.find(arg) : ranges.end();
        if (r == ranges.end()) continue;
        const llvm::SCEV *s = se.getSCEV(acc[0].ptr);
        if (!s->getType()->isPointerTy() ||
            llvm::SCEVExprContains(s, [](const llvm::SCEV *e) { return llvm::isa<llvm::SCEVAddRecExpr>(e); }))
            continue;
        s = se.getPtrToIntExpr(s, i64);
        if (llvm::isa<llvm::SCEVCouldNotCompute>(s)) continue;
        auto has_gid = [&](const llvm::SCEV *e, int dim) {
            return llvm::SCEVExprContains(e, [&](const llvm::SCEV *x) {
                auto *u = llvm::dyn_cast<llvm::SCEVUnknown>(x);
                if (!u) return false;
                auto g = gid.find(u->getValue());
                return g != gid.end() && (dim < 0 || (int)g->second == dim);
            });
        };
        // The address as rest + step[0] * id0 + step[1] * id1 + step[2] * id2, the rest and steps free of ids;
        // anything else (a product of two ids, an id under an extension or a division) is not taken.
        Linear lin;
        if (!linear(s, se, has_gid, gid, lin)) continue;
        const llvm::SCEV *first = lin.rest;
        for (unsigned d = 0; d < 3; d++)
            if (lin.c[d]) first = se.getAddExpr(first, se.getMulExpr(lin.c[d], se.getSCEV(lo[d])));
        const llvm::SCEV *const *step = lin.c;
        bool affine = exp.isSafeToExpandAt(first, at);
        for (unsigned d = 0; d < 3 && affine; d++) affine = !step[d] || exp.isSafeToExpandAt(step[d], at);
        if (!affine) continue;
        // The test: the first address inside, then every corner, each a sum checked for signed overflow.
        const ArgRange &ar = r->second;
        llvm::Value *size = acc[0].size;
        llvm::Value *room = b.CreateSub(ar.span, size);
        llvm::Value *ok = b.CreateAnd(b.CreateICmpULE(size, ar.span),
                                      b.CreateICmpSGE(room, llvm::ConstantInt::get(i64, 0)));
        llvm::Value *d0 = b.CreateSub(exp.expandCodeFor(first, i64, at), ar.lo);
        ok = b.CreateAnd(ok, b.CreateICmpULE(d0, room));
        llvm::Value *prod[3] = {}, *pov[3] = {};
        for (unsigned d = 0; d < 3; d++)
            if (step[d]) {
                llvm::Value *mr = b.CreateCall(smul, {exp.expandCodeFor(step[d], i64, at), ext[d]});
                prod[d] = b.CreateExtractValue(mr, 0);
                pov[d] = b.CreateExtractValue(mr, 1);
            }
        for (unsigned corner = 1; corner < 8; corner++) {
            llvm::Value *sum = d0, *ov = b.getFalse();
            bool any = false, skip = false;
            for (unsigned d = 0; d < 3; d++) {
                if (!(corner & (1u << d))) continue;
                if (!prod[d]) {
                    skip = true;
                    break;
                }
                llvm::Value *ar2 = b.CreateCall(sadd, {sum, prod[d]});
                sum = b.CreateExtractValue(ar2, 0);
                ov = b.CreateOr(ov, b.CreateOr(pov[d], b.CreateExtractValue(ar2, 1)));
                any = true;
            }
            if (skip || !any) continue;
            llvm::Value *inside = b.CreateAnd(b.CreateICmpSGE(sum, llvm::ConstantInt::get(i64, 0)),
                                              b.CreateICmpSLE(sum, room));
            ok = b.CreateAnd(ok, b.CreateAnd(b.CreateNot(ov), inside));
        }
        all = b.CreateAnd(all, ok);
        found.push_back(i);
    }
    // Everything the test made goes ahead of the exact-range variant's test of the id, as the lookups do.
    for (llvm::Instruction &i : entry) {
        if (&i == at) break;
        if (!llvm::isa<llvm::AllocaInst>(&i)) i.setMetadata("zp.bounds.entry", mark);
    }
    if (found.empty()) return;

    // The copy: every block after the test, cloned; the test chooses between the copy (those accesses unchecked)
    // and the kernel as it is (checked).
    std::vector<llvm::BasicBlock *> orig;
    for (llvm::BasicBlock &bb : f)
        if (&bb != &entry) orig.push_back(&bb);
    llvm::ValueToValueMapTy vmap;
    llvm::SmallVector<llvm::BasicBlock *, 16> copies;
    for (llvm::BasicBlock *bb : orig) {
        llvm::BasicBlock *c = llvm::CloneBasicBlock(bb, vmap, ".zp.group", &f);
        vmap[bb] = c;
        copies.push_back(c);
    }
    llvm::remapInstructionsInBlocks(copies, vmap);
    llvm::Instruction *t = entry.getTerminator();
    llvm::BranchInst *choose = llvm::BranchInst::Create(llvm::cast<llvm::BasicBlock>(vmap[body]), body, all, t);
    choose->setMetadata(llvm::LLVMContext::MD_prof, likely);
    t->eraseFromParent();
    std::vector<llvm::Instruction *> copied;
    for (llvm::Instruction *i : insts)
        if (auto it = vmap.find(i); it != vmap.end()) copied.push_back(llvm::cast<llvm::Instruction>(it->second));
    std::vector<llvm::Instruction *> was(proven.begin(), proven.end());
    for (llvm::Instruction *p : was)
        if (auto it = vmap.find(p); it != vmap.end()) proven.insert(llvm::cast<llvm::Instruction>(it->second));
    for (llvm::Instruction *i : found) proven.insert(llvm::cast<llvm::Instruction>(vmap[i]));
    insts.insert(insts.end(), copied.begin(), copied.end());
}

// The GPU's record of a kernel's refusals (at_exit, ZP_SPIRV_BOUNDS_AT_EXIT), kept by each work-item until the
// kernel's exit (one thread per work-item, and its exit lies outside its loops): how many it refused, and the first
// one's address, size and kind, in private variables that become registers. A refusal then costs a few selects in a
// cold block that holds no call and no atomic, so that LLVM still unrolls the loop around a checked access and
// overlaps its loads; at each return a work-item that refused anything calls __zp_bounds_record (groups_lib.cl)
// once. PoCL's work-item loops surround the whole kernel, exit included, so the CPU records each refusal where it
// happens (docs/performance.md, "Checked launches"), but for ze_pocl's test knob KRT_ZE_POCL_BOUNDS_AT_EXIT, which
// runs this form there for the tests.
struct Deferred {
    llvm::AllocaInst *count = nullptr, *addr = nullptr, *size = nullptr, *kind = nullptr;

    // A refused access of size bytes at addr: counted, and kept when it is the work-item's first. Gives true for
    // an access of no bytes, which is made (it reaches nothing), as __zp_bounds_refuse does.
    llvm::Value *refuse(llvm::IRBuilder<> &b, llvm::Value *at, llvm::Value *bytes, llvm::Value *what) {
        llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
        llvm::Value *empty = b.CreateICmpEQ(bytes, llvm::ConstantInt::get(i64, 0));
        llvm::Value *n = b.CreateLoad(i32, count);
        llvm::Value *first = b.CreateAnd(b.CreateNot(empty), b.CreateICmpEQ(n, llvm::ConstantInt::get(i32, 0)));
        b.CreateStore(b.CreateAdd(n, b.CreateZExt(b.CreateNot(empty), i32)), count);
        b.CreateStore(b.CreateSelect(first, at, b.CreateLoad(i64, addr)), addr);
        b.CreateStore(b.CreateSelect(first, bytes, b.CreateLoad(i64, size)), size);
        b.CreateStore(b.CreateSelect(first, what, b.CreateLoad(i32, kind)), kind);
        return empty;
    }

    // Before each return of f: a work-item that refused anything records it.
    void record_at_exits(llvm::Function &f, llvm::FunctionCallee record, llvm::Value *tab, llvm::Value *kernel,
                         llvm::MDNode *cold) {
        std::vector<llvm::ReturnInst *> rets;
        for (llvm::BasicBlock &bb : f)
            if (auto *r = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator())) rets.push_back(r);
        for (llvm::ReturnInst *r : rets) {
            llvm::IRBuilder<> b(r);
            llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
            llvm::Value *n = b.CreateLoad(i32, count);
            llvm::Instruction *t =
                llvm::SplitBlockAndInsertIfThen(b.CreateICmpNE(n, llvm::ConstantInt::get(i32, 0)), r, false, cold);
            llvm::IRBuilder<> tb(t);
            tb.CreateCall(record, {tab, tb.CreateLoad(i64, addr), tb.CreateLoad(i64, size), tb.CreateLoad(i32, kind),
                                   kernel, n});
        }
    }
};

Deferred deferred(llvm::IRBuilder<> &b, const llvm::DataLayout &dl) {
    Deferred d;
    unsigned as = dl.getAllocaAddrSpace();
    llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
    d.count = b.CreateAlloca(i32, as);
    d.addr = b.CreateAlloca(i64, as);
    d.size = b.CreateAlloca(i64, as);
    d.kind = b.CreateAlloca(i32, as);
    b.CreateStore(llvm::ConstantInt::get(i32, 0), d.count);
    b.CreateStore(llvm::ConstantInt::get(i64, 0), d.addr);
    b.CreateStore(llvm::ConstantInt::get(i64, 0), d.size);
    b.CreateStore(llvm::ConstantInt::get(i32, 0), d.kind);
    return d;
}

} // namespace

int add_bounds_checks(llvm::Module &m, uint64_t table, bool straight, bool at_exit, std::string &why) {
    if (!table) return ZP_SPIRV_OK;
    llvm::LLVMContext &c = m.getContext();
    const llvm::DataLayout &dl = m.getDataLayout();
    llvm::Type *i32 = llvm::Type::getInt32Ty(c), *i64 = llvm::Type::getInt64Ty(c);
    llvm::FunctionType *ft = llvm::FunctionType::get(i32, {i64, i64, i64, i32, i32}, false);
    for (const char *name : {"__zp_bounds_check", "__zp_bounds_refuse", "__zp_bounds_arg", "__zp_bounds_record"})
        if (llvm::Function *old = m.getFunction(name); old && !old->isDeclaration()) {
            why = std::string("the module defines a function named ") + name + ", the name of a function of the "
                  "driver's bounds check";
            return ZP_SPIRV_BUILD_FAILURE;
        }
    llvm::FunctionCallee check = m.getOrInsertFunction("__zp_bounds_check", ft);
    llvm::FunctionCallee refuse = m.getOrInsertFunction("__zp_bounds_refuse", ft);
    llvm::FunctionCallee lookup, record;
    if (!straight)
        lookup = m.getOrInsertFunction("__zp_bounds_arg",
                                       llvm::FunctionType::get(llvm::FixedVectorType::get(i64, 2), {i64, i64}, false));
    if (at_exit)
        record = m.getOrInsertFunction("__zp_bounds_record",
                                       llvm::FunctionType::get(llvm::Type::getVoidTy(c), {i64, i64, i64, i32, i32, i32},
                                                               false));
    // Private variables to registers first: a kernel built without optimization keeps its arguments in allocas,
    // and an access's pointer must reach back to the argument itself for the argument's range to apply.
    {
        llvm::legacy::PassManager pm;
        pm.add(llvm::createPromoteMemoryToRegisterPass());
        pm.run(m);
    }
    llvm::Value *tab = llvm::ConstantInt::get(i64, table);
    llvm::MDNode *cold = llvm::MDBuilder(c).createBranchWeights(1, 1u << 20);
    llvm::MDNode *likely = llvm::MDBuilder(c).createBranchWeights(1u << 20, 1);
    std::vector<llvm::Function *> fns;
    for (llvm::Function &f : m)
        if (!f.isDeclaration()) fns.push_back(&f);
    for (llvm::Function *f : fns) {
        llvm::Value *kernel = llvm::ConstantInt::get(i32, name_hash(f->getName()));
        std::vector<llvm::Instruction *> insts;
        for (llvm::BasicBlock &bb : *f)
            for (llvm::Instruction &i : bb) insts.push_back(&i);
        // The range of every global or constant pointer argument of a kernel, at its entry.
        std::map<llvm::Argument *, ArgRange> ranges;
        std::set<llvm::Instruction *> proven; // tested once at their loop's entry (version_loop)
        Deferred later{};
        if (f->getCallingConv() == llvm::CallingConv::SPIR_KERNEL) {
            llvm::IRBuilder<> b(&*f->getEntryBlock().getFirstInsertionPt());
            if (at_exit) later = deferred(b, dl);
            for (llvm::Argument &a : f->args()) {
                auto *pt = llvm::dyn_cast<llvm::PointerType>(a.getType());
                if (!pt || !checked_space(pt->getAddressSpace()) || a.use_empty()) continue;
                ranges[&a] = arg_range(b, tab, b.CreatePtrToInt(&a, i64), straight, lookup);
            }
            // Marked, so that the exact-range variant (exact_range.cpp) keeps the lookups ahead of its test of the
            // work-item's id: where they dominate the whole body, LLVM may hoist them out of the work-item loops.
            llvm::MDNode *mark = llvm::MDNode::get(c, {});
            for (llvm::Instruction &i : f->getEntryBlock()) {
                if (&i == &*b.GetInsertPoint()) break;
                if (!llvm::isa<llvm::AllocaInst>(&i)) i.setMetadata("zp.bounds.entry", mark);
            }
            if (!ranges.empty()) version_loops(*f, dl, ranges, insts, proven, likely);
            if (!ranges.empty() && straight) version_groups(*f, dl, ranges, insts, proven, likely, mark);
        }
        for (llvm::Instruction *i : insts) {
            if (proven.count(i)) continue;
            std::vector<Access> acc;
            collect(*i, dl, acc);
            if (acc.empty()) continue;
            llvm::Value *ok = nullptr;
            for (const Access &a : acc) {
                llvm::IRBuilder<> b(i);
                llvm::Value *addr = b.CreatePtrToInt(a.ptr, i64);
                llvm::Value *kind = llvm::ConstantInt::get(i32, a.kind);
                llvm::Value *one;
                llvm::Argument *arg = only_argument(a.ptr);
                auto r = arg ? ranges.find(arg) : ranges.end();
                if (r == ranges.end()) {
                    one = b.CreateICmpNE(b.CreateCall(check, {tab, addr, a.size, kind, kernel}),
                                         llvm::ConstantInt::get(i32, 0));
                } else {
                    // Inside the argument's own allocation: addr - lo <= span - size, and size <= span (both
                    // invariant); unsigned, so an address below lo wraps past any limit. Elsewhere the access is
                    // refused and recorded, in a block of its own that only a refused access enters.
                    llvm::Value *fast = b.CreateAnd(
                        b.CreateICmpULE(b.CreateSub(addr, r->second.lo), b.CreateSub(r->second.span, a.size)),
                        b.CreateICmpULE(a.size, r->second.span));
                    llvm::BasicBlock *head = i->getParent();
                    llvm::Instruction *slow_term =
                        llvm::SplitBlockAndInsertIfThen(b.CreateNot(fast), i, false, cold);
                    llvm::IRBuilder<> sb(slow_term);
                    llvm::Value *slow = later.count ? later.refuse(sb, addr, a.size, kind)
                                                    : sb.CreateICmpNE(sb.CreateCall(refuse, {tab, addr, a.size, kind,
                                                                                             kernel}),
                                                                      llvm::ConstantInt::get(i32, 0));
                    llvm::PHINode *phi = llvm::PHINode::Create(llvm::Type::getInt1Ty(c), 2, "", i);
                    phi->addIncoming(llvm::ConstantInt::getTrue(c), head);
                    phi->addIncoming(slow, slow_term->getParent());
                    one = phi;
                }
                ok = ok ? llvm::IRBuilder<>(i).CreateAnd(ok, one) : one;
            }
            // A plain load or store of at most ZE_KRT_BOUNDS_SLOT_BYTES: made in every case, branch-free, through
            // the pointer or, when refused, through the table's slot (a load reads the zero slot, a store writes
            // the sink), so that the work-item loops stay straight.
            auto *ld = llvm::dyn_cast<llvm::LoadInst>(i);
            auto *st = llvm::dyn_cast<llvm::StoreInst>(i);
            if (acc.size() == 1 && ((ld && ld->isUnordered()) || (st && st->isUnordered()))) {
                llvm::Value *p = ld ? ld->getPointerOperand() : st->getPointerOperand();
                llvm::Align al = ld ? ld->getAlign() : st->getAlign();
                uint64_t size = llvm::cast<llvm::ConstantInt>(acc[0].size)->getZExtValue();
                if (size <= ZE_KRT_BOUNDS_SLOT_BYTES && al.value() <= 64) {
                    uint64_t slot = table + 8 * (uint64_t)(ld ? ZE_KRT_BOUNDS_ZERO : ZE_KRT_BOUNDS_SINK);
                    llvm::IRBuilder<> b(i);
                    llvm::Value *safe = b.CreateIntToPtr(llvm::ConstantInt::get(i64, slot), p->getType());
                    llvm::Value *q = b.CreateSelect(ok, p, safe);
                    if (ld) ld->setOperand(0, q);
                    else st->setOperand(1, q);
                    continue;
                }
            }
            llvm::Instruction *then_term = nullptr, *else_term = nullptr;
            llvm::SplitBlockAndInsertIfThenElse(ok, i, &then_term, &else_term);
            llvm::BasicBlock *tail = then_term->getSuccessor(0);
            i->moveBefore(then_term);
            if (!i->getType()->isVoidTy() && !i->use_empty()) {
                llvm::PHINode *phi = llvm::PHINode::Create(i->getType(), 2, "", &*tail->begin());
                i->replaceAllUsesWith(phi);
                phi->addIncoming(i, then_term->getParent());
                phi->addIncoming(llvm::Constant::getNullValue(i->getType()), else_term->getParent());
            }
        }
        if (later.count) later.record_at_exits(*f, record, tab, kernel, cold);
    }
    if (at_exit) {
        // The deferred records' variables to registers.
        llvm::legacy::PassManager pm;
        pm.add(llvm::createPromoteMemoryToRegisterPass());
        pm.run(m);
    }
    return ZP_SPIRV_OK;
}

} // namespace zp::spirv
