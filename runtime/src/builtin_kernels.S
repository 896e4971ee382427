/* The SPIR-V of krt's built-in kernels (kernels/krt_fill.cl), embedded in libkrt so that krt_memfill needs
 * no file at run time. KRT_BUILTIN_SPV is the path of the built module, given by runtime.mk. */
    .section .rodata
    .balign 16
    .globl krt__builtin_spv
    .hidden krt__builtin_spv
    .type krt__builtin_spv, @object
krt__builtin_spv:
    .incbin KRT_BUILTIN_SPV
    .globl krt__builtin_spv_end
    .hidden krt__builtin_spv_end
krt__builtin_spv_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
