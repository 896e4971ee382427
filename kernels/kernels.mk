# OpenCL C -> LLVM bitcode (clang-15, spir64) -> SPIR-V (llvm-spirv-15), each checked with spirv-val: all
# three steps are krt-cc (tools/krt-cc, copied to build/bin/krt-cc), the same tool users run on their own
# kernels and libkrt runs for OpenCL C modules, so its flags are the only copy of them. krt-cc explains them:
# -O0 with optnone disabled, because clang's -O1..-O3 output for loops fails spirv-val's structured-order checks
# although drivers accept it (see docs/design.md); -fno-discard-value-names for the argument names.
# Test kernels that must be -O2 on purpose (to exercise the validation policy) live in test/kernels/o2/
# and are built by hand below, without the spirv-val check.

KRT_CC_RUN := KRT_CLANG=$(CLANG_CL) KRT_LLVM_SPIRV=$(LLVM_SPIRV) KRT_SPIRV_VAL=$(SPIRV_VAL) $(BINDIR)/krt-cc
KRT_CC_DEPS := $(BINDIR)/krt-cc $(BUILD)/libexec/krt/krt_loops.py $(patsubst kernels/include/%,$(BUILD)/include/%,$(wildcard kernels/include/*.h))
# krt-cc's clang flags, for the rules that need the LLVM bitcode itself (bench/bench.mk).
KERNEL_CFLAGS := $(shell sh tools/krt-cc --print-flags) -Ikernels/include
KERNEL_O2_CFLAGS := -cl-std=CL1.2 -target spir64 -emit-llvm -Xclang -finclude-default-header \
                 -O2 -Ikernels/include

KERNEL_SRCS      := $(wildcard kernels/*.cl)
KERNEL_SPVS      := $(patsubst kernels/%.cl,$(BUILD)/kernels/%.spv,$(KERNEL_SRCS))
TEST_KERNEL_SRCS := $(wildcard test/kernels/*.cl)
TEST_KERNEL_SPVS := $(patsubst test/kernels/%.cl,$(BUILD)/test-kernels/%.spv,$(TEST_KERNEL_SRCS))
TEST_O2_SRCS     := $(wildcard test/kernels/o2/*.cl)
TEST_O2_SPVS     := $(patsubst test/kernels/o2/%.cl,$(BUILD)/test-kernels/o2/%.spv,$(TEST_O2_SRCS))
KERNEL_HEADERS   := $(wildcard kernels/include/*.h)

.PHONY: kernels
kernels: $(KERNEL_SPVS) $(TEST_KERNEL_SPVS) $(TEST_O2_SPVS)
all: kernels

$(BUILD)/kernels/%.spv: kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_RUN) $< -o $@

$(BUILD)/test-kernels/%.spv: test/kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_RUN) $(KRT_CC_FLAGS_$*) $< -o $@

# Test kernels of what krt-cc's default OpenCL C leaves out (tools/krt-cc, cl_features): images and samplers,
# which no driver has; these check that an image or sampler argument is refused.
KRT_CC_FLAGS_krt_other := -cl-ext=+__opencl_c_images
KRT_CC_FLAGS_zc_image  := -cl-ext=+__opencl_c_images

# Test kernels written for OpenCL C 2.0 (generic pointers, which krt-cc's default leaves out; its atomics;
# program-scope variables; device-side enqueue, refused; builtins with generic pointer arguments). The sub-group and collective kernels build with the default.
KRT_CC_FLAGS_ze_globals := -cl-std=CL2.0
KRT_CC_FLAGS_krt_checks := -cl-std=CL2.0
KRT_CC_FLAGS_ze_generic := -cl-std=CL2.0
KRT_CC_FLAGS_ze_generic_memory := -cl-std=CL2.0
KRT_CC_FLAGS_ze_atomics_c11 := -cl-std=CL2.0
KRT_CC_FLAGS_ze_enqueue := -cl-std=CL2.0
KRT_CC_FLAGS_ze_long_names := -cl-std=CL2.0
KRT_CC_FLAGS_ze_generic_builtins := -cl-std=CL2.0
KRT_CC_FLAGS_ze_ctz := -cl-std=CL2.0

# Test kernels that use SPIR-V extensions krt-cc does not enable (test/kernels/ext/*.cl): krt-cc's clang flags with
# OpenCL C 3.0, then the translator with the extensions SPIRV_EXT_<name> lists, then the validator.
TEST_EXT_SRCS := $(wildcard test/kernels/ext/*.cl)
TEST_EXT_SPVS := $(patsubst test/kernels/ext/%.cl,$(BUILD)/test-kernels/ext/%.spv,$(TEST_EXT_SRCS))
SPIRV_EXT_ze_float_atomics := +SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max
kernels: $(TEST_EXT_SPVS)

$(BUILD)/test-kernels/ext/%.spv: test/kernels/ext/%.cl $(KERNEL_HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG_CL) $(KERNEL_CFLAGS) -cl-std=CL3.0 -c $< -o $(@:.spv=.bc)
	$(LLVM_SPIRV) --spirv-ext=$(SPIRV_EXT_$*) $(@:.spv=.bc) -o $@
	$(SPIRV_VAL) $@

$(BUILD)/test-kernels/o2/%.spv: test/kernels/o2/%.cl $(KERNEL_HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG_CL) $(KERNEL_O2_CFLAGS) -c $< -o $(@:.spv=.bc)
	$(LLVM_SPIRV) $(@:.spv=.bc) -o $@

# Hand-written SPIR-V for tests that need what no OpenCL C source produces (test/kernels/asm/*.spvasm),
# assembled for SPIR-V 1.4 and not checked with spirv-val: some are valid modules the validator refuses.
SPIRV_AS       ?= spirv-as
TEST_ASM_SRCS  := $(wildcard test/kernels/asm/*.spvasm)
TEST_ASM_SPVS  := $(patsubst test/kernels/asm/%.spvasm,$(BUILD)/test-kernels/asm/%.spv,$(TEST_ASM_SRCS))
kernels: $(TEST_ASM_SPVS)

$(BUILD)/test-kernels/asm/%.spv: test/kernels/asm/%.spvasm
	@mkdir -p $(dir $@)
	$(SPIRV_AS) --target-env spv1.4 $< -o $@

# Single-source kernels (issue 12, docs/single-source.md): every kernel of kernels/ is also compiled as C11 from
# the same file into a native library for the host device, build/kernels/host/NAME.so, by `krt-cc --host`
# (-g -O3 -march=native and a group runner per kernel, then KERNEL_HOST_FLAGS; warnings are errors here, as for the project's other C). The test kernels that compile as C
# (TEST_KERNEL_HOST_SRCS: no swizzles, no overloads) get build/test-kernels/host/NAME.so the same way.
# KERNEL_HOST_FLAGS: more -f/-O/-g options for these libraries (`make sanitize` instruments them with it).
KERNEL_HOST_FLAGS ?=
KRT_CC_HOST_RUN := KRT_HOST_CC="$(CC)" $(BINDIR)/krt-cc --host -Wextra -Werror $(KERNEL_HOST_FLAGS)
KERNEL_HOST_SOS := $(patsubst kernels/%.cl,$(BUILD)/kernels/host/%.so,$(KERNEL_SRCS))
TEST_KERNEL_HOST_SRCS := $(addprefix test/kernels/,krt_basic.cl krt_guarded.cl krt_hint.cl krt_robust.cl \
                         krt_rules.cl krt_spill.cl krt_single_source.cl krt_exact.cl krt_python.cl \
                         krt_barriers.cl krt_barriers_tricky.cl ze_offsets.cl krt_group_dep.cl krt_widths.cl krt_fault.cl \
                         krt_private.cl krt_byvalue.cl krt_checks.cl)
TEST_KERNEL_HOST_SOS  := $(patsubst test/kernels/%.cl,$(BUILD)/test-kernels/host/%.so,$(TEST_KERNEL_HOST_SRCS))
kernels: $(KERNEL_HOST_SOS) $(TEST_KERNEL_HOST_SOS)

# Checked libraries (krt-cc --host --checks, docs/api.md "Checked launches"): build/kernels/host/NAME.checked.so for
# every kernel of kernels/, where a checked context on the host device looks for them, and every test kernel the host
# device runs (make test runs the host device's tests checked too, test/test.mk). Without KERNEL_HOST_FLAGS: `make sanitize`'s -fsanitize=address and the checks'
# -fsanitize=kernel-address exclude each other (a checked library loads into a sanitized process all the same).
KRT_CC_CHECKED_RUN := KRT_HOST_CC="$(CC)" $(BINDIR)/krt-cc --host --checks -Wextra -Werror
KERNEL_CHECKED_SOS := $(patsubst kernels/%.cl,$(BUILD)/kernels/host/%.checked.so,$(KERNEL_SRCS))
TEST_KERNEL_CHECKED_SOS := $(patsubst test/kernels/%.cl,$(BUILD)/test-kernels/host/%.checked.so,$(TEST_KERNEL_HOST_SRCS))
kernels: $(KERNEL_CHECKED_SOS) $(TEST_KERNEL_CHECKED_SOS)

$(BUILD)/kernels/host/%.checked.so: kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_CHECKED_RUN) $< -o $@

$(BUILD)/test-kernels/host/%.checked.so: test/kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_CHECKED_RUN) $< -o $@

$(BUILD)/kernels/host/%.so: kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_HOST_RUN) $< -o $@

$(BUILD)/test-kernels/host/%.so: test/kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_HOST_RUN) $< -o $@

# AddressSanitizer builds (docs/tutorial-debugging.md), apart in build/kernels-asan/ because they load only into
# a process that has libasan first: `make asan-kernels` (part of `all`) builds the tutorial's broken kernel,
# build/kernels-asan/host/offbyone.so with build/kernels-asan/offbyone.spv beside it, so that KRT_KERNELS can
# point a program there. `make build/kernels-asan/host/NAME.so` builds any other kernel of kernels/ that way.
KERNEL_ASAN_DIR := $(BUILD)/kernels-asan
.PHONY: asan-kernels
asan-kernels: $(KERNEL_ASAN_DIR)/host/offbyone.so $(KERNEL_ASAN_DIR)/offbyone.spv
all: asan-kernels

$(KERNEL_ASAN_DIR)/host/%.so: kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_HOST_RUN) -fsanitize=address -fno-omit-frame-pointer $< -o $@

$(KERNEL_ASAN_DIR)/%.spv: $(BUILD)/kernels/%.spv
	@mkdir -p $(dir $@)
	cp $< $@
