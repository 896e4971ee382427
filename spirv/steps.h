// The steps of the front end's translation, one file each, in the order translate.cpp runs them. C++, private to
// spirv/: backends reach the front end through spirv/spirv.h (C) or spirv/passes.h (C++).
#ifndef ZP_SPIRV_STEPS_H
#define ZP_SPIRV_STEPS_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "spirv.h"

namespace llvm {
class CallInst;
class Module;
class StringRef;
class Value;
}
namespace SPIRV {
class TranslatorOpts;
}

namespace zp::spirv {

// A malloc'd copy of s, for what crosses the C interface (logs, kernel names); null when out of memory.
inline char *dup_string(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p) std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

// precheck.cpp: the binary parsed and checked for what the translator would end the process on. Fills words (the
// module as host-order words) and returns ZP_SPIRV_OK, or another zp_spirv_status with why.
int precheck(const zp_module_src *src, std::vector<uint32_t> &words, std::string &why);

// validate.cpp: SPIRV-Tools' full validator on a copy of the module (words, from precheck) that it can judge
// (extensions.h says what it goes without). Returns ZP_SPIRV_OK, or another zp_spirv_status with why.
int validate(const std::vector<uint32_t> &words, std::string &why);

// spec_consts.cpp: the specialization constant values of src given to the translator.
void set_spec_consts(const zp_module_src *src, SPIRV::TranslatorOpts &opts);

// builtins.cpp: the builtin forms flags ask for (ZP_SPIRV_FENCES_TO_LLVM, ZP_SPIRV_WAIT_PRIVATE).
void fix_builtins(llvm::Module &mod, unsigned flags);

// groups.cpp: the sub-group and work-group instructions, generic pointer casts and float atomics of the translated
// module, still in the translator's SPIR-V friendly form, lowered to calls of the group library (lower_groups, before
// the OpenCL lowering); then what no one implements named (leftover_instructions: a message, empty when none); the
// library linked in (link_groups, before inlining); and, for sub-groups of one work-item (ze_pocl), the address
// space of each generic pointer a cast reads, once every helper is inlined (resolve_spaces, spaces.cpp). Each returns
// ZP_SPIRV_OK or ZP_SPIRV_BUILD_FAILURE with why.
int lower_groups(llvm::Module &mod, unsigned flags, const zp_module_src *src, std::string &why);
std::string leftover_instructions(llvm::Module &mod);
int link_groups(llvm::Module &mod, unsigned flags, std::string &why);
int resolve_spaces(llvm::Module &mod, unsigned flags, std::string &why);
// spaces.cpp too: with ZP_SPIRV_GENERIC_BUILTINS, each call of a builtin with a generic pointer parameter made a call
// of a named space's overload (the pointer's origin space, else private through a private copy). After inlining.
void generic_builtins(llvm::Module &mod, unsigned flags);
// The name of an OpenCL or SPIR-V builtin without its Itanium mangling (_Z<length><name><parameters>).
std::string builtin_base_name(llvm::StringRef name);

// atomics.cpp: one __spirv_Atomic* call (base: its name without mangling) as LLVM atomics, at the call; returns the
// result, the call itself for an instruction without one (a store), or null with why.
llvm::Value *lower_atomic(llvm::CallInst *call, const std::string &base, std::string &why);

// inline.cpp: every helper inlined into the kernels that call it.
void make_inlinable(llvm::Module &mod);

// bounds.cpp: with a bounds table (zp_module_src.bounds_table, not 0), every global and constant memory access of
// the inlined module made only when __zp_bounds_check (groups_lib.cl) finds it inside an allocation the table
// lists; the check is linked in afterwards (link_groups) and inlined. straight: each pointer argument's allocation
// looked up by unrolled branch-free steps (the CPU); at_exit: a work-item's refusals recorded once at its kernel's
// exit (the GPU). Returns ZP_SPIRV_OK or ZP_SPIRV_BUILD_FAILURE with why.
int add_bounds_checks(llvm::Module &mod, uint64_t table, bool straight, bool at_exit, std::string &why);

// meta.cpp: the per-kernel facts. Returns ZP_SPIRV_OK or ZP_SPIRV_OUT_OF_MEMORY.
int extract_meta(llvm::Module &mod, zp_module_meta *meta);

// names.cpp: with ZP_SPIRV_SHORT_NAMES, each kernel whose name is not plain renamed to a short internal name, kept
// in its zp_kernel_meta.backend_name; with ptx (ZP_SPIRV_PTX_NAMES), each whose name is not a PTX identifier.
// After extract_meta and place_globals, before the exact-range variants. Returns ZP_SPIRV_OK or
// ZP_SPIRV_OUT_OF_MEMORY.
int shorten_kernel_names(llvm::Module &mod, zp_module_meta *meta, bool ptx);

// globals.cpp: the program-scope variables the module exports, into meta->globals; then, where asked, the
// variables moved into one storage that the kernels take as a hidden argument, and the kernel that initialises it
// (ZP_GLOBALS_KERNEL). Run after inlining and before the exact-range variants. False, with why, when the module
// already has a function of that kernel's name.
int extract_globals(llvm::Module &mod, zp_module_meta *meta);
bool place_globals(llvm::Module &mod, zp_module_meta *meta, std::string &why);

} // namespace zp::spirv

#endif
