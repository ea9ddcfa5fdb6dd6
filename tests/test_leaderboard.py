"""The results store and the leaderboard: loading, never pooling, layouts, formats, bad files."""
from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from srm_bench import __version__
from srm_bench.errors import SrmBenchError
from srm_bench.leaderboard.store import (
    default_dirs, load_entries, load_frame, paper_dir, sampler_label, to_frame,
)
from srm_bench.leaderboard.tables import LAYOUTS, build_table, render
from srm_bench.results import SCHEMA, SCHEMA_VERSION, mean_metric, rate_metric, validate_result
from srm_bench.stats import wilson_interval

REPO = Path(__file__).resolve().parents[1]


def make_result(task: str = "sudoku", split: str = "hard", *, model: str = "srm-small", provenance: str = "user",
                sampler: dict | None = None, training: dict | None = None, correct: int = 250, n: int = 500,
                l1_mean: float | None = 2.0, evaluator_version: int = 1, weights_sha: str | None = None,
                dataset_sha: str = "ab" * 32,
                source: dict | None = None, samples_sha: str | None = None, created: str = "2026-01-01T00:00:00+00:00",
                metrics: dict | None = None) -> dict:
    """A result as ``srm-bench evaluate`` writes it, validated by the core's schema check."""
    flags = np.zeros(n, dtype=bool)
    flags[:correct] = True
    if metrics is None:
        metrics = {"accuracy": rate_metric(flags)}
        if l1_mean is not None:
            values = np.where(flags, 0.0, l1_mean * n / max(1, n - correct))
            metrics["l1"] = mean_metric(values, higher_is_better=False)
    res = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "task": task, "split": split,
        "dataset": {"task_version": 1, "seed": 0, "count": n, "content_sha256": dataset_sha, "source": source or {}},
        "evaluator": {"name": f"{task}-eval", "version": evaluator_version, "weights_sha256": weights_sha},
        "model": {"name": model, "provenance": provenance,
                  # as the baselines' `srm-bench sample` records them
                  "sampler": sampler or {"name": "sequential", "order": "predicted", "overlap": 0.0, "top_k": 1,
                                         "steps": 1000, "eta": 1.0, "seed": 0, "weights": "ema"},
                  "training": training or {"steps": 20000, "batch": 64, "arch": "unet", "preset": "small",
                                           "tsampling": "uniform_tbar", "sharpness": 1.0, "gpu_hours": 0.5}},
        "samples": {"path": "samples.h5", "sha256": samples_sha or f"{abs(hash((model, split, created, correct))):064x}",
                    "count": n},
        "metrics": metrics, "seed": 0, "config": {}, "per_sample_file": None,
        "srm_bench_version": __version__, "git_revision": None, "created": created,
    }
    return validate_result(res)


def write(d: Path, name: str, obj: object) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
    return p


def ours(table) -> list:
    return [r for r in table.rows if r.group != "paper"]


def test_sampler_labels_follow_the_paper():
    assert sampler_label({"name": "parallel"}) == "Parallel"
    assert sampler_label({"name": "sequential", "order": "graph", "overlap": 0}) == "Graph-based Order w/o Overlap"
    assert sampler_label({"name": "sequential", "order": "random", "overlap": 0.5}) == "Random Order + Overlap 0.5"
    assert sampler_label({"name": "sequential", "order": "predicted", "overlap": 0, "ramp": "reference"}) == \
        "Predicted Order w/o Overlap, reference ramps"
    assert sampler_label({"name": "sequential", "order": "predicted", "overlap": 0.1, "top_k": 2}) == \
        "Predicted Order + Overlap 0.1, top-2"
    assert sampler_label({}) == "-"


