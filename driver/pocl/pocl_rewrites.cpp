// PoCL's own rewrites of the translated module (zp_pocl_translate, pocl_rewrites.h): what PoCL's kernel library
// or its work-group compiler needs and no other backend wants, run inside the SPIR-V front end's translation
// (spirv/passes.h) where the self-check's choice (selfcheck.c) and the route ask for them.
#include "pocl_rewrites.h"
#include "../../spirv/passes.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Transforms/Utils/Cloning.h>

namespace {

// vloadN(offset, p) and vstoreN(data, offset, p) for N in 2, 3, 4, 8, 16, any element type and address
// space, become N element loads or stores at p + offset * N (OpenCL C 1.2, 6.12.7: p need only be aligned
// to the element). Calls whose types do not have that shape are left alone.
void lower_vloadstore(llvm::Module &mod) {
    std::vector<llvm::CallInst *> calls;
    for (llvm::Function &f : mod) {
        if (!f.isDeclaration()) continue;
        llvm::StringRef n = f.getName();
        if (!n.consume_front("_Z")) continue;
        size_t len = 0;
        while (!n.empty() && n.front() >= '0' && n.front() <= '9') {
            len = len * 10 + (size_t)(n.front() - '0');
            n = n.drop_front();
        }
        llvm::StringRef base = n.take_front(len);
        if (base != "vload2" && base != "vload3" && base != "vload4" && base != "vload8" && base != "vload16" &&
            base != "vstore2" && base != "vstore3" && base != "vstore4" && base != "vstore8" && base != "vstore16")
            continue;
        for (llvm::User *u : f.users())
            if (auto *call = llvm::dyn_cast<llvm::CallInst>(u))
                if (call->getCalledFunction() == &f) calls.push_back(call);
    }
    for (llvm::CallInst *call : calls) {
        bool store = call->getCalledFunction()->getName().contains("vstore");
        unsigned nargs = store ? 3 : 2;
        if (call->arg_size() != nargs) continue;
        llvm::Value *ptr = call->getArgOperand(nargs - 1), *off = call->getArgOperand(nargs - 2);
        auto *vty = llvm::dyn_cast<llvm::FixedVectorType>(store ? call->getArgOperand(0)->getType() : call->getType());
        auto *pty = llvm::dyn_cast<llvm::PointerType>(ptr->getType());
        if (!vty || !pty || pty->isOpaque() || !off->getType()->isIntegerTy() ||
            pty->getNonOpaquePointerElementType() != vty->getElementType())
            continue;
        llvm::Type *ety = vty->getElementType();
        unsigned n = vty->getNumElements();
        llvm::IRBuilder<> b(call);
        llvm::Align align(mod.getDataLayout().getABITypeAlign(ety));
        llvm::Value *first = b.CreateMul(off, llvm::ConstantInt::get(off->getType(), n));
        llvm::Value *result = llvm::UndefValue::get(vty);
        for (unsigned i = 0; i < n; i++) {
            llvm::Value *idx = b.CreateAdd(first, llvm::ConstantInt::get(off->getType(), i));
            llvm::Value *at = b.CreateInBoundsGEP(ety, ptr, idx);
            if (store)
                b.CreateAlignedStore(b.CreateExtractElement(call->getArgOperand(0), (uint64_t)i), at, align);
            else
                result = b.CreateInsertElement(result, b.CreateAlignedLoad(ety, at, align), (uint64_t)i);
        }
        if (!store) call->replaceAllUsesWith(result);
        call->eraseFromParent();
    }
    std::vector<llvm::Function *> dead;
    for (llvm::Function &f : mod)
        if (f.isDeclaration() && f.use_empty() && (f.getName().contains("vload") || f.getName().contains("vstore")))
            dead.push_back(&f);
    for (llvm::Function *f : dead) f->eraseFromParent();
}

// The sizes of a launch are never zero, but LLVM cannot know it: get_local_size and its kin are calls to the
// kernel library. PoCL's optimizer, which sees them as loads once inlined, then splits a strided loop such as
// `for (uint i = lid; i < 1; i += get_local_size(0))` on "the step is zero" into a copy that can never exit,
// and its work-group builder aborts on that copy in a kernel with a barrier (ParallelRegion.cc, "Incoming
// edges to non-entry block!"). Each such call is followed by what Level Zero guarantees, as llvm.assume: a
// group size and a group count are 1 to 2^32-1 (zeKernelSetGroupSize and ze_group_count_t take uint32_t), so
// they stay non-zero when truncated to uint; a global size is non-zero. Only for dimensions 0 to 2 given as
// constants: PoCL 3.1 answers 0 for any other dimension (OpenCL says 1), and a false assumption would let LLVM
// miscompile the kernel.
void assume_sizes_nonzero(llvm::Module &mod) {
    struct Query {
        const char *name;
        bool fits_u32;
    };
    std::vector<std::pair<llvm::CallInst *, bool>> calls;
    for (Query q : {Query{"_Z14get_local_sizej", true}, Query{"_Z23get_enqueued_local_sizej", true},
                    Query{"_Z14get_num_groupsj", true}, Query{"_Z15get_global_sizej", false}})
        if (llvm::Function *f = mod.getFunction(q.name))
            for (llvm::User *u : f->users())
                if (auto *call = llvm::dyn_cast<llvm::CallInst>(u))
                    if (call->getCalledFunction() == f && call->getType()->isIntegerTy(64) && call->arg_size() == 1)
                        if (auto *dim = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0)))
                            if (dim->getZExtValue() < 3) calls.push_back({call, q.fits_u32});
    if (calls.empty()) return;
    llvm::Function *assume = llvm::Intrinsic::getDeclaration(&mod, llvm::Intrinsic::assume);
    for (auto [call, fits_u32] : calls) {
        llvm::IRBuilder<> b(call->getNextNode());
        llvm::Type *t = call->getType();
        b.CreateCall(assume, {b.CreateICmpNE(call, llvm::ConstantInt::get(t, 0))});
        if (fits_u32) b.CreateCall(assume, {b.CreateICmpULE(call, llvm::ConstantInt::get(t, 0xFFFFFFFFu))});
    }
}

