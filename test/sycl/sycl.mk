# make sycl-check: Intel's SYCL runtime, dpctl and dpnp.tensor from PyPI on ze_pocl (test/sycl/sycl-check.sh,
# docs/sycl.md). Not part of make test: it downloads about 280 MB of wheels the first time (kept in build/sycl/).
# SYCL_PYTHON: the Python the wheels are made for and run under (NumPy and pytest from Debian's python3-numpy and
# python3-pytest); ZE_LOADER_DIR: a Level Zero loader of 1.19 or newer (Unified Runtime's adapter needs one; Debian
# 12's is 1.8), by default ../shared/level-zero-loader beside the checkout where there is one; SYCL_MAX: the largest
# size checked.
SYCL_PYTHON   ?= /usr/bin/python3
ZE_LOADER_DIR ?= $(abspath $(wildcard ../shared/level-zero-loader))
SYCL_MAX      ?= 1000000
SYCL_DIR      := $(BUILD)/sycl

.PHONY: sycl-check sycl-spirv
sycl-check: all
	@if [ -z "$(ZE_LOADER_DIR)" ]; then \
	    echo "sycl-check: skipped: Unified Runtime needs a Level Zero loader >= 1.19: set ZE_LOADER_DIR to its folder"; \
	    exit 0; fi; \
	pyver=$$($(SYCL_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])') && \
	PYTHON=$(SYCL_PYTHON) sh test/sycl/get-wheels.sh $$pyver $(SYCL_DIR) >/dev/null && \
	PYTHON=$(SYCL_PYTHON) bash test/sycl/sycl-check.sh \
	    --wheels $(SYCL_DIR)/min-cp$$(echo $$pyver | tr -d .) --driver $(abspath $(LIBDIR))/libze_pocl.so \
	    --loader $(ZE_LOADER_DIR) --max $(SYCL_MAX) --site $(abspath $(SYCL_DIR))/site --out $(abspath $(SYCL_DIR))/check

# make sycl-spirv: every SPIR-V module of the PyPI dpctl and dpnp wheels built through krt on ze_pocl
# (tools/dpcpp_spirv.py); the counts and the refusals grouped by reason.
sycl-spirv: all
	@pyver=$$($(SYCL_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])') && \
	PYTHON=$(SYCL_PYTHON) sh test/sycl/get-wheels.sh $$pyver $(SYCL_DIR) >/dev/null && \
	rm -rf $(SYCL_DIR)/spv && \
	$(SYCL_PYTHON) tools/dpcpp_spirv.py extract --out $(SYCL_DIR)/spv \
	    $(SYCL_DIR)/pypi-cp$$(echo $$pyver | tr -d .)/dpctl-*.whl $(SYCL_DIR)/pypi-cp$$(echo $$pyver | tr -d .)/dpnp-*.whl && \
	ZE_ENABLE_ALT_DRIVERS=$(abspath $(LIBDIR))/libze_pocl.so PYTHONPATH=$(abspath $(BUILD))/python \
	    $(SYCL_PYTHON) tools/dpcpp_spirv.py build --jobs 2 --log $(SYCL_DIR)/spv.jsonl $(SYCL_DIR)/spv
