// SPIR-V -> LLVM bitcode for PoCL, and per-kernel facts from the translated module.
//
// PoCL 3.1 takes no SPIR-V, but it takes SPIR 1.2 bitcode; libLLVMSPIRVLib turns SPIR-V into that in
// process. The module is in hand here, so this is also where the per-kernel figures come from: PoCL's
// per-kernel queries are wrong when a program holds several kernels.
#include "spirv_bridge.h"
#include "../spirv/exact_range.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils.h>
#include <llvm/Transforms/Scalar.h>
#include <llvm/Transforms/Scalar/SimpleLoopUnswitch.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Passes/PassBuilder.h>
#include <spirv-tools/libspirv.h>

namespace {

// The translator keeps some global tables; module builds are rare, so one lock is the simple answer.
std::mutex bridge_lock;

char *dup_string(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p) std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

// How an id was defined: without a result type (a type, a label, ...), with an integer scalar type, or with another.
enum { DEF_UNTYPED = 1, DEF_INT = 2, DEF_OTHER = 3 };
enum { OP_TYPE_INT = 21, OP_CONSTANT = 43, OP_ACCESS_CHAIN = 65, OP_IN_BOUNDS_ACCESS_CHAIN = 66, OP_PTR_ACCESS_CHAIN = 67,
       OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70 };

// What the parse callback learns about a module.
struct Scan {
    const zp_module_src *src;
    std::string why;              // first problem found
    uint32_t bound = 0;
    std::vector<uint8_t> defined; // per id: 0 not defined, else DEF_UNTYPED, DEF_INT or DEF_OTHER (its type)
    std::set<uint32_t> int_types; // ids of OpTypeInt
    std::map<uint32_t, uint32_t> constants; // 32-bit OpConstant values, for memory semantics operands
    std::vector<uint32_t> used;   // ids used as operands
    bool memory_model = false;
    bool in_function = false;
    uint32_t functions = 0;
    size_t pos = 5;               // word offset of the instruction being scanned
    // Ids the translator cannot decorate (defined before the annotations): id -> defining opcode's name.
    std::map<uint32_t, const char *> undecoratable;
    // (entry point, execution mode, first literal of a float-controls mode) seen so far.
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> exec_modes;
    std::set<uint32_t> builtins;       // ids decorated BuiltIn
    std::set<uint32_t> builtin_ptrs;   // builtin variables and the access chains and generic casts of them
    std::vector<uint32_t> inputs;      // module-scope variables of the Input storage class
    std::vector<uint32_t> builtin_named; // ids given a name (OpName, LinkageAttributes) with the builtin prefix
    std::set<std::string> exports;     // LinkageAttributes names with linkage type Export
    std::vector<std::pair<uint32_t, std::string>> names; // (id, name) of each OpName and linkage name, in order
    std::vector<uint32_t> function_ids;    // OpFunction result ids
    std::set<uint32_t> entry_functions;    // ids of entry point functions
    std::vector<std::pair<uint32_t, std::string>> entry_points; // (function id, kernel name) of each OpEntryPoint
    std::set<std::pair<uint32_t, uint32_t>> calls; // (caller, callee) of each OpFunctionCall
    uint32_t current_function = 0;
    std::map<uint32_t, uint32_t> function_type_params; // OpTypeFunction id -> its parameter count
    uint32_t params_expected = UINT32_MAX; // of the function being scanned, until its first block; MAX: unknown
    uint32_t params_seen = 0;
    bool in_params = false;
    std::string params_why; // the first function whose parameters do not match its type, refused after the parse
    std::vector<std::pair<uint32_t, size_t>> value_uses; // ids a function's instruction takes as values, and where
    std::set<uint32_t> nonvalues;      // ids of labels, types, strings, extended instruction sets, decoration groups
};

// What the scan callbacks return for a module that is valid SPIR-V but that this device or the translator
// cannot take (a missing capability, SPIR-V 1.5/1.6, what the translator asserts on): a build failure with
// scan.why as the log, not an invalid binary.
constexpr spv_result_t SPV_UNSUPPORTED = SPV_ERROR_INVALID_CAPABILITY;

spv_result_t scan_header(void *user, spv_endianness_t, uint32_t, uint32_t version, uint32_t, uint32_t bound,
                         uint32_t schema) {
    Scan *s = static_cast<Scan *>(user);
    if (bound == 0 || bound > (1u << 22)) {
        s->why = "SPIR-V id bound out of range";
        return SPV_ERROR_INVALID_BINARY;
    }
    // A version word is 0 | major | minor | 0 (SPIR-V spec 2.3). The translator knows 1.0-1.4 and calls
    // exit() on any other version, so 1.5 and 1.6 stop here: valid SPIR-V this device cannot take.
    uint32_t major = version >> 16 & 0xff, minor = version >> 8 & 0xff;
    if ((version & 0xff0000ffu) != 0 || major != 1 || minor > 6) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "SPIR-V header version word 0x%08x is not a SPIR-V version", version);
        s->why = buf;
        return SPV_ERROR_INVALID_BINARY;
    }
    if (minor > 4) {
        s->why = "SPIR-V version 1." + std::to_string(minor) +
                 " is newer than 1.4, the highest version ze_pocl's SPIR-V translator reads (spirvVersionSupported)";
        return SPV_UNSUPPORTED;
    }
    // The schema word is reserved and must be 0 (SPIR-V spec 2.3); the translator calls exit() on any other.
    if (schema != 0) {
        s->why = "SPIR-V header schema word is " + std::to_string(schema) + "; SPIR-V requires 0";
        return SPV_ERROR_INVALID_BINARY;
    }
    s->bound = bound;
    s->defined.assign(bound, 0);
    return SPV_SUCCESS;
}