// PoCL 3.1's work-group function builder (at the first launch) aborts the process ("Incoming edges to
// non-entry block!", ParallelRegion.cc) on some kernels with a barrier and a loop that can never exit, which
// its own optimizer (-O3, before it builds work-group functions) exposes: a loop whose exit test reads only
// memory the loop does not write becomes an endless block once the load is hoisted, and a strided loop that
// runs at most once, `for (uint i = lid; i < 1; i += step)`, is split on "step is zero" into a copy that never
// exits. Which shapes of such a kernel abort depends on how PoCL cuts it into regions between barriers (an
// endless loop after a barrier that follows another loop does; one right after the first barrier does not),
// so the whole class is refused: LLVM's -O2 runs here on a copy of the module, and a kernel that calls a
// barrier and has a block from which no return (or unreachable) can be reached is refused. Group sizes are
// not such a step: assume_sizes_nonzero tells LLVM so. Kernels without a barrier are left alone: PoCL builds
// them, and they hang only when they enter the loop. Returns the first refused kernel's name, or "".
bool calls_barrier(const llvm::Function &f) {
    for (const llvm::BasicBlock &bb : f)
        for (const llvm::Instruction &i : bb)
            if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
                if (const llvm::Function *callee = call->getCalledFunction())
                    if (callee->getName().contains("barrier")) return true;
    return false;
}

bool calls_barrier_in(const llvm::BasicBlock &bb) {
    for (const llvm::Instruction &i : bb)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i))
            if (const llvm::Function *callee = call->getCalledFunction())
                if (callee->getName().contains("barrier")) return true;
    return false;
}

