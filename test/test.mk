# Tests: Criterion, one test/test_<area>.c per area, run on the real stack (loader + ze_pocl + PoCL).
#   test/test_ze_*.c  drive the ze_pocl driver through the Level Zero loader only (never link the driver).
#   test/test_*.c     (the rest) test libkrt.
# test/common/ze_*.c is linked into the driver tests, test/common/krt_*.c into the libkrt tests.
# `make test` runs every binary twice: plain, and under the loader's validation layer.

CRITERION_CFLAGS := $(shell $(PKG_CONFIG) --cflags criterion 2>/dev/null)
CRITERION_LIBS   := $(shell $(PKG_CONFIG) --libs criterion 2>/dev/null)
ZE_CFLAGS        := $(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null)
ZE_LIBS          := $(shell $(PKG_CONFIG) --libs level-zero 2>/dev/null || echo -lze_loader)

TEST_ZE_SRCS  := $(wildcard test/test_ze_*.c)
TEST_KRT_SRCS := $(filter-out $(TEST_ZE_SRCS),$(wildcard test/test_*.c))
TEST_ZE_COMMON  := $(wildcard test/common/ze_*.c)
TEST_KRT_COMMON := $(wildcard test/common/krt_*.c)
TEST_ZE_BINS  := $(patsubst test/%.c,$(BUILD)/test/%,$(TEST_ZE_SRCS))
TEST_KRT_BINS := $(patsubst test/%.c,$(BUILD)/test/%,$(TEST_KRT_SRCS))
TEST_BINS     := $(TEST_ZE_BINS) $(TEST_KRT_BINS)

# Tests find their kernels and the driver through these.
TEST_ENV := ZE_ENABLE_ALT_DRIVERS=$(ZE_POCL_SO) KRT_TEST_KERNELS=$(abspath $(BUILD)/test-kernels) \
            KRT_TEST_DATA=$(abspath test/data) \
            KRT_KERNELS=$(abspath $(BUILD)/kernels) KRT_BUILD=$(abspath $(BUILD))
VALIDATION_ENV := ZE_ENABLE_VALIDATION_LAYER=1 ZE_ENABLE_PARAMETER_VALIDATION=1
# Criterion runs tests in parallel by default; two jobs match the machine.
CRITERION_ARGS ?= --jobs 2

.PHONY: tests test test-only test-ze test-krt test-examples test-host test-structure
tests: $(TEST_BINS)
all: tests

