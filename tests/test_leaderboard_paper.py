"""The paper's figures, as packaged in leaderboard/paper/, checked cell by cell against the .tex source."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from srm_bench.leaderboard.store import load_entries, merge_paper_duplicates, paper_dir
from srm_bench.results import validate_result

REPO = Path(__file__).resolve().parents[1]
TEX = REPO.parent / "shared" / "paper" / "spatial-reasoning-with-denoising-models.tex"
# Every results table of the paper (Table 5 holds hyperparameters, not results).
RESULT_TABLES = {
    "tab:sudoku_results": "Table 1", "tab:even_pixel_results": "Table 2", "tab:counting_polyon_results": "Table 3",
    "tab:barts_sampling_ablation": "Table 4", "tab:stochastic_ablation": "Table 6", "tab:sharpness_ablation": "Table 7",
    "tab:sudoku_arch_comparison": "Table 8", "tab:sudoku_schedule_comparison": "Table 9", "tab:sudoku-llm": "Table 10",
}
NUMBER = re.compile(r"^-?\d+\.\d+$")


def _unwrap(cell: str) -> str:
    """Strip the LaTeX decoration of one cell down to its text."""
    cell = re.sub(r"\\cellcolor\{[^}]*\}", "", cell)
    cell = re.sub(r"\\multirow(\[[^\]]*\])?\{[^}]*\}\{[^}]*\}\{((?:[^{}]|\{[^{}]*\})*)\}", r"\2", cell)
    for _ in range(3):
        cell = re.sub(r"\\(?:textbf|textcolor\{[^}]*\})\{((?:[^{}]|\{[^{}]*\})*)\}", r"\1", cell)
    cell = re.sub(r"\$[^$]*\$", "", cell)
    return " ".join(cell.split())


def parse_tables(tex: str) -> dict[str, dict[str, list[str]]]:
    """{label: {row key: cells}}; a row key joins the row's text cells with ' / ', prefixed by the
    block's group label (a multirow in the first column) when the row's own first cell is empty."""
    out: dict[str, dict[str, list[str]]] = {}
    for m in re.finditer(r"\\begin\{tabular\}(.*?)\\end\{tabular\}.*?\\label\{([^}]*)\}", tex, re.S):
        body, label = m.group(1), m.group(2)
        body = body.split(r"\midrule", 1)[1].split(r"\bottomrule")[0]
        rows: dict[str, list[str]] = {}
        for block in body.split(r"\midrule"):
            raw = [r for r in block.split(r"\\") if "&" in r]
            cells = [[_unwrap(c) for c in r.split("&")] for r in raw]
            group = next((c[0] for c in cells if c[0]), "")
            for c in cells:
                text = [x for x in c if x and not NUMBER.match(x) and x != "-"]
                if not c[0] and group:
                    text = [group] + text
                rows[" / ".join(text)] = c
        out[label] = rows
    return out


@pytest.fixture(scope="module")
def tex_tables() -> dict[str, dict[str, list[str]]]:
    if not TEX.is_file():
        pytest.skip(f"paper source not found at {TEX} (CI checks out ../shared beside the repository)")
    return parse_tables(TEX.read_text())


@pytest.fixture(scope="module")
def entries():
    return load_entries([paper_dir()])


def test_every_transcribed_figure_matches_the_tex(tex_tables, entries):
    checked = 0
    for e in entries:
        paper = e.result["config"]["paper"]
        rows = tex_tables[paper["label"]]
        assert RESULT_TABLES[paper["label"]] == paper["table"]
        for metric, (row, col) in paper["cells"].items():
            assert row in rows, f"{e.path}: row {row!r} not in {paper['label']} (rows: {list(rows)})"
            cell = rows[row][col]
            assert NUMBER.match(cell), f"{e.path}: cell {row!r}[{col}] is {cell!r}"
            assert e.result["metrics"][metric]["value"] == pytest.approx(float(cell), abs=1e-9), (e.path, metric)
            checked += 1
    assert checked == 321  # 54 + 8 + 24 + 14 + 20 + 18 + 84 + 84 + 15 numeric cells


def test_every_numeric_cell_of_every_results_table_is_transcribed(tex_tables, entries):
    covered = {(e.result["config"]["paper"]["label"], row, col)
               for e in entries for row, col in e.result["config"]["paper"]["cells"].values()}
    for label in RESULT_TABLES:
        for row, cells in tex_tables[label].items():
            for col, cell in enumerate(cells):
                if NUMBER.match(cell):
                    assert (label, row, col) in covered, f"{label} row {row!r} cell {col} ({cell}) is not transcribed"


def test_paper_entries_follow_the_schema(entries):
    assert len(entries) == 178
    for e in entries:
        res = validate_result(e.result, e.path)
        assert res["model"]["provenance"] == "paper"
        assert res["model"]["reference"].startswith(res["config"]["paper"]["table"])
        for name, m in res["metrics"].items():
            assert m["ci95"] is None
            assert m["higher_is_better"] == (name not in ("l1", "error"))
            if m["n"] == 500 and m["kind"] == "rate":
                # 500 samples per table in the paper: every rate is a whole number of samples.
                assert abs(m["value"] * 500 - round(m["value"] * 500)) < 1e-6, (e.path, name)


def test_repeated_figures_fold_but_conflicting_ones_stay_apart(entries):
    merged = merge_paper_duplicates(entries)
    hard = [e for e in merged if e.result["task"] == "sudoku" and e.result["split"] == "hard"
            and e.result["model"]["name"] == "SRM" and e.result["model"]["sampler"]["name"] == "parallel"
            and e.result["model"]["sampler"]["eta"] == 1.0 and e.result["model"]["training"]["arch"] == "unet"
            and e.result["model"]["training"]["noise_path"] == "rectified_flow"
            and e.result["model"]["training"]["tsampling"] == "uniform_tbar"]
    # Tables 1, 6, 8 and 9 report 0.010; Table 4 reports 0.008 for the same configuration.
    values = sorted(e.result["metrics"]["accuracy"]["value"] for e in hard)
    assert values == [0.008, 0.010]
    folded = next(e for e in hard if e.result["metrics"]["accuracy"]["value"] == 0.010)
    assert folded.tables == ["Table 1", "Table 6", "Table 8", "Table 9"]
    assert len(merged) < len(entries)
