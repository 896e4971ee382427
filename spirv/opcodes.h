// The numbers of SPIR-V (opcodes, decorations, capabilities, storage classes, memory operand bits) that the
// front end's checks of the binary read: the structural checks (precheck.cpp) and the validator's copy
// (validate.cpp). Private to spirv/.
#ifndef ZP_SPIRV_OPCODES_H
#define ZP_SPIRV_OPCODES_H

namespace zp::spirv {

enum { OP_TYPE_INT = 21, OP_CONSTANT = 43, OP_ACCESS_CHAIN = 65, OP_IN_BOUNDS_ACCESS_CHAIN = 66, OP_PTR_ACCESS_CHAIN = 67,
       OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70 };
// SPIR-V capability numbers (SPIR-V spec 3.31) that depend on the device.
enum { CAP_FLOAT16 = 9, CAP_FLOAT64 = 10, CAP_INT64_ATOMICS = 12, CAP_ATOMIC_FLOAT64_MIN_MAX = 5613,
       CAP_ATOMIC_FLOAT64_ADD = 6034 };
// Execution modes of SubgroupDispatch that fix the number of sub-groups per work-group.
enum { EXEC_SUBGROUPS_PER_WORKGROUP = 36, EXEC_SUBGROUPS_PER_WORKGROUP_ID = 37 };
// The Linkage capability, which the validator's copy of a module without entry points declares (validate.cpp).
enum { CAP_LINKAGE = 5 };
// SPIR-V opcodes the structural check needs.
enum { OP_NAME = 5, OP_MEMBER_NAME = 6, OP_STRING = 7, OP_EXTENSION = 10, OP_EXT_INST_IMPORT = 11, OP_EXECUTION_MODE = 16,
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
// SPIR-V opcodes the block reordering needs (and OP_BRANCH, OP_SWITCH, the merges, declared above).
enum { OP_LABEL = 248, OP_BRANCH_COND = OP_BRANCH_CONDITIONAL };

} // namespace zp::spirv

#endif
