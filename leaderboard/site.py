"""``srm-bench leaderboard --site DIR``: the leaderboard as a self-contained static site.

One page per task in the paper's table layouts (``tables.py``), every figure with its 95%
interval, row groups by provenance, sortable columns and a row filter (a few lines of plain
JavaScript in the page), a detail view per row (model and sampler card: every knob, the
training budget, GPU-hours, checkpoint hash), links to each result JSON and per-sample CSV
(copied into the site), the figures of ``plots.py`` as PNGs, and every result that failed
verification listed as such. No server, no CDN, nothing fetched at view time: the folder
opens from the file system and from any static host.

The output is deterministic (no timestamps, everything sorted, fixed PNG metadata): the same
results give the same bytes, so the folder can be committed and diffed. It is built in a
temporary folder beside DIR and renamed into place; a failure leaves nothing behind.
"""
from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from srm_bench.errors import SrmBenchError
from srm_bench.results import per_sample_path

from .store import Entry, _files, _read_json, load_entries, merge_paper_duplicates, to_frame
from .tables import (DAGGER, DOUBLE_DAGGER, GROUPS, Cell, Table, _arrow, _column_groups, _headers, _label, build_table,
                     layouts_for)

GENERATOR = "srm-bench leaderboard --site"
TASK_TITLES = {"sudoku": "MNIST Sudoku", "even-pixels": "Even Pixels", "counting-polygons": "Counting Polygons / Stars",
               "counting-stars": "Counting Stars"}
