"""``srm-bench leaderboard --site``: the static site, checked as files and in headless Chromium.

The structure tests need no browser. The browser tests drive Debian's ``chromium`` through
its ``chromedriver`` with selenium and skip, saying why, when either is missing.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from srm_bench.leaderboard.site import build_site
from srm_bench.leaderboard.store import checkout_results_dir, default_dirs, load_entries
from srm_bench.results import per_sample_path

PAGES = ("index.html", "sudoku.html", "even-pixels.html", "counting-polygons.html")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build_site(out, default_dirs())
    return out


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "srm_bench.cli", "leaderboard", *args], capture_output=True, text=True)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for k in ("href", "src"):
            if a.get(k) is not None:
                self.refs.append(a[k])


def test_every_page_exists_and_is_offline(site):
    for name in PAGES:
        text = (site / name).read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>")
        assert not re.search(r"(src|href)=\"(https?:)?//", text), f"{name} fetches something from the network"
    assert "Table 1: MNIST Sudoku" in (site / "sudoku.html").read_text()
    assert "Table 2: Even Pixels" in (site / "even-pixels.html").read_text()
    assert "Table 3: Counting Polygons / Stars" in (site / "counting-polygons.html").read_text()
    index = (site / "index.html").read_text()
    for name in PAGES[1:]:
        assert f'href="{name}"' in index


def test_links_resolve_inside_the_site(site):
    checked = 0
    for page in site.glob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for ref in parser.refs:
            if ref.startswith("data:"):
                continue
            parts = urlsplit(ref)
            assert not parts.scheme and not parts.netloc, ref
            if parts.path:
                target = (site / unquote(parts.path)).resolve()
                assert target.is_file() and target.is_relative_to(site.resolve()), f"{page.name}: {ref}"
                checked += 1
            if parts.fragment:
                assert parts.fragment in parser.ids, f"{page.name}: #{parts.fragment}"
    assert checked > 50


def test_every_committed_figure_appears_with_its_interval_and_its_files(site):
    """Each committed result: every metric the page's layout shows, as value [lo, hi], and its JSON and CSV."""
    entries = load_entries([checkout_results_dir()])
    assert len(entries) >= 13
    # Both Counting shapes share one page (Table 3's layout), the stars columns beside the polygons ones.
    pages = {"sudoku": "sudoku.html", "even-pixels": "even-pixels.html", "counting-polygons": "counting-polygons.html",
             "counting-stars": "counting-polygons.html"}
    counting = ("accuracy", "strict_accuracy", "consistency")
    shown = {"sudoku": ("l1", "accuracy"), "even-pixels": ("error", "accuracy", "strict_accuracy"),
             "counting-polygons": counting, "counting-stars": counting}
    for x in entries:
        res = x.result
        text = (site / pages[res["task"]]).read_text(encoding="utf-8")
        name = Path(x.path).name
        csv = per_sample_path(Path(x.path).parent, res["per_sample_file"])  # committed: the .gz
        assert csv is not None, name
        rows = [r for r in re.findall(r'<tr class="r".*?</tr>', text, re.S) if f'href="files/{name}"' in r]
        # A row links it in each table it fills (our Uniform t-bar SRM also fills Table 4), and
        # every such row links its CSV too; the first (the main table) shows every metric.
        assert rows, name
        assert all(f'href="files/{csv.name}"' in r for r in rows), name
        for metric in shown[res["task"]]:
            m = res["metrics"][metric]
            lo, hi = m["ci95"]
            figure = rf'(<b>)?{m["value"]:.3f}(</b>)? <span class="ci">\[{lo:.3f}, {hi:.3f}\]</span>'
            assert re.search(figure, rows[0]), (x.path, metric)
        assert (site / "files" / name).read_bytes() == Path(x.path).read_bytes()
        assert (site / "files" / csv.name).read_bytes() == csv.read_bytes()


def test_detail_card_has_every_knob(site):
    text = (site / "even-pixels.html").read_text(encoding="utf-8")
    res = json.loads((site / "files" / "even-pixels-test-srm-unet-predicted-overlap-20261126T024130Z.json").read_text())
    m = re.search(r'<section class="detail" id="(d-table2-\d+)">((?:(?!</section>).)*srm-unet-predicted-overlap.*?)</section>',
                  text, re.S)
    assert m, "no detail view for the SRM predicted-order row"
    card = m.group(2)
    for key in ("overlap", "order", "eta", "steps", "top_k", "weights"):
        assert f"<td>model.sampler.{key}</td><td>{res['model']['sampler'][key]}</td>" in card, key
    training = res["model"]["training"]
    assert f"<td>GPU-hours</td><td>{training['gpu_hours']}</td>" in card
    assert f"<td>checkpoint SHA-256</td><td>{training['checkpoint_sha256']}</td>" in card
    assert f"{training['steps']} steps × batch {training['batch']} = {training['steps'] * training['batch']}" in card
    assert f'href="#{m.group(1)}"' in text  # the row opens it


