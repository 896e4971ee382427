# Tools: krt-info (build/bin/krt-info), installed by `make install` beside libkrt.
# tools/install-deps.sh is what `make deps` runs.

TOOL_BINS := $(BINDIR)/krt-info

.PHONY: tools install-tools uninstall-tools
tools: $(TOOL_BINS)
all: tools

$(BINDIR)/krt-info: tools/krt-info.c runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_C) -Iruntime/include $< -o $@ -L$(LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lkrt

install: install-tools
install-tools: $(TOOL_BINS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BINDIR)/krt-info $(DESTDIR)$(PREFIX)/bin/krt-info

uninstall: uninstall-tools
uninstall-tools:
	rm -f $(DESTDIR)$(PREFIX)/bin/krt-info
