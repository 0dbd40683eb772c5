"""Declares the compiled extension; all metadata lives in pyproject.toml.

Set DDZFAST_NATIVE=1 to build with -march=native (faster, but the wheel then
only runs on CPUs like the build machine's).
"""
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

compile_args = ["-O3"]
if os.environ.get("DDZFAST_NATIVE") == "1":
    compile_args.append("-march=native")

extensions = [
    Extension(
        "ddzfast._core",
        ["src/ddzfast/_core.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
