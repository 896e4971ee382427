# The host device (driver/host/): a copy of the driver/ object model with the host backend, compiled into libkrt
# (runtime/runtime.mk links KRT_HOST_OBJS) rather than into a driver the loader lists, so that the host device is
# there whatever ZE_ENABLE_ALT_DRIVERS says. This copy leaves out driver/ddi_export.c, the exported Level Zero
# names of the table getters, which would clash with the loader's own exports: libkrt calls the getters by their
# object-model names (driver/ddi.h, host_ddi.c).

KRT_HOST_OBJDIR := $(OBJDIR)/host
KRT_HOST_SRCS   := $(filter-out driver/ddi_export.c,$(wildcard driver/*.c)) $(wildcard driver/host/*.c)
KRT_HOST_OBJS   := $(patsubst driver/%.c,$(KRT_HOST_OBJDIR)/%.o,$(KRT_HOST_SRCS))
KRT_HOST_HDRS   := $(wildcard common/*.h) $(wildcard spirv/*.h) kernels/include/krt_host_abi.h $(wildcard driver/*.h) \
                   $(wildcard driver/include/*.h) $(wildcard driver/host/*.h)
KRT_HOST_CFLAGS := $(CFLAGS_C) -fvisibility=hidden -DZP_BACKEND=zp_host_backend \
                   $(shell $(PKG_CONFIG) --cflags level-zero libffi 2>/dev/null)
KRT_HOST_LIBS   := $(shell $(PKG_CONFIG) --libs libffi 2>/dev/null || echo -lffi)

$(KRT_HOST_OBJDIR)/%.o: driver/%.c $(KRT_HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KRT_HOST_CFLAGS) -c $< -o $@