// SPIR-V capability numbers (SPIR-V spec 3.31) that depend on the device.
enum { CAP_FLOAT16 = 9, CAP_FLOAT64 = 10, CAP_INT64_ATOMICS = 12 };
// SPIR-V opcodes the structural check needs.
enum { OP_NAME = 5, OP_MEMBER_NAME = 6, OP_STRING = 7, OP_EXT_INST_IMPORT = 11, OP_EXECUTION_MODE = 16,
       OP_GROUP_DECORATE = 74, OP_GROUP_MEMBER_DECORATE = 75, OP_EXECUTION_MODE_ID = 331, OP_DECORATE_ID = 332,
       OP_DECORATE_STRING = 5632, OP_MEMBER_DECORATE_STRING = 5633 };
enum { OP_MEMORY_MODEL = 14, OP_ENTRY_POINT = 15, OP_CAPABILITY = 17, OP_FUNCTION = 54, OP_FUNCTION_END = 56,
       OP_FUNCTION_CALL = 57, OP_LOAD = 61, OP_PTR_CAST_TO_GENERIC = 121, OP_TYPE_FUNCTION = 33,
       OP_FUNCTION_PARAMETER = 55,
       OP_STORE = 62, OP_COPY_MEMORY = 63, OP_COPY_MEMORY_SIZED = 64, OP_DECORATE = 71, OP_MEMBER_DECORATE = 72,
       DEC_ALIGNMENT = 44, MEM_ALIGNED = 0x2, OP_VARIABLE = 59, DEC_BUILTIN = 11, SC_INPUT = 1,
       DEC_LINKAGE_ATTRIBUTES = 41, OP_LINE = 8, OP_EXT_INST = 12, OP_PHI = 245, OP_LOOP_MERGE = 246,
       OP_SELECTION_MERGE = 247, OP_BRANCH = 249, OP_BRANCH_CONDITIONAL = 250, OP_SWITCH = 251, OP_LABEL_ID = 248,
       OP_DECORATION_GROUP = 73 };

// Valid SPIR-V that libLLVMSPIRVLib asserts on (its asserts are compiled in and abort the process), and
// that the validator lets through: an execution mode given twice for one entry point ("Found incompatible
// execution modes"), and an OpName or a decoration of an id defined before them, an OpExtInstImport or an
// OpString ("Annotations only allowed on forward": the translator reads names as annotations too). Sets
// s->why and returns false for those.
bool translator_takes(Scan *s, const spv_parsed_instruction_t *in) {
    switch (in->opcode) {
    case OP_STRING: s->undecoratable[in->result_id] = "an OpString"; return true;
    case OP_EXT_INST_IMPORT: s->undecoratable[in->result_id] = "an OpExtInstImport"; return true;
    case OP_EXECUTION_MODE:
    case OP_EXECUTION_MODE_ID: {
        if (in->num_words < 3) return true;
        uint32_t mode = in->words[2];
        // The float-controls modes (DenormPreserve ... RoundingModeRTZ) may be given once per floating-point
        // width: their first literal is part of the key.
        uint32_t width = (mode >= 4459 && mode <= 4463 && in->num_words >= 4) ? in->words[3] : 0;
        if (!s->exec_modes.insert(std::make_tuple(in->words[1], mode, width)).second) {
            s->why = "execution mode " + std::to_string(mode) + " is given twice for entry point id " +
                     std::to_string(in->words[1]) + " at word offset " + std::to_string(s->pos) +
                     " (the SPIR-V translator cannot take a repeated execution mode)";
            return false;
        }
        return true;
    }
    default: break;
    }
    std::vector<uint32_t> targets;
    switch (in->opcode) {
    case OP_NAME:
    case OP_MEMBER_NAME:
    case OP_DECORATE:
    case OP_MEMBER_DECORATE:
    case OP_DECORATE_ID:
    case OP_DECORATE_STRING:
    case OP_MEMBER_DECORATE_STRING:
        if (in->num_words >= 2) targets.push_back(in->words[1]);
        break;
    case OP_GROUP_DECORATE:
        for (uint16_t w = 2; w < in->num_words; w++) targets.push_back(in->words[w]);
        break;
    case OP_GROUP_MEMBER_DECORATE:
        for (uint16_t w = 2; w < in->num_words; w += 2) targets.push_back(in->words[w]);
        break;
    default: return true;
    }
    for (uint32_t t : targets) {
        auto it = s->undecoratable.find(t);
        if (it == s->undecoratable.end()) continue;
        s->why = std::string(in->opcode == OP_NAME || in->opcode == OP_MEMBER_NAME ? "name" : "decoration") +
                 " at word offset " + std::to_string(s->pos) + " targets id " + std::to_string(t) + ", " +
                 it->second + " (the SPIR-V translator cannot name or decorate it)";
        return false;
    }
    return true;
}

// A function must have one OpFunctionParameter per parameter of its type: the translator reads the type's
// parameters and segfaulted on a function with one fewer (found by make fuzz), which the validator of SPIRV-Tools
// 2023.1 lets through. Noted here, refused after the parse.
void check_params(Scan *s) {
    if (s->in_params && s->params_expected != UINT32_MAX && s->params_seen != s->params_expected &&
        s->params_why.empty())
        s->params_why = "function %" + std::to_string(s->current_function) + " has " + std::to_string(s->params_seen) +
                        " OpFunctionParameter but its type takes " + std::to_string(s->params_expected) + " parameters";
    s->in_params = false;
}

