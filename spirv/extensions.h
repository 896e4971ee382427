/* What SPIRV-Tools' validator cannot judge in a module, for the two validations that use it: libkrt's
 * (runtime/src/validate.c, krt_module_create's policy) and the drivers' front end (spirv/validate.cpp, before the
 * translator). Plain C over SPIRV-Tools, private to krt; both work on a copy of the module made for the validator
 * (krt_spv_copy), the module itself going on to the driver as it came.
 *
 * Two cases (docs/design.md, "Modules: validate, reflect, build"):
 * - Decoration-only extensions krt knows, whose instructions change no semantics and which the installed
 *   SPIRV-Tools judges wrongly: SPV_INTEL_memory_access_aliasing (Debian 12's SPIRV-Tools 2023.1 refuses its
 *   module-scope declarations, "AliasDomainDeclINTEL must appear in a block"). krt checks their ids itself and
 *   the validator's copy goes without them (krt_spv_strip_hints).
 * - Extensions the installed SPIRV-Tools does not know at all (krt_spv_unknown_extensions): the validator cannot
 *   judge an instruction of theirs, so where it refuses an instruction that only an extension gives (SPIR-V numbers
 *   opcodes, capabilities, decorations and execution modes of extensions from 4096 up), every instruction of that
 *   kind leaves the validator's copy and the rest of the module is validated (krt_spv_exclude). */
#ifndef KRT_SPIRV_EXTENSIONS_H
#define KRT_SPIRV_EXTENSIONS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of a module for the validator, and where each of its instructions came from. */
typedef struct krt_spv_copy {
    uint32_t *words;
    size_t num_words;
    size_t *origin; /* per word; at an instruction's first word, the word offset of the instruction of the
                     * original module that it stands for */
} krt_spv_copy;

/* The kinds krt_spv_exclude has taken out of a copy, so that each is taken out once. */
typedef struct krt_spv_excluded {
    uint32_t count;
    uint32_t kind[16], value[16];
} krt_spv_excluded;

/* A copy of num_words words (at least the 5 of the header). 0 when out of memory. */
__attribute__((visibility("hidden"))) int krt_spv_copy_init(krt_spv_copy *c, const uint32_t *words,
                                                            size_t num_words);
__attribute__((visibility("hidden"))) void krt_spv_copy_free(krt_spv_copy *c);
/* The word offset in the original module of the copy's instruction number `instruction` (1-based, as the
 * validator counts them), or (size_t)-1 when the copy has no such instruction. */
__attribute__((visibility("hidden"))) size_t krt_spv_copy_origin(const krt_spv_copy *c, size_t instruction);

/* Decoration-only extensions (SPV_INTEL_memory_access_aliasing), in a module that declares them: checks that their
 * ids are what the translator casts them to (a scope names a domain, a list only scopes, every AliasScopeINTEL /
 * NoAliasINTEL decoration and memory operand a list; declarations at module scope), and removes the declarations,
 * the decorations, the two memory-operand bits with their operands and the OpNames of the removed ids from the
 * copy. Returns 1 (nothing to do, or done), 0 with why (why_size bytes) for ids the translator would abort on,
 * -1 when out of memory. A stream the walk cannot follow is left to the validator. */
__attribute__((visibility("hidden"))) int krt_spv_strip_hints(krt_spv_copy *c, char *why, size_t why_size);

/* The extensions the module declares (OpExtension) that this SPIRV-Tools does not know, by its own word: the
 * validator remarks on an extension it does not recognize, which a minimal module declaring each one shows.
 * Returns how many, and points found[0 .. max_found - 1] at the first names (in words, which they live as long
 * as); -1 when out of memory. */
__attribute__((visibility("hidden"))) int krt_spv_unknown_extensions(const uint32_t *words, size_t num_words,
                                                                     const char **found, int max_found);

/* The copy's instruction number `instruction` (1-based), which the validator refused: when it is one that only an
 * extension gives (an opcode, or an OpCapability, a decoration or an execution mode, numbered 4096 or more) and
 * that kind is not in *done yet, every instruction of the kind leaves the copy (one with a result type becomes an
 * OpUndef of that type, so that its uses are still checked; one without a result is dropped) and the kind goes
 * into *done, described in what ("opcode 5631", "capability 5629", ...). Returns 1 when the copy changed, 0 when
 * the instruction is not such a kind or cannot leave the copy (a result without a type), -1 when out of memory. */
__attribute__((visibility("hidden"))) int krt_spv_exclude(krt_spv_copy *c, size_t instruction, krt_spv_excluded *done,
                                                          char *what, size_t what_size);

#ifdef __cplusplus
}
#endif

#endif