$(BUILD)/test/test_ze_%: test/test_ze_%.c $(TEST_ZE_COMMON) $(wildcard test/common/*.h) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(ZE_CFLAGS) $(CRITERION_CFLAGS) -Itest/common $< $(TEST_ZE_COMMON) -o $@ $(LDFLAGS) \
	    $(ZE_LIBS) $(CRITERION_LIBS) -lpthread -lm

$(BUILD)/test/test_%: test/test_%.c $(TEST_KRT_COMMON) $(wildcard test/common/*.h) $(KRT_SO) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(ZE_CFLAGS) $(CRITERION_CFLAGS) -Iruntime/include -Itest/common $< $(TEST_KRT_COMMON) -o $@ $(LDFLAGS) \
	    -L$(LIBDIR) -Wl,-rpath,$(abspath $(LIBDIR)) -lkrt $(ZE_LIBS) $(CRITERION_LIBS) -lpthread -lm

# test_host_driver drives the host device's Level Zero driver itself (driver/host/), through the table krt__host_ddi
# fills, as the test_ze_* binaries drive ze_pocl through the loader: the loader cannot list a driver that lives
# inside libkrt, so the test links libkrt.a, where that entry point is a plain global symbol.
$(BUILD)/test/test_host_driver: test/test_host_driver.c $(wildcard test/common/*.h) $(KRT_A) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(ZE_CFLAGS) $(CRITERION_CFLAGS) -Itest/common $< -o $@ $(LDFLAGS) $(KRT_A) $(KRT_LIBS) \
	    $(CRITERION_LIBS) -lpthread -lm

# test/run.sh runs each Criterion binary plain and under the validation layer, then each program listed
# in EXAMPLE_TESTS (examples.mk) by its exit code, and closes with one "N passed, N failed" line.
# The package install and the build run in their own make so that pkg-config answers after `deps`.
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(MAKE) --no-print-directory test-only

test-only:
	@$(TEST_ENV) VALIDATION_ENV="$(VALIDATION_ENV)" CRITERION_ARGS="$(CRITERION_ARGS)" \
	    sh test/run.sh $(TEST_BINS) -- $(EXAMPLE_TESTS) $(HOST_TESTS) $(HOST_CHECKED_TESTS) $(NEWER_LOADER_TESTS) $(STRUCTURE_TEST) \
	    $(AT_EXIT_TEST)

# Checked launches as ze_cuda builds them (a work-item's refusals recorded once at its kernel's exit), run on
# ze_pocl through its test knob, so that every run of the suite checks that form without a GPU.
AT_EXIT_TEST = 'KRT_ZE_POCL_BOUNDS_AT_EXIT=1 $(BUILD)/test/test_checks $(CRITERION_ARGS)'

# Debian's loader (1.8.12, API 1.4) cannot reach the entry points of later API versions, so test_ze_api also runs
# under the newer loader kept in shared/ (1.32.0, with its own validation layer), plain and with the layer, where
# that folder exists: a user's machine has its own loader, and test_ze_api then reaches the driver's own table
# entries instead (docs/driver.md, "API version"). ZEL_LIBRARY_PATH makes that loader look for its layers in its own
# folder: by name it would find Debian's 1.8.12 tracing layer, which refuses its tables, and zeInit would fail.
NEWER_LOADER := $(abspath ../shared/level-zero-loader)
NEWER_LOADER_ENV = LD_LIBRARY_PATH=$(NEWER_LOADER) ZEL_LIBRARY_PATH=$(NEWER_LOADER)
NEWER_LOADER_TESTS = $(if $(wildcard $(NEWER_LOADER)/libze_loader.so.1),\
    '$(NEWER_LOADER_ENV) $(BUILD)/test/test_ze_api $(CRITERION_ARGS)' \
    '$(NEWER_LOADER_ENV) $(VALIDATION_ENV) $(BUILD)/test/test_ze_api $(CRITERION_ARGS)')

# The structure rules of docs/design.md ("Structure"): which layer may include which, the runtime's one entry into
# its in-process driver, no cycle between the files of a library; read from the sources and the objects of the
# build just made.
STRUCTURE_TEST = 'python3 tools/structure.py --build $(BUILD) --check'
test-structure: all
	@python3 tools/structure.py --build $(BUILD) --check

test-ze: all
	@$(TEST_ENV) VALIDATION_ENV="$(VALIDATION_ENV)" CRITERION_ARGS="$(CRITERION_ARGS)" sh test/run.sh $(TEST_ZE_BINS) --

test-krt: all
	@$(TEST_ENV) VALIDATION_ENV="$(VALIDATION_ENV)" CRITERION_ARGS="$(CRITERION_ARGS)" sh test/run.sh $(TEST_KRT_BINS) --

# The host device (issue 12): libkrt's tests that are not about Level Zero run once more with KRT_DEVICE=host,
# judged like the examples (each skips, saying why, what the host device does not do). test_host asks for the
# host device itself and runs with the other binaries.
HOST_TEST_NAMES := launch queue_event threads memory kernel launch_rules launch_hint launch_config wisdom robust host_task exact record \
                   group_dep fault
HOST_TESTS = $(foreach t,$(HOST_TEST_NAMES),'KRT_DEVICE=host $(BUILD)/test/test_$(t) $(CRITERION_ARGS)')
# And once more checked (KRT_CHECK=bounds, the test kernels' checked libraries, kernels/kernels.mk): every result the
# same and nothing refused that the kernels may reach (their stacks, __local memory, fibers, the libraries' data).
# Not test_fault, whose kernels fault on purpose (a checked launch refuses what they would break). make test only
# (make sanitize runs HOST_TESTS, not these).
HOST_CHECKED_TEST_NAMES := $(filter-out fault,$(HOST_TEST_NAMES)) oracle
HOST_CHECKED_TESTS = $(foreach t,$(HOST_CHECKED_TEST_NAMES),'KRT_CHECK=bounds KRT_DEVICE=host $(BUILD)/test/test_$(t) $(CRITERION_ARGS)')
test-host: all
	@$(TEST_ENV) sh test/run.sh -- $(HOST_TESTS) $(HOST_CHECKED_TESTS)

test-examples: all
	@$(TEST_ENV) sh test/run.sh -- $(EXAMPLE_TESTS)

# krt.h must compile as C11, C17, C++11 and C++17 with -pedantic and warnings as errors. Each standard gets
# one object from test/header/; test_header links them all and checks that they agree on the layouts.
HEADER_CHECK_FLAGS := -Wall -Wextra -Werror -pedantic -Iruntime/include -Itest/header
HEADER_CHECK_OBJS  := $(BUILD)/test/header/krt_header_c11.o $(BUILD)/test/header/krt_header_c17.o \
                      $(BUILD)/test/header/krt_header_cxx11.o $(BUILD)/test/header/krt_header_cxx17.o
HEADER_CHECK_DEPS  := runtime/include/krt.h test/header/krt_header_layout.h

$(BUILD)/test/header/krt_header_c%.o: test/header/krt_header.c $(HEADER_CHECK_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=c$* $(HEADER_CHECK_FLAGS) -DKT_LAYOUT_FN=kt_layout_c$* -DKT_TAGS_FN=kt_tags_c$* \
	    -DKT_HELPERS_FN=kt_helpers_c$* -c $< -o $@

$(BUILD)/test/header/krt_header_cxx%.o: test/header/krt_header.cpp $(HEADER_CHECK_DEPS)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++$* $(HEADER_CHECK_FLAGS) -DKT_LAYOUT_FN=kt_layout_cxx$* -DKT_NAME_FN=kt_name_cxx$* \
	    -DKT_TAGS_FN=kt_tags_cxx$* \
	    -c $< -o $@

$(BUILD)/test/test_header: test/test_header.c $(HEADER_CHECK_OBJS) $(TEST_KRT_COMMON) $(wildcard test/common/*.h) \
                           $(KRT_SO) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(ZE_CFLAGS) $(CRITERION_CFLAGS) -Iruntime/include -Itest/common -Itest $< $(HEADER_CHECK_OBJS) \
	    $(TEST_KRT_COMMON) -o $@ $(LDFLAGS) -L$(LIBDIR) -Wl,-rpath,$(abspath $(LIBDIR)) -lkrt $(ZE_LIBS) $(CRITERION_LIBS) -lpthread -lm