def test_results_beside_the_paper_with_bold_arrows_and_intervals(tmp_path):
    d = tmp_path / "res"
    write(d, "a.json", make_result(correct=400, l1_mean=1.0))
    write(d, "b.json", make_result(correct=300, l1_mean=3.0,
                                   sampler={"name": "sequential", "order": "random", "overlap": 0.0, "eta": 1.0, "steps": 1000}))
    frame = load_frame(default_dirs([d], checkout=False))
    text = render(frame, "md", task="sudoku")
    assert "Hard L1 (MLP reader) ↓" in text and "Hard Acc (MLP reader) ↑" in text
    lo, hi = wilson_interval(400, 500)
    assert f"**0.800 ± {(hi - lo) / 2:.3f}**" in text
    lo, hi = wilson_interval(300, 500)
    assert f"| 0.600 ± {(hi - lo) / 2:.3f} |" in text  # not the best: no bold
    table = build_table(frame, LAYOUTS["table1"])
    groups = [r.group for r in table.rows]
    assert groups.index("user") > groups.index("paper")  # paper figures in their own group, first
    best = [r for r in ours(table) if r.labels["sampler"] == "Predicted Order w/o Overlap"][0]
    hard_l1 = 4
    assert (table.columns[hard_l1].group, table.columns[hard_l1].metric) == ("Hard", "l1")
    assert best.cells[hard_l1].bold and best.cells[hard_l1].value == pytest.approx(1.0)
    # the paper's best of Table 1 (SRM predicted order w/o overlap, hard 0.516) is bold in its group too
    paper_best = [r for r in table.rows if r.group == "paper" and r.labels["sampler"] == "Predicted Order w/o Overlap"][0]
    assert paper_best.cells[-1].bold and paper_best.cells[-1].value == 0.516
    df = table.frame()
    assert len(df) == len(table.rows) and df[("Hard", "Acc (MLP reader)")].max() == 0.8
    assert list(df[("", "Group")].unique()) == ["Paper (transcribed)", "Submitted"]


def test_a_best_is_only_named_among_results_scored_alike(tmp_path):
    """Bold marks the best of figures that may be compared: results scored by other evaluator
    weights (a new evaluator version) have their own best, and never lose it to the other's."""
    d = tmp_path / "res"
    for name, correct, version, weights in (("v2-high", 400, 2, "aa" * 32), ("v2-low", 300, 2, "aa" * 32),
                                            ("v3-high", 450, 3, "bb" * 32), ("v3-low", 100, 3, "bb" * 32)):
        write(d, f"{name}.json", make_result(model=name, correct=correct, l1_mean=None, evaluator_version=version,
                                             weights_sha=weights))
    table = build_table(load_frame(default_dirs([d], checkout=False)), LAYOUTS["table1"])
    acc = [j for j, c in enumerate(table.columns) if (c.group, c.metric) == ("Hard", "accuracy")]
    bold = {r.labels["model"]: r.cells[acc[0]].bold for r in ours(table)}
    assert bold == {"v2-high": True, "v2-low": False, "v3-high": True, "v3-low": False}


def test_every_row_says_what_its_model_was_trained_on(tmp_path):
    """Images seen and GPU-hours from the result's training record; the paper's rows get
    steps x batch; results without a record get no budget."""
    d = tmp_path / "res"
    write(d, "a.json", make_result(model="srm-big", training={"steps": 33100, "images": 19763200, "gpu_hours": 0.9697,
                                                              "batch": 1024, "arch": "cellnet"}))
    write(d, "b.json", make_result(model="srm-old", training={"steps": 1000, "batch": 64}))
    write(d, "c.json", make_result(model="mine", training={"arch": "unet"}))
    table = build_table(load_frame(default_dirs([d], checkout=False)), LAYOUTS["table1"])
    budget = {r.labels["model"]: r.labels["training"] for r in table.rows}
    assert budget["srm-big"] == "19.8M img, 0.97 GPU-h" and budget["srm-old"] == "64,000 img" and budget["mine"] is None
    assert budget["SRM"] == "14.0M img"  # the paper's 250k steps of 56
    assert "training" in table.label_columns
    assert "| 19.8M img, 0.97 GPU-h |" in render(load_frame(default_dirs([d], checkout=False)), "md", task="sudoku")


def test_the_training_cell_says_where_the_weights_stood_in_their_lr_schedule(tmp_path):
    """Two checkpoints of one run read apart by their schedule: taken before its linear decay, during it, or
    after it (a cooled branch beside the constant-lr run it left, as with the Even Pixels DDPM)."""
    d = tmp_path / "res"
    cases = {"before": (42600, 100000, 10000), "during": (28300, 30500, 6000), "after": (50600, 50600, 7000),
             "flat": (124000, 124000, 0)}
    for name, (steps, end, cool) in cases.items():
        write(d, f"{name}.json", make_result(model=name, training={"steps": steps, "schedule_steps": end,
                                                                     "cooldown_steps": cool, "batch": 2048}))
    table = build_table(load_frame(default_dirs([d], checkout=False)), LAYOUTS["table1"])
    budget = {r.labels["model"]: r.labels["training"] for r in table.rows}
    assert budget["before"] == "87.2M img, lr constant"
    assert budget["during"] == "58.0M img, lr annealing, 3,800 of 6,000 steps"
    assert budget["after"] == "103.6M img, lr annealed over 7,000 steps"
    assert budget["flat"] == "254.0M img, lr constant"


