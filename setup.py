"""The compiled kernels (canary_infer/engine/_kernels.pyx), built at install with Cython and the
machine's C compiler.  They are optional: where they cannot be built, the install goes on and
the engine runs its numpy programme instead (the same answers, slower); everything else is
declared in pyproject.toml."""

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: nothing to compile (the numpy programme runs)
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension("canary_infer.engine._kernels", ["canary_infer/engine/_kernels.pyx"], optional=True,
                   extra_compile_args=["-O3"])],
        language_level=3, quiet=True)

setup(ext_modules=ext_modules)
