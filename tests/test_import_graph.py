"""The import graph flows one way: built from the source (every import statement, module- and function-level).

Layers, highest first; a module may import from its own layer or a lower one, never a higher one:

- ``trainers`` > ``rewards`` (the scoring library never imports the trainers);
- inside ``rewards``: ``audit`` > ``adapters`` > ``scoring`` > ``verifiers`` > ``evidence`` > ``checks`` > ``parsing``
  (no exemption: the verifiers read the evidence record from below and import nothing from scoring);
- inside ``trainers``: ``cli`` (the ``rafs`` command and its subcommands) > ``experiments`` > ``training`` (recipes,
  ``rafs train``, the checkpoint screen, the demo) > ``serve`` (the reward server) > ``screen`` (the validity
  screen's statistics) > ``common`` (the config loader, the reader, the error type, the extras).

No module may import another module's private (``_underscore``) names: what one module needs from another is public
there. The graph comes from grimp (the engine behind import-linter); cycles are found with :mod:`graphlib`.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rewards", "trainers")
REWARDS_LAYERS = ("audit", "adapters", "scoring", "verifiers", "evidence", "checks", "parsing")
TRAINERS_LAYERS = ("cli", "experiments", "training", "serve", "screen", "common")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*PACKAGES, cache_dir=None, exclude_type_checking_imports=True)


def _cycle(graph) -> list[str] | None:
    sorter = graphlib.TopologicalSorter({m: graph.find_modules_directly_imported_by(m) for m in graph.modules})
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def test_no_import_cycle_anywhere(graph):
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_can_fail(graph):
    graph.add_import(importer="rewards.parsing.trace", imported="rewards.adapters.trl_rewards")
    try:
        assert _cycle(graph) is not None
    finally:
        graph.remove_import(importer="rewards.parsing.trace", imported="rewards.adapters.trl_rewards")


def test_rewards_layers_flow_one_way(graph):
    illegal = graph.find_illegal_dependencies_for_layers(layers=REWARDS_LAYERS, containers={"rewards"})
    assert not illegal, "; ".join(
        f"{d.importer} may not import {d.imported}: "
        + ", ".join(f"{sorted(r.heads)} -> {sorted(r.tails)}" for r in d.routes) for d in illegal)



def test_trainers_layers_flow_one_way(graph):
    illegal = graph.find_illegal_dependencies_for_layers(layers=TRAINERS_LAYERS, containers={"trainers"})
    assert not illegal, "; ".join(
        f"{d.importer} may not import {d.imported}: "
        + ", ".join(f"{sorted(r.heads)} -> {sorted(r.tails)}" for r in d.routes) for d in illegal)


def test_every_trainers_module_is_in_a_layer():
    """``trainers`` shows its parts: every module lives in one of the layers (the package's ``__init__`` and
    ``__main__`` aside)."""
    outside = sorted(m for m in grimp.build_graph("trainers", cache_dir=None).modules
                     if m not in ("trainers", "trainers.__main__") and m.split(".")[1] not in TRAINERS_LAYERS)
    assert outside == []


def test_rewards_never_imports_trainers(graph):
    offenders = sorted((i["importer"], i["imported"]) for i in graph.find_matching_direct_imports(
        import_expression="rewards.** -> trainers.**"))
    assert not offenders, offenders


def _private_imports() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in PACKAGES):
                    for alias in node.names:
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name} from "
                                         f"{'.' * node.level}{node.module or ''}")
    return found


def test_no_private_names_across_modules():
    assert not _private_imports(), "\n".join(_private_imports())


def test_verifiers_import_nothing_from_scoring(graph):
    """The verifiers read the evidence layer below them; nothing of scoring, at module or function level."""
    offenders = sorted((i["importer"], i["imported"]) for i in graph.find_matching_direct_imports(
        import_expression="rewards.verifiers.** -> rewards.scoring.**"))
    assert not offenders, offenders


def test_evidence_imports_nothing_above_it(graph):
    offenders = sorted((i["importer"], i["imported"]) for layer in ("scoring", "verifiers", "adapters", "audit")
                       for i in graph.find_matching_direct_imports(
                           import_expression=f"rewards.evidence.** -> rewards.{layer}.**"))
    assert not offenders, offenders