@pytest.mark.parametrize("field,a,b,column", [
    ("evaluator_version", 1, 2, "evaluator"),
    ("n", 500, 100, "n"),
    ("dataset_sha", "ab" * 32, "cd" * 32, "dataset"),
    ("weights_sha", "12" * 32, "34" * 32, "evaluator"),
])
def test_incomparable_results_never_share_a_cell(tmp_path, field, a, b, column):
    d = tmp_path / "res"
    write(d, "a.json", make_result(**{field: a}, correct=50))
    write(d, "b.json", make_result(**{field: b}, correct=20))
    table = build_table(load_frame([d]), LAYOUTS["table1"])
    rows = ours(table)
    assert len(rows) == 2
    assert column in table.label_columns
    acc = sorted(r.cells[-1].value for r in rows)
    assert acc == sorted([50 / (500 if field != "n" else a), 20 / (500 if field != "n" else b)])


def test_background_sources_are_kept_apart(tmp_path):
    d = tmp_path / "res"
    for i, bg in enumerate(("embedded", "ffhq-128")):
        metrics = {"accuracy": rate_metric(np.arange(500) < 100 + i), "consistency": rate_metric(np.arange(500) < 400)}
        write(d, f"{i}.json", make_result("counting-polygons", "test", metrics=metrics, source={"backgrounds": bg},
                                          samples_sha=f"{i}" * 64))
    table = build_table(load_frame([d]), LAYOUTS["table3"])
    rows = ours(table)
    assert len(rows) == 2 and "source" in table.label_columns
    assert {r.labels["source"] for r in rows} == {'{"backgrounds": "embedded"}', '{"backgrounds": "ffhq-128"}'}
    md = render(load_frame([d], merge_paper=True), "md", task="counting-polygons")
    assert "backgrounds: embedded" in md


def test_repeated_runs_are_separate_rows_not_averages(tmp_path):
    d = tmp_path / "res"
    write(d, "a.json", make_result(correct=100, samples_sha="1" * 64, created="2026-01-01T00:00:00+00:00"))
    write(d, "b.json", make_result(correct=300, samples_sha="2" * 64, created="2026-01-02T00:00:00+00:00"))
    table = build_table(load_frame([d]), LAYOUTS["table1"])
    rows = ours(table)
    assert [r.labels["run"] for r in rows] == [1, 2]
    assert [r.cells[-1].value for r in rows] == [0.2, 0.6]
    assert "run" in table.label_columns


def test_repeated_runs_on_different_devices_say_where_they_were_drawn(tmp_path):
    """A CPU and a GPU draw different samples from one seed: the runs name their device, not a seed spread."""
    d = tmp_path / "res"
    base = {"name": "sequential", "order": "predicted", "overlap": 0.0, "top_k": 1, "steps": 1000, "eta": 1.0,
            "seed": 0, "weights": "ema"}
    for i, dev in enumerate(("cpu", "NVIDIA H200")):
        write(d, f"{i}.json", make_result(correct=100 + 50 * i, samples_sha=f"{i}" * 64, sampler={**base, "device": dev},
                                          created=f"2026-01-0{i + 1}T00:00:00+00:00"))
    rows = ours(build_table(load_frame([d]), LAYOUTS["table1"]))
    assert [r.labels["run"] for r in rows] == ["1 (cpu)", "2 (NVIDIA H200)"]
    assert "| 2 (NVIDIA H200) |" in render(load_frame([d]), "md", task="sudoku")
    # one device for both runs: plain run numbers, as before
    write(d, "1.json", make_result(correct=150, samples_sha="1" * 64, sampler={**base, "device": "cpu"},
                                   created="2026-01-02T00:00:00+00:00"))
    assert [r.labels["run"] for r in ours(build_table(load_frame([d]), LAYOUTS["table1"]))] == [1, 2]


