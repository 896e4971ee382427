# `make sanitize`: the project built twice more with the sanitizers and the suite run over each build.
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included): libkrt, libze_pocl, the
#                tests, the examples, tools and the host device's kernel libraries, all instrumented (-O1 -g).
#   build-tsan/  ThreadSanitizer, the same.
# ASan+UBSan runs every Criterion binary and every example, plain and with KRT_DEVICE=host; TSan runs the
# multi-threaded ones (all of them: ze_pocl runs kernels on PoCL's threads, the host device on its pool) on both
# devices. In both builds the Criterion binaries run through a stand-in runner (test/sanitize/cr_runner.c):
# Criterion's sandbox cannot start under TSan, and its runner keeps memory LeakSanitizer reports.
# Any report fails the run; the suppressions (test/sanitize/*.supp) may cover only reports whose every frame is
# in PoCL, LLVM or the OpenCL loader. The builds skip what `make sanitize` does not run (the fuzzer,
# the benchmark programs; their kernels are built, for test_cuda). Wall time: see README.md.

SAN_ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# GCC 12 at -O1 with ASan reports LLVM's own GlobalVariable::operator new/delete pair (llvm/IR/GlobalVariable.h,
# a sized placement new) as mismatched in driver/cuda/ptx.cpp: a false positive inside LLVM's headers.
SAN_CXXWARN    := -Wno-mismatched-new-delete
SAN_TSAN_FLAGS := -fsanitize=thread
# The benchmark kernels are there for test_cuda, which translates every one of them.
SAN_GOALS       = runtime driver driver-cuda kernels examples tools tests $(BUILD)/bin/ze_pocl_selfcheck $(BENCH_KSPVS)

# SAN_LSAN: more LeakSanitizer options (fast_unwind_on_malloc=0 for full stacks: test/sanitize/lsan.supp).
SAN_LSAN ?=
# Two ASan options work around the sanitizer runtime of GCC 12 on Debian 12's glibc 2.36, not around krt:
# - intercept_tls_get_addr=0: LeakSanitizer's tracer takes a glibc 2.36 dynamic TLS block for an older glibc's
#   layout now and then, scans a wild range and dies ("Tracer caught signal 11", "DTLS 8 at 0x000100000212-...";
#   google/sanitizers issue 1322). Dynamic TLS blocks are heap blocks reachable from each thread's TLS, so the
#   leak check still sees what they point to.
# - use_sigaltstack=0: LLVM (inside PoCL's compiler, on the thread that builds a program) replaces the thread's
#   alternate signal stack with one of its own, and ASan then fails to unmap it at the thread's exit
#   ("AddressSanitizer failed to deallocate 0x134c0 bytes", every time in test_threads).
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:intercept_tls_get_addr=0:use_sigaltstack=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
           LSAN_OPTIONS=suppressions=$(abspath test/sanitize/lsan.supp):print_suppressions=0$(if $(SAN_LSAN),:$(SAN_LSAN)) \
           TSAN_OPTIONS=suppressions=$(abspath test/sanitize/tsan.supp):halt_on_error=1:second_deadlock_stack=1

.PHONY: sanitize sanitize-build sanitize-run sanitize-asan sanitize-tsan san-asan-run san-tsan-run
sanitize:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory sanitize-build
	@$(MAKE) --no-print-directory sanitize-run

# The two builds run make -j (one job per core: SAN_JOBS) whether or not make sanitize was given -j.
SAN_JOBS ?= $(JOBS)
sanitize-build:
	@$(MAKE) --no-print-directory -j$(SAN_JOBS) BUILD=build-asan OPT="-O1 -g $(SAN_ASAN_FLAGS)" CXXWARN="$(SAN_CXXWARN)" \
	    KERNEL_HOST_FLAGS="$(SAN_ASAN_FLAGS)" $(SAN_CRITERION) san-goals
	@$(MAKE) --no-print-directory -j$(SAN_JOBS) BUILD=build-tsan OPT="-O1 -g $(SAN_TSAN_FLAGS)" CXXWARN="$(SAN_CXXWARN)" \
	    KERNEL_HOST_FLAGS="$(SAN_TSAN_FLAGS)" $(SAN_CRITERION) san-goals

.PHONY: san-goals
san-goals: $(SAN_GOALS)

# Both runs, so that one report does not hide the other's; sanitize-asan and sanitize-tsan run one half (on
# trees sanitize-build made).
sanitize-run:
	@rc=0; $(MAKE) --no-print-directory sanitize-asan || rc=1; $(MAKE) --no-print-directory sanitize-tsan || rc=1; \
	    exit $$rc
sanitize-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan $(SAN_CRITERION) san-asan-run
sanitize-tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan $(SAN_CRITERION) san-tsan-run

# The Criterion binaries are built against test/sanitize/criterion/criterion.h and its runner,
# test/sanitize/cr_runner.c (each test in a process of its own, no sandbox); SAN_CR_DEPS rebuilds them when
# those change.
SAN_CR_DEPS ?=
$(TEST_BINS) $(HOST_TEST_BIN): $(SAN_CR_DEPS)
SAN_CRITERION := CRITERION_CFLAGS="-Itest/sanitize -pthread" CRITERION_LIBS="$(abspath test/sanitize/cr_runner.c)" \
                 SAN_CR_DEPS="test/sanitize/cr_runner.c test/sanitize/criterion/criterion.h"

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
          sh test/run.sh $(SAN_TEST_BINS) -- $(1) $(HOST_TESTS)

san-asan-run:
	@echo "== make sanitize: ASan+UBSan ($(BUILD))"
	@$(call SAN_RUN,$(SAN_PROGRAMS))

# Under TSan each work-item of a host-device group with barriers is a fiber of its own (docs/design.md), so the
# host histogram (barriers and local atomics) runs a tenth of make test's million items there.
SAN_TSAN_PROGRAMS = $(subst host $(BINDIR)/histogram 1000003',host $(BINDIR)/histogram 100003',$(SAN_PROGRAMS))

san-tsan-run:
	@echo "== make sanitize: TSan ($(BUILD))"
	@$(call SAN_RUN,$(SAN_TSAN_PROGRAMS))
