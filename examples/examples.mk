# Examples: each examples/<name>.c builds to build/bin/<name> against libkrt (krt.h only). Each has a tutorial,
# docs/tutorial-<name>.md (knobs: tutorial-launch-knobs.md, offbyone: tutorial-debugging.md), and checks its
# own results.
# examples/example.h and examples/png_write.h are shared helpers; heat and mandelbrot link libpng.
# The programs find their kernels through KRT_KERNELS, else in ../kernels beside their own directory, and
# libkrt through an rpath relative to themselves, so they also run by hand from any directory.

EXAMPLE_SRCS    := $(wildcard examples/*.c)
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

# `make run`: the first command on a fresh Debian 12 machine. The tour runs as a user would run it, without
# ZE_ENABLE_ALT_DRIVERS, so krt's own default applies: an installed GPU driver, else ze_pocl.
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
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
    'POCL_DEVICES="pthread pthread pthread" KRT_ZE_POCL_PEER=0-1 $(BINDIR)/multidev 100003'
# What runs under an interpreter (make sanitize leaves these out: their interpreters are not instrumented).
# The Python package runs under PY_SYS (python/python.mk), on build/python's package; pytest covers ze_pocl and
# the host device in one run (test/python/test_package.py).
EXAMPLE_SCRIPTS = \
    'PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) examples/python/saxpy.py' \
    'cd / && PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) $(abspath examples/python/saxpy.py) 1000' \
    'KRT_DEVICE=host PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) examples/python/saxpy.py' \
    'PYTHONPATH=$(abspath $(BUILD)/python) $(PY_SYS) -m pytest -q -p no:cacheprovider test/python' \
    'PY_SYS=$(PY_SYS) sh test/python/pip-install.sh $(BUILD)' \
    'PY_SYS=$(PY_SYS) sh test/follow-docs.sh $(BUILD)' \
    'sh test/krt-cc.sh $(BUILD)'
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
    '$(BINDIR)/krt-info $(BUILD)/no-such-file.spv; test $$? -eq 1'

EXAMPLE_TESTS = $(EXAMPLE_PROGRAMS) $(EXAMPLE_SCRIPTS) $(EXAMPLE_INFO) $(EXAMPLE_HOST_PROGRAMS)

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
