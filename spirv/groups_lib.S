/* The group library (spirv/groups_lib.cl) as SPIR bitcode, one build per kind of sub-group, embedded in every
 * driver that links the SPIR-V front end so that its translation needs no file at run time (spirv/groups.cpp
 * links it into a module that calls it). ZP_GROUPS_LIB_1 and ZP_GROUPS_LIB_32 are the paths of the two builds,
 * given by spirv.mk. */
    .section .rodata
    .balign 16
    .globl zp_groups_lib_1
    .hidden zp_groups_lib_1
    .type zp_groups_lib_1, @object
zp_groups_lib_1:
    .incbin ZP_GROUPS_LIB_1
    .globl zp_groups_lib_1_end
    .hidden zp_groups_lib_1_end
zp_groups_lib_1_end:
    .balign 16
    .globl zp_groups_lib_32
    .hidden zp_groups_lib_32
    .type zp_groups_lib_32, @object
zp_groups_lib_32:
    .incbin ZP_GROUPS_LIB_32
    .globl zp_groups_lib_32_end
    .hidden zp_groups_lib_32_end
zp_groups_lib_32_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
