// SPIRV-Tools' full validator, on a copy of the module it can judge on what matters (the module itself is
// translated as it came): what the validator refuses, the translator could abort on. The copy goes without the
// decoration-only hints SPIRV-Tools 2023.1 judges wrongly (SPV_INTEL_memory_access_aliasing, checked instead) and,
// in a module declaring extensions SPIRV-Tools does not know, without the kinds of instruction of theirs it refuses
// (extensions.h); and with each function's blocks in reverse post-order and no merge instructions.
#include "steps.h"
#include "opcodes.h"
#include "extensions.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <spirv-tools/libspirv.h>

namespace zp::spirv {
namespace {


// A copy of the module that the validator can judge on what matters: blocks of each function in reverse
// post-order (clang -O2 emits loop blocks before their dominators, which SPIR-V's layout rule forbids but
// the translator and drivers accept) and no merge instructions (structured control flow is optional for
// kernels, and -O2 places OpLoopMerge where the structured rules do not allow it). The stream is known to
// be well formed (spvBinaryParse passed) before this runs.
std::vector<uint32_t> normalized(const std::vector<uint32_t> &w) {
    std::vector<uint32_t> out(w.begin(), w.begin() + 5);
    size_t i = 5, n = w.size();
    while (i < n) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (op != OP_FUNCTION) {
            out.insert(out.end(), w.begin() + i, w.begin() + i + wc);
            i += wc;
            continue;
        }
        // Function header up to the first label.
        while (i < n && (w[i] & 0xffff) != OP_LABEL && (w[i] & 0xffff) != OP_FUNCTION_END) {
            out.insert(out.end(), w.begin() + i, w.begin() + i + (w[i] >> 16));
            i += w[i] >> 16;
        }
        struct Block {
            uint32_t id;
            std::vector<uint32_t> words;
            std::vector<uint32_t> succ;
        };
        std::vector<Block> blocks;
        std::map<uint32_t, size_t> index;
        while (i < n && (w[i] & 0xffff) != OP_FUNCTION_END) {
            uint32_t bop = w[i] & 0xffff, bwc = w[i] >> 16;
            if (bop == OP_LABEL) {
                blocks.push_back(Block{w[i + 1], {}, {}});
                index[w[i + 1]] = blocks.size() - 1;
            }
            if (blocks.empty()) return {};
            Block &b = blocks.back();
            if (bop != OP_LOOP_MERGE && bop != OP_SELECTION_MERGE)
                b.words.insert(b.words.end(), w.begin() + i, w.begin() + i + bwc);
            if (bop == OP_BRANCH && bwc >= 2) b.succ.push_back(w[i + 1]);
            if (bop == OP_BRANCH_COND && bwc >= 4) {
                b.succ.push_back(w[i + 2]);
                b.succ.push_back(w[i + 3]);
            }
            if (bop == OP_SWITCH) // the default, then every operand that names a block
                for (uint32_t k = 2; k < bwc; k++) b.succ.push_back(w[i + k]);
            i += bwc;
        }
        // Reverse post-order from the entry block; unreachable blocks keep their place after it.
        std::vector<size_t> post;
        std::vector<uint8_t> seen(blocks.size(), 0);
        if (!blocks.empty()) {
            std::vector<std::pair<size_t, size_t>> stack{{0, 0}};
            seen[0] = 1;
            while (!stack.empty()) {
                auto &top = stack.back();
                Block &b = blocks[top.first];
                if (top.second < b.succ.size()) {
                    auto it = index.find(b.succ[top.second++]);
                    if (it != index.end() && !seen[it->second]) {
                        seen[it->second] = 1;
                        stack.push_back({it->second, 0});
                    }
                } else {
                    post.push_back(top.first);
                    stack.pop_back();
                }
            }
        }
        for (auto it = post.rbegin(); it != post.rend(); ++it)
            out.insert(out.end(), blocks[*it].words.begin(), blocks[*it].words.end());
        for (size_t k = 0; k < blocks.size(); k++)
            if (!seen[k]) out.insert(out.end(), blocks[k].words.begin(), blocks[k].words.end());
        if (i < n) { // OpFunctionEnd
            out.insert(out.end(), w.begin() + i, w.begin() + i + (w[i] >> 16));
            i += w[i] >> 16;
        }
    }
    return out;
}

// The extensions the SPIR-V translator knows (libLLVMSPIRVLib's own list): an extension SPIRV-Tools does not know
// is let past the validator only when the translator knows it, since what the translator does not know it refuses,
// and what the validator could not judge must be the translator's to judge.
bool translator_knows(const char *name) {
    static const char *const known[] = {
#define EXT(X) #X,
#include <LLVMSPIRVLib/LLVMSPIRVExtensions.inc>
#undef EXT
    };
    for (const char *k : known)
        if (std::strcmp(k, name) == 0) return true;
    return false;
}

spv_target_env env_for(uint32_t version) {
    switch (version >> 8 & 0xff) {
    case 0: return SPV_ENV_UNIVERSAL_1_0;
    case 1: return SPV_ENV_UNIVERSAL_1_1;
    case 2: return SPV_ENV_UNIVERSAL_1_2;
    case 3: return SPV_ENV_UNIVERSAL_1_3;
    case 4: return SPV_ENV_UNIVERSAL_1_4;
    case 5: return SPV_ENV_UNIVERSAL_1_5;
    default: return SPV_ENV_UNIVERSAL_1_6;
    }
}

} // namespace

