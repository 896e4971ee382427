# `make sanitize`: the project built twice more with the sanitizers and the suite run over each build.
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included): libkrt, libze_pocl, the
#                tests, the examples, tools and the host device's kernel libraries, all instrumented (-O1 -g).
#   build-tsan/  ThreadSanitizer, the same.
# ASan+UBSan runs every Criterion binary and every example, plain and with KRT_DEVICE=host; TSan runs the
# multi-threaded ones (all of them: ze_pocl runs kernels on PoCL's threads, the host device on its pool) on both
# devices, the Criterion binaries through test/sanitize/cr-tsan.sh (Criterion's sandbox cannot start under TSan).
# Any report fails the run; the suppressions (test/sanitize/*.supp) cover only reports whose every frame is
# in PoCL, LLVM or the OpenCL loader. The builds skip what `make sanitize` does not run (the fuzzer,
# the benchmark programs; their kernels are built, for test_cuda). Wall time: see README.md.

SAN_ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# GCC 12 at -O1 with ASan reports LLVM's own GlobalVariable::operator new/delete pair (llvm/IR/GlobalVariable.h,
# a sized placement new) as mismatched in driver/cuda/ptx.cpp: a false positive inside LLVM's headers.
SAN_CXXWARN    := -Wno-mismatched-new-delete
SAN_TSAN_FLAGS := -fsanitize=thread
# The benchmark kernels are there for test_cuda, which translates every one of them.
SAN_GOALS       = runtime driver driver-cuda kernels examples tools tests $(BUILD)/bin/ze_pocl_selfcheck $(BENCH_KSPVS)

SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
           LSAN_OPTIONS=suppressions=$(abspath test/sanitize/lsan.supp):print_suppressions=0 \
           TSAN_OPTIONS=suppressions=$(abspath test/sanitize/tsan.supp):halt_on_error=1:second_deadlock_stack=1

.PHONY: sanitize sanitize-build sanitize-asan sanitize-tsan sanitize-run
sanitize:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory sanitize-build
	@$(MAKE) --no-print-directory sanitize-run

sanitize-build:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g $(SAN_ASAN_FLAGS)" CXXWARN="$(SAN_CXXWARN)" \
	    KERNEL_HOST_FLAGS="$(SAN_ASAN_FLAGS)" san-goals
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT="-O1 -g $(SAN_TSAN_FLAGS)" CXXWARN="$(SAN_CXXWARN)" \
	    KERNEL_HOST_FLAGS="$(SAN_TSAN_FLAGS)" $(SAN_TSAN_CRITERION) san-goals

.PHONY: san-goals
san-goals: $(SAN_GOALS)

# Both runs, so that one report does not hide the other's.
sanitize-run:
	@rc=0; $(MAKE) --no-print-directory BUILD=build-asan sanitize-asan || rc=1; \
	    $(MAKE) --no-print-directory BUILD=build-tsan $(SAN_TSAN_CRITERION) sanitize-tsan || rc=1; exit $$rc

# Under TSan the Criterion binaries are built against test/sanitize/criterion/criterion.h and its runner,
# test/sanitize/cr_tsan_main.c (each test in a process of its own, no sandbox); SAN_CR_DEPS rebuilds them when
# those change.
SAN_CR_DEPS ?=
$(TEST_BINS) $(HOST_TEST_BIN): $(SAN_CR_DEPS)
SAN_TSAN_CRITERION := CRITERION_CFLAGS="-Itest/sanitize -pthread" CRITERION_LIBS="$(abspath test/sanitize/cr_tsan_main.c)" \
                      SAN_CR_DEPS="test/sanitize/cr_tsan_main.c test/sanitize/criterion/criterion.h"

# The examples as make test runs them (examples.mk), on ze_pocl and on the host device, and krt-info; the
# Python and shell entries (EXAMPLE_SCRIPTS) are left out: their interpreters are not instrumented.
SAN_PROGRAMS = $(EXAMPLE_PROGRAMS) $(EXAMPLE_INFO) $(EXAMPLE_HOST_PROGRAMS)

# Every Criterion binary plain (the validation layer is not instrumented: make test covers it), then the
# programs, then libkrt's tests once more on the host device (HOST_TESTS, test.mk).
# Left out: test_memo, which replaces malloc to count libkrt's heap calls (the sanitizers replace it too: glibc
# aborts on the sanitizer's pointers), and test_host_kernels, whose host_asan case loads libasan into a child
# of its own (the instrumented build already runs everything under ASan).
SAN_TEST_BINS = $(filter-out $(BUILD)/test/test_memo,$(TEST_BINS))
SAN_RUN = $(TEST_ENV) $(SAN_ENV) SKIP_VALIDATION=1 CRITERION_ARGS="$(CRITERION_ARGS)" \
          sh test/run.sh $(SAN_TEST_BINS) -- $(SAN_PROGRAMS) $(HOST_TESTS)

sanitize-asan:
	@echo "== make sanitize: ASan+UBSan ($(BUILD))"
	@$(SAN_RUN)

sanitize-tsan:
	@echo "== make sanitize: TSan ($(BUILD))"
	@$(SAN_RUN)