spv_result_t scan_inst(void *user, const spv_parsed_instruction_t *in) {
    Scan *s = static_cast<Scan *>(user);
    if (in->result_id) {
        if (in->result_id >= s->bound) {
            s->why = "SPIR-V id above the module's bound";
            return SPV_ERROR_INVALID_BINARY;
        }
        s->defined[in->result_id] = !in->type_id ? DEF_UNTYPED : s->int_types.count(in->type_id) ? DEF_INT : DEF_OTHER;
        if (in->opcode == OP_TYPE_INT) s->int_types.insert(in->result_id);
    }
    if (in->opcode == OP_CONSTANT && in->num_words == 4) s->constants[in->result_id] = in->words[3];
    // At most one of the ordering bits Acquire, Release, AcquireRelease, SequentiallyConsistent may be set in
    // memory semantics, and bit 0x1 is none (SPIR-V spec 3.25); the translator maps the low five bits to an
    // OpenCL memory order and asserts on any other combination ("Invalid key", found by make fuzz: 0x111),
    // and the validator of SPIRV-Tools 2023.1 lets them through.
    for (uint16_t i = 0; i < in->num_operands; i++) {
        const spv_parsed_operand_t &op = in->operands[i];
        if (op.type != SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID) continue;
        auto c = s->constants.find(in->words[op.offset]);
        uint32_t order = c == s->constants.end() ? 0 : c->second & 0x1fu;
        if ((order & 1u) || (order & (order - 1))) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "memory semantics %%%u = 0x%x at word offset %zu set more than one "
                          "ordering bit or the undefined bit 0x1", in->words[op.offset], c->second, s->pos + op.offset);
            s->why = buf;
            return SPV_ERROR_INVALID_BINARY;
        }
    }
    // Access chain indexes must be scalar integers (SPIR-V spec 3.32.8, OpAccessChain and its kin). The
    // validator of SPIRV-Tools 2023.1 lets a pointer through as an OpPtrAccessChain index, and the translator
    // then hits an UNREACHABLE (found by make fuzz: a builtin variable as the index). An index whose definition
    // comes later in the binary (block order) is left to the translator.
    const bool access_chain = in->opcode == OP_ACCESS_CHAIN || in->opcode == OP_IN_BOUNDS_ACCESS_CHAIN ||
                              in->opcode == OP_PTR_ACCESS_CHAIN || in->opcode == OP_IN_BOUNDS_PTR_ACCESS_CHAIN;
    if (access_chain)
        for (uint16_t w = 4; w < in->num_words; w++) {
            uint32_t id = in->words[w];
            if (id < s->bound && s->defined[id] && s->defined[id] != DEF_INT) {
                s->why = "access chain index %" + std::to_string(id) + " at word offset " + std::to_string(s->pos + w) +
                         " is not a scalar integer";
                return SPV_ERROR_INVALID_BINARY;
            }
        }
    for (uint16_t i = 0; i < in->num_operands; i++) {
        const spv_parsed_operand_t &op = in->operands[i];
        if (op.type == SPV_OPERAND_TYPE_ID || op.type == SPV_OPERAND_TYPE_TYPE_ID ||
            op.type == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID || op.type == SPV_OPERAND_TYPE_SCOPE_ID)
            s->used.push_back(in->words[op.offset]);
    }
    // Operands of a function's instructions that are values must not be labels, types (OpTypeVoid ..
    // OpTypeForwardPointer), strings, extended instruction sets or decoration groups: the translator asserts
    // ("value has no type") on them (found by the fuzz smoke: a label as a printf argument), and the validator of
    // SPIRV-Tools 2023.1 does not check OpExtInst operands. Other untyped ids are legitimate operands (the INTEL
    // alias scope declarations of memory operands). Labels are taken where control flow names them (branches,
    // merges, a phi's parents), a set where OpExtInst names it; the operands of other extended instruction sets
    // (debug information) and OpLine's file are not values. Checked after the parse, when every definition is
    // known.
    if (in->result_id && ((in->opcode >= 19 && in->opcode <= 39) || in->opcode == OP_LABEL_ID ||
                          in->opcode == OP_STRING || in->opcode == OP_EXT_INST_IMPORT || in->opcode == OP_DECORATION_GROUP))
        s->nonvalues.insert(in->result_id);
    if (s->in_function && in->opcode != OP_LINE && in->opcode != OP_LOOP_MERGE && in->opcode != OP_SELECTION_MERGE &&
        in->opcode != OP_BRANCH && !(in->opcode == OP_EXT_INST && in->ext_inst_type != SPV_EXT_INST_TYPE_OPENCL_STD)) {
        for (uint16_t i = 0; i < in->num_operands; i++) {
            const spv_parsed_operand_t &op = in->operands[i];
            if (op.type != SPV_OPERAND_TYPE_ID && op.type != SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID &&
                op.type != SPV_OPERAND_TYPE_SCOPE_ID)
                continue;
            if ((in->opcode == OP_EXT_INST && i == 2) || (in->opcode == OP_BRANCH_CONDITIONAL && i >= 1) ||
                (in->opcode == OP_SWITCH && i >= 1) || (in->opcode == OP_PHI && i >= 3 && i % 2 == 1))
                continue;
            s->value_uses.push_back({in->words[op.offset], s->pos + op.offset});
        }
    }
    // A builtin variable is taken only through loads, access chains and casts to generic (and those only the
    // same way): the translator lowers builtins by rewriting their uses and reaches an UNREACHABLE ("Unexpected
    // pattern") on any other use (found by the fuzz smoke: GlobalInvocationId's variable as a printf argument).
    // Decorations come before functions, so the builtins are known here.
    if (s->in_function && in->opcode != OP_LINE) {
        for (uint16_t i = 0; i < in->num_operands; i++) {
            const spv_parsed_operand_t &op = in->operands[i];
            uint32_t id = in->words[op.offset];
            if (op.type != SPV_OPERAND_TYPE_ID || (!s->builtins.count(id) && !s->builtin_ptrs.count(id))) continue;
            bool chain = access_chain || in->opcode == OP_PTR_CAST_TO_GENERIC;
            if (i == 2 && (in->opcode == OP_LOAD || chain)) {
                if (chain) s->builtin_ptrs.insert(in->result_id);
                continue;
            }
            s->why = "builtin variable %" + std::to_string(id) + " is used at word offset " +
                     std::to_string(s->pos + op.offset) +
                     " other than through OpLoad, an access chain or OpPtrCastToGeneric (the SPIR-V translator "
                     "lowers builtins only through those)";
            return SPV_ERROR_INVALID_BINARY;
        }
    }
    // A literal string must be zero-padded after its NUL to the end of its last word: the translator
    // asserts on any other padding, and neither the parser nor the validator checks it. Bytes of a
    // word are in little-endian order (SPIR-V spec 2.2.1), and the words are in host order here.
    for (uint16_t i = 0; i < in->num_operands; i++) {
        const spv_parsed_operand_t &op = in->operands[i];
        if (op.type != SPV_OPERAND_TYPE_LITERAL_STRING && op.type != SPV_OPERAND_TYPE_OPTIONAL_LITERAL_STRING)
            continue;
        bool after_nul = false;
        for (uint16_t w = 0; w < op.num_words; w++) {
            uint32_t word = in->words[op.offset + w];
            for (int b = 0; b < 4; b++) {
                uint8_t ch = (uint8_t)(word >> (8 * b));
                if (after_nul && ch != 0) {
                    s->why = "string literal with non-zero padding after its NUL at word offset " +
                             std::to_string(s->pos + op.offset + w);
                    return SPV_ERROR_INVALID_BINARY;
                }
                if (ch == 0) after_nul = true;
            }
        }
    }
    if (!translator_takes(s, in)) return SPV_UNSUPPORTED;
    // Builtins and Input variables, for the check after the parse (an Input variable must be a builtin).
    if (in->opcode == OP_DECORATE && in->num_words >= 3 && in->words[2] == DEC_BUILTIN) s->builtins.insert(in->words[1]);
    // The translator finds builtin variables by their LLVM name's prefix "__spirv_BuiltIn", which OpName or a
    // LinkageAttributes name gives, and reaches an UNREACHABLE lowering the uses of any other variable of that
    // name (found by the fuzz smoke: a __local array linked as "__spirv_BuiltInWorkgroupSize"). Such names are
    // checked after the parse against the BuiltIn decorations.
    uint32_t name_at = in->opcode == OP_NAME && in->num_words >= 3 ? 2
                       : in->opcode == OP_DECORATE && in->num_words >= 4 && in->words[2] == DEC_LINKAGE_ATTRIBUTES ? 3 : 0;
    // Export names must be unique: the translator names each function by its export and crashed on a second
    // function exporting an entry point's name (a null function, found by the fuzz smoke); the validator of
    // SPIRV-Tools 2023.1 lets the duplicate through.
    if (in->opcode == OP_DECORATE && in->num_words >= 5 && in->words[2] == DEC_LINKAGE_ATTRIBUTES &&
        in->words[in->num_words - 1] == 0) {
        size_t max = (in->num_words - 4) * 4u;
        const char *name = reinterpret_cast<const char *>(in->words + 3);
        std::string n(name, strnlen(name, max));
        if (!s->exports.insert(n).second) {
            s->why = "two ids export the name \"" + n + "\" (LinkageAttributes at word offset " +
                     std::to_string(s->pos) + ")";
            return SPV_ERROR_INVALID_BINARY;
        }
    }
    if (name_at) {
        static const char prefix[] = "__spirv_BuiltIn";
        size_t max = (in->num_words - name_at) * 4u;
        const char *name = reinterpret_cast<const char *>(in->words + name_at);
        s->names.emplace_back(in->words[1], std::string(name, strnlen(name, max)));
        if (max >= sizeof prefix - 1 && std::memcmp(name, prefix, sizeof prefix - 1) == 0)
            s->builtin_named.push_back(in->words[1]);
    }
    // Storage classes (of OpTypePointer, OpVariable, OpTypeForwardPointer, OpGenericCastToPtrExplicit) must be
    // those the translator maps to an OpenCL address space: UniformConstant, Input, Workgroup, CrossWorkgroup,
    // Function, Generic and the INTEL device-only/host-only pair. It asserts on any other ("Invalid key", found by
    // the fuzz smoke: a pointer to Image), and the validator of SPIRV-Tools 2023.1 lets some through.
    for (uint16_t i = 0; i < in->num_operands; i++) {
        const spv_parsed_operand_t &op = in->operands[i];
        if (op.type != SPV_OPERAND_TYPE_STORAGE_CLASS) continue;
        uint32_t sc = in->words[op.offset];
        if (!(sc == 0 || sc == 1 || sc == 4 || sc == 5 || sc == 7 || sc == 8 || sc == 5936 || sc == 5937)) {
            s->why = "storage class " + std::to_string(sc) + " at word offset " + std::to_string(s->pos + op.offset) +
                     " has no OpenCL address space";
            return SPV_ERROR_INVALID_BINARY;
        }
    }
    // A BuiltIn must be one of the Kernel builtins (SPIR-V spec 3.21: NumWorkgroups .. SubgroupLocalInvocationId,
    // and the subgroup masks). The translator maps each to an OpenCL function and asserts on any other ("Invalid
    // key", found by the fuzz smoke: ClipDistance, CullDistance, PointSize), and the validator of SPIRV-Tools
    // 2023.1 lets graphics builtins through in a Kernel module.
    uint32_t builtin_at = in->opcode == OP_DECORATE && in->num_words >= 4 && in->words[2] == DEC_BUILTIN ? 3
                          : in->opcode == OP_MEMBER_DECORATE && in->num_words >= 5 && in->words[3] == DEC_BUILTIN ? 4 : 0;
    if (builtin_at) {
        uint32_t b = in->words[builtin_at];
        if (!((b >= 24 && b <= 34) || (b >= 36 && b <= 41) || (b >= 4416 && b <= 4420))) {
            s->why = "BuiltIn " + std::to_string(b) + " at word offset " + std::to_string(s->pos + builtin_at) +
                     " is not a Kernel builtin";
            return SPV_ERROR_INVALID_BINARY;
        }
    }
    if (in->opcode == OP_VARIABLE && in->num_words >= 4 && in->words[3] == SC_INPUT && !s->in_function)
        s->inputs.push_back(in->words[2]);
    // Alignments must be powers of two; LLVM asserts on any other (the validator lets them through).
    uint32_t align_at = 0;
    switch (in->opcode) {
    case OP_DECORATE: if (in->num_words >= 4 && in->words[2] == DEC_ALIGNMENT) align_at = 3; break;
    case OP_MEMBER_DECORATE: if (in->num_words >= 5 && in->words[3] == DEC_ALIGNMENT) align_at = 4; break;
    case OP_LOAD: if (in->num_words >= 6 && (in->words[4] & MEM_ALIGNED)) align_at = 5; break;
    case OP_STORE:
    case OP_COPY_MEMORY: if (in->num_words >= 5 && (in->words[3] & MEM_ALIGNED)) align_at = 4; break;
    case OP_COPY_MEMORY_SIZED: if (in->num_words >= 6 && (in->words[4] & MEM_ALIGNED)) align_at = 5; break;
    default: break;
    }
    if (align_at) {
        uint32_t a = in->words[align_at];
        if (a == 0 || (a & (a - 1)) != 0) {
            s->why = "alignment " + std::to_string(a) + " is not a power of two";
            return SPV_ERROR_INVALID_BINARY;
        }
    }
    switch (in->opcode) {
    case OP_MEMORY_MODEL:
        s->memory_model = true;
        // PoCL's CPU devices have 64-bit addresses; a Physical32 module becomes 32-bit SPIR bitcode, and
        // PoCL's build of that crashes the process (found by make fuzz).
        if (in->num_words >= 2 && in->words[1] == 1) {
            s->why = "addressing model Physical32: ze_pocl's devices have 64-bit addresses (Physical64)";
            return SPV_UNSUPPORTED;
        }
        break;
    case OP_CAPABILITY: {
        uint32_t cap = in->words[1];
        const char *missing = nullptr;
        if (cap == CAP_FLOAT16 && !s->src->fp16) missing = "Float16";
        if (cap == CAP_FLOAT64 && !s->src->fp64) missing = "Float64";
        if (cap == CAP_INT64_ATOMICS && !s->src->int64_atomics) missing = "Int64Atomics";
        if (missing) {
            s->why = std::string("the device does not support SPIR-V capability ") + missing;
            return SPV_UNSUPPORTED;
        }
        break;
    }
    case OP_FUNCTION:
        if (s->in_function) {
            s->why = "OpFunction inside a function";
            return SPV_ERROR_INVALID_BINARY;
        }
        s->in_function = true;
        s->functions++;
        if (in->num_words >= 3) s->function_ids.push_back(in->words[2]);
        s->current_function = in->num_words >= 3 ? in->words[2] : 0;
        {
            auto t = in->num_words >= 5 ? s->function_type_params.find(in->words[4]) : s->function_type_params.end();
            s->params_expected = t == s->function_type_params.end() ? UINT32_MAX : t->second;
        }
        s->params_seen = 0;
        s->in_params = true;
        break;
    case OP_TYPE_FUNCTION:
        if (in->num_words >= 3) s->function_type_params[in->words[1]] = in->num_words - 3;
        break;
    case OP_FUNCTION_PARAMETER:
        s->params_seen++;
        break;
    case OP_LABEL_ID:
        check_params(s);
        break;
    case OP_FUNCTION_CALL:
        if (in->num_words >= 4) s->calls.insert({s->current_function, in->words[3]});
        break;
    case OP_ENTRY_POINT:
        if (in->num_words >= 4) {
            s->entry_functions.insert(in->words[2]);
            size_t max = (in->num_words - 3) * 4u;
            const char *name = reinterpret_cast<const char *>(in->words + 3);
            s->entry_points.push_back({in->words[2], std::string(name, strnlen(name, max))});
        }
        break;
    case OP_FUNCTION_END:
        check_params(s);
        if (!s->in_function) {
            s->why = "OpFunctionEnd outside a function";
            return SPV_ERROR_INVALID_BINARY;
        }
        s->in_function = false;
        break;
    default: break;
    }
    s->pos += in->num_words;
    return SPV_SUCCESS;
}

