# The module fuzzer: libFuzzer (clang-15 -fsanitize=fuzzer; its runtime is in Debian's libclang-common-15-dev)
# over krt_module_create plus a launch of every kernel (test/fuzz/fuzz_module.c). libkrt is compiled into the
# fuzzer and ze_pocl into a copy of the driver, both with coverage instrumentation, so that libFuzzer is guided
# by what the module does in krt's validation and reflection and in the driver's checks and translation.
#
#   make fuzz [FUZZ_TIME=seconds] [FUZZ_SEED=n] [FUZZ_JOBS=n]   long run: build/fuzz/corpus grows, findings in
#                                    build/fuzz/findings/ and a summary in build/fuzz/summary.txt
#   make fuzz-smoke                  the smoke `make test` includes: fuzz_smoke, a fixed sequence of mutants (run.sh)
#
# PoCL's kernel cache goes to build/fuzz/pocl-cache-<mode> (emptied at each start) so that mutants never fill
# ~/.cache. `make all` builds the fuzzer and `make test` runs the smoke (with the programs of EXAMPLE_TESTS).

FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_CC       ?= clang-15
FUZZ_CXX      ?= clang++-15
FUZZ_INSTR    := -fsanitize=fuzzer-no-link
FUZZ_BIN      := $(FUZZ_DIR)/fuzz_module
FUZZ_ZE_POCL  := $(abspath $(FUZZ_DIR)/lib/libze_pocl.so)
FUZZ_TIME     ?= 600
FUZZ_SEED     ?= 1
FUZZ_JOBS     ?= 1
# The smoke: this many mutants from this seed (about 55 s on an idle two-core machine, modules only).
FUZZ_SMOKE_RUNS ?= 150000
FUZZ_SMOKE_SEED ?= 8

FUZZ_ZP_OBJS  := $(patsubst driver/%.c,$(FUZZ_DIR)/obj/driver/%.o,$(ZP_C_SRCS)) \
                 $(patsubst driver/%.cpp,$(FUZZ_DIR)/obj/driver/%.o,$(ZP_CXX_SRCS))
# The driver's embedded self-check kernels are data (an assembler .incbin), taken from the normal build.
FUZZ_ZP_OBJS  += $(ZP_OBJDIR)/pocl/selfcheck_spv.o
# The SPIR-V front end (spirv/spirv.mk), instrumented like the driver: its checks and translation are much of
# what the fuzzer explores. Its group library is data (groups_lib.S), taken from the normal build.
FUZZ_ZP_OBJS  += $(patsubst spirv/%.cpp,$(FUZZ_DIR)/obj/spirv/%.o,$(SPIRV_SRCS)) \
                 $(patsubst spirv/%.c,$(FUZZ_DIR)/obj/spirv/%.o,$(SPIRV_SHARED_SRCS)) $(SPIRV_OBJDIR)/groups_lib.o
# libkrt's runtime and its reflection (spirv/reflect.c), both instrumented.
FUZZ_KRT_OBJS := $(patsubst runtime/src/%.c,$(FUZZ_DIR)/obj/runtime/%.o,$(KRT_SRCS)) \
                 $(patsubst $(OBJDIR)/%,$(FUZZ_DIR)/obj/%,$(SPIRV_REFLECT_OBJS))

$(FUZZ_DIR)/obj/driver/%.o: driver/%.c $(ZP_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ZP_CFLAGS) -Wno-error $(FUZZ_INSTR) -c $< -o $@

