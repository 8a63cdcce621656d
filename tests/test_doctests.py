"""Every docstring example in `rewards` and `trainers` runs in `make test` (the stdlib doctest runner, one test per
module whose source has an example; ``__main__`` modules, which run the CLI on import, are left out). A module whose
import needs an optional dependency that is not installed (torch, transformers, ray, ...) is skipped with the missing
name; any other import error fails. Examples that depend on the working directory, the network or a GPU carry
``# doctest: +SKIP``."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import io
import pkgutil

import pytest

PACKAGES = ("rewards", "trainers")


def _modules() -> list[str]:
    """Modules of PACKAGES whose source has a ``>>>`` example (read as text: nothing heavy is imported here)."""
    names = []
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(spec.submodule_search_locations, prefix=f"{package}.")]
    found = []
    for name in sorted(names):
        origin = importlib.util.find_spec(name).origin
        if name.rsplit(".", 1)[-1] != "__main__" and origin and origin.endswith(".py"):
            with open(origin, encoding="utf-8") as handle:
                if ">>>" in handle.read():
                    found.append(name)
    return found


MODULES = _modules()


def test_the_modules_with_examples_are_found():
    assert len(MODULES) > 40
    assert {"rewards.checks.arithmetic", "rewards.scoring.score", "rewards.adapters.trl_rewards",
            "rewards.scoring.components"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] not in PACKAGES:
            pytest.skip(f"{name} needs {exc.name}, which is not installed")
        raise
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = io.StringIO()
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} has '>>>' in its source but no doctest example was found"
    for test in sorted(tests, key=lambda t: t.name):
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples of {name} failed:\n" \
                               f"{out.getvalue()}"
