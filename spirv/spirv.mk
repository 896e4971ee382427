# The SPIR-V front end (spirv/), in two parts that include no driver's and no runtime's headers:
# - the translation: SPIR-V -> one LLVM module and the per-kernel facts, shared by the drivers that compile
#   SPIR-V (ze_pocl, driver/driver.mk; ze_cuda, driver/cuda/cuda.mk) and built once, into $(BUILD)/obj/spirv/.
#   Each driver links SPIRV_OBJS with SPIRV_LDLIBS. C++ against LLVM 15, libLLVMSPIRVLib 15 and SPIRV-Tools.
# - the reflection (reflect.c, reflect.h): kernel signatures, plain C over SPIRV-Tools, in the front end's own
#   types (the runtime translates them into krt.h's). libkrt links SPIRV_REFLECT_OBJS for its runtime and its
#   host driver (runtime/runtime.mk). Built without runtime/include on the include path: spirv/ stays below the
#   runtime (tools/structure.py refuses an include of krt.h).
# extensions.c (plain C) is in both: what SPIRV-Tools' validator cannot judge, for the drivers' validation and
# libkrt's.

SPIRV_OBJDIR := $(OBJDIR)/spirv
SPIRV_SRCS   := $(wildcard spirv/*.cpp)
SPIRV_HDRS   := $(wildcard spirv/*.h)
# The C both parts share: what the validator cannot judge (extensions.c), for the drivers' validation before the
# translator and for libkrt's (runtime/src/validate.c).
SPIRV_SHARED_SRCS := spirv/extensions.c
SPIRV_OBJS   := $(patsubst spirv/%.cpp,$(SPIRV_OBJDIR)/%.o,$(SPIRV_SRCS)) \
                $(patsubst spirv/%.c,$(SPIRV_OBJDIR)/%.o,$(SPIRV_SHARED_SRCS))

# The LLVM the front end is built with; the drivers' own LLVM code (driver/pocl, driver/cuda) uses the same.
SPIRV_LLVM_CXXFLAGS := -I$(shell llvm-config-15 --includedir 2>/dev/null || echo /usr/lib/llvm-15/include)
SPIRV_LLVM_LIBDIR   := $(shell llvm-config-15 --libdir 2>/dev/null || echo /usr/lib/llvm-15/lib)
SPIRV_CXXFLAGS := $(CXXFLAGS_C) -fvisibility=hidden -fvisibility-inlines-hidden -fno-rtti $(SPIRV_LLVM_CXXFLAGS) \
                  $(shell $(PKG_CONFIG) --cflags LLVMSPIRVLib SPIRV-Tools 2>/dev/null) -Wno-unused-parameter
# What a library linking SPIRV_OBJS links with. SPIRV-Tools is static: --exclude-libs keeps a shared library
# from re-exporting its symbols.
SPIRV_LDLIBS   := -lLLVMSPIRVLib -L$(SPIRV_LLVM_LIBDIR) -lLLVM-15 -Wl,-rpath,$(SPIRV_LLVM_LIBDIR) \
                  -Wl,--exclude-libs,ALL -lSPIRV-Tools

# The group library (spirv/groups_lib.cl): SPIR bitcode, one build per kind of sub-group (1: ze_pocl, 32: the
# warp, ze_cuda), embedded by groups_lib.S.
SPIRV_GROUPS_BCS := $(SPIRV_OBJDIR)/groups_lib_1.bc $(SPIRV_OBJDIR)/groups_lib_32.bc
SPIRV_OBJS += $(SPIRV_OBJDIR)/groups_lib.o

.PHONY: spirv
spirv: $(SPIRV_OBJS)

$(SPIRV_OBJDIR)/groups_lib_%.bc: spirv/groups_lib.cl spirv/groups_ops.h
	@mkdir -p $(dir $@)
	$(CLANG_CL) -cl-std=CL2.0 -target spir64 -emit-llvm -O2 -Wall -Werror -DZP_SG_WARP=$(if $(filter 32,$*),1,0) \
	    -Ispirv -c $< -o $@

$(SPIRV_OBJDIR)/groups_lib.o: spirv/groups_lib.S $(SPIRV_GROUPS_BCS)
	@mkdir -p $(dir $@)
	$(CC) -c -DZP_GROUPS_LIB_1='"$(SPIRV_OBJDIR)/groups_lib_1.bc"' -DZP_GROUPS_LIB_32='"$(SPIRV_OBJDIR)/groups_lib_32.bc"' \
	    $< -o $@

$(SPIRV_OBJDIR)/%.o: spirv/%.cpp $(SPIRV_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(SPIRV_CXXFLAGS) -c $< -o $@

$(SPIRV_OBJDIR)/%.o: spirv/%.c $(SPIRV_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(SPIRV_REFLECT_CFLAGS) -c $< -o $@

SPIRV_REFLECT_OBJS := $(OBJDIR)/spirv-reflect/reflect.o \
                      $(patsubst spirv/%.c,$(OBJDIR)/spirv-reflect/%.o,$(SPIRV_SHARED_SRCS))
SPIRV_REFLECT_CFLAGS := $(CFLAGS_C) -fvisibility=hidden \
                        $(shell $(PKG_CONFIG) --cflags SPIRV-Tools 2>/dev/null)

$(OBJDIR)/spirv-reflect/%.o: spirv/%.c $(wildcard spirv/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(SPIRV_REFLECT_CFLAGS) -c $< -o $@