def test_repeated_runs_drawn_with_other_seeds_say_which_seed(tmp_path):
    """A second seed of one configuration is a seed-to-seed spread: the Run column names the sampler's seed."""
    d = tmp_path / "res"
    base = {"name": "sequential", "order": "predicted", "overlap": 0.95, "top_k": 1, "steps": 1000, "eta": 1.0,
            "weights": "ema", "device": "NVIDIA H200"}
    for seed in (0, 1):
        write(d, f"{seed}.json", make_result(correct=170 + 20 * seed, samples_sha=f"{seed}" * 64,
                                             sampler={**base, "seed": seed}, created=f"2026-01-0{seed + 1}T00:00:00+00:00"))
    # a result that records no sampler seed leaves a gap in the frame's column (a float column then)
    write(d, "other.json", make_result(model="srm-other", sampler={k: v for k, v in base.items()}))
    table = build_table(load_frame([d]), LAYOUTS["table1"])
    rows = [r for r in ours(table) if r.labels["model"] == "srm-small"]
    assert [r.labels["run"] for r in rows] == ["1 (seed 0)", "2 (seed 1)"]
    acc = [c.metric for c in table.columns].index("accuracy")
    assert [r.cells[acc].value for r in rows] == [0.34, 0.38]  # each seed its own row, never pooled
    # another device as well: both said
    write(d, "1.json", make_result(correct=190, samples_sha="1" * 64, sampler={**base, "seed": 1, "device": "cpu"},
                                   created="2026-01-02T00:00:00+00:00"))
    rows = [r for r in ours(build_table(load_frame([d]), LAYOUTS["table1"])) if r.labels["model"] == "srm-small"]
    assert [r.labels["run"] for r in rows] == ["1 (NVIDIA H200, seed 0)", "2 (cpu, seed 1)"]


def test_two_checkpoints_of_one_recipe_are_two_models_told_apart_by_their_hash(tmp_path):
    """A learning-rate race: same preset, steps and batch, other weights. Not 'runs' of one model."""
    d = tmp_path / "res"
    base = {"steps": 20000, "batch": 64, "arch": "unet", "preset": "small", "tsampling": "uniform_tbar"}
    for i, (sha, c) in enumerate((("a1" * 32, 100), ("b2" * 32, 300))):
        write(d, f"{i}.json", make_result(correct=c, samples_sha=f"{i}" * 64, training={**base, "checkpoint_sha256": sha}))
    write(d, "2.json", make_result(split="easy", model="other", samples_sha="3" * 64,
                                   training={**base, "checkpoint_sha256": "c3" * 32}))
    table = build_table(load_frame([d]), LAYOUTS["table1"])
    rows = ours(table)
    assert [r.labels["checkpoint"] for r in rows if r.labels["model"] == "srm-small"] == ["a1" * 6, "b2" * 6]
    assert not any(r.labels.get("run") for r in rows) and "checkpoint" in table.label_columns
    assert "Weights sha256" in render(load_frame([d]), "md", task="sudoku")
    # one checkpoint per model: nothing to tell apart, no hash column
    (d / "1.json").unlink()
    assert "checkpoint" not in build_table(load_frame([d]), LAYOUTS["table1"]).label_columns


def test_t_sampling_layout_takes_our_ablation(tmp_path):
    d = tmp_path / "res"
    for ts, c in (("independent", 5), ("uniform_tbar", 120)):
        write(d, f"{ts}.json", make_result(correct=c, training={"steps": 1000, "tsampling": ts}))
    table = build_table(load_frame([d]), LAYOUTS["table4"])
    (row,) = ours(table)
    assert [c.value for c in row.cells] == [0.01, 0.24]



