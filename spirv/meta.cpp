// The per-kernel facts the drivers report, read from the translated module rather than from a backend's
// per-program queries (PoCL's are wrong when a program holds several kernels): argument kinds and sizes, the
// required group size, __local, private and spill memory, and whether every item of a group must take part.
#include "steps.h"
#include "exact_range.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

namespace zp::spirv {
namespace {

struct FuncFacts {
    uint64_t priv = 0;      // bytes of all static allocas
    uint64_t agg = 0;       // bytes of those that are arrays or structs
    std::set<const llvm::GlobalVariable *> locals;
    std::set<const llvm::Function *> callees;
};

void collect_users(const llvm::Value *v, const llvm::GlobalVariable *gv,
                   std::map<const llvm::Function *, FuncFacts> &facts, int depth) {
    if (depth > 16) return;
    for (const llvm::User *u : v->users()) {
        if (auto *inst = llvm::dyn_cast<llvm::Instruction>(u)) {
            facts[inst->getFunction()].locals.insert(gv);
        } else if (llvm::isa<llvm::Constant>(u)) {
            collect_users(u, gv, facts, depth + 1);
        }
    }
}

// Sums of private sizes saturate: a module may ask for more private memory than 64 bits count (issue 39), and a sum
// that wrapped would come out small, and the kernel would be launched on a stack it overruns.
uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// The bytes of a static alloca, saturating at UINT64_MAX. LLVM's own size multiplies array lengths in 64 bits and
// wraps: a fuzzed module's private array of 0xFFFFFFFF00000010 ulongs must not come out as a few bytes.
uint64_t alloca_bytes(const llvm::AllocaInst *al, const llvm::DataLayout &dl, uint64_t llvm_bits) {
    llvm::Type *t = al->getAllocatedType();
    uint64_t count = 1;
    while (auto *at = llvm::dyn_cast<llvm::ArrayType>(t)) {
        if (__builtin_mul_overflow(count, at->getNumElements(), &count)) return UINT64_MAX;
        t = at->getElementType();
    }
    if (auto *n = llvm::dyn_cast<llvm::ConstantInt>(al->getArraySize()))
        if (__builtin_mul_overflow(count, n->getZExtValue(), &count)) return UINT64_MAX;
    if (!t->isSized() || llvm::isa<llvm::ScalableVectorType>(t)) return (llvm_bits + 7) / 8;
    uint64_t bytes;
    if (__builtin_mul_overflow(count, (uint64_t)dl.getTypeAllocSize(t).getFixedValue(), &bytes)) return UINT64_MAX;
    return bytes;
}

struct Totals {
    uint64_t priv, agg;
    std::set<const llvm::GlobalVariable *> locals;
};

// Private memory of a function is its own stack plus its deepest callee's; recursion counts once.
void totals_of(const llvm::Function *f, std::map<const llvm::Function *, FuncFacts> &facts,
               std::map<const llvm::Function *, Totals> &memo, std::set<const llvm::Function *> &active,
               Totals &out) {
    auto m = memo.find(f);
    if (m != memo.end()) {
        out = m->second;
        return;
    }
    FuncFacts &ff = facts[f];
    Totals t{ff.priv, ff.agg, ff.locals};
    if (active.count(f)) {
        out = t;
        return;
    }
    active.insert(f);
    uint64_t best_priv = 0, best_agg = 0;
    for (const llvm::Function *c : ff.callees) {
        Totals ct;
        totals_of(c, facts, memo, active, ct);
        if (ct.priv > best_priv) best_priv = ct.priv;
        if (ct.agg > best_agg) best_agg = ct.agg;
        t.locals.insert(ct.locals.begin(), ct.locals.end());
    }
    active.erase(f);
    t.priv = sat_add(t.priv, best_priv);
    t.agg = sat_add(t.agg, best_agg);
    memo[f] = t;
    out = t;
}

uint32_t arg_kind(const llvm::Function &f, const llvm::Argument &a, const llvm::DataLayout &dl, uint32_t &size) {
    llvm::Type *ty = a.getType();
    if (ty->isPointerTy()) {
        unsigned as = ty->getPointerAddressSpace();
        size = dl.getPointerSize(as);
        if (a.hasByValAttr()) {
            // A size the 32-bit argument size cannot hold (a valid module may declare one) would be cut to
            // a wrong one: such an argument is unsupported instead.
            uint64_t bytes = dl.getTypeAllocSize(a.getParamByValType()).getKnownMinSize();
            size = bytes > UINT32_MAX ? 0 : (uint32_t)bytes;
            return bytes > UINT32_MAX ? ZP_ARG_UNSUPPORTED : ZP_ARG_BYVAL;
        }
        llvm::Type *elem = ty->isOpaquePointerTy() ? nullptr : ty->getNonOpaquePointerElementType();
        if (elem && elem->isStructTy()) {
            auto *st = llvm::cast<llvm::StructType>(elem);
            if (st->isOpaque() && st->hasName() && st->getName().startswith("opencl.")) return ZP_ARG_UNSUPPORTED;
        }
        switch (as) {
        case 1: return ZP_ARG_GLOBAL;
        case 2: return ZP_ARG_CONSTANT;
        case 3: return ZP_ARG_LOCAL;
        default: return ZP_ARG_UNSUPPORTED;
        }
    }
    (void)f;
    if (ty->isSized()) {
        uint64_t bytes = dl.getTypeAllocSize(ty).getKnownMinSize();
        size = bytes > UINT32_MAX ? 0 : (uint32_t)bytes;
        return bytes > UINT32_MAX ? ZP_ARG_UNSUPPORTED : ZP_ARG_SCALAR;
    }
    size = 0;
    return ZP_ARG_UNSUPPORTED;
}

// The OpenCL C name of a vec_type_hint's type: the metadata holds an undef of the type and a signedness flag.
std::string type_name(llvm::Type *t, bool is_signed) {
    std::string n;
    unsigned lanes = 0;
    if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
        lanes = v->getNumElements();
        t = v->getElementType();
    }
    if (t->isHalfTy()) n = "half";
    else if (t->isFloatTy()) n = "float";
    else if (t->isDoubleTy()) n = "double";
    else if (t->isIntegerTy(8)) n = "char";
    else if (t->isIntegerTy(16)) n = "short";
    else if (t->isIntegerTy(32)) n = "int";
    else if (t->isIntegerTy(64)) n = "long";
    else return "";
    if (t->isIntegerTy() && !is_signed) n = "u" + n;
    if (lanes) n += std::to_string(lanes);
    return n;
}

// The kernel's source attributes as zeKernelGetSourceAttributes gives them, in the form OpenCL C writes them,
// separated by spaces: reqd_work_group_size(X,Y,Z), work_group_size_hint(X,Y,Z), vec_type_hint(T) and
// intel_reqd_sub_group_size(N), from the metadata the translator makes of the SPIR-V execution modes
// LocalSize, LocalSizeHint, VecTypeHint and SubgroupSize.
std::string source_attributes(const llvm::Function &f) {
    std::string out;
    auto add = [&](const std::string &a) {
        if (a.empty()) return;
        if (!out.empty()) out += ' ';
        out += a;
    };
    auto ints = [&](const char *kind, const char *name, unsigned count) {
        llvm::MDNode *md = f.getMetadata(kind);
        if (!md || md->getNumOperands() < count) return;
        std::string a = std::string(name) + "(";
        for (unsigned d = 0; d < count; d++) {
            auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(d));
            if (!c) return;
            if (d) a += ',';
            a += std::to_string(c->getZExtValue());
        }
        add(a + ")");
    };
    ints("reqd_work_group_size", "reqd_work_group_size", 3);
    ints("work_group_size_hint", "work_group_size_hint", 3);
    if (llvm::MDNode *md = f.getMetadata("vec_type_hint"); md && md->getNumOperands() >= 2) {
        auto *v = llvm::dyn_cast<llvm::ValueAsMetadata>(md->getOperand(0));
        auto *sign = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(1));
        if (v && sign) {
            std::string t = type_name(v->getType(), sign->getZExtValue() != 0);
            if (!t.empty()) add("vec_type_hint(" + t + ")");
        }
    }
    ints("intel_reqd_sub_group_size", "intel_reqd_sub_group_size", 1);
    return out;
}

} // namespace

