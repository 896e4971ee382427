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

# vadd as a library of ABI 2 was: compiled with krt-cc's flags but without its group-runner pass, and saying
# ABI 2 (abi2_version.c overrides the header's weak krt_host_abi_version). test_host.c runs it through the host
# device's per-work-item path (older_libraries_run_per_work_item).
HOST_ABI2_SO := $(BUILD)/test-kernels/abi2/vadd.so
tests: $(HOST_ABI2_SO)
all: $(HOST_ABI2_SO)

$(HOST_ABI2_SO): kernels/vadd.cl test/host/abi2_version.c $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -fPIC -c test/host/abi2_version.c -o $(@:.so=_version.o)
	$(CC) $$($(BINDIR)/krt-cc --host --print-flags) kernels/vadd.cl -x none $(@:.so=_version.o) -o $@ -lm

# test/host/asan-krt.sh: the tutorial's AddressSanitizer run through libkrt on the host device, as a user makes it.
EXAMPLE_TESTS += '$(HOST_TEST_BIN) $(CRITERION_ARGS)' 'sh test/host/asan-krt.sh $(BUILD) $(KRT_LIBASAN)'