// SPIR-V opcodes the block reordering needs (and OP_BRANCH, OP_SWITCH, the merges, declared above).
enum { OP_LABEL = 248, OP_BRANCH_COND = OP_BRANCH_CONDITIONAL };

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
// (OP_NAME and OP_DECORATE_ID are declared with the translator checks above.)
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

// The translator trusts its input (and asserts on what it does not expect), so the module is first
// checked for what a complete module must have: a well-formed instruction stream, a memory model,
// closed functions, and every id it uses defined somewhere. The full validator is not used: it refuses
// the block order clang -O2 produces for loops, which drivers accept.
int parse_ok(const zp_module_src *src, std::string &why) {
    const uint8_t *bytes = src->spirv;
    size_t size = src->size;
    if (size < 20 || size % 4 != 0) {
        why = "SPIR-V size must be a multiple of 4 and at least 20 bytes";
        return ZP_BRIDGE_INVALID_BINARY;
    }
    uint32_t magic;
    std::memcpy(&magic, bytes, 4);
    if (magic != 0x07230203u) {
        why = "not SPIR-V: wrong magic number";
        return ZP_BRIDGE_INVALID_BINARY;
    }
    std::vector<uint32_t> words(size / 4);
    std::memcpy(words.data(), bytes, size);
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    if (!ctx) {
        why = "out of memory";
        return ZP_BRIDGE_OUT_OF_MEMORY;
    }
    Scan scan;
    scan.src = src;
    spv_diagnostic diag = nullptr;
    spv_result_t r = spvBinaryParse(ctx, &scan, words.data(), words.size(), scan_header, scan_inst, &diag);
    int rc = ZP_BRIDGE_OK;
    if (r == SPV_UNSUPPORTED) {
        why = scan.why;
        rc = ZP_BRIDGE_BUILD_FAILURE;
    } else if (r != SPV_SUCCESS) {
        why = scan.why.empty() ? "malformed SPIR-V" : "malformed SPIR-V: " + scan.why;
        if (scan.why.empty() && diag && diag->error) {
            why += ": ";
            why += diag->error;
        }
        rc = ZP_BRIDGE_INVALID_BINARY;
    } else if (!scan.memory_model) {
        why = "malformed SPIR-V: no OpMemoryModel";
        rc = ZP_BRIDGE_INVALID_BINARY;
    } else if (scan.in_function) {
        why = "malformed SPIR-V: a function has no OpFunctionEnd";
        rc = ZP_BRIDGE_INVALID_BINARY;
    } else {
        // The OpenCL environment allows the Input storage class for builtins only; the translator dereferences
        // a null builtin for any other Input variable and crashes the process (found by make fuzz).
        for (uint32_t id : scan.inputs) {
            if (!scan.builtins.count(id)) {
                why = "invalid SPIR-V: Input variable id " + std::to_string(id) + " is not decorated BuiltIn";
                rc = ZP_BRIDGE_INVALID_BINARY;
                break;
            }
        }
        for (const auto &u : scan.value_uses) {
            if (rc != ZP_BRIDGE_OK) break;
            if (scan.nonvalues.count(u.first)) {
                why = "invalid SPIR-V: id " + std::to_string(u.first) + " at word offset " + std::to_string(u.second) +
                      " is used as a value but is a label, a type, a string, an extended instruction set or a "
                      "decoration group";
                rc = ZP_BRIDGE_INVALID_BINARY;
            }
        }
        // The translator gives each function the name of its last OpName or LinkageAttributes (an entry point's
        // wrapper takes the entry point's) and crashed the process on two functions of one name (a null
        // function, found by the fuzz smoke: one function's export named as another's OpName); LLVM output never
        // has two, and the validator of SPIRV-Tools 2023.1 does not look.
        // A function named like a kernel is taken for that kernel's body, which its entry point's function (a
        // wrapper, in LLVM's output) calls: named like a kernel whose entry point does not call it, it gave
        // PoCL a kernel whose argument metadata did not match (an assertion, found by the fuzz smoke).
        std::map<uint32_t, const std::string *> name_of; // function id -> its last name
        for (uint32_t id : scan.function_ids) name_of[id] = nullptr;
        for (const auto &n : scan.names) {
            auto f = name_of.find(n.first);
            if (f != name_of.end()) f->second = &n.second;
        }
        std::map<std::string, uint32_t> function_names;
        for (uint32_t id : scan.function_ids) {
            if (rc != ZP_BRIDGE_OK) break;
            const std::string *name = name_of[id];
            if (!name || name->empty() || scan.entry_functions.count(id)) continue;
            auto seen = function_names.emplace(*name, id);
            if (!seen.second) {
                why = "invalid SPIR-V: functions " + std::to_string(seen.first->second) + " and " + std::to_string(id) +
                      " are both named \"" + *name + "\" (OpName or LinkageAttributes)";
                rc = ZP_BRIDGE_INVALID_BINARY;
                break;
            }
            for (const auto &e : scan.entry_points) {
                if (e.second != *name || scan.calls.count({e.first, id})) continue;
                why = "invalid SPIR-V: function " + std::to_string(id) + " is named \"" + *name +
                      "\" (OpName or LinkageAttributes), as a kernel is, but that kernel's entry point function " +
                      std::to_string(e.first) + " does not call it";
                rc = ZP_BRIDGE_INVALID_BINARY;
                break;
            }
        }
        for (uint32_t id : scan.builtin_named) {
            if (rc != ZP_BRIDGE_OK) break;
            if (!scan.builtins.count(id)) {
                why = "invalid SPIR-V: id " + std::to_string(id) +
                      " has a name beginning __spirv_BuiltIn but is not decorated BuiltIn";
                rc = ZP_BRIDGE_INVALID_BINARY;
            }
        }
        if (rc == ZP_BRIDGE_OK && !scan.params_why.empty()) {
            why = "malformed SPIR-V: " + scan.params_why;
            rc = ZP_BRIDGE_INVALID_BINARY;
        }
        for (uint32_t id : scan.used) {
            if (rc != ZP_BRIDGE_OK) break;
            if (id >= scan.bound || !scan.defined[id]) {
                why = "malformed SPIR-V: id " + std::to_string(id) + " is used but never defined";
                rc = ZP_BRIDGE_INVALID_BINARY;
                break;
            }
        }
    }
    spvDiagnosticDestroy(diag);
    diag = nullptr;
    spvContextDestroy(ctx);
    if (rc != ZP_BRIDGE_OK) return rc;

    // The full validator on the normalized copy: what it refuses, the translator could abort on.
    if (!strip_alias_info(words, why)) {
        why = "invalid SPIR-V: " + why;
        return ZP_BRIDGE_INVALID_BINARY;
    }
    std::vector<uint32_t> norm = normalized(words);
    if (norm.empty()) {
        why = "malformed SPIR-V: an instruction outside any block";
        return ZP_BRIDGE_INVALID_BINARY;
    }
    spv_context vctx = spvContextCreate(env_for(words[1]));
    if (!vctx) {
        why = "out of memory";
        return ZP_BRIDGE_OUT_OF_MEMORY;
    }
    spv_const_binary_t bin = {norm.data(), norm.size()};
    spv_validator_options vopts = spvValidatorOptionsCreate();
    spv_result_t vr = spvValidateWithOptions(vctx, vopts, &bin, &diag);
    if (vr != SPV_SUCCESS) {
        why = "invalid SPIR-V";
        if (diag && diag->error) {
            why += ": ";
            why += diag->error;
        }
        rc = ZP_BRIDGE_INVALID_BINARY;
    }
    spvDiagnosticDestroy(diag);
    spvValidatorOptionsDestroy(vopts);
    spvContextDestroy(vctx);
    return rc;
}

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
    t.priv += best_priv;
    t.agg += best_agg;
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

