"""Builds krt._krt, the package's C extension, against libkrt.

libkrt is found through pkg-config (krt.pc). From a checkout after `make`, the tree's own build/lib/pkgconfig comes
first, so `pip install ./python` needs nothing else; set KRT_USE_PKG_CONFIG_PATH=1 to use only PKG_CONFIG_PATH and
the system's (an installed prefix: `make install PREFIX=/opt/krt`, then PKG_CONFIG_PATH=/opt/krt/lib/pkgconfig).
The extension is built against the stable ABI (abi3, Python 3.11 and later) with an rpath to libkrt's directory,
so it loads the libkrt (and so the drivers beside it) it was built against.
"""
import os
import shlex
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class build_ext_always(build_ext):
    """Compiles and links the extension on every build. pip builds in the source tree (python/build/), and setuptools
    would otherwise keep an extension newer than its sources: one linked, with its rpath, against the libkrt of an
    earlier install, whatever pkg-config says now. The eight files compile in a few seconds."""

    def finalize_options(self):
        super().finalize_options()
        self.force = True

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    env = dict(os.environ)
    tree = os.path.join(HERE, "..", "build", "lib", "pkgconfig")
    if not os.environ.get("KRT_USE_PKG_CONFIG_PATH") and os.path.exists(os.path.join(tree, "krt.pc")):
        env["PKG_CONFIG_PATH"] = os.pathsep.join(p for p in (os.path.abspath(tree), env.get("PKG_CONFIG_PATH")) if p)
    try:
        out = subprocess.run(["pkg-config", *args, "krt"], env=env, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            "krt-runtime: pkg-config cannot find krt (krt.pc). Run `make` in the krt checkout first, or point "
            f"PKG_CONFIG_PATH at an installed krt's lib/pkgconfig ({e})")
    return out.stdout.strip()


cflags = shlex.split(pkg_config("--cflags"))
libdir = pkg_config("--variable=libdir")
ext = Extension(
    "krt._krt",
    # Every C file of src/ (python.mk compiles the same set); kpy.h is what they share.
    sources=["src/" + f for f in ("_krt.c", "module.c", "kernel.c", "convert.c", "import.c", "array.c", "context.c",
                                  "registry.c")],
    depends=["src/kpy.h", "src/dlpack_abi.h"],
    define_macros=[("Py_LIMITED_API", "0x030B0000"), ("_GNU_SOURCE", "1")],
    py_limited_api=True,
    extra_compile_args=cflags + ["-std=c11", "-Wall", "-Wextra"],
    library_dirs=[libdir],
    libraries=["krt"],
    runtime_library_dirs=[libdir],
)

setup(ext_modules=[ext], cmdclass={"build_ext": build_ext_always}, options={"bdist_wheel": {"py_limited_api": "cp311"}})
