"""Every docstring example in the installed package runs and holds."""

import doctest
import importlib
import pkgutil

import pytest

import appliance

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(appliance.__path__, "appliance.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
