"""Every docstring example in the installed package runs and holds: one test per docstring that has
examples (a module, class or function whose docstring has none is no test)."""

import doctest
import importlib
import io
import pkgutil

import pytest

import appliance

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(appliance.__path__, "appliance.")
    if not info.name.endswith("__main__")
)


def docstrings_with_examples(names=MODULES) -> list[doctest.DocTest]:
    """What ``doctest.testmod`` runs in each module (its own objects' docstrings), those with examples."""
    finder = doctest.DocTestFinder()
    found = (test for name in names for test in finder.find(importlib.import_module(name)))
    return sorted((test for test in found if test.examples), key=lambda test: test.name)


@pytest.mark.parametrize("test", docstrings_with_examples(), ids=lambda test: test.name)
def test_docstring_examples(test):
    runner, said = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS), io.StringIO()
    result = runner.run(test, out=said.write)
    assert result.failed == 0, said.getvalue()
