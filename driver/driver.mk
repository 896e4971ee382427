# ze_pocl: the Level Zero driver over PoCL. Builds $(BUILD)/lib/libze_pocl.so.
# Hidden visibility everywhere; only the *ProcAddrTable getters are exported (ZE_DLLEXPORT), and the
# static SPIRV-Tools library is kept from re-exporting its symbols with --exclude-libs. The driver is
# never linked against the Level Zero loader.

ZP_OBJDIR   := $(OBJDIR)/driver
ZP_C_SRCS   := $(wildcard driver/*.c) $(wildcard driver/pocl/*.c)
ZP_CXX_SRCS := $(wildcard driver/pocl/*.cpp)
ZP_HDRS     := $(wildcard driver/*.h) $(wildcard driver/pocl/*.h) $(wildcard driver/include/*.h) $(SPIRV_HDRS) $(wildcard common/*.h)
ZP_OBJS     := $(patsubst driver/%.c,$(ZP_OBJDIR)/%.o,$(ZP_C_SRCS)) \
               $(patsubst driver/%.cpp,$(ZP_OBJDIR)/%.o,$(ZP_CXX_SRCS))
# The self-check's kernels, embedded (rule below); listed here so that the link rule depends on them.
ZP_OBJS     += $(ZP_OBJDIR)/pocl/selfcheck_spv.o
# The SPIR-V front end (spirv/spirv.mk), built once and linked into each driver.
ZP_OBJS     += $(SPIRV_OBJS)

ZP_CFLAGS   := $(CFLAGS_C) -fvisibility=hidden $(shell $(PKG_CONFIG) --cflags level-zero OpenCL 2>/dev/null)
# PoCL's rewrites of the translated module (driver/pocl/*.cpp) compile like the front end, against its LLVM.
ZP_CXXFLAGS := $(SPIRV_CXXFLAGS)
ZP_LDLIBS   := $(SPIRV_LDLIBS) -lOpenCL -lpthread -lstdc++

.PHONY: driver
driver: $(ZE_POCL_SO)
all: driver

$(ZE_POCL_SO): $(ZP_OBJS) driver/exports.map | $(LIBDIR)
	$(CXX) $(LINK_FLAGS) -shared -o $@ $(ZP_OBJS) -Wl,--no-undefined -Wl,-z,defs -Wl,--version-script=driver/exports.map $(ZP_LDLIBS)

$(ZP_OBJDIR)/%.o: driver/%.c $(ZP_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ZP_CFLAGS) -c $< -o $@

$(ZP_OBJDIR)/%.o: driver/%.cpp $(ZP_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ZP_CXXFLAGS) -c $< -o $@

# A measuring tool, not a test: host cost of an append against raw OpenCL (see docs/driver.md).
ZP_APPEND_COST := $(BINDIR)/ze_pocl_append_cost
all: $(ZP_APPEND_COST)
$(ZP_APPEND_COST): driver/tools/append_cost.c | $(BINDIR)
	$(CC) $(CFLAGS_C) $(shell $(PKG_CONFIG) --cflags level-zero OpenCL 2>/dev/null) $< -o $@ $(LDFLAGS) \
	    $(shell $(PKG_CONFIG) --libs level-zero 2>/dev/null || echo -lze_loader) -lOpenCL

# The start-up self-check's kernels (driver/pocl/selfcheck.c), compiled like krt's kernels and embedded.
ZP_SELFCHECK_SPV := $(BUILD)/driver/selfcheck.spv

$(ZP_SELFCHECK_SPV): driver/pocl/selfcheck.cl
	@mkdir -p $(dir $@)
	$(CLANG_CL) $(KERNEL_CFLAGS) -c $< -o $(@:.spv=.bc)
	$(LLVM_SPIRV) $(@:.spv=.bc) -o $@
	$(SPIRV_VAL) $@

$(ZP_OBJDIR)/pocl/selfcheck_spv.o: driver/pocl/selfcheck_spv.S $(ZP_SELFCHECK_SPV)
	@mkdir -p $(dir $@)
	$(CC) -c -DZP_SELFCHECK_SPV='"$(ZP_SELFCHECK_SPV)"' $< -o $@

# Diagnostics, not tests: what the installed PoCL reports (pocl_probe), and the self-check of one route and
# set of rewrites, or the automatic choice (ze_pocl_selfcheck; built from the driver's objects).
ZP_PROBE := $(BINDIR)/pocl_probe
ZP_SELFCHECK_TOOL := $(BINDIR)/ze_pocl_selfcheck
all: $(ZP_PROBE) $(ZP_SELFCHECK_TOOL)
$(ZP_PROBE): driver/tools/pocl_probe.c | $(BINDIR)
	$(CC) $(CFLAGS_C) $(shell $(PKG_CONFIG) --cflags OpenCL 2>/dev/null) $< -o $@ $(LDFLAGS) -lOpenCL
$(ZP_SELFCHECK_TOOL): driver/tools/selfcheck_tool.c $(ZP_OBJS) | $(BINDIR)
	$(CXX) $(ZP_CFLAGS) -x c $< -x none $(ZP_OBJS) -o $@ $(LDFLAGS) $(ZP_LDLIBS)

# A measuring tool, not a test: what one zeModuleCreate costs (see docs/driver.md).
ZP_MODULE_COST := $(BINDIR)/ze_pocl_module_cost
all: $(ZP_MODULE_COST)
$(ZP_MODULE_COST): driver/tools/module_cost.c | $(BINDIR)
	$(CC) $(CFLAGS_C) $(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null) $< -o $@ $(LDFLAGS) \
	    $(shell $(PKG_CONFIG) --libs level-zero 2>/dev/null || echo -lze_loader)

include driver/cuda/cuda.mk