bool is_barrier_kernel(const llvm::Function &f) {
    return !f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL && calls_barrier(f);
}

// The work-item queries are pure within one work-item, as PoCL's kernel library makes them once inlined: so
// marked on the copy, LLVM hoists and tests them as PoCL's optimizer does.
void mark_queries_pure(llvm::Module &mod) {
    for (llvm::Function &f : mod) {
        if (!f.isDeclaration()) continue;
        llvm::StringRef n = f.getName();
        if (n == "_Z13get_global_idj" || n == "_Z12get_local_idj" || n == "_Z12get_group_idj" ||
            n == "_Z15get_global_sizej" || n == "_Z14get_local_sizej" || n == "_Z14get_num_groupsj" ||
            n == "_Z17get_global_offsetj" || n == "_Z23get_enqueued_local_sizej" || n == "_Z12get_work_dimv") {
            f.setDoesNotAccessMemory();
            f.setDoesNotThrow();
            f.setWillReturn();
        }
    }
}

std::string endless_loop_kernel(const llvm::Module &mod) {
    std::set<llvm::StringRef> barrier_kernels;
    for (const llvm::Function &f : mod)
        if (is_barrier_kernel(f)) barrier_kernels.insert(f.getName());
    if (barrier_kernels.empty()) return "";
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(mod);
    for (llvm::Function &f : *copy)
        if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL &&
            !barrier_kernels.count(f.getName()))
            f.deleteBody();
    mark_queries_pure(*copy);
    {
        // LLVM's -O2 pipeline, close enough to PoCL's -O3 to expose the same endless blocks. -O1 is not: it
        // lacks the value-range pass that reads assume_sizes_nonzero's facts through a truncation to uint, and
        // so refuses kernels PoCL builds; LLVM's function passes without the module passes find too few.
        llvm::LoopAnalysisManager lam;
        llvm::FunctionAnalysisManager fam;
        llvm::CGSCCAnalysisManager cgam;
        llvm::ModuleAnalysisManager mam;
        llvm::PassBuilder pb;
        pb.registerModuleAnalyses(mam);
        pb.registerCGSCCAnalyses(cgam);
        pb.registerFunctionAnalyses(fam);
        pb.registerLoopAnalyses(lam);
        pb.crossRegisterProxies(lam, fam, cgam, mam);
        pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(*copy, mam);
    }
    for (llvm::Function &f : *copy) {
        if (!is_barrier_kernel(f)) continue;
        std::set<const llvm::BasicBlock *> ends;
        std::vector<const llvm::BasicBlock *> work;
        for (llvm::BasicBlock &bb : f) {
            const llvm::Instruction *t = bb.getTerminator();
            if (!t || llvm::isa<llvm::ReturnInst>(t) || llvm::isa<llvm::UnreachableInst>(t)) {
                ends.insert(&bb);
                work.push_back(&bb);
            }
        }
        while (!work.empty()) {
            const llvm::BasicBlock *b = work.back();
            work.pop_back();
            for (const llvm::BasicBlock *p : llvm::predecessors(b))
                if (ends.insert(p).second) work.push_back(p);
        }
        if (ends.size() != f.size()) return f.getName().str();
        // A loop left by one block only, which runs on every iteration and whose exit test does not change
        // inside the loop: if the first iteration stays, every one does (PoCL's passes turn it into a block
        // with no way out).
        llvm::DominatorTree dt(f);
        llvm::LoopInfo li(dt);
        for (llvm::Loop *loop : li.getLoopsInPreorder()) {
            llvm::BasicBlock *exiting = loop->getExitingBlock();
            if (!exiting) continue;
            auto *br = llvm::dyn_cast<llvm::BranchInst>(exiting->getTerminator());
            if (!br || !br->isConditional() || !loop->isLoopInvariant(br->getCondition())) continue;
            llvm::SmallVector<llvm::BasicBlock *, 4> latches;
            loop->getLoopLatches(latches);
            bool every_iteration = true;
            for (llvm::BasicBlock *latch : latches)
                if (!dt.dominates(exiting, latch)) every_iteration = false;
            if (every_iteration) return f.getName().str();
        }
    }
    return "";
}

