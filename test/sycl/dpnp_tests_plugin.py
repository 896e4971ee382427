"""A pytest plugin for running dpnp's tests of dpnp.tensor (dpnp/tests/tensor) without the rest of dpnp, which needs
oneMKL: their conftest imports one fixture from dpnp/tests/conftest.py, which imports all of dpnp. This registers a
module of that name holding that fixture alone, as dpnp defines it (NumPy's invalid-operation warnings off).
test/sycl/sycl-check.sh loads it with `pytest -p dpnp_tests_plugin`."""
import sys
import types

import numpy
import pytest


@pytest.fixture
def suppress_invalid_numpy_warnings():
    old = numpy.seterr(invalid="ignore")
    yield
    numpy.seterr(**old)


_stand_in = types.ModuleType("dpnp.tests.conftest")
_stand_in.suppress_invalid_numpy_warnings = suppress_invalid_numpy_warnings
sys.modules["dpnp.tests.conftest"] = _stand_in
