// Specialization constants: the values zeModuleCreate's pConstants gives, handed to the SPIR-V translator, which
// applies them as it translates (translate.cpp).
#include "steps.h"

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>

namespace zp::spirv {

// Specialization constant values arrive as untyped pointers; their width comes from the module.
void set_spec_consts(const zp_module_src *src, SPIRV::TranslatorOpts &opts) {
    if (src->num_spec == 0 || !src->spec_ids || !src->spec_values) return;
    std::string bytes(reinterpret_cast<const char *>(src->spirv), src->size);
    std::istringstream is(bytes);
    std::vector<llvm::SpecConstInfoTy> info;
    if (!llvm::getSpecConstInfo(is, info)) return;
    for (uint32_t i = 0; i < src->num_spec; i++) {
        const void *p = src->spec_values[i];
        if (!p) continue;
        for (auto &sc : info) {
            if (sc.first != src->spec_ids[i]) continue;
            uint64_t v = 0;
            switch (sc.second) {
            case 1: { uint8_t x; std::memcpy(&x, p, 1); v = x; break; }
            case 2: { uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
            case 4: { uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
            default: std::memcpy(&v, p, 8); break;
            }
            opts.setSpecConst(sc.first, v);
        }
    }
}

} // namespace zp::spirv