$(FUZZ_DIR)/obj/driver/%.o: driver/%.cpp $(ZP_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(ZP_CXXFLAGS) -Wno-error $(FUZZ_INSTR) -c $< -o $@

$(FUZZ_DIR)/obj/spirv/%.o: spirv/%.cpp $(SPIRV_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(SPIRV_CXXFLAGS) -Wno-error $(FUZZ_INSTR) -c $< -o $@

$(FUZZ_DIR)/obj/spirv/%.o: spirv/%.c $(SPIRV_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SPIRV_REFLECT_CFLAGS) -Wno-error $(FUZZ_INSTR) -c $< -o $@

# The coverage callbacks stay undefined in the driver: the fuzzer executable defines and exports them.
$(FUZZ_ZE_POCL): $(FUZZ_ZP_OBJS) driver/exports.map
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) -shared -o $@ $(FUZZ_ZP_OBJS) -Wl,--version-script=driver/exports.map $(ZP_LDLIBS)

$(FUZZ_DIR)/obj/runtime/%.o: runtime/src/%.c runtime/src/krt_internal.h runtime/include/krt.h spirv/reflect.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(KRT_CFLAGS) -Wno-error $(FUZZ_INSTR) -c $< -o $@

$(FUZZ_DIR)/obj/spirv-reflect/%.o: spirv/%.c $(wildcard spirv/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SPIRV_REFLECT_CFLAGS) -Wno-error $(FUZZ_INSTR) -c $< -o $@

$(FUZZ_BIN): test/fuzz/fuzz_module.c test/common/krt_fuzz_one.c test/common/krt_fuzz_one.h $(FUZZ_KRT_OBJS) \
             $(KRT_OBJDIR)/builtin_kernels.o $(KRT_HOST_OBJS) $(FUZZ_ZE_POCL)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer -rdynamic -Iruntime/include -Itest/common test/fuzz/fuzz_module.c \
	    test/common/krt_fuzz_one.c $(FUZZ_KRT_OBJS) $(KRT_OBJDIR)/builtin_kernels.o $(KRT_HOST_OBJS) -o $@ $(KRT_LIBS) -ldl

# make test's smoke: the same target and mutator without libFuzzer (fuzz_module.c, KRT_FUZZ_STANDALONE), over
# the normal libkrt and ze_pocl: a fixed sequence of mutants, the same bytes on every machine.
FUZZ_SMOKE_BIN := $(FUZZ_DIR)/fuzz_smoke
$(FUZZ_SMOKE_BIN): test/fuzz/fuzz_module.c test/common/krt_fuzz_one.c test/common/krt_fuzz_one.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -DKRT_FUZZ_STANDALONE -Iruntime/include -Itest/common test/fuzz/fuzz_module.c \
	    test/common/krt_fuzz_one.c -o $@ $(LDFLAGS) -L$(LIBDIR) -Wl,-rpath,$(abspath $(LIBDIR)) -lkrt -ldl

# Seeds: the project's kernels (build/kernels), SPIR-V only, and the test kernels of the group instructions, generic
# pointers and float atomics (spirv/groups.cpp), whose mutants found four ways to end the process there.
FUZZ_GROUP_SEEDS := $(addprefix $(BUILD)/test-kernels/,ze_subgroups.spv ze_collectives.spv ze_generic.spv \
                    asm/ze_dpcpp_groups.spv ext/ze_float_atomics.spv)
$(FUZZ_DIR)/seeds/.stamp: $(KERNEL_SPVS) $(FUZZ_GROUP_SEEDS)
	@mkdir -p $(dir $@)
	cp $(KERNEL_SPVS) $(FUZZ_GROUP_SEEDS) $(dir $@)
	@touch $@

FUZZ_ENV := ZE_ENABLE_ALT_DRIVERS=$(FUZZ_ZE_POCL) KRT_KERNELS=$(abspath $(BUILD)/kernels)
FUZZ_FLAGS := -max_len=16384 -timeout=120 -rss_limit_mb=6144 -malloc_limit_mb=6144 -print_final_stats=1

.PHONY: fuzz fuzz-build fuzz-smoke
fuzz-build: $(FUZZ_BIN) $(FUZZ_SMOKE_BIN) $(FUZZ_DIR)/seeds/.stamp
all: fuzz-build
# The smoke in make test creates modules only: a mutated kernel run in-process can fault in ways no harness can
# always attribute, and make test must not depend on that; module creation is where the library crashes were.
# Its seeds are the project's kernels and the fuzzer's past findings (test/data/fuzz). make fuzz launches every
# kernel as well, guided by coverage; what it finds goes to test/data/fuzz.
FUZZ_SMOKE = $(FUZZ_SMOKE_ENV) sh test/fuzz/run.sh smoke $(FUZZ_SMOKE_RUNS) $(FUZZ_SMOKE_SEED) 1
FUZZ_SMOKE_ENV = ZE_ENABLE_ALT_DRIVERS=$(ZE_POCL_SO) KRT_KERNELS=$(abspath $(BUILD)/kernels) \
                 FUZZ_BIN=$(FUZZ_SMOKE_BIN) FUZZ_DIR=$(FUZZ_DIR) FUZZ_SEEDS="$(FUZZ_DIR)/seeds test/data/fuzz"
EXAMPLE_TESTS += '$(FUZZ_SMOKE)'

fuzz:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory fuzz-build
	@$(FUZZ_ENV) FUZZ_BIN=$(FUZZ_BIN) FUZZ_DIR=$(FUZZ_DIR) FUZZ_FLAGS="$(FUZZ_FLAGS)" \
	    sh test/fuzz/run.sh long $(FUZZ_TIME) $(FUZZ_SEED) $(FUZZ_JOBS)

fuzz-smoke: fuzz-build
	@$(FUZZ_SMOKE)
