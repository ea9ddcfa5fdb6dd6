"""The task contract: a task defined only here plugs in through one registry entry.

The toy task "toy-bars" draws an 8x8 grey image whose first ``k`` pixels (row-major) are white,
``k`` always even; its evaluator's one metric is "the count of white pixels is even". Its two
modules live only in ``sys.modules``: nothing in the package knows the task, so generating,
verifying, scoring and the CLI groups reaching it prove that the registry entry is enough.
"""
from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import click
import numpy as np
import pytest
from click.testing import CliRunner

from srm_bench.errors import SrmBenchError
from srm_bench.evaluation import MetricInfo, TaskEvaluator
from srm_bench.generation import TaskGenerator
from srm_bench.registry import TASKS, TaskSpec, resolve_entry_point
from srm_bench.seeding import item_rng

SIDE = 8


class ToyGenerator(TaskGenerator):
    task: ClassVar[str] = "toy-bars"
    task_version: ClassVar[int] = 1

    def make_config(self, split: str, seed: int, **options: Any) -> dict[str, Any]:
        return {"split": split, "seed": int(seed), "side": SIDE, "width": options.get("width") or 1}

    def default_count(self, split: str) -> int:
        return 12

    def generate_items(self, config: dict[str, Any], shared: dict[str, np.ndarray], start: int, stop: int) -> dict[str, np.ndarray]:
        k = [2 * int(item_rng(config["seed"], config["split"], i).integers(0, SIDE * SIDE // 2 + 1)) for i in range(start, stop)]
        return {"white": np.asarray(k, dtype=np.int64)}

    def render(self, config: dict[str, Any], shared: dict[str, np.ndarray], items: dict[str, np.ndarray]) -> np.ndarray:
        flat = np.arange(SIDE * SIDE)[None, :] < items["white"][:, None]
        return (flat.reshape(-1, SIDE, SIDE, 1) * 255).astype(np.uint8)


class ToyEvaluator(TaskEvaluator):
    task: ClassVar[str] = "toy-bars"
    name: ClassVar[str] = "toy-bars-parity"
    version: ClassVar[int] = 1
    metrics: ClassVar[dict[str, MetricInfo]] = {"even": MetricInfo("rate", True, "white pixels are even in number")}

    def score(self, images: np.ndarray, *, reference: Any, index: Any, device: str = "cpu", batch_size: int = 256,
              progress: bool = False) -> dict[str, np.ndarray]:
        white = (images[..., 0] > 127).reshape(len(images), -1).sum(axis=1)
        return {"even": white % 2 == 0, "white": white}


@click.command()
@click.option("--strategy", default="all-black")
def toy_oracle(strategy: str) -> None:
    """Toy oracle: says what it would do."""
    click.echo(f"toy oracle {strategy}")


@pytest.fixture
def toy_task(monkeypatch: pytest.MonkeyPatch) -> TaskSpec:
    gen = types.ModuleType("toy_bars_generator")
    gen.GENERATOR = ToyGenerator()  # type: ignore[attr-defined]
    gen.CLI_OPTIONS = [click.Option(["--width"], type=int, default=None, help="Bar width.")]  # type: ignore[attr-defined]
    ev = types.ModuleType("toy_bars_evaluator")
    ev.EVALUATOR = ToyEvaluator()  # type: ignore[attr-defined]
    ev.toy_oracle = toy_oracle  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, gen.__name__, gen)
    monkeypatch.setitem(sys.modules, ev.__name__, ev)
    spec = TaskSpec(name="toy-bars", generator=gen.__name__, evaluator=ev.__name__, splits=("train", "test"),
                    test_splits=("test",), image_shape=(SIDE, SIDE, 1), patch_size=2, conditional=False,
                    summary="Toy bars: an even number of white pixels", oracle=f"{ev.__name__}:toy_oracle")
    monkeypatch.setitem(TASKS._entries, spec.name, spec)
    return spec


def test_a_task_defined_only_in_a_test_generates_and_scores_through_the_registry(toy_task: TaskSpec, tmp_path: Path) -> None:
    from srm_bench.dataset import load_dataset
    from srm_bench.evaluation import evaluate
    from srm_bench.generation import generate

    data = generate("toy-bars", "test", n=10, out=tmp_path / "toy", progress=False)
    ds = load_dataset(data, verify=True)
    assert (ds.task, ds.split, ds.count) == ("toy-bars", "test", 10)
    result, path = evaluate(data, out=tmp_path / "results")
    assert path is not None and path.parent == tmp_path / "results" and "_path" not in result
    assert json.loads(path.read_text())["metrics"]["even"]["value"] == result["metrics"]["even"]["value"]
    assert result["task"] == "toy-bars" and result["evaluator"]["name"] == "toy-bars-parity"
    assert result["metrics"]["even"]["value"] == 1.0 and result["metrics"]["even"]["n"] == 10

    images = np.zeros((4, SIDE, SIDE, 1), np.uint8)
    images[:3, 0, 0] = 255  # three of four samples have one (odd) white pixel
    np.savez(tmp_path / "odd.npz", images)
    scored, nowhere = evaluate(tmp_path / "odd.npz", task="toy-bars", out=None)
    assert scored["metrics"]["even"]["value"] == 0.25 and nowhere is None


def test_the_cli_reaches_the_toy_task_and_its_entry_points(toy_task: TaskSpec, tmp_path: Path) -> None:
    from srm_bench.cli import cli

    runner = CliRunner()
    out = runner.invoke(cli, ["generate", "toy-bars", "-n", "6", "--width", "2", "-o", str(tmp_path / "toy")])
    assert out.exit_code == 0, out.output
    assert "6 toy-bars/test items" in out.output
    assert "toy-bars" in runner.invoke(cli, ["oracle", "--help"]).output
    assert runner.invoke(cli, ["oracle", "toy-bars", "--strategy", "x"]).output.strip() == "toy oracle x"
    # The toy task names no evaluator training: the group refuses it by name.
    refused = runner.invoke(cli, ["train-evaluator", "toy-bars"])
    assert refused.exit_code != 0 and "does not apply to task 'toy-bars'" in str(refused.exception or refused.output)


def test_presets_cover_only_the_paper_tasks(toy_task: TaskSpec) -> None:
    from srm_bench.baselines.presets import make_config

    with pytest.raises(SrmBenchError, match="no baseline presets for task 'toy-bars'"):
        make_config("toy-bars", "srm", "tiny")


def test_entry_points_resolve_or_fail_in_one_line() -> None:
    from srm_bench.registry import get_task

    assert resolve_entry_point("srm_bench.registry:get_task") is get_task
    for spec in (TASKS.get(t) for t in TASKS.names()):
        for ref in (spec.graph, spec.oracle, spec.train_evaluator, spec.answer_patches):
            if ref:
                assert callable(resolve_entry_point(ref)), ref
    with pytest.raises(SrmBenchError, match="not of the form"):
        resolve_entry_point("srm_bench.registry.get_task")
    with pytest.raises(SrmBenchError, match="has no attribute 'nope'"):
        resolve_entry_point("srm_bench.registry:nope")