int extract_meta(llvm::Module &mod, zp_module_meta *meta) {
    const llvm::DataLayout &dl = mod.getDataLayout();
    std::map<const llvm::Function *, FuncFacts> facts;
    for (llvm::Function &f : mod) {
        FuncFacts &ff = facts[&f];
        for (llvm::BasicBlock &bb : f) {
            for (llvm::Instruction &i : bb) {
                if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(&i)) {
                    if (auto sz = al->getAllocationSizeInBits(dl)) {
                        uint64_t bytes = (*sz + 7) / 8;
                        ff.priv += bytes;
                        llvm::Type *at = al->getAllocatedType();
                        if (at->isArrayTy() || at->isStructTy() || !al->isStaticAlloca()) ff.agg += bytes;
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
    if (!meta->kernels) return ZP_BRIDGE_OUT_OF_MEMORY;
    std::map<const llvm::Function *, Totals> memo;
    for (llvm::Function *f : kernels) {
        zp_kernel_meta *k = &meta->kernels[meta->count];
        k->name = dup_string(f->getName().str());
        k->num_args = (uint32_t)f->arg_size();
        k->args = static_cast<zp_arg_meta *>(std::calloc(k->num_args ? k->num_args : 1, sizeof(zp_arg_meta)));
        if (!k->name || !k->args) {
            std::free(k->name);
            std::free(k->args);
            return ZP_BRIDGE_OUT_OF_MEMORY;
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
    return ZP_BRIDGE_OK;
}

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

// PoCL builds work-group functions by inlining everything a kernel calls; a helper left out of line
// that asks for its work-item id refers to symbols that only exist inside the kernel (the load fails
// with "undefined symbol: _group_id_x"), and PoCL aborts the process. clang -O0 marks every function
// noinline, and the translator repeats the mark on every call site: both marks go, helpers become
// always-inline, and the inliner runs here so PoCL gets flat kernels.
void make_inlinable(llvm::Module &mod) {
    for (llvm::Function &f : mod) {
        if (f.isDeclaration()) continue;
        f.removeFnAttr(llvm::Attribute::OptimizeNone);
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) call->removeFnAttr(llvm::Attribute::NoInline);
        if (f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) continue;
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
    llvm::legacy::PassManager pm;
    pm.add(llvm::createAlwaysInlinerLegacyPass());
    pm.run(mod);
}

// Builtins the translator names in ways some PoCL kernel library lacks (the build fails, or PoCL aborts
// at launch on the missing symbol). PoCL 3.1's SPIR wrappers have no mem_fence family and no working
// generic-pointer wait_group_events: fences become LLVM fences, and wait_group_events on a generic pointer
// (OpenCL 2.0 style) becomes the private-pointer form. PoCL 4.0 and later have both, and their library
// (built with generic address space support) has no private-pointer wait_group_events at all, so each
// rewrite runs only when flags ask for it.
void fix_builtins(llvm::Module &mod, unsigned flags) {
    const bool do_fences = flags & ZP_BRIDGE_FENCES_TO_LLVM, do_waits = flags & ZP_BRIDGE_WAIT_PRIVATE;
    std::vector<llvm::CallInst *> fences, waits;
    for (llvm::Function &f : mod)
        for (llvm::BasicBlock &bb : f)
            for (llvm::Instruction &i : bb)
                if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i))
                    if (llvm::Function *callee = call->getCalledFunction()) {
                        llvm::StringRef n = callee->getName();
                        if (do_fences &&
                            (n == "_Z9mem_fencej" || n == "_Z14read_mem_fencej" || n == "_Z15write_mem_fencej"))
                            fences.push_back(call);
                        else if (do_waits && n == "_Z17wait_group_eventsiPU3AS49ocl_event" && call->arg_size() == 2)
                            waits.push_back(call);
                    }
    for (llvm::CallInst *call : fences) {
        new llvm::FenceInst(mod.getContext(), llvm::AtomicOrdering::SequentiallyConsistent, llvm::SyncScope::System,
                            call);
        call->eraseFromParent();
    }
    for (llvm::CallInst *call : waits) {
        llvm::Value *list = call->getArgOperand(1);
        auto *gptr = llvm::dyn_cast<llvm::PointerType>(list->getType());
        if (!gptr || gptr->isOpaque()) continue;
        llvm::PointerType *pptr = llvm::PointerType::get(gptr->getNonOpaquePointerElementType(), 0);
        llvm::FunctionType *ft = llvm::FunctionType::get(call->getType(), {call->getArgOperand(0)->getType(), pptr}, false);
        llvm::FunctionCallee target = mod.getOrInsertFunction("_Z17wait_group_eventsiP9ocl_event", ft);
        auto *cast = new llvm::AddrSpaceCastInst(list, pptr, "", call);
        auto *repl = llvm::CallInst::Create(target, {call->getArgOperand(0), cast}, "", call);
        repl->setCallingConv(call->getCallingConv());
        call->eraseFromParent();
    }
    for (const char *name : {"_Z9mem_fencej", "_Z14read_mem_fencej", "_Z15write_mem_fencej",
                             "_Z17wait_group_eventsiPU3AS49ocl_event"})
        if (llvm::Function *f = mod.getFunction(name))
            if (f->use_empty()) f->eraseFromParent();
}

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

int translate(const zp_module_src *src, unsigned flags, void **bitcode, size_t *bitcode_size,
              zp_module_meta *meta, std::string &log) {
    int checked = parse_ok(src, log);
    if (checked != ZP_BRIDGE_OK) return checked;

    llvm::LLVMContext ctx;
    ctx.setOpaquePointers(false);
    SPIRV::TranslatorOpts opts;
    opts.enableAllExtensions();
    opts.setDesiredBIsRepresentation((flags & ZP_BRIDGE_OCL20) ? SPIRV::BIsRepresentation::OpenCL20
                                                               : SPIRV::BIsRepresentation::OpenCL12);
    set_spec_consts(src, opts);

    std::string bytes(reinterpret_cast<const char *>(src->spirv), src->size);
    std::istringstream is(bytes);
    llvm::Module *raw = nullptr;
    std::string err;
    if (!llvm::readSpirv(ctx, opts, is, raw, err) || !raw) {
        delete raw;
        log = "SPIR-V translation failed: " + err;
        return ZP_BRIDGE_BUILD_FAILURE;
    }
    std::unique_ptr<llvm::Module> mod(raw);
    std::string verr;
    llvm::raw_string_ostream vos(verr);
    if (llvm::verifyModule(*mod, &vos)) {
        vos.flush();
        log = "translated module is invalid: " + verr;
        return ZP_BRIDGE_BUILD_FAILURE;
    }
    fix_builtins(*mod, flags);
    if (flags & ZP_BRIDGE_LOWER_VLOADSTORE) lower_vloadstore(*mod);
    make_inlinable(*mod);
    if (flags & ZP_BRIDGE_POCL_REGIONS) assume_sizes_nonzero(*mod);
    std::string endless = (flags & ZP_BRIDGE_POCL_REGIONS) ? endless_loop_kernel(*mod) : std::string();
    if (!endless.empty()) {
        log = "kernel " + endless + " has a barrier and a loop that, once entered, can never exit as LLVM "
              "optimizes it (a loop whose exit test reads only memory the loop does not write, or whose step may "
              "be zero where it otherwise runs at most once); PoCL's work-group compiler cannot build such a "
              "kernel";
        return ZP_BRIDGE_BUILD_FAILURE;
    }
    int rc = extract_meta(*mod, meta);
    if (rc != ZP_BRIDGE_OK) return rc;
    std::string clash;
    if ((flags & ZP_BRIDGE_EXACT_RANGE) && !zp::add_exact_range(*mod, clash)) {
        log = "the module has a function named " + clash + ", the name the driver gives a kernel's exact-range "
              "variant";
        return ZP_BRIDGE_BUILD_FAILURE;
    }

    if (flags & ZP_BRIDGE_EMIT_SPIRV) {
        // SPIR-V 1.2: the newest version PoCL's CPU devices list in CL_DEVICE_IL_VERSION.
        SPIRV::TranslatorOpts wopts(SPIRV::VersionNumber::SPIRV_1_2);
        wopts.enableAllExtensions();
        std::ostringstream os;
        std::string werr;
        if (!llvm::writeSpirv(mod.get(), wopts, os, werr)) {
            log = "SPIR-V could not be written back for PoCL: " + werr;
            return ZP_BRIDGE_BUILD_FAILURE;
        }
        std::string out = os.str();
        *bitcode = std::malloc(out.size() ? out.size() : 1);
        if (!*bitcode) return ZP_BRIDGE_OUT_OF_MEMORY;
        std::memcpy(*bitcode, out.data(), out.size());
        *bitcode_size = out.size();
        return ZP_BRIDGE_OK;
    }

    llvm::SmallVector<char, 0> buf;
    llvm::raw_svector_ostream os(buf);
    llvm::WriteBitcodeToFile(*mod, os);
    *bitcode = std::malloc(buf.size());
    if (!*bitcode) return ZP_BRIDGE_OUT_OF_MEMORY;
    std::memcpy(*bitcode, buf.data(), buf.size());
    *bitcode_size = buf.size();
    return ZP_BRIDGE_OK;
}

} // namespace

extern "C" void zp_spirv_warm_up(void) {
    // OpCapability Addresses, Linkage, Kernel; OpMemoryModel Physical64 OpenCL: a valid empty library.
    static const uint32_t empty[] = {0x07230203, 0x00010000, 0x00070000, 1, 0, 0x00020011, 4, 0x00020011, 5,
                                     0x00020011, 6, 0x0003000e, 2, 2};
    zp_module_src src{};
    src.spirv = reinterpret_cast<const uint8_t *>(empty);
    src.size = sizeof empty;
    void *bc = nullptr;
    size_t bc_size = 0;
    zp_module_meta meta{};
    char *log = nullptr;
    zp_spirv_to_bitcode(&src, &bc, &bc_size, &meta, &log);
    std::free(bc);
    std::free(log);
    zp_spirv_meta_free(&meta);
}

extern "C" void zp_spirv_meta_free(zp_module_meta *meta) {
    if (!meta || !meta->kernels) return;
    for (uint32_t i = 0; i < meta->count; i++) {
        std::free(meta->kernels[i].name);
        std::free(meta->kernels[i].args);
    }
    std::free(meta->kernels);
    meta->kernels = nullptr;
    meta->count = 0;
}

extern "C" int zp_spirv_to_bitcode(const zp_module_src *src, void **bitcode, size_t *bitcode_size,
                                   zp_module_meta *meta, char **log) {
    return zp_spirv_translate(src, ZP_BRIDGE_FENCES_TO_LLVM | ZP_BRIDGE_WAIT_PRIVATE | ZP_BRIDGE_EXACT_RANGE, bitcode,
                              bitcode_size, meta, log);
}

extern "C" int zp_spirv_translate(const zp_module_src *src, unsigned flags, void **bitcode, size_t *bitcode_size,
                                  zp_module_meta *meta, char **log) {
    *bitcode = nullptr;
    *bitcode_size = 0;
    *log = nullptr;
    meta->count = 0;
    meta->kernels = nullptr;
    std::string text;
    int rc;
    try {
        std::lock_guard<std::mutex> g(bridge_lock);
        rc = translate(src, flags, bitcode, bitcode_size, meta, text);
    } catch (const std::bad_alloc &) {
        rc = ZP_BRIDGE_OUT_OF_MEMORY;
        text = "out of memory";
    } catch (...) {
        rc = ZP_BRIDGE_BUILD_FAILURE;
        text = "SPIR-V translation failed";
    }
    if (rc != ZP_BRIDGE_OK) {
        zp_spirv_meta_free(meta);
        std::free(*bitcode);
        *bitcode = nullptr;
    }
    if (!text.empty()) *log = dup_string(text);
    return rc;
}
