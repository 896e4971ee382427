// The steps of the front end's translation, one file each, in the order translate.cpp runs them. C++, private to
// spirv/: backends reach the front end through spirv/spirv.h (C) or spirv/passes.h (C++).
#ifndef ZP_SPIRV_STEPS_H
#define ZP_SPIRV_STEPS_H

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "spirv.h"

namespace llvm {
class Module;
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

// inline.cpp: every helper inlined into the kernels that call it.
void make_inlinable(llvm::Module &mod);

// meta.cpp: the per-kernel facts. Returns ZP_SPIRV_OK or ZP_SPIRV_OUT_OF_MEMORY.
int extract_meta(llvm::Module &mod, zp_module_meta *meta);

// globals.cpp: the program-scope variables the module exports, into meta->globals; then, where asked, the
// variables moved into one storage that the kernels take as a hidden argument, and the kernel that initialises it
// (ZP_GLOBALS_KERNEL). Run after inlining and before the exact-range variants. False, with why, when the module
// already has a function of that kernel's name.
int extract_globals(llvm::Module &mod, zp_module_meta *meta);
bool place_globals(llvm::Module &mod, zp_module_meta *meta, std::string &why);

} // namespace zp::spirv

#endif