def test_plots_are_pngs_on_the_pages(site):
    for page, png in (("sudoku.html", "plots/sudoku-accuracy.png"), ("even-pixels.html", "plots/even-pixels-overlap.png")):
        assert f'src="{png}"' in (site / page).read_text()
        assert (site / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"Matplotlib" not in (site / png).read_bytes()  # fixed metadata: no library version


def test_same_results_same_bytes(site, tmp_path):
    again = tmp_path / "again"
    build_site(again, default_dirs())
    assert _tree(again) == _tree(site)
    build_site(again, default_dirs())  # an earlier site is replaced, nothing left beside it
    assert _tree(again) == _tree(site)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again"]


def test_failed_results_are_shown_as_such(tmp_path):
    src = checkout_results_dir() / "baselines" / "even-pixels-test-srm-unet-parallel-20261126T024040Z.json"
    res = json.loads(src.read_text())
    res["model"]["provenance"] = "user"
    res["model"]["name"] = "tampered-model"
    res["metrics"]["accuracy"]["value"] = 0.9  # the per-sample CSV says otherwise
    d = tmp_path / "res"
    d.mkdir()
    (d / "tampered.json").write_text(json.dumps(res))
    shutil.copy(per_sample_path(src.parent, res["per_sample_file"]), d)
    r = _cli("--site", str(tmp_path / "site"), "-r", str(d))
    assert r.returncode == 0, r.stderr
    assert "1 result(s) failed verification" in r.stdout
    text = (tmp_path / "site" / "even-pixels.html").read_text()
    row = re.search(r'<table id="failed">.*?</table>', text, re.S).group(0)
    assert "tampered.json" in row and "tampered-model" in row and "even-pixels / test" in row
    assert "metric &#x27;accuracy&#x27; = 0.9 lies outside its interval" in row
    assert "tampered-model" not in text.split('<table id="failed">')[0]  # never in the ranked tables


@pytest.fixture(scope="module")
def scored_site(tmp_path_factory) -> Path:
    """A site with one submitted Sudoku result whose samples are at hand (sample 1 has two swapped cells)."""
    import numpy as np

    from srm_bench.dataset import load_dataset
    from srm_bench.evaluation import evaluate
    from srm_bench.generation import generate
    from srm_bench.samples import write_samples

    tmp = tmp_path_factory.mktemp("scored")
    ds = load_dataset(generate("sudoku", "hard", n=4, seed=5, out=tmp / "ds"))
    images = ds.images().copy()
    a = images[1, 0:28, 0:28].copy()
    images[1, 0:28, 0:28] = images[1, 0:28, 112:140]
    images[1, 0:28, 112:140] = a
    samples = write_samples(tmp / "s.h5", images, task="sudoku", split="hard", dataset_sha256=ds.content_sha256,
                            index=np.arange(4), model={"name": "swap-test", "provenance": "user",
                                                       "sampler": {"name": "parallel"}})
    evaluate(samples, reference=tmp / "ds", out=tmp / "results")
    build_site(tmp / "site", default_dirs([tmp / "results"]), task="sudoku")
    return tmp / "site"


def test_detail_view_has_the_sample_grid_where_samples_are_at_hand(scored_site, site):
    import numpy as np
    from PIL import Image

    text = (scored_site / "sudoku.html").read_text(encoding="utf-8")
    grids = re.findall(r'<img src="(plots/samples-[^"]+\.png)" alt="samples of ([^"]+) with', text)
    assert [g[1] for g in grids] == ["swap-test"]  # the committed results' samples are not at hand: no grid
    arr = np.asarray(Image.open(scored_site / grids[0][0]).convert("RGB")).astype(int)
    assert ((arr[..., 0] > arr[..., 1] + 60) & (arr[..., 0] > arr[..., 2] + 60)).sum() > 500  # broken cells in red
    assert not list((site / "plots").glob("samples-*"))


@pytest.mark.parametrize("case", ["empty", "file-parent", "not-a-site"])
def test_bad_input_one_line_exit_1_nothing_left(tmp_path, case):
    args: list[str]
    if case == "empty":
        (tmp_path / "empty").mkdir()
        args = ["--site", str(tmp_path / "out" / "site"), "-r", str(tmp_path / "empty")]
    elif case == "file-parent":
        (tmp_path / "file").write_text("x")
        args = ["--site", str(tmp_path / "file" / "site")]
    else:
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "mine.txt").write_text("keep me")
        args = ["--site", str(tmp_path / "out")]
    before = _tree(tmp_path), sorted(str(p) for p in tmp_path.rglob("*"))
    r = _cli(*args)
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert (_tree(tmp_path), sorted(str(p) for p in tmp_path.rglob("*"))) == before


