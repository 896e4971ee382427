// Short kernel names for a backend that makes a file name of each (ZP_SPIRV_SHORT_NAMES): PoCL makes a kernel's
// name a directory and a file name ("NAME.so") in its kernel cache and a symbol of its work-group function, and
// aborts the process at the first launch when the link or the file fails: a name of 253 bytes or more, an '@' (a
// symbol version to the linker), a '/'. DPC++ names kernels by their mangled C++ type, which reaches 300 bytes and
// more. Such a kernel's function gets an internal name here, after the facts are read (meta.cpp keeps the real
// one, which every Level Zero call goes on using) and before the exact-range variants are made (each variant is
// named after its kernel's function, so it follows). The backend learns the internal name from
// zp_kernel_meta.backend_name. ze_cuda (ZP_SPIRV_PTX_NAMES) renames the same way, for another reason: a PTX identifier
// holds letters, digits, '_' and '$' only, and NVPTX stops the process ("Symbol name with unsupported characters")
// at a kernel named with anything else, which SPIR-V allows; there the length does not matter.
#include "steps.h"
#include "../common/fnv.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace zp::spirv {

namespace {

// What OpenCL C and C++ name mangling produce, short enough for a file name with room for the exact-range
// suffix and ".so": a letter or '_', then letters, digits, '_', '.' and '$', 1 to ZP_SHORT_NAME_MAX bytes.
// For PTX: a letter, '_' or '$', then letters, digits, '_' and '$', any length ('_' or '$' alone is not one).
bool kept(unsigned char ch, size_t at, bool ptx) {
    bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (ptx && ch == '$');
    return alpha || (at > 0 && ((ch >= '0' && ch <= '9') || (!ptx && ch == '.') || ch == '$'));
}

bool plain(const std::string &name, bool ptx) {
    if (name.empty() || (!ptx && name.size() > ZP_SHORT_NAME_MAX)) return false;
    if (ptx && name.size() == 1 && (name[0] == '_' || name[0] == '$')) return false;
    for (size_t c = 0; c < name.size(); c++)
        if (!kept((unsigned char)name[c], c, ptx)) return false;
    return true;
}

// The internal name: the real name's first 160 bytes with every byte a plain name may not hold made '_' (so that
// PoCL's messages and cache still say which kernel), then "$zp" and 16 hex digits of the FNV-1a hash of the whole
// name and a counter, which is raised until no function of the module has the name or its variant's.
std::string internal_name(const llvm::Module &m, const std::string &name, bool ptx) {
    std::string head = name.substr(0, 160);
    for (size_t c = 0; c < head.size(); c++)
        if (!kept((unsigned char)head[c], c, ptx)) head[c] = '_';
    if (head.empty()) head = "_";
    for (uint64_t salt = 0;; salt++) {
        uint64_t h = krt_fnv1a64(KRT_FNV1A64_INIT, name.data(), name.size());
        if (salt) h = krt_fnv1a64_word(h, salt);
        char hex[20];
        std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
        std::string n = head + "$zp" + hex;
        if (!m.getFunction(n) && !m.getFunction(n + ZP_EXACT_SUFFIX)) return n;
    }
}

} // namespace

int shorten_kernel_names(llvm::Module &m, zp_module_meta *meta, bool ptx) {
    for (uint32_t i = 0; i < meta->count; i++) {
        zp_kernel_meta *k = &meta->kernels[i];
        std::string name = k->name;
        if (plain(name, ptx)) continue;
        llvm::Function *f = m.getFunction(name);
        if (!f) continue;
        std::string n = internal_name(m, name, ptx);
        f->setName(n);
        k->backend_name = dup_string(n);
        if (!k->backend_name) return ZP_SPIRV_OUT_OF_MEMORY;
    }
    return ZP_SPIRV_OK;
}

} // namespace zp::spirv