// PoCL 3.1 runs a kernel wrongly when both arms of a branch hold barriers, with a condition every work-item of the
// group shares: with three barriers in each arm of an if, every work-item ran the else arm's code (measured, and
// with the same kernel given to PoCL as OpenCL C source as well); with one or two in each it ran right. Two ifs in
// sequence, each with barriers, ran wrongly too, and so did an if-else followed by a barrier; two ifs with a
// barrier between them ran right, as does one if before a barrier. So the class refused is a pair of barriers
// whose blocks' nearest common dominator branches to two different blocks that dominate one each (not a loop's
// test of whether to run its body again), unless a barrier between them post-dominates the first and dominates
// the second. A work-group collective is barriers too (spirv/groups.cpp). Returns the branch of the first such
// pair of f (whose trees dt, pdt and li are), or null.
llvm::BasicBlock *branched_barriers_branch(llvm::Function &f, const llvm::DominatorTree &dt,
                                           const llvm::PostDominatorTree &pdt, const llvm::LoopInfo &li) {
    std::vector<llvm::BasicBlock *> blocks; // of the barriers that can run, each once
    for (llvm::BasicBlock &bb : f)
        if (calls_barrier_in(bb) && dt.isReachableFromEntry(&bb)) blocks.push_back(&bb);
    if (blocks.size() < 2) return nullptr;
    // The successor of d that dominates b, if one does.
    auto arm = [&](llvm::BasicBlock *d, llvm::BasicBlock *b) -> llvm::BasicBlock * {
        for (llvm::BasicBlock *s : llvm::successors(d))
            if (s != d && dt.dominates(s, b)) return s;
        return nullptr;
    };
    // A barrier that every path from a to b passes, where every path from a goes on through it.
    auto separated = [&](llvm::BasicBlock *a, llvm::BasicBlock *b) {
        for (llvm::BasicBlock *c : blocks)
            if ((pdt.dominates(c, a) && dt.dominates(c, b)) || (pdt.dominates(c, b) && dt.dominates(c, a)))
                return true;
        return false;
    };
    for (size_t a = 0; a < blocks.size(); a++)
        for (size_t b = a + 1; b < blocks.size(); b++) {
            llvm::BasicBlock *d = dt.findNearestCommonDominator(blocks[a], blocks[b]);
            if (!d || d == blocks[a] || d == blocks[b]) continue;
            llvm::BasicBlock *sa = arm(d, blocks[a]), *sb = arm(d, blocks[b]);
            if (!sa || !sb || sa == sb) continue;
            llvm::Loop *loop = li.getLoopFor(d);
            if (loop && loop->getHeader() == d && (loop->contains(sa) || loop->contains(sb))) continue;
            if (separated(blocks[a], blocks[b])) continue;
            return d;
        }
    return nullptr;
}

// A call of OpenCL C's barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE) before `before`.
void insert_barrier(llvm::Instruction *before) {
    llvm::Module &mod = *before->getModule();
    llvm::LLVMContext &ctx = mod.getContext();
    llvm::FunctionCallee fn = mod.getOrInsertFunction(
        "_Z7barrierj", llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {llvm::Type::getInt32Ty(ctx)}, false));
    if (auto *decl = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
        decl->addFnAttr(llvm::Attribute::Convergent);
        decl->addFnAttr(llvm::Attribute::NoUnwind);
    }
    llvm::CallInst *call = llvm::CallInst::Create(fn, {llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 3)}, "",
                                                  before);
    call->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    call->addFnAttr(llvm::Attribute::Convergent);
}

