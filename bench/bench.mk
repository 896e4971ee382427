# Benchmarks (docs/performance.md). `make bench` installs missing packages, builds everything (`all`), then
# builds and runs every benchmark: one table per benchmark on stdout (also saved as build/bench/<name>.md),
# CSV files and PNG plots (gnuplot) in build/bench/, callgrind profiles in build/bench/callgrind/.
# The benchmark programs stay out of `all` (nothing in `make test` needs them), except polybench, whose --check is
# a test (below).
# BENCH_QUICK=1 runs every benchmark with small counts and a coarser group-size sweep (a smoke run).

BENCH_OUT       := $(BUILD)/bench
BENCH_ZE_CFLAGS := $(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null)
BENCH_ZE_LIBS   := $(shell $(PKG_CONFIG) --libs level-zero 2>/dev/null || echo -lze_loader)
BENCH_CL_LIBS   := $(shell $(PKG_CONFIG) --libs OpenCL 2>/dev/null || echo -lOpenCL)
BENCH_PROGS     := launch_overhead groupsize module_load scaling lu host_device replay
BENCH_BINS      := $(addprefix $(BENCH_OUT)/,$(BENCH_PROGS))
BENCH_KSRCS     := $(wildcard bench/kernels/*.cl)
BENCH_KSPVS     := $(patsubst bench/kernels/%.cl,$(BENCH_OUT)/kernels/%.spv,$(BENCH_KSRCS))
# The same kernels as native libraries for the host device (host_device runs every one on both devices).
BENCH_KSOS      := $(patsubst bench/kernels/%.cl,$(BENCH_OUT)/kernels/host/%.so,$(BENCH_KSRCS))
# And as checked libraries (krt-cc --host --checks), for polybench --checks's host way.
BENCH_KCHECKED  := $(patsubst bench/kernels/%.cl,$(BENCH_OUT)/kernels/host/%.checked.so,$(BENCH_KSRCS))
BENCH_ENV       := ZE_ENABLE_ALT_DRIVERS=$(ZE_POCL_SO) KRT_BENCH_KERNELS=$(abspath $(BENCH_OUT)/kernels) \
                   KRT_KERNELS=$(abspath $(BUILD)/kernels)

ifeq ($(BENCH_QUICK),1)
BENCH_LAUNCH_ARGS  ?= --launches 10000 --repeats 3 --callgrind-launches 1000
BENCH_GROUP_ARGS   ?= --quick --samples 1 --final 3
BENCH_MODULE_ARGS  ?= --cold 2 --cold-nocache 1 --warm 5
BENCH_SCALING_ARGS ?= --launches 5000 --repeats 3 --callgrind-launches 1000
BENCH_LU_ARGS      ?= --n 100 --samples 1
BENCH_HOST_ARGS    ?= --samples 1 --n 65536 --matrix 64 --items 100000
BENCH_PY_ARGS      ?= --calls 10000 --rounds 3
BENCH_REPLAY_ARGS  ?= --kernels 200 --repeats 3
BENCH_PB_ARGS      ?= --samples 1 --settle-ms 10
BENCH_MPI_ARGS     ?= --size 256 256 --steps 50 --repeats 1
else
BENCH_LAUNCH_ARGS  ?= --launches 100000 --repeats 7 --callgrind-launches 3000
BENCH_GROUP_ARGS   ?= --samples 3 --final 15
BENCH_MODULE_ARGS  ?= --cold 5 --cold-nocache 2 --warm 20
BENCH_SCALING_ARGS ?= --launches 20000 --repeats 5 --callgrind-launches 2000
BENCH_LU_ARGS      ?= --n 250 --samples 5
BENCH_HOST_ARGS    ?= --samples 5
BENCH_PY_ARGS      ?= --calls 100000 --rounds 5
BENCH_REPLAY_ARGS  ?= --kernels 1000 --repeats 7
BENCH_PB_ARGS      ?= --samples 9
BENCH_MPI_ARGS     ?= --size 1024 1024 --steps 200 --repeats 5
endif

.PHONY: bench-build bench-only
bench-build: $(BENCH_BINS) $(BENCH_KSPVS) $(BENCH_KSOS) $(BENCH_KCHECKED) $(KERNEL_SPVS) $(KERNEL_HOST_SOS)

$(BENCH_OUT)/bench_util.o: bench/bench_util.c bench/bench_util.h runtime/include/krt.h | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -Iruntime/include -Ibench -c $< -o $@

# module_load counts heap calls through an interposer library (bench/alloc_count.c), linked before everything
# else so that its malloc is the one every library in the process calls.
$(BENCH_OUT)/lib/liballoc_count.so: bench/alloc_count.c bench/alloc_count.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -fvisibility=hidden -shared $< -o $@ $(LDFLAGS)
$(BENCH_OUT)/module_load: $(BENCH_OUT)/lib/liballoc_count.so
$(BENCH_OUT)/module_load: BENCH_LDEXTRA := -L$(BENCH_OUT)/lib -Wl,-rpath,$(abspath $(BENCH_OUT)/lib) -lalloc_count
# host_device calls a native kernel through libffi itself, to measure that call.
$(BENCH_OUT)/host_device: BENCH_LDEXTRA := -lffi -ldl
$(BENCH_BINS): $(BENCH_OUT)/%: bench/%.c $(BENCH_OUT)/bench_util.o bench/bench_util.h runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(BENCH_ZE_CFLAGS) -Iruntime/include -Ibench $< $(BENCH_OUT)/bench_util.o -o $@ $(LDFLAGS) \
	    $(BENCH_LDEXTRA) -L$(LIBDIR) -Wl,-rpath,$(abspath $(LIBDIR)) -lkrt $(BENCH_ZE_LIBS) $(BENCH_CL_LIBS) -lm

# polybench (bench/polybench/, docs/performance.md "Launch-bound benchmarks against OpenMP"): main.c (the driver
# and krt's launch sequences) is built like the programs above; omp.c, the OpenMP C twins, apart with
# -O3 -fopenmp -march=native (after CFLAGS_C, so that its -O2 gives way and a sanitizer's OPT still reaches it), and
# the program links libgomp. Unlike the other benchmarks it is part of `all`, with its kernels' native libraries:
# `make test` runs `polybench --check` (small sizes, the three ways' results compared, nothing timed), and again with
# the host device's and ze_pocl's launches checked, ze_pocl in both of the driver's forms (ze_cuda's under
# KRT_ZE_POCL_BOUNDS_AT_EXIT): every kernel's checked build (on ze_pocl its row and column loops tested once at their
# entry, spirv/bounds.cpp, version_loop; on the host device its checked library) must give OpenMP's results and
# refuse nothing.
PB_BIN     := $(BENCH_OUT)/polybench
PB_KERNELS := pb_stencils pb_linalg
PB_KFILES  := $(foreach k,$(PB_KERNELS),$(BENCH_OUT)/kernels/$(k).spv $(BENCH_OUT)/kernels/host/$(k).so \
                                        $(BENCH_OUT)/kernels/host/$(k).checked.so)
all: $(PB_BIN) $(PB_KFILES)
bench-build: $(PB_BIN)
EXAMPLE_TESTS += 'KRT_BENCH_KERNELS=$(abspath $(BENCH_OUT)/kernels) $(PB_BIN) --check' \
    'KRT_BENCH_KERNELS=$(abspath $(BENCH_OUT)/kernels) $(PB_BIN) --check --checks' \
    'KRT_ZE_POCL_BOUNDS_AT_EXIT=1 KRT_BENCH_KERNELS=$(abspath $(BENCH_OUT)/kernels) $(PB_BIN) --check --checks'

$(BENCH_OUT)/polybench_omp.o: bench/polybench/omp.c bench/polybench/polybench.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -O3 -fopenmp -march=native -c $< -o $@
$(PB_BIN): bench/polybench/main.c bench/polybench/polybench.h $(BENCH_OUT)/polybench_omp.o $(BENCH_OUT)/bench_util.o \
           bench/bench_util.h runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) $(BENCH_ZE_CFLAGS) -Iruntime/include -Ibench $< $(BENCH_OUT)/polybench_omp.o \
	    $(BENCH_OUT)/bench_util.o -o $@ $(LDFLAGS) -fopenmp -L$(LIBDIR) -Wl,-rpath,$(abspath $(LIBDIR)) -lkrt -lm

# Benchmark-only kernels: the same flags and spirv-val check as kernels/kernels.mk. The LLVM bitcode stays
# beside the SPIR-V: the raw OpenCL case of launch_overhead builds its kernel from it.
$(BENCH_OUT)/kernels/%.spv: bench/kernels/%.cl $(KERNEL_HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG_CL) $(KERNEL_CFLAGS) -c $< -o $(@:.spv=.bc)
	$(LLVM_SPIRV) $(@:.spv=.bc) -o $@
	$(SPIRV_VAL) $@
	@cp $< $(dir $@)

$(BENCH_OUT)/kernels/host/%.so: bench/kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_HOST_RUN) $< -o $@

$(BENCH_OUT)/kernels/host/%.checked.so: bench/kernels/%.cl $(KERNEL_HEADERS) $(KRT_CC_DEPS)
	@mkdir -p $(dir $@)
	$(KRT_CC_CHECKED_RUN) $< -o $@

bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory bench-only

bench-only: bench-build
	@mkdir -p $(BENCH_OUT)/callgrind
	@start=$$(date +%s); \
	$(BENCH_ENV) $(BENCH_OUT)/launch_overhead --out $(BENCH_OUT) $(BENCH_LAUNCH_ARGS) && \
	$(BENCH_ENV) $(BENCH_OUT)/scaling --out $(BENCH_OUT) $(BENCH_SCALING_ARGS) && \
	$(BENCH_ENV) $(BENCH_OUT)/module_load --out $(BENCH_OUT) $(BENCH_MODULE_ARGS) && \
	$(BENCH_ENV) $(BENCH_OUT)/groupsize --out $(BENCH_OUT) $(BENCH_GROUP_ARGS) && \
	$(BENCH_ENV) $(BENCH_OUT)/lu --out $(BENCH_OUT) $(BENCH_LU_ARGS) && \
	$(BENCH_ENV) $(BENCH_OUT)/host_device --out $(BENCH_OUT) $(BENCH_HOST_ARGS) && \
	$(BENCH_ENV) PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) bench/python_launch.py --device cpu $(BENCH_PY_ARGS) \
	    >$(BENCH_OUT)/python_launch.md && cat $(BENCH_OUT)/python_launch.md && \
	$(BENCH_ENV) $(BENCH_OUT)/replay --out $(BENCH_OUT) $(BENCH_REPLAY_ARGS) && \
	$(BENCH_ENV) KRT_DEVICE=host $(BENCH_OUT)/replay --out $(BENCH_OUT)/host $(BENCH_REPLAY_ARGS) && \
	$(BENCH_ENV) $(PB_BIN) --out $(BENCH_OUT) $(BENCH_PB_ARGS) && \
	$(if $(filter yes,$(HAVE_MPI)),$(BENCH_ENV) sh bench/mpi_heat.sh --bin $(BINDIR)/mpi_heat --out $(BENCH_OUT) \
	    --mpirun "$(MPIRUN) $(MPIRUN_FLAGS)" $(BENCH_MPI_ARGS) &&,echo "bench: mpi_heat skipped: no MPI" &&) \
	sh bench/plot.sh $(BENCH_OUT) && \
	echo "bench: done in $$(( $$(date +%s) - start )) s; CSV files and plots in $(BENCH_OUT)/"
