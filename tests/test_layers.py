"""Layering: the four subsystems meet only in the core (srm_bench.*) and the task registry.

Every import statement of generators/, evaluators/, baselines/ and leaderboard/ (module level
and inside functions) is read from the source; an import of a sibling subsystem, or of the
command line (srm_bench.cli, srm_bench.commands, which import the subsystems), is refused.
A subsystem reaches a task's code through ``srm_bench.registry`` instead.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBSYSTEMS = ("generators", "evaluators", "baselines", "leaderboard")
CLI = ("srm_bench.cli", "srm_bench.commands")
# Known exceptions (none left: the training streams reach the generators through the registry).
KNOWN: set[tuple[str, str]] = set()


def imports_of(path: Path, package: str) -> set[str]:
    """Absolute names of the modules that ``path`` (a module of ``srm_bench.<package>``) imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . / from .. (the package is one level below srm_bench)
                base = ["srm_bench", package][: 3 - node.level] if node.level <= 2 else []
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def sideways(package: str, module: str) -> bool:
    others = tuple(f"srm_bench.{p}" for p in SUBSYSTEMS if p != package)
    return any(module == o or module.startswith(o + ".") for o in others + CLI)


@pytest.mark.parametrize("package", SUBSYSTEMS)
def test_no_subsystem_imports_a_sibling_or_the_cli(package: str) -> None:
    bad = []
    for path in sorted((ROOT / package).glob("*.py")):
        rel = f"{package}/{path.name}"
        for module in sorted(imports_of(path, package)):
            known = any(rel == f and (module == k or module.startswith(k + ".")) for f, k in KNOWN)
            if sideways(package, module) and not known:
                bad.append(f"{rel} imports {module}")
    assert not bad, "; ".join(bad)


def test_the_walk_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    src = tmp_path / "mod.py"
    src.write_text("from .counting import X\n\ndef f():\n    from srm_bench.cli import progress_enabled\n"
                   "    from ..generators import counting\n")
    found = imports_of(src, "evaluators")
    assert {"srm_bench.evaluators.counting", "srm_bench.cli", "srm_bench.generators"} <= found
    assert sideways("evaluators", "srm_bench.cli.progress_enabled")
    assert sideways("evaluators", "srm_bench.generators.counting")
    assert not sideways("evaluators", "srm_bench.evaluators.counting")
    assert not sideways("evaluators", "srm_bench.registry")
