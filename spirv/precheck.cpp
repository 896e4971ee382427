// The structural checks of a SPIR-V module before the translator sees it: libLLVMSPIRVLib and LLVM assert on
// what they do not expect, and their asserts are compiled in, so a module that would take the process down is
// refused here with what is wrong and where. One parse of the binary (SPIRV-Tools' spvBinaryParse) gathers what
// the checks need; the checks after the parse are those that need every definition known.
#include "steps.h"
#include "opcodes.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <spirv-tools/libspirv.h>

namespace zp::spirv {
namespace {

// How an id was defined: without a result type (a type, a label, ...), with an integer scalar type, or with another.
enum { DEF_UNTYPED = 1, DEF_INT = 2, DEF_OTHER = 3 };

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

// The SPIR-V extensions the translator knows (its own list); it ends the process on any other.
bool translator_knows_extension(const std::string &name) {
    static const char *const known[] = {
#define EXT(X) #X,
#include <LLVMSPIRVLib/LLVMSPIRVExtensions.inc>
#undef EXT
    };
    for (const char *k : known)
        if (name == k) return true;
    return false;
}

// Capabilities of Kernel modules that no backend implements, by name: what they enable either has nothing to
// run on (pipes, device-side enqueue, named barriers, Intel's image and media block reads, video motion
// estimation, half-precision atomics) or is a graphics capability. A module declaring one is refused here, before
// the translator, which aborts the process on some of their instructions (an enqueue_kernel's NDRange:
// "Args.size() == 3" in SPIRVToOCL.cpp). What the other capabilities enable is refused where it is used: an
// instruction no one implements stays a __spirv_ call and is named after the translation (groups.cpp).
const char *unimplemented_capability(uint32_t cap) {
    static const struct {
        uint32_t cap;
        const char *name;
    } caps[] = {{17, "Pipes"},
                {19, "DeviceEnqueue"},
                {59, "NamedBarrier"},
                {60, "PipeStorage"},
                {68, "GroupNonUniformQuad"},
                {4423, "SubgroupBallotKHR"},
                {4431, "SubgroupVoteKHR"},
                {5297, "GroupNonUniformPartitionedNV"},
                {5570, "SubgroupImageBlockIOINTEL"},
                {5579, "SubgroupImageMediaBlockIOINTEL"},
                {5616, "AtomicFloat16MinMaxEXT"},
                {5696, "SubgroupAvcMotionEstimationINTEL"},
                {5697, "SubgroupAvcMotionEstimationIntraINTEL"},
                {5698, "SubgroupAvcMotionEstimationChromaINTEL"},
                {6095, "AtomicFloat16AddEXT"}};
    for (const auto &c : caps)
        if (c.cap == cap) return c.name;
    return nullptr;
}

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
        // A number of sub-groups per work-group (SubgroupDispatch's modes) is nothing the drivers can promise:
        // their sub-groups follow from the group's size (spirv/groups.cpp). The sub-group size itself
        // (SubgroupSize) is checked against the device's after the translation.
        if (mode == EXEC_SUBGROUPS_PER_WORKGROUP || mode == EXEC_SUBGROUPS_PER_WORKGROUP_ID) {
            s->why = std::string("execution mode ") +
                     (mode == EXEC_SUBGROUPS_PER_WORKGROUP ? "SubgroupsPerWorkgroup" : "SubgroupsPerWorkgroupId") +
                     " at word offset " + std::to_string(s->pos) + " is not implemented by this driver";
            return false;
        }
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
            // Scope and memory semantics operands too (the fuzz smoke on the group instructions: a builtin as
            // OpGroupFAdd's scope, which SPIRV-Tools 2023.1 lets through).
            bool id_operand = op.type == SPV_OPERAND_TYPE_ID || op.type == SPV_OPERAND_TYPE_SCOPE_ID ||
                              op.type == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID;
            if (!id_operand || (!s->builtins.count(id) && !s->builtin_ptrs.count(id))) continue;
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
    case OP_EXTENSION: {
        // The translator calls exit() on an extension it does not know ("uses unknown extension"; found by the
        // fuzz smoke on the group test kernels, whose float atomics declare two).
        size_t max = (in->num_words - 1) * 4u;
        const char *name = reinterpret_cast<const char *>(in->words + 1);
        std::string n(name, strnlen(name, max));
        if (!translator_knows_extension(n)) {
            for (char &ch : n)
                if (ch < 0x20 || ch > 0x7e) ch = '?';
            s->why = "SPIR-V extension " + n + " at word offset " + std::to_string(s->pos) +
                     " is not one the SPIR-V translator reads (libLLVMSPIRVLib 15)";
            return SPV_UNSUPPORTED;
        }
        break;
    }
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
        if ((cap == CAP_ATOMIC_FLOAT64_ADD || cap == CAP_ATOMIC_FLOAT64_MIN_MAX) && !s->src->fp64)
            missing = cap == CAP_ATOMIC_FLOAT64_ADD ? "AtomicFloat64AddEXT" : "AtomicFloat64MinMaxEXT";
        if (missing) {
            s->why = std::string("the device does not support SPIR-V capability ") + missing;
            return SPV_UNSUPPORTED;
        }
        if (const char *name = unimplemented_capability(cap)) {
            s->why = std::string("SPIR-V capability ") + name + " is not implemented by this driver";
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


} // namespace

// The translator trusts its input (and asserts on what it does not expect), so the module is first
// checked for what a complete module must have: a well-formed instruction stream, a memory model,
// closed functions, and every id it uses defined somewhere. The full validator comes after (validate.cpp), on
// a copy: it refuses the block order clang -O2 produces for loops, which drivers accept.
int precheck(const zp_module_src *src, std::vector<uint32_t> &words, std::string &why) {
    const uint8_t *bytes = src->spirv;
    size_t size = src->size;
    if (size < 20 || size % 4 != 0) {
        why = "SPIR-V size must be a multiple of 4 and at least 20 bytes";
        return ZP_SPIRV_INVALID_BINARY;
    }
    uint32_t magic;
    std::memcpy(&magic, bytes, 4);
    if (magic != 0x07230203u) {
        why = "not SPIR-V: wrong magic number";
        return ZP_SPIRV_INVALID_BINARY;
    }
    words.assign(size / 4, 0);
    std::memcpy(words.data(), bytes, size);
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    if (!ctx) {
        why = "out of memory";
        return ZP_SPIRV_OUT_OF_MEMORY;
    }
    Scan scan;
    scan.src = src;
    spv_diagnostic diag = nullptr;
    spv_result_t r = spvBinaryParse(ctx, &scan, words.data(), words.size(), scan_header, scan_inst, &diag);
    int rc = ZP_SPIRV_OK;
    if (r == SPV_UNSUPPORTED) {
        why = scan.why;
        rc = ZP_SPIRV_BUILD_FAILURE;
    } else if (r != SPV_SUCCESS) {
        why = scan.why.empty() ? "malformed SPIR-V" : "malformed SPIR-V: " + scan.why;
        if (scan.why.empty() && diag && diag->error) {
            why += ": ";
            why += diag->error;
        }
        rc = ZP_SPIRV_INVALID_BINARY;
    } else if (!scan.memory_model) {
        why = "malformed SPIR-V: no OpMemoryModel";
        rc = ZP_SPIRV_INVALID_BINARY;
    } else if (scan.in_function) {
        why = "malformed SPIR-V: a function has no OpFunctionEnd";
        rc = ZP_SPIRV_INVALID_BINARY;
    } else {
        // The OpenCL environment allows the Input storage class for builtins only; the translator dereferences
        // a null builtin for any other Input variable and crashes the process (found by make fuzz).
        for (uint32_t id : scan.inputs) {
            if (!scan.builtins.count(id)) {
                why = "invalid SPIR-V: Input variable id " + std::to_string(id) + " is not decorated BuiltIn";
                rc = ZP_SPIRV_INVALID_BINARY;
                break;
            }
        }
        for (const auto &u : scan.value_uses) {
            if (rc != ZP_SPIRV_OK) break;
            if (scan.nonvalues.count(u.first)) {
                why = "invalid SPIR-V: id " + std::to_string(u.first) + " at word offset " + std::to_string(u.second) +
                      " is used as a value but is a label, a type, a string, an extended instruction set or a "
                      "decoration group";
                rc = ZP_SPIRV_INVALID_BINARY;
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
            if (rc != ZP_SPIRV_OK) break;
            const std::string *name = name_of[id];
            if (!name || name->empty() || scan.entry_functions.count(id)) continue;
            auto seen = function_names.emplace(*name, id);
            if (!seen.second) {
                why = "invalid SPIR-V: functions " + std::to_string(seen.first->second) + " and " + std::to_string(id) +
                      " are both named \"" + *name + "\" (OpName or LinkageAttributes)";
                rc = ZP_SPIRV_INVALID_BINARY;
                break;
            }
            for (const auto &e : scan.entry_points) {
                if (e.second != *name || scan.calls.count({e.first, id})) continue;
                why = "invalid SPIR-V: function " + std::to_string(id) + " is named \"" + *name +
                      "\" (OpName or LinkageAttributes), as a kernel is, but that kernel's entry point function " +
                      std::to_string(e.first) + " does not call it";
                rc = ZP_SPIRV_INVALID_BINARY;
                break;
            }
        }
        for (uint32_t id : scan.builtin_named) {
            if (rc != ZP_SPIRV_OK) break;
            if (!scan.builtins.count(id)) {
                why = "invalid SPIR-V: id " + std::to_string(id) +
                      " has a name beginning __spirv_BuiltIn but is not decorated BuiltIn";
                rc = ZP_SPIRV_INVALID_BINARY;
            }
        }
        if (rc == ZP_SPIRV_OK && !scan.params_why.empty()) {
            why = "malformed SPIR-V: " + scan.params_why;
            rc = ZP_SPIRV_INVALID_BINARY;
        }
        for (uint32_t id : scan.used) {
            if (rc != ZP_SPIRV_OK) break;
            if (id >= scan.bound || !scan.defined[id]) {
                why = "malformed SPIR-V: id " + std::to_string(id) + " is used but never defined";
                rc = ZP_SPIRV_INVALID_BINARY;
                break;
            }
        }
    }
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return rc;
}

} // namespace zp::spirv
