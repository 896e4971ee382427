// SPIRV-Tools' full validator, on a copy of the module it can judge on what matters (the module itself is
// translated as it came): what the validator refuses, the translator could abort on. The copy goes without the
// INTEL aliasing hints SPIRV-Tools 2023.1 does not know (checked here instead), and with each function's blocks
// in reverse post-order and no merge instructions.
#include "steps.h"
#include "opcodes.h"

#include <map>
#include <set>
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

// SPV_INTEL_memory_access_aliasing (SPIR-V 1.4 modules of Intel's SYCL compiler, for one) declares alias
// domains, scopes and scope lists at module scope, names them in OpDecorateId AliasScopeINTEL/NoAliasINTEL and
// in the AliasScopeINTELMask/NoAliasINTELMask memory operands. The extension allows that placement and the
// translator reads it (the declarations become !alias.scope/!noalias metadata), but SPIRV-Tools 2023.1 knows
// neither: it refuses the declarations outside a block and the decorations as taking no id. Only aliasing
// hints hang on these ids, so the validator's copy goes without them: the module-scope declarations, the
// decorations, and the two memory-operand bits with their id operands. The module itself is translated as
// it came, with its hints. Since the validator no longer sees them, what it would have checked is checked
// here: the translator casts each id to the kind it expects and aborts (assertion, bad cast) when a scope
// names no domain or a decoration or memory operand names no scope list.
// (OP_NAME and OP_DECORATE_ID are declared with the structural checks, opcodes.h.)
enum { OP_ALIAS_DOMAIN_DECL = 5911, OP_ALIAS_SCOPE_DECL = 5912,
       OP_ALIAS_SCOPE_LIST_DECL = 5913, DEC_ALIAS_SCOPE = 5914, DEC_NO_ALIAS = 5915,
       MEM_ALIAS_BITS = 0x30000, MEM_WITH_OPERAND = 0x2 | 0x8 | 0x10 };

struct AliasDecls {
    std::set<uint32_t> domains, scopes, lists;
};

// Copies the memory operands starting at w[at] (a mask and its operands, repeated `sets` times) without the
// aliasing bits and their operands, which must name scope lists. Returns false when a mask has bits whose
// operands it cannot count (the instruction is then left to the validator) or, with *bad set, when an
// aliasing operand names something else.
bool strip_alias_operands(const uint32_t *w, size_t at, size_t end, int sets, const AliasDecls &d,
                          std::vector<uint32_t> &out, bool *bad) {
    for (int set = 0; set < sets && at < end; set++) {
        uint32_t mask = w[at++];
        if (mask & ~(MEM_ALIAS_BITS | MEM_WITH_OPERAND | 0x1 | 0x4 | 0x20)) return false;
        out.push_back(mask & ~MEM_ALIAS_BITS);
        // Operands follow in the order of their bits: Aligned, MakePointerAvailable, MakePointerVisible,
        // AliasScopeINTELMask, NoAliasINTELMask.
        for (uint32_t bit : {0x2u, 0x8u, 0x10u, 0x10000u, 0x20000u}) {
            if (!(mask & bit)) continue;
            if (at >= end) return false;
            if (!(bit & MEM_ALIAS_BITS))
                out.push_back(w[at]);
            else if (!d.lists.count(w[at]))
                *bad = true;
            at++;
        }
    }
    return at == end;
}

