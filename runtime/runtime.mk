# libkrt: build/lib/libkrt.so, build/lib/libkrt.a, build/lib/pkgconfig/krt.pc, and `make install`.
#
# SPIRV-Tools comes from Debian as static libraries only; it is linked into libkrt.so with
# --exclude-libs,ALL so that none of its C++ symbols leak out, and -lstdc++ for its runtime. The SPIR-V of the
# built-in kernels (kernels/krt_*.cl) is embedded with an assembler .incbin (runtime/src/builtin_kernels.S).

KRT_SRCS     := $(wildcard runtime/src/*.c)
KRT_OBJDIR   := $(OBJDIR)/runtime
include driver/host/host.mk
KRT_OBJS     := $(patsubst runtime/src/%.c,$(KRT_OBJDIR)/%.o,$(KRT_SRCS)) $(KRT_OBJDIR)/builtin_kernels.o \
                $(SPIRV_REFLECT_OBJS) $(KRT_HOST_OBJS)
KRT_A        := $(LIBDIR)/libkrt.a
KRT_PC       := $(LIBDIR)/pkgconfig/krt.pc
KRT_BUILTIN_SPVS := $(patsubst kernels/%.cl,$(BUILD)/kernels/%.spv,$(wildcard kernels/krt_*.cl))
KRT_BUILTIN_SPV  := $(BUILD)/kernels/krt_fill.spv

KRT_SPIRV_CFLAGS := $(shell $(PKG_CONFIG) --cflags SPIRV-Tools 2>/dev/null)
KRT_SPIRV_LIBS   := $(shell $(PKG_CONFIG) --libs SPIRV-Tools 2>/dev/null || echo -lSPIRV-Tools)
KRT_ZE_CFLAGS    := $(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null)
KRT_ZE_LIBS      := $(shell $(PKG_CONFIG) --libs level-zero 2>/dev/null || echo -lze_loader)
KRT_LIBS         := $(KRT_SPIRV_LIBS) -lstdc++ $(KRT_ZE_LIBS) $(KRT_HOST_LIBS) -lpthread -ldl
KRT_CFLAGS_BASE  := $(CFLAGS_C) -fvisibility=hidden -DKRT_BUILDING_LIBRARY -Iruntime/include -Iruntime/src \
                    $(KRT_ZE_CFLAGS) $(KRT_SPIRV_CFLAGS)
KRT_CFLAGS       := $(KRT_CFLAGS_BASE) -DKRT_LIBDIR='"$(abspath $(LIBDIR))"'

.PHONY: runtime install-runtime uninstall-runtime
runtime: $(KRT_SO) $(KRT_A) $(KRT_PC)
all: runtime
install: install-runtime
uninstall: uninstall-runtime

$(KRT_OBJDIR)/%.o: runtime/src/%.c runtime/src/krt_internal.h runtime/include/krt.h $(wildcard common/*.h) $(wildcard driver/include/*.h) spirv/reflect.h
	@mkdir -p $(dir $@)
	$(CC) $(KRT_CFLAGS) -c $< -o $@

# context.c embeds a library directory as the place to look for libze_pocl.so when nothing is beside libkrt
# (a static libkrt.a linked into a program elsewhere): build/lib for the libkrt in build/, $(PREFIX)/lib for
# the one `make install` installs. The installed copy is linked apart, in build/install<PREFIX>/, from its own
# context.o and the other objects, so that `make install PREFIX=...` never relinks build/lib or the programs
# built against it, and build/ keeps working as it was.
KRT_INSTALL_DIR  := $(BUILD)/install$(subst /,_,$(PREFIX))
KRT_INSTALL_OBJS := $(filter-out $(KRT_OBJDIR)/context.o,$(KRT_OBJS)) $(KRT_INSTALL_DIR)/context.o
KRT_INSTALL_SO   := $(KRT_INSTALL_DIR)/libkrt.so
KRT_INSTALL_A    := $(KRT_INSTALL_DIR)/libkrt.a

$(KRT_INSTALL_DIR)/context.o: runtime/src/context.c runtime/src/krt_internal.h runtime/include/krt.h
	@mkdir -p $(dir $@)
	$(CC) $(KRT_CFLAGS_BASE) -DKRT_LIBDIR='"$(PREFIX)/lib"' -c $< -o $@

$(KRT_INSTALL_SO): $(KRT_INSTALL_OBJS)
	$(CC) $(LINK_FLAGS) -shared -Wl,-soname,libkrt.so -Wl,--exclude-libs,ALL -Wl,--no-undefined -o $@ $(KRT_INSTALL_OBJS) $(KRT_LIBS)

$(KRT_INSTALL_A): $(KRT_INSTALL_OBJS)
	rm -f $@
	ar rcs $@ $(KRT_INSTALL_OBJS)

$(KRT_OBJDIR)/builtin_kernels.o: runtime/src/builtin_kernels.S $(KRT_BUILTIN_SPVS)
	@mkdir -p $(dir $@)
	$(CC) -c -DKRT_BUILTIN_SPV='"$(KRT_BUILTIN_SPV)"' $< -o $@

$(KRT_SO): $(KRT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LINK_FLAGS) -shared -Wl,-soname,libkrt.so -Wl,--exclude-libs,ALL -Wl,--no-undefined -o $@ $(KRT_OBJS) $(KRT_LIBS)

$(KRT_A): $(KRT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(KRT_OBJS)

# krt.pc for programs built against the build tree; install writes one for the install prefix.
define krt_pc_text
prefix=$(1)
libdir=$(2)
includedir=$(3)

Name: krt
Description: kernel launch runtime over oneAPI Level Zero
Version: 0.1.0
Requires.private: level-zero
Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lkrt
Libs.private: $(KRT_SPIRV_LIBS) -lstdc++ $(KRT_HOST_LIBS) -lpthread -ldl
Cflags: -I$${includedir}
endef

$(LIBDIR)/pkgconfig:
	@mkdir -p $@

# $(file) runs when make expands the recipe, before any of its lines: the directory is an order-only
# prerequisite so that it exists by then.
$(KRT_PC): runtime/runtime.mk | $(LIBDIR)/pkgconfig
	$(file >$@,$(call krt_pc_text,$(abspath $(BUILD)),$(abspath $(LIBDIR)),$(abspath runtime/include)))
	@true

install-runtime: $(KRT_INSTALL_SO) $(KRT_INSTALL_A) $(ZE_POCL_SO) | $(BUILD)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 runtime/include/krt.h $(DESTDIR)$(PREFIX)/include/krt.h
	install -m 755 $(KRT_INSTALL_SO) $(DESTDIR)$(PREFIX)/lib/libkrt.so
	install -m 644 $(KRT_INSTALL_A) $(DESTDIR)$(PREFIX)/lib/libkrt.a
	install -m 755 $(ZE_POCL_SO) $(DESTDIR)$(PREFIX)/lib/libze_pocl.so
	$(file >$(BUILD)/krt.pc.install,$(call krt_pc_text,$(PREFIX),$(PREFIX)/lib,$(PREFIX)/include))
	install -m 644 $(BUILD)/krt.pc.install $(DESTDIR)$(PREFIX)/lib/pkgconfig/krt.pc

uninstall-runtime:
	rm -f $(DESTDIR)$(PREFIX)/include/krt.h $(DESTDIR)$(PREFIX)/lib/libkrt.so $(DESTDIR)$(PREFIX)/lib/libkrt.a \
	      $(DESTDIR)$(PREFIX)/lib/libze_pocl.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/krt.pc