int extract_meta(llvm::Module &mod, zp_module_meta *meta) {
    const llvm::DataLayout &dl = mod.getDataLayout();
    std::map<const llvm::Function *, FuncFacts> facts;
    for (llvm::Function &f : mod) {
        FuncFacts &ff = facts[&f];
        for (llvm::BasicBlock &bb : f) {
            for (llvm::Instruction &i : bb) {
                if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(&i)) {
                    if (auto sz = al->getAllocationSizeInBits(dl)) {
                        uint64_t bytes = alloca_bytes(al, dl, (uint64_t)*sz);
                        ff.priv = sat_add(ff.priv, bytes);
                        llvm::Type *at = al->getAllocatedType();
                        if (at->isArrayTy() || at->isStructTy() || !al->isStaticAlloca()) ff.agg = sat_add(ff.agg, bytes);
                    }
                } else if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) {
                    if (const llvm::Function *callee = call->getCalledFunction())
                        if (!callee->isDeclaration()) ff.callees.insert(callee);
                }
            }
        }
    }
    for (llvm::GlobalVariable &gv : mod.globals())
        if (gv.getAddressSpace() == 3) collect_users(&gv, &gv, facts, 0);

    std::vector<llvm::Function *> kernels;
    for (llvm::Function &f : mod)
        if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) kernels.push_back(&f);

    meta->count = 0;
    meta->kernels = static_cast<zp_kernel_meta *>(std::calloc(kernels.size() ? kernels.size() : 1, sizeof(zp_kernel_meta)));
    if (!meta->kernels) return ZP_SPIRV_OUT_OF_MEMORY;
    std::map<const llvm::Function *, Totals> memo;
    for (llvm::Function *f : kernels) {
        zp_kernel_meta *k = &meta->kernels[meta->count];
        k->name = dup_string(f->getName().str());
        k->num_args = (uint32_t)f->arg_size();
        k->args = static_cast<zp_arg_meta *>(std::calloc(k->num_args ? k->num_args : 1, sizeof(zp_arg_meta)));
        if (!k->name || !k->args) {
            std::free(k->name);
            std::free(k->args);
            return ZP_SPIRV_OUT_OF_MEMORY;
        }
        meta->count++;
        uint32_t idx = 0;
        for (const llvm::Argument &a : f->args()) {
            uint32_t size = 0;
            k->args[idx].kind = arg_kind(*f, a, dl, size);
            k->args[idx].size = size;
            idx++;
        }
        if (llvm::MDNode *md = f->getMetadata("reqd_work_group_size")) {
            for (unsigned d = 0; d < 3 && d < md->getNumOperands(); d++) {
                if (auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(d)))
                    k->reqd[d] = (uint32_t)c->getZExtValue();
            }
        }
        if (llvm::MDNode *md = f->getMetadata("intel_reqd_sub_group_size"))
            if (md->getNumOperands() >= 1)
                if (auto *c = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(0)))
                    k->reqd_subgroup = (uint32_t)c->getZExtValue();
        k->attrs = dup_string(source_attributes(*f));
        if (!k->attrs) return ZP_SPIRV_OUT_OF_MEMORY;
        std::set<const llvm::Function *> active;
        Totals t;
        totals_of(f, facts, memo, active, t);
        k->private_size = t.priv;
        k->spill_size = t.agg;
        uint64_t local = 0;
        for (const llvm::GlobalVariable *gv : t.locals) local += dl.getTypeAllocSize(gv->getValueType());
        k->local_static = local;
        k->whole_groups = zp::needs_whole_groups(*f);
    }
    return ZP_SPIRV_OK;
}

} // namespace zp::spirv

extern "C" void zp_spirv_meta_free(zp_module_meta *meta) {
    if (!meta || !meta->kernels) return;
    for (uint32_t i = 0; i < meta->count; i++) {
        std::free(meta->kernels[i].name);
        std::free(meta->kernels[i].backend_name);
        std::free(meta->kernels[i].args);
        std::free(meta->kernels[i].attrs);
    }
    std::free(meta->kernels);
    meta->kernels = nullptr;
    meta->count = 0;
    for (uint32_t i = 0; i < meta->num_globals; i++) {
        std::free(meta->globals[i].name);
        std::free(meta->globals[i].init);
    }
    std::free(meta->globals);
    meta->globals = nullptr;
    meta->num_globals = 0;
}
