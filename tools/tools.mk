# Tools: krt-info (build/bin/krt-info), installed by `make install` beside libkrt.
# krt-cc (tools/krt-cc, a shell script) compiles OpenCL C to validated SPIR-V; it is copied to build/bin/krt-cc
# and the kernel-side headers to build/include/, the layout `make install` gives $(PREFIX), so that krt-cc
# finds krt_kernel.h in ../include beside itself in both. kernels/kernels.mk builds every kernel with it.
# tools/install-deps.sh is what `make deps` runs.

TOOL_BINS := $(BINDIR)/krt-info
KRT_CC    := $(BINDIR)/krt-cc
# krt-cc --host's transform of barrier kernels into work-item loops, found in ../libexec/krt beside krt-cc.
KRT_LOOPS := $(BUILD)/libexec/krt/krt_loops.py
KRT_KERNEL_HEADERS := $(patsubst kernels/include/%,$(BUILD)/include/%,$(wildcard kernels/include/*.h))

.PHONY: tools install-tools uninstall-tools
tools: $(TOOL_BINS) $(KRT_CC) $(KRT_LOOPS) $(KRT_KERNEL_HEADERS)
all: tools

$(KRT_CC): tools/krt-cc
	@mkdir -p $(dir $@)
	cp $< $@
	chmod 755 $@

$(KRT_LOOPS): tools/krt_loops.py
	@mkdir -p $(dir $@)
	cp $< $@

$(BUILD)/include/%.h: kernels/include/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(BINDIR)/krt-info: tools/krt-info.c runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -Iruntime/include $< -o $@ $(LDFLAGS) -L$(LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lkrt

install: install-tools
install-tools: $(TOOL_BINS) $(KRT_CC) $(KRT_LOOPS) $(KRT_KERNEL_HEADERS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/libexec/krt
	install -m 755 $(BINDIR)/krt-info $(DESTDIR)$(PREFIX)/bin/krt-info
	install -m 755 $(KRT_CC) $(DESTDIR)$(PREFIX)/bin/krt-cc
	install -m 644 $(KRT_LOOPS) $(DESTDIR)$(PREFIX)/libexec/krt/krt_loops.py
	install -m 644 $(KRT_KERNEL_HEADERS) $(DESTDIR)$(PREFIX)/include/

uninstall: uninstall-tools
uninstall-tools:
	rm -f $(DESTDIR)$(PREFIX)/bin/krt-info $(DESTDIR)$(PREFIX)/bin/krt-cc $(DESTDIR)$(PREFIX)/libexec/krt/krt_loops.py \
	      $(patsubst $(BUILD)/include/%,$(DESTDIR)$(PREFIX)/include/%,$(KRT_KERNEL_HEADERS))