@pytest.mark.parametrize("changed, name, plain", [
    ({"sequential_mix": 0.5}, "uniform_tbar + 0.5 sequential", {"sequential_mix": 0.0}),
    ({"sequential_mix": 0.5, "sequential_overlap": 0.95}, "uniform_tbar + 0.5 sequential (overlap 0.95)", {}),
    ({"sequential_mix": 0.5, "sequential_overlap": 0.95, "sequential_tail": 0.25},
     "uniform_tbar + 0.5 sequential (overlap 0.95, last 0.25 of the run)", {}),
    ({"parallel_mix": 0.25}, "uniform_tbar + 0.25 parallel", {"parallel_mix": 0.0}),
    ({"completion_mix": 0.5, "completion_max": 1}, "uniform_tbar + 0.5 completion (1 noisy patch)", {"completion_mix": 0.0}),
    ({"zero_patch_prob": 0.5}, "uniform_tbar, zero patches in 0.5 of rows", {}),
])
def test_a_model_trained_with_our_deviation_is_named_and_not_the_uniform_tbar_column(tmp_path, changed, name, plain):
    """`--sequential-mix` and `--zero-patch-prob` are our deviations: the frame names them, and Table 4
    does not count them as Uniform t-bar (a run at the default is counted)."""
    d = tmp_path / "res"
    write(d, "changed.json", make_result(correct=300, training={"steps": 1000, "tsampling": "uniform_tbar", **changed}))
    assert list(load_frame([d])["tsampling"]) == [name]
    assert ours(build_table(load_frame([d]), LAYOUTS["table4"])) == []
    # one model with one rule: the t-sampling column is shown anyway, so the deviation is seen beside the paper's rows
    assert "tsampling" in build_table(load_frame([d]), LAYOUTS["table1"]).label_columns
    alone = tmp_path / "plain-only"
    write(alone, "plain.json", make_result(correct=120, training={"steps": 1000, "tsampling": "uniform_tbar", **plain}))
    assert "tsampling" not in build_table(load_frame([alone]), LAYOUTS["table1"]).label_columns
    write(d, "plain.json", make_result(correct=120, training={"steps": 1000, "tsampling": "uniform_tbar", **plain}))
    (row,) = ours(build_table(load_frame([d]), LAYOUTS["table4"]))
    assert [c.value for c in row.cells if c.value is not None] == [0.24]