def test_unwritable_folder(tmp_path):
    """A folder the user may not write to: one line, exit 1, nothing created. As root (CI containers)
    file modes do not stop writes, so the folder is one under /sys, which nobody may create files in."""
    if os.geteuid() == 0:
        if not Path("/sys/kernel").is_dir():
            pytest.skip("running as root without /sys: no folder here is unwritable")
        parent = Path("/sys")
    else:
        parent = tmp_path / "ro"
        parent.mkdir()
        parent.chmod(0o555)
    before = sorted(p.name for p in parent.iterdir())
    try:
        r = _cli("--site", str(parent / "srm-bench-site"))
        assert r.returncode == 1 and r.stdout == "", r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "cannot write" in lines[0], r.stderr
        assert sorted(p.name for p in parent.iterdir()) == before
    finally:
        if parent != Path("/sys"):
            parent.chmod(0o755)


# ---------------------------------------------------------------------------- in a browser

def _chromium() -> tuple[str, str] | None:
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
    found = _chromium()
    if found is None:
        pytest.skip("no chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(options=options, service=Service(found[1]))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Screenshots go to a temporary folder, or to $SRM_BENCH_SCREENSHOTS where set (to look at them)."""
    where = os.environ.get("SRM_BENCH_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        return Path(where)
    return tmp_path_factory.mktemp("screenshots")


def _open(driver, path: Path):
    driver.get(path.resolve().as_uri())
    driver.get_log("browser")  # (reading clears it; the caller reads what this page logged)


def _rows(driver, table: str) -> list[str]:
    return [r.get_attribute("id") for r in driver.find_elements("css selector", f"#{table} tr.r") if r.is_displayed()]


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_without_console_errors(browser, site, shots, page):
    browser.get((site / page).resolve().as_uri())
    logs = browser.get_log("browser")
    assert [x for x in logs if x["level"] in ("SEVERE", "WARNING")] == []
    assert browser.find_element("tag name", "h1").is_displayed()
    for img in browser.find_elements("tag name", "img"):
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img), \
            img.get_attribute("src")
    browser.save_screenshot(str(shots / page.replace(".html", ".png")))


def test_clicking_a_header_sorts_the_rows(browser, site, shots):
    _open(browser, site / "even-pixels.html")
    header = next(h for h in browser.find_elements("css selector", "#table2 th.s") if h.text.startswith("Acc ↑"))
    col = int(header.get_attribute("data-c"))

    def values() -> list[float]:
        body = browser.find_element("css selector", '#table2 tbody[data-group="baseline"]')
        return [float(r.find_elements("tag name", "td")[col].get_attribute("data-v"))
                for r in body.find_elements("css selector", "tr.r")]

    before = values()
    assert len(before) >= 3 and before != sorted(before)
    header.click()
    assert values() == sorted(before) and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert values() == sorted(before, reverse=True)
    browser.save_screenshot(str(shots / "sorted.png"))
    assert [x for x in browser.get_log("browser") if x["level"] == "SEVERE"] == []


def test_filter_hides_rows(browser, site, shots):
    _open(browser, site / "sudoku.html")
    everything = _rows(browser, "table1")
    box = browser.find_element("id", "filter")
    box.send_keys("oracle")
    oracles = _rows(browser, "table1")
    assert 0 < len(oracles) < len(everything)
    for rid in oracles:
        assert "oracle" in browser.find_element("id", rid).text.lower()
    assert browser.find_element("id", "shown").text.endswith("row(s) shown")
    browser.save_screenshot(str(shots / "filtered.png"))
    box.clear()
    box.send_keys(" ")  # an input event with no words: every row back
    assert _rows(browser, "table1") == everything


def test_detail_view_opens(browser, site, shots):
    _open(browser, site / "even-pixels.html")
    row = next(r for r in browser.find_elements("css selector", "#table2 tr.r") if "srm-unet-predicted" in r.text)
    target = row.find_element("css selector", "a.dl").get_attribute("href").split("#", 1)[1]
    detail = browser.find_element("id", target)
    assert not detail.is_displayed()
    row.find_element("css selector", "a.dl").click()
    assert detail.is_displayed()
    assert "checkpoint SHA-256" in detail.text and "model.sampler.overlap" in detail.text
    browser.save_screenshot(str(shots / "detail.png"))
    detail.find_element("link text", "close").click()
    assert not detail.is_displayed()


def test_detail_view_shows_its_sample_grid(browser, scored_site, shots):
    _open(browser, scored_site / "sudoku.html")
    row = next(r for r in browser.find_elements("css selector", "tr.r") if "swap-test" in r.text)
    row.find_element("css selector", "a.dl").click()
    img = browser.find_element("css selector", "section.detail:target img")
    assert img.is_displayed() and browser.execute_script("return arguments[0].naturalWidth", img) > 300
    browser.save_screenshot(str(shots / "detail-samples.png"))
    assert [x for x in browser.get_log("browser") if x["level"] == "SEVERE"] == []
