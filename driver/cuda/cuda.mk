# ze_cuda: the Level Zero driver over the CUDA driver API. Builds $(BUILD)/lib/libze_cuda.so from the same
# object model as ze_pocl (driver/*.c, compiled a second time with the CUDA backend chosen) plus driver/cuda/.
# libcuda.so.1 is opened with dlopen at zeInit, so nothing here links against an NVIDIA driver; only the CUDA
# toolkit's cuda.h is needed to build (CUDA_HOME), and ptxas to test the translation.

CUDA_HOME   ?= /usr/local/cuda
PTXAS       ?= $(shell command -v ptxas 2>/dev/null || echo $(CUDA_HOME)/bin/ptxas)
ZE_CUDA_SO  := $(abspath $(LIBDIR)/libze_cuda.so)
ZC_OBJDIR   := $(OBJDIR)/driver-cuda
ZC_MODEL_SRCS := $(wildcard driver/*.c)
ZC_C_SRCS   := $(wildcard driver/cuda/*.c)
ZC_CXX_SRCS := $(wildcard driver/cuda/*.cpp)
ZC_HDRS     := $(ZP_HDRS) $(wildcard driver/cuda/*.h)
# The translation: ptx.cpp over the SPIR-V front end (spirv/spirv.mk), whose objects ze_pocl links as well.
ZC_PTX_OBJS := $(patsubst driver/cuda/%.cpp,$(ZC_OBJDIR)/cuda/%.o,$(ZC_CXX_SRCS)) $(SPIRV_OBJS)
ZC_OBJS     := $(patsubst driver/%.c,$(ZC_OBJDIR)/model/%.o,$(ZC_MODEL_SRCS)) \
               $(patsubst driver/cuda/%.c,$(ZC_OBJDIR)/cuda/%.o,$(ZC_C_SRCS)) $(ZC_PTX_OBJS)
ZC_CFLAGS   := $(CFLAGS_C) -fvisibility=hidden $(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null) \
               -I$(CUDA_HOME)/include
ZC_LDLIBS   := $(SPIRV_LDLIBS) -ldl -lpthread -lstdc++

.PHONY: driver-cuda
driver-cuda: $(ZE_CUDA_SO) $(BINDIR)/ze_cuda_ptx
all: driver-cuda

# -z nodelete: ze_cuda's two helper threads (event watcher, host tasks) live as long as the process, so the
# library must stay mapped if the loader dlcloses it.
$(ZE_CUDA_SO): $(ZC_OBJS) driver/exports.map | $(LIBDIR)
	$(CXX) $(LINK_FLAGS) -shared -o $@ $(ZC_OBJS) -Wl,--no-undefined -Wl,-z,defs -Wl,-z,nodelete \
	    -Wl,--version-script=driver/exports.map $(ZC_LDLIBS)

$(ZC_OBJDIR)/model/%.o: driver/%.c $(ZC_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ZC_CFLAGS) -DZP_BACKEND=zp_cuda_backend -c $< -o $@

$(ZC_OBJDIR)/cuda/%.o: driver/cuda/%.c $(ZC_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ZC_CFLAGS) -c $< -o $@

$(ZC_OBJDIR)/cuda/%.o: driver/cuda/%.cpp $(ZC_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ZP_CXXFLAGS) -c $< -o $@

# The translation alone, for make test on machines without a GPU (test/test_cuda_ptx.c).
$(BINDIR)/ze_cuda_ptx: driver/cuda/tools/spv2ptx.c $(ZC_PTX_OBJS) $(ZC_HDRS) | $(BINDIR)
	$(CC) $(ZC_CFLAGS) $< $(ZC_PTX_OBJS) -o $@ $(LDFLAGS) $(ZC_LDLIBS)

# make install puts libze_cuda.so beside libze_pocl.so, where libkrt looks for both.
.PHONY: install-cuda uninstall-cuda
install: install-cuda
uninstall: uninstall-cuda
install-cuda: $(ZE_CUDA_SO)
	install -d $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(ZE_CUDA_SO) $(DESTDIR)$(PREFIX)/lib/libze_cuda.so
uninstall-cuda:
	rm -f $(DESTDIR)$(PREFIX)/lib/libze_cuda.so

# test/test_cuda.c translates the benchmark kernels too, so make test builds their SPIR-V (rules in bench.mk).
ZC_BENCH_SPVS := $(patsubst bench/kernels/%.cl,$(BUILD)/bench/kernels/%.spv,$(wildcard bench/kernels/*.cl))
all: $(ZC_BENCH_SPVS)
