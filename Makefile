# krt: one Makefile; each area keeps its rules in <area>/<area>.mk, included below.
# Everything builds into build/. `make help` lists the targets.

BUILD     ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
CXX       ?= c++
CLANG_CL  ?= clang-15
LLVM_SPIRV?= llvm-spirv-15
SPIRV_VAL ?= spirv-val
PKG_CONFIG?= pkg-config
PYTHON    ?= python3

ifeq ($(origin CC),default)
CC := cc
endif

WARN      := -Wall -Wextra -Werror
OPT       ?= -O2 -g
# LDFLAGS reach every link; OPT reaches the links of shared libraries too (the programs are compiled and linked in
# one step with CFLAGS_C), so that OPT="-O1 -g -fsanitize=address" builds an instrumented tree with no wrapper.
LDFLAGS   ?=
LINK_FLAGS = $(OPT) $(LDFLAGS)
CFLAGS_C  := -std=c11 $(WARN) $(OPT) -D_GNU_SOURCE -fPIC
# CXXWARN: warnings for the C++ files alone (make sanitize turns off one that GCC raises in LLVM's headers).
CXXWARN   ?=
CXXFLAGS_C:= -std=c++17 $(WARN) $(CXXWARN) $(OPT) -fPIC

LIBDIR    := $(BUILD)/lib
BINDIR    := $(BUILD)/bin
OBJDIR    := $(BUILD)/obj

# Parallel jobs of the builds `make run`, `make test` and `make sanitize` start themselves (one per core), whether or
# not make was given -j.
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)

# The driver the loader is pointed at in tests, examples and benchmarks.
ZE_POCL_SO := $(abspath $(LIBDIR)/libze_pocl.so)
KRT_SO     := $(abspath $(LIBDIR)/libkrt.so)

.PHONY: all deps run test bench install uninstall clean help
.DEFAULT_GOAL := all

all:

help:
	@echo "make deps     install the Debian packages krt needs (as root; does nothing when all are present)"
	@echo "make          build libze_pocl, libkrt, kernels, examples, tools, tests into $(BUILD)/"
	@echo "make run      deps + build what the tour needs + run the tour on the default device"
	@echo "make test     deps + build + run the whole test suite"
	@echo "make bench    deps + build + run the benchmarks (not part of make test)"
	@echo "make fuzz     deps + build + run the module fuzzer for FUZZ_TIME seconds (default 600)"
	@echo "make sycl-check  Intel's SYCL runtime, dpctl and dpnp.tensor (PyPI) on ze_pocl (downloads; docs/sycl.md)"
	@echo "make sycl-spirv  build every SPIR-V module of the dpctl and dpnp wheels through krt on ze_pocl"
	@echo "make sanitize deps + build build-asan/ (ASan+UBSan) and build-tsan/ (TSan) + run the suite over both"
	@echo "make install  PREFIX=$(PREFIX) DESTDIR=...: install libkrt, krt.h, krt.pc, libze_pocl, libze_cuda, krt-info"

# Debian 12 packages; `make deps` installs only what is missing. openssh-client is only recommended by openmpi-bin,
# but Open MPI 4.1's mpirun refuses to start without ssh or rsh in PATH, even for ranks on this one machine.
DEB_PACKAGES := build-essential pkg-config libze1 libze-dev spirv-tools libcriterion-dev libffi-dev \
                pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers clang-15 llvm-spirv-15 \
                libllvmspirvlib-15-dev llvm-15-dev libpng-dev python3 valgrind gnuplot-nox libclc-15 \
                libclang-common-15-dev python3-clang-15 python3-dev python3-numpy python3-pytest python3-venv python3-setuptools python3-setuptools-whl python3-wheel-whl \
                python3-wheel libopenmpi-dev openmpi-bin openssh-client

deps:
	@sh tools/install-deps.sh $(DEB_PACKAGES)

include spirv/spirv.mk
include driver/driver.mk
include runtime/runtime.mk
include kernels/kernels.mk
include examples/examples.mk
include tools/tools.mk
include test/test.mk
include bench/bench.mk
include test/fuzz/fuzz.mk
include test/sycl/sycl.mk
include test/host/host.mk
include test/sanitize/sanitize.mk
include python/python.mk

$(BUILD) $(LIBDIR) $(BINDIR) $(OBJDIR):
	@mkdir -p $@

clean:
	rm -rf $(BUILD)
