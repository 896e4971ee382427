// Exact ranges in a translated module (exact_range.cpp): the LLVM side of ZE_krt_exact_range, shared by the
// backends that compile the module's LLVM. C++ only; the backends' C code sees zp_ndrange (driver/backend.h).
#ifndef ZP_EXACT_RANGE_H
#define ZP_EXACT_RANGE_H

#include <string>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace zp {

// True when f calls a barrier, a work-group or a sub-group function: every item of a group must take part.
bool needs_whole_groups(const llvm::Function &f);

// Replaces f by a copy with parameters of the given types appended; returns the copy, named as f was.
llvm::Function *append_params(llvm::Module &m, llvm::Function *f, llvm::ArrayRef<llvm::Type *> extra);

// The kernel_arg_* metadata of an OpenCL kernel lists every parameter: those of f's old_count entries get one more,
// a parameter of that address space, type ("ulong8", "char*") and name.
void extend_arg_metadata(llvm::Function &f, unsigned old_count, unsigned addr_space, const char *type,
                         const char *name);

// Adds to every kernel k of m its exact-range variant, k followed by ZP_EXACT_SUFFIX (module.h): k with the
// hidden descriptor (a ulong8 after its own parameters, filled by zp_exact_desc) and the work-item builtins
// answered from it. Run once every helper is inlined into the kernels. Returns false, with the name in clash,
// when the module already has a function of a variant's name.
bool add_exact_range(llvm::Module &m, std::string &clash);

} // namespace zp

#endif
