# Examples: each examples/<name>.c builds to build/bin/<name> against libkrt (krt.h only). Each has a tutorial,
# docs/tutorial-<name>.md (knobs: tutorial-launch-knobs.md, offbyone: tutorial-debugging.md), and checks its
# own results.
# examples/example.h and examples/png_write.h are shared helpers; heat and mandelbrot link libpng.
# The programs find their kernels through KRT_KERNELS, else in ../kernels beside their own directory, and
# libkrt through an rpath relative to themselves, so they also run by hand from any directory.

# mpi_heat is built with MPI's compiler wrapper and run under mpirun, apart from the others (below).
EXAMPLE_SRCS    := $(filter-out examples/mpi_heat.c,$(wildcard examples/*.c))
EXAMPLE_BINS    := $(patsubst examples/%.c,$(BINDIR)/%,$(EXAMPLE_SRCS))
EXAMPLE_HEADERS := $(wildcard examples/*.h)
PNG_CFLAGS      := $(shell $(PKG_CONFIG) --cflags libpng 2>/dev/null)
PNG_LIBS        := $(shell $(PKG_CONFIG) --libs libpng 2>/dev/null || echo -lpng)

.PHONY: examples
examples: $(EXAMPLE_BINS)
all: examples

$(BINDIR)/heat $(BINDIR)/mandelbrot: EXAMPLE_CFLAGS := $(PNG_CFLAGS)
$(BINDIR)/heat $(BINDIR)/mandelbrot: EXAMPLE_LIBS := $(PNG_LIBS)

$(EXAMPLE_BINS): $(BINDIR)/%: examples/%.c $(EXAMPLE_HEADERS) runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -Iruntime/include $(EXAMPLE_CFLAGS) $< -o $@ $(LDFLAGS) \
	    -L$(LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lkrt $(EXAMPLE_LIBS) -lm

# mpi_heat (docs/tutorial-mpi.md) needs MPI: Open MPI's mpicc and mpirun, from Debian's libopenmpi-dev and
# openmpi-bin, which `make deps` installs. Without mpicc the rest builds and tests as before, and the build says
# that mpi_heat was skipped and why. mpicc links libmpi dynamically; the program finds libkrt as the others do.
MPICC     ?= mpicc
MPIRUN    ?= mpirun
HAVE_MPI  := $(shell command -v $(MPICC) >/dev/null 2>&1 && command -v $(MPIRUN) >/dev/null 2>&1 && echo yes)
ifeq ($(HAVE_MPI),yes)
examples: $(BINDIR)/mpi_heat
else
examples: mpi-heat-skipped
.PHONY: mpi-heat-skipped
mpi-heat-skipped:
	@echo "examples: mpi_heat skipped: $(MPICC) or $(MPIRUN) not found (make deps installs libopenmpi-dev and openmpi-bin)"
endif

$(BINDIR)/mpi_heat: examples/mpi_heat.c $(EXAMPLE_HEADERS) runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_C) -Iruntime/include $< -o $@ $(LDFLAGS) -L$(LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lkrt -lm

# `make run`: the first command on a fresh Debian 12 machine. It builds only what the tour needs (TOUR_GOALS: libkrt
# with the host device, both drivers, krt-cc and krt-info, the tour and its four kernels, as SPIR-V and for the host
# device), one job per core, saying what each step is; `make test` builds the rest. The tour runs as a user would
# run it, without ZE_ENABLE_ALT_DRIVERS, so krt's own default applies: an installed GPU driver, else ze_pocl.
TOUR_KERNELS := vadd saxpy heat matmul
TOUR_GOALS    = runtime driver driver-cuda tools $(BINDIR)/tour $(patsubst %,$(BUILD)/kernels/%.spv,$(TOUR_KERNELS)) \
                $(patsubst %,$(BUILD)/kernels/host/%.so,$(TOUR_KERNELS))
run:
	@echo "make run: 1/3 the Debian packages krt needs (installs only what is missing)"
	@$(MAKE) --no-print-directory deps
	@echo "make run: 2/3 building libkrt, ze_pocl, ze_cuda, krt-cc, krt-info and the tour into $(BUILD)/ ($(JOBS) jobs)"
	@$(MAKE) --no-print-directory -j$(JOBS) $(TOUR_GOALS)
	@echo "make run: 3/3 $(BINDIR)/tour (make test builds and runs everything else)"
	@$(BINDIR)/tour

# The programs `make test` runs after the unit tests, each judged by its exit code (test/run.sh gives each
# one to sh -c). Sizes are small and awkward on purpose (primes, non-multiples of the tile) so the suite stays
# quick and partial last groups are exercised. krt-info must answer on every kernel under build/kernels and exit 1,
# not crash, on a file that is not SPIR-V, a truncated module and a missing file.
EXAMPLE_PROGRAMS = \
    '$(BINDIR)/vadd 100003' \
    '$(BINDIR)/saxpy 1 7 1000 4093 65537' \
    '$(BINDIR)/reduce 100003' \
    '$(BINDIR)/matmul 100 75 130' \
    '$(BINDIR)/histogram 1000003' \
    '$(BINDIR)/heat 67 50 $(BUILD)/heat.png' \
    '$(BINDIR)/heat_replay 67 1000' \
    '$(BINDIR)/mandelbrot 160 120 $(BUILD)/mandelbrot.png' \
    '$(BINDIR)/pipeline 100000 4' \
    '$(BINDIR)/pipeline 100003 3' \
    '$(BINDIR)/hosttask 100003 777' \
    '$(BINDIR)/tour' \
    '$(BINDIR)/devices' \
    '$(BINDIR)/errors >$(BUILD)/errors.txt && grep -qx "printf from the kernel: work-item 3 of 4 sees 40" $(BUILD)/errors.txt' \
    '$(BINDIR)/knobs 10007' \
    '$(BINDIR)/memory 100003' \
    '$(BINDIR)/multidev 100003' \
    'POCL_DEVICES="pthread pthread pthread" $(BINDIR)/multidev 100003' \
    'POCL_DEVICES="pthread pthread pthread" KRT_ZE_POCL_PEER=0-1 $(BINDIR)/multidev 100003' \
    '$(BINDIR)/multidev_heat 67 50 30' \
    'POCL_DEVICES="pthread pthread pthread" $(BINDIR)/multidev_heat 67 50 30' \
    'POCL_DEVICES="pthread pthread pthread" KRT_ZE_POCL_PEER=0-1 $(BINDIR)/multidev_heat 67 50 30' \
    'POCL_DEVICES="pthread pthread pthread" $(BINDIR)/multidev_heat 67 8 3 >$(BUILD)/mdh.txt 2>&1; test $$? -eq 2 && grep -q "at least 3 rows per device" $(BUILD)/mdh.txt'
# What runs under an interpreter (make sanitize leaves these out: their interpreters are not instrumented).
# test/docs-outputs.py runs every command the tutorials show and compares the pages' pasted outputs
# (docs/writing-docs.md): first its masks against lines of other machines (--self-test), then the pages, then the
# pages once more as another machine would print them (--other-machine: other core counts, memory, local memory and
# host threads); the line after them proves that it fails, naming the line, on a page whose pasted message differs
# from the program's.
# The Python package runs under PY_SYS (python/python.mk), on build/python's package; pytest covers ze_pocl and
# the host device in one run (test/python/test_package.py).
EXAMPLE_SCRIPTS = \
    'PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) examples/python/saxpy.py' \
    'cd / && PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) $(abspath examples/python/saxpy.py) 1000' \
    'KRT_DEVICE=host PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) examples/python/saxpy.py' \
    'PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) -m pytest -q -p no:cacheprovider test/python' \
    'PY_SYS=$(PY_SYS) sh test/python/pip-install.sh $(BUILD)' \
    'PY_SYS=$(PY_SYS) sh test/follow-docs.sh $(BUILD)' \
    'PY_SYS=$(PY_SYS) $(PY_SYS) test/docs-outputs.py --self-test' \
    'PY_SYS=$(PY_SYS) $(PY_SYS) test/docs-outputs.py $(BUILD)' \
    'PY_SYS=$(PY_SYS) $(PY_SYS) test/docs-outputs.py --other-machine $(BUILD)' \
    'sed "s/ndrange size\[0\] is 0/ndrange size[0] is zero/" docs/tutorial-errors.md >$(BUILD)/docs-outputs-mutant.md && ! $(PY_SYS) test/docs-outputs.py $(BUILD) $(BUILD)/docs-outputs-mutant.md >$(BUILD)/docs-outputs-mutant.log 2>&1 && grep -q "^  -     ndrange size\[0\] is zero" $(BUILD)/docs-outputs-mutant.log' \
    'sh test/krt-cc.sh $(BUILD)' \
    'sh test/header/rvalue.sh'
EXAMPLE_INFO = \
    '$(BINDIR)/krt-info' \
    '$(BINDIR)/krt-info --device cpu' \
    'env -u ZE_ENABLE_ALT_DRIVERS $(BINDIR)/knobs 10007 >$(BUILD)/knobs-default.txt 2>&1 && grep -q "Invalid build option: -cl-std=CL9.9" $(BUILD)/knobs-default.txt' \
    'KRT_DEVICE=cpu $(BINDIR)/vadd 1000' \
    '$(BINDIR)/krt-info --device no-such-device >$(BUILD)/no-device.txt 2>&1; test $$? -eq 1 && grep -q "the devices are: 0 " $(BUILD)/no-device.txt' \
    $(foreach s,$(KERNEL_SPVS),'$(BINDIR)/krt-info $(s)') \
    '$(BINDIR)/krt-info --ndrange 1000x3 $(BUILD)/kernels/heat.spv' \
    '$(BINDIR)/krt-info $(BUILD)/test-kernels/o2/krt_o2_loopmerge.spv | grep -q "^  warning: SPIR-V block order"' \
    '$(BINDIR)/krt-info Makefile; test $$? -eq 1' \
    'head -c 100 $(BUILD)/kernels/vadd.spv >$(BUILD)/truncated.spv && $(BINDIR)/krt-info $(BUILD)/truncated.spv; test $$? -eq 1' \
    '$(BINDIR)/krt-info $(BUILD)/no-such-file.spv; test $$? -eq 1' \
    '$(BINDIR)/krt-info $(BUILD)/test-kernels/asm/krt_huge_private.spv >$(BUILD)/huge-private.txt 2>&1; test $$? -eq 0 && grep -q "^  launch over 1048576: KRT_ERROR_OUT_OF_DEVICE_MEMORY: huge_private needs more bytes than 64 bits count of private memory per work-item" $(BUILD)/huge-private.txt' \
    'KRT_DEVICE=host $(BINDIR)/krt-info $(BUILD)/test-kernels/krt_private.spv >$(BUILD)/big-private.txt 2>&1; test $$? -eq 0 && grep -q "^  launch over 1048576: KRT_ERROR_OUT_OF_DEVICE_MEMORY: krt_big_private needs 85899" $(BUILD)/big-private.txt'

EXAMPLE_TESTS = $(EXAMPLE_PROGRAMS) $(EXAMPLE_SCRIPTS) $(EXAMPLE_INFO) $(EXAMPLE_HOST_PROGRAMS) $(EXAMPLE_MPI)

# mpi_heat under mpirun: 2 and 4 ranks on a plate 67 cells wide (a prime) and 68 rows high; halos straight from
# ze_pocl's device memory (host memory), staged through pinned host memory (--halo=staged, the path a GPU takes
# with an MPI that is not device-aware), and on the host device; each run checks itself against one rank on the
# whole plate, bit for bit. Then the bad input: 4 ranks cannot split 66 rows, and every rank must end with status
# 2 and the message. The machine has 2 cores, so 4 ranks need --oversubscribe; Open MPI refuses to run as root
# unless told. Left out of make sanitize (which runs EXAMPLE_PROGRAMS): LeakSanitizer reports what Open MPI's
# libraries (libmpi, libopen-pal and the components they load) still hold at exit, and the suppressions may cover
# only PoCL, LLVM and the OpenCL loader.
MPIRUN_FLAGS := --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root)
ifeq ($(HAVE_MPI),yes)
EXAMPLE_MPI = \
    '$(MPIRUN) $(MPIRUN_FLAGS) -np 2 $(BINDIR)/mpi_heat 67 68 50' \
    '$(MPIRUN) $(MPIRUN_FLAGS) -np 4 $(BINDIR)/mpi_heat 67 68 50' \
    '$(MPIRUN) $(MPIRUN_FLAGS) -np 4 $(BINDIR)/mpi_heat --halo=staged 67 68 50' \
    'KRT_DEVICE=host $(MPIRUN) $(MPIRUN_FLAGS) -np 2 $(BINDIR)/mpi_heat --halo=staged 67 68 50' \
    'KRT_DEVICE=host $(MPIRUN) $(MPIRUN_FLAGS) -np 4 $(BINDIR)/mpi_heat 67 68 50' \
    '$(MPIRUN) $(MPIRUN_FLAGS) -np 4 $(BINDIR)/mpi_heat 67 66 10 >$(BUILD)/mpi-bad.txt 2>&1; test $$? -eq 2 && grep -q "^mpi_heat: 4 ranks cannot split 66 rows" $(BUILD)/mpi-bad.txt && test $$(grep -c "^mpi_heat:" $(BUILD)/mpi-bad.txt) -eq 1'
endif

# Every example once more on the host device (issue 12): the same programs and checks, the kernels run natively
# from build/kernels/host/.
EXAMPLE_HOST_PROGRAMS = \
    'KRT_DEVICE=host $(BINDIR)/vadd 100003' \
    'KRT_DEVICE=host $(BINDIR)/saxpy 1 7 1000 4093 65537' \
    'KRT_DEVICE=host $(BINDIR)/reduce 100003' \
    'KRT_DEVICE=host $(BINDIR)/matmul 100 75 130' \
    'KRT_DEVICE=host $(BINDIR)/histogram 1000003' \
    'KRT_DEVICE=host $(BINDIR)/heat 67 50 $(BUILD)/heat-host.png' \
    'KRT_DEVICE=host $(BINDIR)/mandelbrot 160 120 $(BUILD)/mandelbrot-host.png' \
    'KRT_DEVICE=host $(BINDIR)/pipeline 100000 4' \
    'KRT_DEVICE=host $(BINDIR)/tour' \
    'KRT_DEVICE=host $(BINDIR)/devices' \
    'KRT_DEVICE=host $(BINDIR)/errors >$(BUILD)/errors-host.txt && grep -qx "printf from the kernel: work-item 3 of 4 sees 40" $(BUILD)/errors-host.txt' \
    'KRT_DEVICE=host $(BINDIR)/knobs 10007' \
    'KRT_DEVICE=host $(BINDIR)/memory 100003' \
    'KRT_DEVICE=host $(BINDIR)/hosttask 100003 777' \
    'KRT_DEVICE=host $(BINDIR)/krt-info --device host'
