/* The SPIR-V of the start-up self-check (driver/pocl/selfcheck.cl), embedded in libze_pocl.so so that the
 * check needs no file at run time. ZP_SELFCHECK_SPV is the path of the built module, given by driver.mk. */
    .section .rodata
    .balign 16
    .globl zp_selfcheck_spv
    .hidden zp_selfcheck_spv
    .type zp_selfcheck_spv, @object
zp_selfcheck_spv:
    .incbin ZP_SELFCHECK_SPV
    .globl zp_selfcheck_spv_end
    .hidden zp_selfcheck_spv_end
zp_selfcheck_spv_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