// The way around it: d's two arms, each entered from d alone and both ending at d's immediate post-dominator m
// (no return, no other way out), become two ifs in sequence with a barrier between and one at m:
//     if (c) A; else B;  m        becomes        if (c) A;  barrier;  if (!c) B;  m: barrier
// m's phis take A's values through a phi at the new block. The added barriers are legal only if every work-item of
// the group runs d whenever one does, so that is required, in one of two ways the kernel's own barriers prove:
// - every path through each arm passes a barrier: a work-item that runs d then runs a barrier of an arm, which
//   OpenCL C requires of the whole group, so the whole group ran d and takes the same arm (c is the group's);
// - d is control-equivalent to a block with a barrier (one dominates the other, the other post-dominates it, in
//   the same loop): the group runs that barrier, and so d, together. c may then differ between work-items (legal
//   when none reaches a barrier in the arms): the rewrite runs the same work in a legal order, each added barrier
//   passed once by every work-item.
// Returns false, changing nothing, for any other shape or where neither holds. dt, pdt and li are d's function's
// trees, stale once it returns true.
bool split_arms(llvm::BasicBlock *d, const llvm::DominatorTree &dt, const llvm::PostDominatorTree &pdt,
                const llvm::LoopInfo &li) {
    auto *br = llvm::dyn_cast<llvm::BranchInst>(d->getTerminator());
    if (!br || !br->isConditional()) return false;
    llvm::BasicBlock *s1 = br->getSuccessor(0), *s2 = br->getSuccessor(1);
    if (s1 == s2 || s1->getSinglePredecessor() != d || s2->getSinglePredecessor() != d) return false;
    llvm::Function &f = *d->getParent();
    const llvm::DomTreeNode *pn = pdt.getNode(d);
    llvm::BasicBlock *m = pn && pn->getIDom() ? pn->getIDom()->getBlock() : nullptr;
    if (!m || m == s1 || m == s2 || dt.dominates(s1, m) || dt.dominates(s2, m)) return false;
    std::vector<llvm::BasicBlock *> arm_a;
    for (llvm::BasicBlock &bb : f) {
        if (!dt.isReachableFromEntry(&bb)) continue; // LLVM counts an unreachable block as dominated by all
        bool in_a = dt.dominates(s1, &bb), in_b = dt.dominates(s2, &bb);
        if (!in_a && !in_b) continue;
        if (llvm::succ_empty(&bb)) return false; // a return or unreachable inside an arm
        for (llvm::BasicBlock *s : llvm::successors(&bb))
            if (s != m && !(in_a ? dt.dominates(s1, s) : dt.dominates(s2, s))) return false;
        if (in_a) arm_a.push_back(&bb);
    }
    // Every path from s to m passes a block with a barrier.
    auto passes_barrier = [&](llvm::BasicBlock *s) {
        std::set<llvm::BasicBlock *> seen{s};
        std::vector<llvm::BasicBlock *> work{s};
        while (!work.empty()) {
            llvm::BasicBlock *b = work.back();
            work.pop_back();
            if (calls_barrier_in(*b)) continue;
            for (llvm::BasicBlock *n : llvm::successors(b)) {
                if (n == m) return false;
                if (seen.insert(n).second) work.push_back(n);
            }
        }
        return true;
    };
    bool whole_group = passes_barrier(s1) && passes_barrier(s2);
    if (!whole_group) {
        for (llvm::BasicBlock &c : f)
            if (calls_barrier_in(c) && li.getLoopFor(&c) == li.getLoopFor(d) &&
                ((dt.dominates(&c, d) && pdt.dominates(d, &c)) || (dt.dominates(d, &c) && pdt.dominates(&c, d))))
                whole_group = true;
    }
    if (!whole_group) return false;
    std::set<llvm::BasicBlock *> in_a(arm_a.begin(), arm_a.end());
    llvm::LLVMContext &ctx = f.getContext();
    llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx, "zp.arms.join", &f, s2);
    // m's phis: the entries from A move to a phi in join, whose entry from d is never used.
    for (llvm::PHINode &phi : m->phis()) {
        llvm::PHINode *q = llvm::PHINode::Create(phi.getType(), phi.getNumIncomingValues(), "", join);
        for (unsigned k = phi.getNumIncomingValues(); k-- > 0;)
            if (in_a.count(phi.getIncomingBlock(k))) {
                q->addIncoming(phi.getIncomingValue(k), phi.getIncomingBlock(k));
                phi.removeIncomingValue(k, false);
            }
        q->addIncoming(llvm::PoisonValue::get(phi.getType()), d);
        phi.addIncoming(q, join);
    }
    for (llvm::BasicBlock *bb : arm_a) bb->getTerminator()->replaceSuccessorWith(m, join);
    br->setSuccessor(1, join);
    s2->replacePhiUsesWith(d, join);
    llvm::BranchInst *next = llvm::BranchInst::Create(m, s2, br->getCondition(), join);
    insert_barrier(next);
    insert_barrier(&*m->getFirstInsertionPt());
    return true;
}