int validate(const std::vector<uint32_t> &words, std::string &why) {
    // The full validator on the normalized copy: what it refuses, the translator could abort on. The copy first
    // goes without the decoration-only hints the validator judges wrongly, whose ids are checked instead
    // (extensions.h): the translator casts each id to the kind it expects and aborts on another.
    krt_spv_copy c;
    if (!krt_spv_copy_init(&c, words.data(), words.size())) {
        why = "out of memory";
        return ZP_SPIRV_OUT_OF_MEMORY;
    }
    char buf[512] = "";
    int stripped = krt_spv_strip_hints(&c, buf, sizeof buf);
    std::vector<uint32_t> plain(c.words, c.words + c.num_words);
    krt_spv_copy_free(&c);
    if (stripped < 0) {
        why = "out of memory";
        return ZP_SPIRV_OUT_OF_MEMORY;
    }
    if (stripped == 0) {
        why = std::string("invalid SPIR-V: ") + buf;
        return ZP_SPIRV_INVALID_BINARY;
    }
    std::vector<uint32_t> norm = normalized(plain);
    if (norm.empty()) {
        why = "malformed SPIR-V: an instruction outside any block";
        return ZP_SPIRV_INVALID_BINARY;
    }
    // A module without kernels (no OpEntryPoint) is one Level Zero builds: zeModuleCreate takes it, and
    // zeModuleGetKernelNames then answers 0. SPIR-V allows a module without entry points only with the Linkage
    // capability, which such a library of helpers built without linkage need not declare; the validator's copy
    // declares it, so that the rest of the module is still judged.
    bool has_entry = false;
    for (size_t i = 5; i < words.size() && !has_entry; i += words[i] >> 16) {
        if ((words[i] >> 16) == 0) break;
        has_entry = (words[i] & 0xffff) == OP_ENTRY_POINT;
    }
    if (!has_entry) norm.insert(norm.begin() + 5, {2u << 16 | OP_CAPABILITY, CAP_LINKAGE});
    spv_context vctx = spvContextCreate(env_for(words[1]));
    if (!vctx) {
        why = "out of memory";
        return ZP_SPIRV_OUT_OF_MEMORY;
    }
    spv_validator_options vopts = spvValidatorOptionsCreate();
    if (!krt_spv_copy_init(&c, norm.data(), norm.size()) || !vopts) {
        spvValidatorOptionsDestroy(vopts);
        spvContextDestroy(vctx);
        krt_spv_copy_free(&c);
        why = "out of memory";
        return ZP_SPIRV_OUT_OF_MEMORY;
    }
    // The rule libkrt applies (runtime/src/validate.c, docs/design.md): where the module declares extensions this
    // SPIRV-Tools does not know, an instruction the validator refuses that only an extension gives is not the
    // validator's to judge; every instruction of its kind leaves the copy and the rest is validated again. Each
    // round takes out one more kind, so the loop ends.
    int rc = ZP_SPIRV_OK;
    int unknown = -2; // not asked yet
    krt_spv_excluded done{};
    for (;;) {
        spv_const_binary_t bin = {c.words, c.num_words};
        spv_diagnostic diag = nullptr;
        spv_result_t vr = spvValidateWithOptions(vctx, vopts, &bin, &diag);
        if (vr == SPV_SUCCESS) {
            spvDiagnosticDestroy(diag);
            break;
        }
        size_t at = diag ? diag->position.index : 0;
        std::string msg = diag && diag->error ? diag->error : "";
        spvDiagnosticDestroy(diag);
        if (unknown == -2) {
            const char *found[16];
            unknown = krt_spv_unknown_extensions(words.data(), words.size(), found, 16);
            for (int k = 0; k < unknown && k < 16; k++)
                if (!translator_knows(found[k])) {
                    why = std::string("the module declares the extension ") + found[k] + ", which neither "
                          "SPIRV-Tools' validator nor the SPIR-V translator knows";
                    rc = ZP_SPIRV_BUILD_FAILURE;
                    break;
                }
            if (rc != ZP_SPIRV_OK) break;
        }
        int excluded = unknown > 0 ? krt_spv_exclude(&c, at, &done, buf, sizeof buf) : 0;
        if (excluded > 0) continue;
        if (excluded < 0 || unknown == -1) {
            why = "out of memory";
            rc = ZP_SPIRV_OUT_OF_MEMORY;
            break;
        }
        why = "invalid SPIR-V";
        if (!msg.empty()) why += ": " + msg;
        rc = ZP_SPIRV_INVALID_BINARY;
        break;
    }
    krt_spv_copy_free(&c);
    spvValidatorOptionsDestroy(vopts);
    spvContextDestroy(vctx);
    return rc;
}

} // namespace zp::spirv