e = html.escape

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:110em}
nav a{margin-right:1em}
table{border-collapse:collapse;margin-bottom:1em;font-size:14px}
td,th{padding:3px 8px;border-bottom:1px solid #ddd;vertical-align:top}
th.s{cursor:pointer;user-select:none;white-space:nowrap}
th.s:hover{background:#eef}
th[aria-sort=ascending]::after{content:" \\25B2"}
th[aria-sort=descending]::after{content:" \\25BC"}
td.v{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.v .ci{color:#666;font-size:12px}
tr.g td{background:#eee;font-weight:bold}
tr.r:hover{background:#f7f7ff}
.fail{background:#fdd}
.detail{display:none;border:2px solid #88a;padding:0.5em 1em;margin:1em 0;background:#fafaff}
.detail:target{display:block}
.detail table td:first-child{font-family:monospace;white-space:nowrap}
.grid img{max-width:100%}
.plots img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}
small{color:#555}
.nw{white-space:nowrap}
"""

# Sort by a column (click its header; click again to reverse) within each row group, and
# hide the rows whose text does not contain every word typed in the filter box.
JS = """
(function(){
  function key(td){var v=td.getAttribute('data-v');if(v===null)v=td.textContent;
    var x=parseFloat(v);return isNaN(x)||v===''?[1,v.toLowerCase()]:[0,x];}
  function cmp(a,b){if(a[0]!==b[0])return a[0]-b[0];return a[1]<b[1]?-1:a[1]>b[1]?1:0;}
  document.querySelectorAll('table.lb').forEach(function(t){
    t.querySelectorAll('th.s').forEach(function(th){
      th.addEventListener('click',function(){
        var c=+th.getAttribute('data-c'),d=th.getAttribute('aria-sort')==='ascending'?-1:1;
        t.querySelectorAll('th.s').forEach(function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',d>0?'ascending':'descending');
        t.querySelectorAll('tbody').forEach(function(b){
          var rows=Array.prototype.slice.call(b.querySelectorAll('tr.r'));
          rows.sort(function(x,y){return d*cmp(key(x.cells[c]),key(y.cells[c]))||(+x.getAttribute('data-i'))-(+y.getAttribute('data-i'));});
          rows.forEach(function(r){b.appendChild(r);});
        });
      });
    });
  });
  var f=document.getElementById('filter');
  if(f){f.addEventListener('input',function(){
    var words=f.value.toLowerCase().split(/\\s+/).filter(Boolean),shown=0;
    document.querySelectorAll('tr.r').forEach(function(r){
      var text=(r.getAttribute('data-f')+' '+r.textContent).toLowerCase();
      var ok=words.every(function(w){return text.indexOf(w)>=0;});
      r.style.display=ok?'':'none';if(ok)shown++;
    });
    document.getElementById('shown').textContent=shown+' row(s) shown';
  });}
})();
"""


@dataclass
class Failed:
    """A result file that failed verification: shown, never silently dropped."""

    name: str
    reason: str
    task: str | None
    split: str | None
    model: str | None


@dataclass
class Page:
    slug: str
    title: str
    tasks: list[str]
    tables: list[Table] = field(default_factory=list)
    plots: list[tuple[str, str]] = field(default_factory=list)  # (file, caption)
    failed: list[Failed] = field(default_factory=list)


def _page(title: str, body: list[str], pages: list[Page]) -> str:
    nav = "".join(f'<a href="{p.slug}.html">{e(p.title)}</a>' for p in pages)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta name="generator" content="{GENERATOR}">', '<link rel="icon" href="data:,">',
        f"<title>{e(title)} · srm-bench leaderboard</title>", f"<style>{CSS}</style></head><body>",
        f'<nav><a href="index.html"><b>srm-bench leaderboard</b></a>{nav}</nav>', *body,
        f"<script>{JS}</script>", "</body></html>", ""])


def _fmt_cell(cell: Cell | None) -> tuple[str, str]:
    """(data-v, inner HTML) of a figure: the value and its 95% interval."""
    if cell is None:
        return "", "–"
    text = f"{cell.value:.3f}"
    if cell.bold:
        text = f"<b>{text}</b>"
    if cell.lo is not None and cell.hi is not None:
        text += f' <span class="ci">[{cell.lo:.3f}, {cell.hi:.3f}]</span>'
    else:
        text += ' <span class="ci">(no interval)</span>'
    if cell.flagged:
        text += f" {DAGGER}"
    if cell.warned:
        text += f" {DOUBLE_DAGGER}"
    return repr(float(cell.value)), text


def _flat(obj: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(obj, Mapping):
        out: list[tuple[str, Any]] = []
        for k in sorted(obj, key=str):
            out.extend(_flat(obj[k], f"{prefix}.{k}" if prefix else str(k)))
        return out or [(prefix, "{}")]
    return [(prefix, obj)]


def _value(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, (list, dict)):
        return json.dumps(v, sort_keys=True)
    return str(v)


class _Files:
    """Copies result JSONs and per-sample CSVs into ``files/`` under stable, unique names."""

    def __init__(self, root: Path):
        self.root = root / "files"
        self.root.mkdir()
        self.names: dict[str, str] = {}  # source path -> site name
        self.taken: dict[str, str] = {}  # site name -> source path

    def add(self, src: Path) -> str:
        key = str(src.resolve())
        if key in self.names:
            return self.names[key]
        data = src.read_bytes()
        name = src.name
        if name in self.taken:
            name = f"{hashlib.sha256(data).hexdigest()[:10]}-{src.name}"
        (self.root / name).write_bytes(data)
        self.names[key] = f"files/{name}"
        self.taken[name] = key
        return self.names[key]


def _source(name: str) -> tuple[Path, int | None]:
    """The file of an entry name (``path`` or ``path#i`` for an item of a result set)."""
    if "#" in name:
        path, _, item = name.rpartition("#")
        if item.isdigit():
            return Path(path), int(item)
    return Path(name), None


def _links(entry: Entry, files: _Files) -> list[tuple[str, str]]:
    """(label, href) of the files behind a result: its JSON (or result set) and per-sample CSV."""
    path, item = _source(entry.path)
    out = [("result set JSON" if item is not None else "result JSON", files.add(path))]
    csv = entry.result.get("per_sample_file")
    found = per_sample_path(path.parent, csv) if isinstance(csv, str) else None
    if found is not None:
        out.append(("per-sample CSV" + (" (gzip)" if found.name != csv else ""), files.add(found)))
    return out


def _sample_grid(entry: Entry, root: Path, stem: str) -> str | None:
    """A grid of the first samples with their verdicts (``plots.plot_samples``) where the samples
    file the result scored is at hand (its recorded path, or beside the JSON); None otherwise."""
    from .plots import plot_samples

    res = entry.result
    path, item = _source(entry.path)
    recorded = (res.get("samples") or {}).get("path")
    if item is not None or res["model"]["provenance"] == "paper" or not isinstance(recorded, str) or not recorded:
        return None
    if not (Path(recorded).is_file() or (path.parent / Path(recorded).name).is_file()):
        return None
    out = root / "plots" / f"samples-{stem}.png"
    out.parent.mkdir(exist_ok=True)
    try:
        plot_samples(path, out, count=8, columns=4)
    except SrmBenchError:
        return None  # e.g. samples that are not the ones scored (hash differs), or a text-track result
    return f"plots/{out.name}"


def _card(entry: Entry, links: list[tuple[str, str]], grid: str | None = None) -> list[str]:
    """The model and sampler card of one result: budget first, then every field it records."""
    res = entry.result
    model = res["model"]
    training = model.get("training") or {}
    steps, batch = training.get("steps"), training.get("batch")
    budget = "–"
    if isinstance(steps, int) and isinstance(batch, int):
        budget = f"{steps} steps × batch {batch} = {steps * batch} training images"
    elif steps is not None:
        budget = f"{steps} steps"
    head = [("task / split", f"{res['task']} / {res['split']}"), ("provenance", model["provenance"]),
            ("training budget", budget), ("GPU-hours", _value(training.get("gpu_hours"))),
            ("checkpoint SHA-256", _value(training.get("checkpoint_sha256")))]
    body = [f"<h3>{e(res['task'])} / {e(res['split'])} · {e(str(model['name']))}</h3>",
            "<p>" + " · ".join(f'<a href="{e(h)}">{e(t)}</a>' for t, h in links) + "</p>"]
    if grid is not None:
        body.append(f'<figure class="grid"><img src="{e(grid)}" alt="samples of {e(str(model["name"]))} with their verdicts">'
                    "<figcaption><small>The first samples, each titled with its verdict from the per-sample CSV "
                    "(Sudoku: cells that break a rule framed in red).</small></figcaption></figure>")
    body.append("<table>")
    body += [f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in head]
    metrics = res.get("metrics") or {}
    for k in sorted(metrics):
        m = metrics[k]
        ci = m.get("ci95")
        text = f"{float(m['value']):.6g}" + (f" [{float(ci[0]):.6g}, {float(ci[1]):.6g}]" if ci else " (no interval)")
        body.append(f"<tr><td>metrics.{e(k)}</td><td>{e(text)} (n = {e(_value(m.get('n')))})</td></tr>")
    for section in ("model", "evaluator", "dataset", "samples", "config"):
        for k, v in _flat(res.get(section) or {}, section):
            body.append(f"<tr><td>{e(k)}</td><td>{e(_value(v))}</td></tr>")
    for k in ("seed", "created", "srm_bench_version", "git_revision", "per_sample_sha256"):
        if k in res:
            body.append(f"<tr><td>{e(k)}</td><td>{e(_value(res.get(k)))}</td></tr>")
    body.append("</table>")
    return body


def _table_html(t: Table, frame: pd.DataFrame, tid: str, by_name: Mapping[str, Entry], files: _Files,
                details: list[str]) -> list[str]:
    out = [f"<h2>{e(t.layout.title)}</h2>"]
    if not t.rows:
        return out + ["<p>No results for this table.</p>"]
    nlab = len(t.label_columns)
    out.append(f'<table class="lb" id="{tid}"><thead>')
    if any(c.group for c in t.columns):
        out.append(f'<tr><th colspan="{nlab}"></th>' + "".join(
            f'<th colspan="{len(g)}">{e(g[0].group)}</th>' for g in _column_groups(t.columns)) + "<th></th></tr>")
    heads = [e(h) for h in _headers(t)] + [f"{e(c.label)} {_arrow(frame, c.metric)}" for c in t.columns]
    out.append("<tr>" + "".join(f'<th class="s" data-c="{i}">{h}</th>' for i, h in enumerate(heads))
               + "<th>files · details</th></tr></thead>")
    last = None
    for i, r in enumerate(t.rows):
        if r.group != last:
            if last is not None:
                out.append("</tbody>")
            out.append(f'<tbody data-group="{e(r.group)}"><tr class="g"><td colspan="{len(heads) + 1}">'
                       f"{e(GROUPS.get(r.group, r.group))}</td></tr>")
            last = r.group
        rid = f"{tid}-{i + 1}"
        names = list(dict.fromkeys(c.path for c in r.cells if c is not None and c.path))
        entries = [by_name[n] for n in names if n in by_name]
        facets = [r.group, GROUPS.get(r.group, r.group)] + [str(r.labels.get(k) or "") for k in ("model", "sampler", "arch")]
        facets += [str(x.result["model"].get("training", {}).get("arch") or "") for x in entries]
        cells = "".join(f"<td>{e(_label(t, r, c))}</td>" for c in t.label_columns)
        vals = "".join(f'<td class="v" data-v="{v}">{text}</td>' for v, text in map(_fmt_cell, r.cells))
        file_links, card = [], [f'<section class="detail" id="d-{rid}"><p><a href="#">close</a> · '
                                f"{e(t.layout.title)}, row {i + 1}: {e(str(r.labels.get('model')))} · "
                                f"{e(str(r.labels.get('sampler')))}</p>"]
        for x in entries:
            links = _links(x, files)
            grid = _sample_grid(x, files.root.parent, f"{rid}-{x.result['split']}")
            tag = f"{x.result['split']}: " if len(entries) > 1 else ""
            file_links.append(f'<span class="nw">{e(tag)}' + " ".join(
                f'<a href="{e(h)}">{"JSON" if "JSON" in t_ else "CSV"}</a>' for t_, h in links) + "</span>")
            card += _card(x, links, grid)
        card.append("</section>")
        details.extend(card)
        out.append(f'<tr class="r" id="{rid}" data-i="{i}" data-f="{e(" ".join(facets).lower())}">{cells}{vals}'
                   f'<td>{"<br>".join(file_links)}<br><a class="dl" href="#d-{rid}">details</a></td></tr>')
    out.append("</tbody></table>")
    notes = ["Brackets: the 95% interval (Wilson for rates, normal for means)." if n.startswith("± is half") else n
             for n in t.notes]
    out.extend(f"<p><small>{e(n)}</small></p>" for n in notes)
    return out


def _failed_html(failed: list[Failed]) -> list[str]:
    if not failed:
        return []
    out = ["<h2>Results that failed verification</h2>",
           "<p>These files were found but not shown in the tables: each fails a check of "
           "<code>srm-bench leaderboard --verify</code> (see docs/results.md).</p>",
           '<table id="failed"><thead><tr><th>File</th><th>Task / split</th><th>Model</th><th>Why</th></tr></thead><tbody>']
    for f in failed:
        out.append(f'<tr class="fail"><td>{e(Path(f.name).name)}</td><td>{e(f.task or "?")} / {e(f.split or "?")}</td>'
                   f"<td>{e(f.model or '?')}</td><td>{e(f.reason)}</td></tr>")
    return out + ["</tbody></table>"]


def _failures(problems: list[str], dirs: list[Path]) -> list[Failed]:
    """Map the one-line refusals of ``load_entries`` back to their files and what they claim to be."""
    names = sorted({str(p) for p in _files(dirs)}, key=len, reverse=True)
    out: list[Failed] = []
    for message in problems:
        name = next((n for n in names if message.startswith(n)), None)
        task = split = model = None
        if name is not None:
            try:
                obj = _read_json(Path(name))
            except SrmBenchError:
                obj = None
            rest = message[len(name):]
            if rest.startswith("#") and isinstance(obj, dict) and isinstance(obj.get("results"), list):
                idx = rest[1:].split(":", 1)[0]
                obj = obj["results"][int(idx)] if idx.isdigit() and int(idx) < len(obj["results"]) else None
            if isinstance(obj, dict):
                task = obj.get("task") if isinstance(obj.get("task"), str) else None
                split = obj.get("split") if isinstance(obj.get("split"), str) else None
                m = obj.get("model")
                model = str(m.get("name")) if isinstance(m, dict) and m.get("name") is not None else None
        reason = message[len(name):].lstrip(":# 0123456789") if name else message
        out.append(Failed(name or message.split(":", 1)[0], reason.removesuffix("; skipped"), task, split, model))
    return sorted(out, key=lambda f: (f.task or "", f.split or "", f.name, f.reason))


def _plots(frame: pd.DataFrame, page: Page, root: Path) -> None:
    from .plots import plot_difficulty, plot_overlap

    (root / "plots").mkdir(exist_ok=True)
    main = page.tasks[0]
    try:
        plot_difficulty(frame, main, root / "plots" / f"{page.slug}-accuracy.png")
        page.plots.append((f"plots/{page.slug}-accuracy.png",
                           "Accuracy per difficulty (or task variant), one bar per row, with 95% intervals; "
                           "hatched bars: the paper's figures."))
    except SrmBenchError:
        pass
    for task in page.tasks:
        try:
            plot_overlap(frame, task, root / "plots" / f"{task}-overlap.png")
            page.plots.append((f"plots/{task}-overlap.png", f"{task}: accuracy vs overlap (cf. the paper's Figure 6)."))
        except SrmBenchError:
            pass


def _pages(frame: pd.DataFrame, task: str | None) -> list[tuple[Page, list]]:
    """Pages and their layouts: one per task, tasks that share their layouts share a page."""
    present = sorted(set(frame["task"])) if not frame.empty else []
    order = [task] if task is not None else present
    out: list[tuple[Page, list]] = []
    seen: dict[tuple[str, ...], Page] = {}
    for t in sorted(order, key=lambda x: (list(TASK_TITLES).index(x) if x in TASK_TITLES else len(TASK_TITLES), x)):
        layouts = layouts_for(frame, t)
        key = tuple(lay.key for lay in layouts)
        if key in seen:
            seen[key].tasks.append(t)
            continue
        page = Page(t, TASK_TITLES.get(t, t), [t])
        seen[key] = page
        out.append((page, layouts))
    return out


def render_site(root: Path, dirs: list[Path], *, task: str | None = None, appendix: bool = False) -> dict[str, int]:
    """Write the site into the empty folder ``root``; returns counts (pages, rows, failed)."""
    problems: list[str] = []
    entries = load_entries(dirs, problems)
    failed = _failures(problems, dirs)
    frame = to_frame(merge_paper_duplicates(entries))
    if frame.empty:
        raise SrmBenchError("no results to show; pass --results DIR with result JSONs from 'srm-bench evaluate'")
    if task is not None:
        layouts_for(frame, task)  # raises for an unknown task
    by_name = {x.path: x for x in entries}
    files = _Files(root)
    pages = _pages(frame, task)
    all_pages = [p for p, _ in pages]
    rows = 0
    for page, layouts in pages:
        sub = frame[frame["task"].isin(page.tasks)]
        tables = [build_table(sub, lay, appendix=appendix) for lay in layouts]
        page.tables = tables
        page.failed = [f for f in failed if f.task in page.tasks]
        _plots(sub, page, root)
        body = [f"<h1>{e(page.title)}</h1>",
                "<p>Bold: best of its row group (oracles aside); ↑/↓: higher/lower is better; each figure is "
                "followed by its 95% interval in brackets. Click a column header to sort (within each row group), "
                "type in the box to filter rows; <i>details</i> opens the model and sampler card of a row.</p>",
                '<p><label>Filter rows: <input id="filter" type="search" '
                'placeholder="provenance, sampler, architecture, model"></label> <span id="shown"></span></p>']
        details: list[str] = []
        for t in tables:
            body += _table_html(t, sub, t.layout.key, by_name, files, details)
            rows += len(t.rows)
        body += _failed_html(page.failed)
        if page.plots:
            body.append('<h2>Figures</h2><div class="plots">')
            body += [f'<figure><img src="{e(src)}" alt="{e(cap)}"><figcaption><small>{e(cap)}</small></figcaption></figure>'
                     for src, cap in page.plots]
            body.append("</div>")
        body += ["<h2>Details</h2>", "<p><small>Open one with the <i>details</i> link of its row.</small></p>", *details]
        (root / f"{page.slug}.html").write_text(_page(page.title, body, all_pages), encoding="utf-8")
    index = ["<h1>srm-bench leaderboard</h1>",
             "<p>The benchmarks of <i>Spatial Reasoning with Denoising Models</i> (ICML 2025): the paper's figures "
             "(transcribed) beside our reproduced baselines, oracles and submitted results, each figure with its 95% "
             "interval and each result with its JSON and per-sample CSV. Rebuilt from the result files by "
             f"<code>{GENERATOR} DIR</code>; never edited by hand.</p>", "<ul>"]
    for page, _ in pages:
        n = sum(len(t.rows) for t in page.tables)
        index.append(f'<li><a href="{page.slug}.html">{e(page.title)}</a>: {n} row(s) in '
                     f"{len(page.tables)} table(s)" + (f", {len(page.failed)} failed verification" if page.failed else "")
                     + "</li>")
    index.append("</ul>")
    index += _failed_html([f for f in failed if not any(f.task in p.tasks for p in all_pages)])
    (root / "index.html").write_text(_page("Index", index, all_pages), encoding="utf-8")
    return {"pages": len(pages) + 1, "rows": rows, "failed": len(failed)}


def _is_site(path: Path) -> bool:
    index = path / "index.html"
    try:
        return index.is_file() and f'content="{GENERATOR}"' in index.read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return False


def build_site(out: str | Path, dirs: Iterable[str | Path], *, task: str | None = None, appendix: bool = False,
               require: Iterable[str | Path] = ()) -> dict[str, int]:
    """Build the site in a temporary folder beside ``out`` and rename it into place.

    Args:
        out: the site folder; replaced if it holds an earlier site, refused if it holds anything else.
        dirs: result folders and files (``store.default_dirs``).
        task: only this task's page.
        appendix: also show the paper's appendix ablations.
        require: folders the user named: each must hold at least one result JSON.

    Raises:
        SrmBenchError: one line; nothing is left behind (no half-written site, no temporary folder).
    """
    out = Path(out)
    paths = [Path(d) for d in dirs]
    for d in require:
        if not _files([Path(d)]):
            raise SrmBenchError(f"{d}: no result JSON in it; pass a folder with results from 'srm-bench evaluate'")
    if out.exists() and not out.is_dir():
        raise SrmBenchError(f"{out}: exists and is not a folder; choose another --site")
    if out.is_dir() and any(out.iterdir()) and not _is_site(out):
        raise SrmBenchError(f"{out}: not empty and not a site written by srm-bench; choose another --site or empty it")
    created: list[Path] = []
    parent = out.absolute().parent
    try:
        missing = [p for p in [parent, *parent.parents] if not p.exists()]
        for p in reversed(missing):
            p.mkdir()
            created.append(p)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        for p in reversed(created):
            p.rmdir()
        raise SrmBenchError(f"{out}: cannot write ({exc.strerror})") from None
    try:
        os.chmod(tmp, 0o755)  # mkdtemp makes it 0700; a site is for reading
        counts = render_site(tmp, paths, task=task, appendix=appendix)
        if out.is_dir():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            os.rename(out, old / "site")
            os.rename(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
        return counts
    except OSError as exc:
        raise SrmBenchError(f"{out}: cannot write ({exc.strerror})") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
            for p in reversed(created):
                try:
                    p.rmdir()
                except OSError:
                    pass