// Every barrier kernel of mod made free of the branches branched_barriers_branch finds, where split_arms can;
// returns the first kernel it could not make so, or "".
std::string split_branched_barriers(llvm::Module &mod) {
    for (llvm::Function &f : mod) {
        if (!is_barrier_kernel(f)) continue;
        for (unsigned round = 0;; round++) {
            llvm::DominatorTree dt(f); // again each round: a split changes the function
            llvm::PostDominatorTree pdt(f);
            llvm::LoopInfo li(dt);
            llvm::BasicBlock *d = branched_barriers_branch(f, dt, pdt, li);
            if (!d) break;
            if (round == 64 || !split_arms(d, dt, pdt, li)) return f.getName().str();
            // A rewrite LLVM would not accept is refused here rather than handed to PoCL.
            if (llvm::verifyFunction(f)) return f.getName().str();
        }
    }
    return "";
}

// The rewrites flags ask for, at their points of the translation.
class PoclPasses : public zp::SpirvPasses {
  public:
    explicit PoclPasses(unsigned flags) : flags_(flags) {}

    void translated(llvm::Module &m) override {
        if (flags_ & ZP_POCL_LOWER_VLOADSTORE) lower_vloadstore(m);
    }

    std::string inlined(llvm::Module &m) override {
        if (!(flags_ & ZP_POCL_REGIONS)) return "";
        assume_sizes_nonzero(m);
        std::string branched = split_branched_barriers(m);
        if (!branched.empty())
            return "kernel " + branched + " has barriers (or work-group collectives) in two arms of a branch that "
                   "ze_pocl cannot make two ifs in sequence (a switch, an arm that returns or leaves the branch other "
                   "than at its end, or a branch the whole group need not reach), which PoCL 3.1's work-group "
                   "compiler runs wrongly; put them where every work-item passes them in one order";
        std::string endless = endless_loop_kernel(m);
        if (endless.empty()) return "";
        return "kernel " + endless + " has a barrier and a loop that, once entered, can never exit as LLVM "
               "optimizes it (a loop whose exit test reads only memory the loop does not write, or whose step may "
               "be zero where it otherwise runs at most once); PoCL's work-group compiler cannot build such a "
               "kernel";
    }

  private:
    unsigned flags_;
};

} // namespace

extern "C" int zp_pocl_translate(const zp_module_src *src, unsigned flags, void **out, size_t *out_size,
                                 zp_module_meta *meta, char **log) {
    PoclPasses passes(flags);
    return zp::spirv_translate(src, flags & ~(unsigned)ZP_POCL_REWRITES, &passes, out, out_size, meta, log);
}

extern "C" void zp_pocl_tune_llvm(void) {
    llvm::StringMap<llvm::cl::Option *> &opts = llvm::cl::getRegisteredOptions();
    auto it = opts.find("unswitch-threshold");
    if (it == opts.end() || it->second->getNumOccurrences() > 0) return;
    it->second->addOccurrence(0, "unswitch-threshold", "2048");
}
