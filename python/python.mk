# The Python package (python/): the extension krt/_krt.abi3.so built against build/lib's libkrt, with krt/*.py beside
# it in build/python/krt, so that PYTHONPATH=build/python imports the tree's package (make test does). The
# stable ABI (Py_LIMITED_API 3.11) makes one build serve every Python from 3.11 on; `pip install ./python` builds the
# same extension through setup.py (docs/python.md).
# PY_SYS: the interpreter the package is tested with: Debian's /usr/bin/python3, whose python3-numpy and
# python3-pytest `make deps` installs (a python3 earlier on PATH, such as a pyenv one, may lack them).
PY_SYS     ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
PY_INCLUDE := $(shell $(PY_SYS) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_DIR     := $(BUILD)/python/krt
PY_EXT     := $(PY_DIR)/_krt.abi3.so
PY_FILES   := $(patsubst python/krt/%,$(PY_DIR)/%,$(wildcard python/krt/*.py))
# The extension's C files (kpy.h is what they share), compiled together into the one .so.
PY_SRCS    := $(wildcard python/src/*.c)
PY_HDRS    := $(wildcard python/src/*.h)

.PHONY: python
python: $(PY_EXT) $(PY_FILES)
all: python

$(PY_EXT): $(PY_SRCS) $(PY_HDRS) runtime/include/krt.h $(KRT_SO)
	@mkdir -p $(dir $@)
	@test -f "$(PY_INCLUDE)/Python.h" || { echo "krt: Python.h not found for $(PY_SYS) (make deps installs python3-dev)" >&2; exit 1; }
	$(CC) -std=c11 $(WARN) -O2 -g -fPIC -shared -D_GNU_SOURCE -DPy_LIMITED_API=0x030B0000 -I$(PY_INCLUDE) \
	    -Iruntime/include $(PY_SRCS) -o $@ -L$(LIBDIR) -Wl,-rpath,$(abspath $(LIBDIR)) -lkrt

$(PY_DIR)/%.py: python/krt/%.py
	@mkdir -p $(dir $@)
	cp $< $@