def test_bad_files_get_one_warning_each_and_are_skipped(tmp_path, caplog):
    d = tmp_path / "res"
    good = make_result()
    write(d, "good.json", good)
    bad = {
        "truncated.json": '{"schema": "srm-bench/result", ',
        "list.json": [1, 2, 3],
        "foreign.json": {"schema": "something-else", "value": 1},
        "future.json": {**good, "schema_version": SCHEMA_VERSION + 1},
        "nometrics.json": {k: v for k, v in good.items() if k != "metrics"},
        "badprov.json": {**good, "model": {**good["model"], "provenance": "rumour"}},
        "zz-duplicate.json": good,
        "set.json": {"schema": "srm-bench/result-set", "results": "not a list"},
        "sampler-string.json": {**good, "model": {**good["model"], "sampler": "ddpm"}},
        "clash.json": {**good, "metrics": {"model": good["metrics"]["accuracy"]}},
        "paper-string.json": {**good, "config": {"paper": "Table 1"}},
    }
    for name, obj in bad.items():
        write(d, name, obj)
    (d / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (d / "notes.txt").write_text("ignored: not .json")
    with caplog.at_level(logging.WARNING, logger="srm_bench.leaderboard.store"):
        entries = load_entries([d])
    assert [Path(e.path).name for e in entries] == ["good.json"]
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == len(bad) + 1
    for name in [*bad, "binary.json"]:
        assert sum(name in line for line in lines) == 1, name
    assert any("newer than this srm-bench reads" in line for line in lines)
    assert any("duplicate of" in line for line in lines)


@pytest.mark.parametrize("path,value", [
    (("dataset", "content_sha256"), 12345),
    (("evaluator", "name"), ["a", "list"]),
    (("model", "training", "steps"), 10**30),
    (("model", "sampler", "steps"), {"nested": 1}),
    (("samples", "count"), "many"),
    (("created",), 5),
])
def test_odd_field_values_never_crash_the_leaderboard(tmp_path, path, value):
    """Cases a fuzzer of malformed results found: the table renders in every format, and both the
    odd result (accuracy 0.5) and a well-formed one beside it (0.2) keep their row and figure."""
    res = make_result()
    obj = res
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value
    d = tmp_path / "res"
    write(d, "odd.json", res)
    write(d, "fine.json", make_result(correct=100, samples_sha="f" * 64))
    frame = load_frame(default_dirs([d], checkout=False))
    rows = [r for r in json.loads(render(frame, "json")) if r["provenance"] == "user"]
    assert sorted((r["model"], r["accuracy"]) for r in rows) == [("srm-small", 0.2), ("srm-small", 0.5)]
    for fmt in ("md", "latex", "html"):
        table = render(frame, fmt)
        assert "0.500" in table and "0.200" in table, fmt
    assert render(frame, "csv").count("srm-small") == 2


def test_cli_warns_per_bad_file_without_traceback(tmp_path):
    d = tmp_path / "res"
    write(d, "good.json", make_result())
    write(d, "broken.json", "{nope")
    out = subprocess.run([sys.executable, "-m", "srm_bench.cli", "leaderboard", "--results", str(d), "--task", "sudoku",
                          "--no-committed"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    warnings = [line for line in out.stderr.splitlines() if "broken.json" in line]
    assert len(warnings) == 1 and "not valid JSON" in warnings[0]
    assert "srm-small" in out.stdout and "Table 1: MNIST Sudoku" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "srm_bench.cli", "leaderboard", "--results", str(tmp_path / "missing")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "no such results directory" in bad.stderr and "Traceback" not in bad.stderr


def test_shipped_keeps_the_paper_yours_and_the_shipped_models_rows(tmp_path):
    """--shipped: of the committed baselines only the rows whose weights are a shipped model's or its recorded
    partner's stay (here the shipped Even Pixels SRM's and its DDPM partner's, not the runs they replaced); the
    paper's figures and a user's result stay too."""
    from srm_bench.baselines.pretrained import catalogue

    d = tmp_path / "res"
    write(d, "mine.json", make_result("even-pixels", "test", sampler={"name": "parallel", "eta": 1.0, "steps": 1000}))
    cli = [sys.executable, "-m", "srm_bench.cli", "leaderboard", "--task", "even-pixels", "--format", "csv",
           "--results", str(d)]
    every = pd.read_csv(io.StringIO(subprocess.run(cli, capture_output=True, text=True, timeout=120).stdout))
    out = subprocess.run(cli + ["--shipped"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    kept = pd.read_csv(io.StringIO(out.stdout))
    entry = catalogue()["srm-even-pixels"]
    pin = entry["sha256"][:12]
    pins = {pin} | {p["sha256"][:12] for p in entry.get("partners", [])}
    ours = kept[kept["provenance"] == "baseline"]
    assert len(pins) == 2 and len(ours[ours["checkpoint"] == pin]) > 0 and set(ours["checkpoint"]) == pins
    assert len(every[(every["provenance"] == "baseline") & ~every["checkpoint"].isin(pins)]) > 0  # dropped by the flag
    assert len(kept[kept["provenance"] == "paper"]) == len(every[every["provenance"] == "paper"]) > 0
    assert "srm-small" in set(kept["model"])  # the user's result
    bad = subprocess.run(cli + ["--shipped", "--verify"], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "--shipped" in bad.stderr


def test_shipped_keeps_a_partners_rows(monkeypatch):
    """A partner recorded beside a shipped model (a DDPM whose weights do not ship) keeps its rows under --shipped;
    other runs of ours go."""
    import leaderboard.store as store
    import srm_bench.registry as registry

    catalogue = {"srm-x": {"sha256": "a" * 64, "partners": [{"sha256": "b" * 64}]}}
    monkeypatch.setattr(registry, "shipped_models", lambda: catalogue)
    frame = pd.DataFrame({"provenance": ["baseline"] * 3 + ["paper"], "checkpoint": ["a" * 12, "b" * 12, "c" * 12, None]})
    assert list(store.shipped_only(frame)["provenance"]) == ["baseline", "baseline", "paper"]
    assert list(store.shipped_only(frame)["checkpoint"][:2]) == ["a" * 12, "b" * 12]


def test_machine_readable_and_typeset_formats(tmp_path):
    d = tmp_path / "res"
    write(d, "a.json", make_result(correct=400))
    write(d, "b.json", make_result(correct=100, sampler={"name": "parallel", "eta": 1.0, "steps": 1000}))
    frame = load_frame(default_dirs([d], checkout=False))
    csv = pd.read_csv(io.StringIO(render(frame, "csv")))
    assert len(csv) == len(frame) and {"accuracy", "accuracy_lo", "accuracy_hi", "evaluator", "n"} <= set(csv.columns)
    mine = csv[csv["model"] == "srm-small"].iloc[0]
    assert mine["accuracy"] == 0.8 and mine["accuracy_lo"] == pytest.approx(wilson_interval(400, 500)[0])
    records = json.loads(render(frame, "json", task="sudoku"))
    assert {r["task"] for r in records} == {"sudoku"}
    latex = render(frame, "latex", task="sudoku")
    assert r"\toprule" in latex and r"\textbf{0.800 $\pm$" in latex and r"L1 (MLP reader)$\downarrow$" in latex
    assert r"\multicolumn{2}{c}{Hard}" in latex
    page = render(frame, "html")
    # Tables 1, 4, the text track (the paper's LLM rows), 2 and 3
    assert page.count("<table>") == 5 and "<b>0.800 ±" in page and "Paper (transcribed)" in page
    with pytest.raises(SrmBenchError, match="unknown format"):
        render(frame, "xlsx")
    with pytest.raises(SrmBenchError, match="unknown task 'sudok'"):
        render(frame, "md", task="sudok")


def test_empty_store_says_what_to_do():
    with pytest.raises(SrmBenchError, match="no results to show"):
        render(to_frame([]), "md")


def test_leaderboard_md_is_in_sync_with_the_results():
    """LEADERBOARD.md is rebuilt with `srm-bench leaderboard --appendix -o leaderboard/LEADERBOARD.md`."""
    committed = (REPO / "leaderboard" / "LEADERBOARD.md").read_text(encoding="utf-8")
    dirs = [paper_dir(), REPO / "leaderboard" / "results"]
    expected = render(load_frame(dirs), "md", appendix=True)
    assert committed == expected, ("leaderboard/LEADERBOARD.md is stale; regenerate it with "
                                   "'srm-bench leaderboard --appendix -o leaderboard/LEADERBOARD.md'")


def test_counting_rows_that_draw_one_object_are_marked_and_never_best(tmp_path):
    """A Counting result whose samples show one object count in half of them or more gets the
    evaluator's warning as a mark on its accuracies (never bold), read from its per-sample CSV."""
    import hashlib

    d = tmp_path / "res"
    n = 500
    spread = np.tile(np.arange(1, 10), 56)[:n]
    cases = {"collapsed": (np.where(np.arange(n) < 400, 1, spread), 100, True),  # 80% one object, more accurate
             "spread": (spread, 50, True), "no-objects-column": (spread, 75, False)}
    for i, (name, (objects, correct, with_objects)) in enumerate(cases.items()):
        acc, con = np.arange(n) < correct, np.arange(n) < 300
        cols = {"sample": np.arange(n), "accuracy": acc, "consistency": con}
        if with_objects:
            cols["objects"] = objects
        data = pd.DataFrame(cols).to_csv(index=False).encode()
        (d / f"{name}.per_sample.csv").parent.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.per_sample.csv").write_bytes(data)
        res = make_result("counting-polygons", "test", model=name, samples_sha=f"{i}" * 64,
                          metrics={"accuracy": rate_metric(acc), "consistency": rate_metric(con)})
        res["per_sample_file"], res["per_sample_sha256"] = f"{name}.per_sample.csv", hashlib.sha256(data).hexdigest()
        write(d, f"{name}.json", res)
    table = build_table(load_frame([d]), LAYOUTS["table3"])
    rows = {r.labels["model"]: r for r in ours(table)}
    col = [c.metric for c in table.columns].index("accuracy")
    assert rows["collapsed"].cells[col].warned and not rows["collapsed"].cells[col].bold
    assert not rows["spread"].cells[col].warned and not rows["no-objects-column"].cells[col].warned
    assert rows["no-objects-column"].cells[col].bold  # 0.150: the best of the two unmarked rows
    con = [c.metric for c in table.columns].index("consistency")
    assert not rows["collapsed"].cells[con].warned  # consistency is not what the rule's blind spot inflates
    md = render(load_frame([d]), "md", task="counting-polygons")
    assert "0.200 ± 0.035 ‡" in md and "‡: srm-bench evaluate warned" in md
    assert r"0.200 $\pm$ 0.035 $^\ddagger$" in render(load_frame([d]), "latex", task="counting-polygons")
