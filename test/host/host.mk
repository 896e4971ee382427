# The C side of krt_kernel.h tested on its own, without libkrt (docs/single-source.md): test_host_kernels
# (Criterion) opens every build/kernels/host/*.so, checks the native kernel ABI and runs barrier-free kernels
# through it; host_offbyone is the child it runs under AddressSanitizer (LD_PRELOAD of the compiler's libasan,
# which must come first in a process that loads an ASan-built library). Run once by `make test`, among the
# programs: nothing in it touches Level Zero, so the validation-layer run would only repeat it.
# Both need no libkrt, so they keep the header honest on its own; asan-krt.sh (below) goes through libkrt.

KRT_LIBASAN     := $(shell $(CC) -print-file-name=libasan.so)
HOST_TEST_BIN   := $(BUILD)/test/test_host_kernels
HOST_OFFBYONE   := $(BUILD)/test/host_offbyone
HOST_TEST_FLAGS := $(CFLAGS_C) -Itest/host -DKRT_TEST_SOURCE_DIR='"$(abspath .)"' -DKRT_TEST_LIBASAN='"$(KRT_LIBASAN)"'

# host_vadd measures, under callgrind, what a work-item of vadd costs through the ABI (docs/single-source.md).
HOST_VADD       := $(BUILD)/test/host_vadd

tests: $(HOST_TEST_BIN) $(HOST_OFFBYONE) $(HOST_VADD)
all: $(HOST_TEST_BIN) $(HOST_OFFBYONE) $(HOST_VADD)

$(BUILD)/test/host/abi_layout.o: test/host/abi_layout.c $(KERNEL_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -DKRT_HOST -Wall -Wextra -Werror -Wno-psabi $(OPT) -fPIC -Ikernels/include -c $< -o $@

$(HOST_TEST_BIN): test/host/test_host_kernels.c test/host/host_item.h $(BUILD)/test/host/abi_layout.o
	@mkdir -p $(dir $@)
	$(CC) $(HOST_TEST_FLAGS) $(CRITERION_CFLAGS) $< $(BUILD)/test/host/abi_layout.o -o $@ $(LDFLAGS) $(CRITERION_LIBS) -lpthread -ldl

$(HOST_OFFBYONE) $(HOST_VADD): $(BUILD)/test/host_%: test/host/host_%.c test/host/host_item.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_TEST_FLAGS) $< -o $@ $(LDFLAGS) -ldl

# Libraries of older native ABIs, each linked with abi_version.c saying its version (the header's
# krt_host_abi_version is weak), which test_host.c runs through the host device's paths for them:
# - abi2/vadd.so, vadd as a library of ABI 2 was: compiled with krt-cc's flags but without its group-runner pass
#   (older_libraries_run_per_work_item: one libffi call per work-item);
# - abi3/runners.so, vadd and reduce with the runners of ABI 3, which take the kernel's parameters
#   (test/host/abi3_runners.c), and abi3/krt_byvalue.so, test/kernels/krt_byvalue.cl's kernels saying ABI 3,
#   whose struct, vector and half arguments libffi cannot pass (abi3_libraries_run_through_libffi).
HOST_OLD_ABI_SOS := $(BUILD)/test-kernels/abi2/vadd.so $(BUILD)/test-kernels/abi3/runners.so \
                    $(BUILD)/test-kernels/abi3/krt_byvalue.so
tests: $(HOST_OLD_ABI_SOS)
all: $(HOST_OLD_ABI_SOS)

$(BUILD)/test-kernels/abi%/version.o: test/host/abi_version.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -fPIC -DKRT_TEST_ABI=$*u -c $< -o $@

$(BUILD)/test-kernels/abi2/vadd.so: kernels/vadd.cl $(BUILD)/test-kernels/abi2/version.o $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	$(CC) $$($(BINDIR)/krt-cc --host --print-flags) $< -x none $(BUILD)/test-kernels/abi2/version.o -o $@ -lm

$(BUILD)/test-kernels/abi3/runners.so: test/host/abi3_runners.c kernels/vadd.cl kernels/reduce.cl \
                                       $(BUILD)/test-kernels/abi3/version.o $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	$(CC) $$($(BINDIR)/krt-cc --host --print-flags) $< -x none $(BUILD)/test-kernels/abi3/version.o -o $@ -lm

$(BUILD)/test-kernels/abi3/krt_byvalue.so: test/kernels/krt_byvalue.cl $(BUILD)/test-kernels/abi3/version.o \
                                           $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	$(CC) $$($(BINDIR)/krt-cc --host --print-flags) $< -x none $(BUILD)/test-kernels/abi3/version.o -o $@ -lm

# A checked library without group runners (compiled with krt-cc --checks's flags but without its runner pass, as a
# hand-built one might be): test_checks' host_needs_a_checked_library expects its kernel refused, as the
# instrumentation finds its slot through the runner (docs/driver.md, "The host driver's checked libraries").
HOST_NORUNNER_SO := $(BUILD)/test-kernels/norunner/vadd.checked.so
tests: $(HOST_NORUNNER_SO)
all: $(HOST_NORUNNER_SO)
$(HOST_NORUNNER_SO): kernels/vadd.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $$($(BINDIR)/krt-cc --host --checks --print-flags) $< -o $@ -lm

# test/host/asan-krt.sh: the tutorial's AddressSanitizer run through libkrt on the host device, as a user makes it.
EXAMPLE_TESTS += '$(HOST_TEST_BIN) $(CRITERION_ARGS)' 'sh test/host/asan-krt.sh $(BUILD) $(KRT_LIBASAN)'

# krt_checks as a checked library of calls, without the shadow map (KRT_HOST_CHECK_CALLS=1): test_checks'
# host_library_of_calls_checks_the_same runs it beside the default one.
HOST_CALLS_SO := $(BUILD)/test-kernels/calls/krt_checks.checked.so
tests: $(HOST_CALLS_SO)
all: $(HOST_CALLS_SO)
$(HOST_CALLS_SO): test/kernels/krt_checks.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	KRT_HOST_CHECK_CALLS=1 $(KRT_CC_CHECKED_RUN) $< -o $@
