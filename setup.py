"""Declares the compiled extension; all metadata lives in pyproject.toml.

Optimisation flags are chosen per compiler when the extension is built (the
compiler is only known then): -O3 for GCC and Clang, /O2 for MSVC.

Set DDZFAST_NATIVE=1 to build with -march=native on GCC and Clang (faster,
but the wheel then only runs on CPUs like the build machine's; MSVC has no
equivalent flag and ignores it). DDZFAST_CFLAGS adds extra compiler flags,
split on spaces (scripts/asan_check.sh uses it for an AddressSanitizer build).
"""
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def compile_args(compiler_type: str) -> list:
    """The optimisation flags for a compiler type of distutils ("unix",
    "mingw32", "msvc", ...)."""
    if compiler_type == "msvc":
        return ["/O2"]
    args = ["-O3"]
    if os.environ.get("DDZFAST_NATIVE") == "1":
        args.append("-march=native")
    return args


class BuildExt(build_ext):
    """build_ext with per-compiler optimisation flags."""

    def build_extensions(self):
        flags = compile_args(self.compiler.compiler_type)
        flags += os.environ.get("DDZFAST_CFLAGS", "").split()
        for ext in self.extensions:
            ext.extra_compile_args = flags + list(ext.extra_compile_args or [])
        super().build_extensions()


# The compiled modules, each from its .pyx (and the .pxi files it includes);
# they cimport each other through their .pxd headers, so an edit to one
# module's sources recompiles that module alone.
MODULES = ("_core", "_engine", "_solve", "_douzero")

extensions = [
    Extension(
        f"ddzfast.{name}",
        [f"src/ddzfast/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