// Checks the aliasing declarations and their uses, and removes them from w (the validator's copy) in place.
// Returns false, with why, for a use the translator would abort on. Leaves w as it is when the stream is
// malformed (the validator then says so).
bool strip_alias_info(std::vector<uint32_t> &w, std::string &why) {
    AliasDecls d;
    size_t n = w.size();
    bool in_function = false, any = false;
    // Declarations first (uses may come before them: decorations do).
    for (size_t k = 5; k < n && (w[k] >> 16) != 0 && k + (w[k] >> 16) <= n; k += w[k] >> 16) {
        uint32_t op = w[k] & 0xffff, wc = w[k] >> 16;
        if (op == OP_FUNCTION) in_function = true;
        if (op != OP_ALIAS_DOMAIN_DECL && op != OP_ALIAS_SCOPE_DECL && op != OP_ALIAS_SCOPE_LIST_DECL) continue;
        if (in_function) {
            why = "aliasing declaration inside a function (SPV_INTEL_memory_access_aliasing declares them at "
                  "module scope)";
            return false;
        }
        if (wc < 2) return true;
        any = true;
        if (op == OP_ALIAS_DOMAIN_DECL) {
            d.domains.insert(w[k + 1]);
        } else if (op == OP_ALIAS_SCOPE_DECL) {
            if (wc < 3 || !d.domains.count(w[k + 2])) {
                why = "OpAliasScopeDeclINTEL %" + std::to_string(w[k + 1]) + " names no alias domain";
                return false;
            }
            d.scopes.insert(w[k + 1]);
        } else {
            for (uint32_t j = 2; j < wc; j++)
                if (!d.scopes.count(w[k + j])) {
                    why = "OpAliasScopeListDeclINTEL %" + std::to_string(w[k + 1]) + " names something other "
                          "than an alias scope";
                    return false;
                }
            d.lists.insert(w[k + 1]);
        }
    }
    std::vector<uint32_t> out(w.begin(), w.begin() + 5);
    in_function = false;
    size_t i = 5;
    while (i < n) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > n) return true;
        size_t before = out.size();
        if (op == OP_FUNCTION) in_function = true;
        if (op == OP_ALIAS_DOMAIN_DECL || op == OP_ALIAS_SCOPE_DECL || op == OP_ALIAS_SCOPE_LIST_DECL ||
            (op == OP_NAME && wc >= 2 && (d.domains.count(w[i + 1]) || d.scopes.count(w[i + 1]) ||
                                         d.lists.count(w[i + 1])))) {
            i += wc;
            continue;
        }
        if (op == OP_DECORATE_ID && wc >= 3 && (w[i + 2] == DEC_ALIAS_SCOPE || w[i + 2] == DEC_NO_ALIAS)) {
            if (wc != 4 || !d.lists.count(w[i + 3])) {
                why = "AliasScopeINTEL/NoAliasINTEL decoration of %" + std::to_string(w[i + 1]) +
                      " names no alias scope list";
                return false;
            }
            any = true;
            i += wc;
            continue;
        }
        if ((op == OP_LOAD && wc > 4) || ((op == OP_STORE || op == OP_COPY_MEMORY) && wc > 3) ||
            (op == OP_COPY_MEMORY_SIZED && wc > 4)) {
            size_t first = op == OP_STORE || op == OP_COPY_MEMORY ? 3 : 4;
            int sets = op == OP_COPY_MEMORY || op == OP_COPY_MEMORY_SIZED ? 2 : 1;
            out.push_back(0); // header, fixed below
            out.insert(out.end(), w.begin() + i + 1, w.begin() + i + first);
            bool bad = false;
            if (!strip_alias_operands(&w[0], i + first, i + wc, sets, d, out, &bad)) {
                out.resize(before);
                out.insert(out.end(), w.begin() + i, w.begin() + i + wc);
            } else if (bad) {
                why = "aliasing memory operand at word " + std::to_string(i) + " names no alias scope list";
                return false;
            } else {
                if (out.size() - before != wc) any = true;
                out[before] = (uint32_t)((out.size() - before) << 16) | op;
            }
            i += wc;
            continue;
        }
        out.insert(out.end(), w.begin() + i, w.begin() + i + wc);
        i += wc;
    }
    if (any) w.swap(out);
    return true;
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

int validate(std::vector<uint32_t> &words, std::string &why) {
    // The full validator on the normalized copy: what it refuses, the translator could abort on.
    if (!strip_alias_info(words, why)) {
        why = "invalid SPIR-V: " + why;
        return ZP_SPIRV_INVALID_BINARY;
    }
    std::vector<uint32_t> norm = normalized(words);
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
    spv_const_binary_t bin = {norm.data(), norm.size()};
    spv_diagnostic diag = nullptr;
    int rc = ZP_SPIRV_OK;
    spv_validator_options vopts = spvValidatorOptionsCreate();
    spv_result_t vr = spvValidateWithOptions(vctx, vopts, &bin, &diag);
    if (vr != SPV_SUCCESS) {
        why = "invalid SPIR-V";
        if (diag && diag->error) {
            why += ": ";
            why += diag->error;
        }
        rc = ZP_SPIRV_INVALID_BINARY;
    }
    spvDiagnosticDestroy(diag);
    spvValidatorOptionsDestroy(vopts);
    spvContextDestroy(vctx);
    return rc;
}

} // namespace zp::spirv
