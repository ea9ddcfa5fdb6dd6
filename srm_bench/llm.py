"""The text Sudoku track: ask a language model to complete the canonical puzzles as text.

``srm-bench llm sudoku --split hard --endpoint URL --model NAME -o answers.jsonl`` sends each
puzzle of a split to an OpenAI-compatible chat-completions server (vLLM, llama.cpp server,
Ollama and hosted APIs speak it) with the prompt of the paper's Appendix F in our words: the
rules, the output format and up to three worked examples. It uses the standard library only
(urllib and a thread pool).

The answers file is JSON Lines: a header line (what was asked of which server, the dataset
hash, the prompt and its hash), then one line per answered puzzle holding the request body,
the raw reply and every failed attempt. Each line is written with one ``write`` on a file
opened for appending, so a killed run leaves complete lines (a torn last line is dropped on
resume); running the same command again asks only for the puzzles without an answer.

The API key is read from ``$SRM_BENCH_API_KEY`` and sent as a bearer token; it is written
nowhere (the file records request bodies, never headers).

``srm-bench evaluate answers.jsonl`` scores the file with the image track's Sudoku rules
(``evaluators/sudoku_text.py``).
"""
from __future__ import annotations

import concurrent.futures as cf
import datetime as _dt
import hashlib
import http.client
import json
import logging
import os
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import __version__
from .errors import SrmBenchError

if TYPE_CHECKING:
    from .evaluation import Evaluation
    from .results import Result

log = logging.getLogger(__name__)

FORMAT = "srm-bench/llm-answers"
FORMAT_VERSION = 1
API_KEY_ENV = "SRM_BENCH_API_KEY"
MAX_SHOTS = 3
# Few-shot examples come from the *train* split (seed 0), never from a test set: easy, medium, hard.
EXAMPLE_SEED = 0
EXAMPLE_INDICES = (12, 2, 8)  # 8, 37 and 71 empty cells
RETRY_STATUS = frozenset((408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529))

RULES = (
    "You are given a Sudoku puzzle to complete.\n"
    "A Sudoku is a 9x9 grid of the digits 1 to 9, made of nine 3x3 boxes. In a finished grid every row, "
    "every column and every 3x3 box contains each of the digits 1 to 9 exactly once.\n"
    "In the puzzle an underscore (_) marks an empty cell. Every digit already written is fixed: it must "
    "stay in its cell, unchanged, in your answer.\n\n"
    "Grid format: nine lines of nine characters between a <sudoku> line and a </sudoku> line; a '|' "
    "separates the three boxes within a line and a line '---+---+---' separates each band of three rows.\n\n"
    "Reply with the completed grid only, in the same format and with every empty cell filled: no "
    "explanation, no reasoning, nothing before or after the grid."
)


# ----------------------------------------------------------------------------- prompt

def grid_text(grid: np.ndarray, mask: np.ndarray | None = None) -> str:
    """A grid in the prompt's format; cells outside ``mask`` are written as ``_``.

    Example:
        >>> g = (np.add.outer(np.arange(9) * 3 + np.arange(9) // 3, np.arange(9)) % 9 + 1)
        >>> print(grid_text(g).splitlines()[1])
        123|456|789
    """
    rows = []
    for r in range(9):
        cells = [str(int(grid[r, c])) if mask is None or mask[r, c] else "_" for c in range(9)]
        rows.append("|".join("".join(cells[b:b + 3]) for b in (0, 3, 6)))
        if r in (2, 5):
            rows.append("---+---+---")
    return "<sudoku>\n" + "\n".join(rows) + "\n</sudoku>"


def few_shot_examples() -> list[tuple[np.ndarray, np.ndarray]]:
    """The three worked examples: (solution grid, givens mask) of train-split puzzles."""
    from .generators.sudoku import GENERATOR

    config = GENERATOR.make_config("train", EXAMPLE_SEED)
    out = []
    for i in EXAMPLE_INDICES:
        items = GENERATOR.generate_items(config, {}, i, i + 1)
        out.append((items["grid"][0], items["mask"][0]))
    return out


def system_prompt(shots: int) -> str:
    """The rules, the output format and ``shots`` worked examples."""
    if not 0 <= shots <= MAX_SHOTS:
        raise SrmBenchError(f"--shots must lie in 0..{MAX_SHOTS} (got {shots})")
    parts = [RULES]
    for k, (grid, mask) in enumerate(few_shot_examples()[:shots], 1):
        parts.append(f"[Example {k}]\nPuzzle:\n{grid_text(grid, mask)}\n\nAnswer:\n{grid_text(grid)}")
    return "\n\n".join(parts)


def user_prompt(grid: np.ndarray, mask: np.ndarray) -> str:
    return f"Puzzle:\n{grid_text(grid, mask)}\n\nAnswer:"


# ----------------------------------------------------------------------------- HTTP client

class RequestFailed(Exception):
    """A request that failed for good: after the retries, or at once (HTTP 4xx)."""


class _Skipped(Exception):
    """A puzzle not asked because the run is stopping."""


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Client:
    """A chat-completions client on urllib: retries with exponential backoff, optional SSE."""

    url: str
    api_key: str | None = None
    timeout: float = 120.0
    retries: int = 5
    backoff: float = 1.0
    max_backoff: float = 60.0
    stream: bool = False

    def complete(self, body: dict[str, Any], stop: threading.Event | None = None) -> tuple[dict[str, Any], list[dict]]:
        """Send ``body``; return ``({content, finish_reason, usage}, failed attempts)``.

        Raises:
            RequestFailed: the last error, once the retries are spent or for a non-retryable status.
        """
        attempts: list[dict] = []
        for attempt in range(self.retries + 1):
            t0 = time.monotonic()
            try:
                return self._once(body), attempts
            except _Retryable as exc:
                attempts.append({"error": str(exc), "seconds": round(time.monotonic() - t0, 3)})
                if attempt == self.retries or (stop is not None and stop.is_set()):
                    raise RequestFailed(f"{exc} (after {attempt + 1} attempt{'s' if attempt else ''})") from None
                delay = min(self.max_backoff, self.backoff * 2 ** attempt) * (0.5 + random.random() / 2)
                if exc.retry_after is not None:
                    delay = max(delay, min(self.max_backoff, exc.retry_after))
                if stop is not None:
                    stop.wait(delay)
                else:
                    time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _once(self, body: dict[str, Any]) -> dict[str, Any]:
        payload = dict(body, stream=self.stream)
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream" if self.stream else "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(payload).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return self._read_stream(resp) if self.stream else self._read_json(resp.read())
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            if exc.code in RETRY_STATUS or exc.code >= 500:
                raise _Retryable(f"HTTP {exc.code}{detail}", _retry_after(exc.headers.get("Retry-After"))) from None
            raise RequestFailed(f"HTTP {exc.code}{detail}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise _Retryable(f"no reply within {self.timeout:g} s") from None
            raise _Retryable(f"cannot connect ({getattr(reason, 'strerror', None) or reason})") from None
        except (TimeoutError, socket.timeout):
            raise _Retryable(f"no reply within {self.timeout:g} s") from None
        except (http.client.HTTPException, ConnectionError, OSError) as exc:
            raise _Retryable(f"connection broke off ({type(exc).__name__}: {exc})") from None

    @staticmethod
    def _read_json(data: bytes) -> dict[str, Any]:
        try:
            obj = json.loads(data)
            choice = obj["choices"][0]
            content = choice["message"].get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise _Retryable(f"not a chat-completions reply ({data[:120]!r})") from None
        reasoning = choice["message"].get("reasoning_content")  # servers that split off a reasoning model's thoughts
        return {"content": content, "finish_reason": choice.get("finish_reason"), "usage": obj.get("usage"),
                "reasoning": reasoning if isinstance(reasoning, str) else None}

    def _read_stream(self, resp: Any) -> dict[str, Any]:
        parts: list[str] = []
        thoughts: list[str] = []
        finish = None
        usage = None
        done = False
        deadline = time.monotonic() + 10 * self.timeout
        for raw in resp:
            if time.monotonic() > deadline:
                raise _Retryable(f"stream still open after {10 * self.timeout:g} s")
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue  # blank keep-alives, comments, event: lines
            data = line[5:].strip()
            if data == "[DONE]":
                done = True
                break
            try:
                chunk = json.loads(data)
            except ValueError:
                raise _Retryable(f"malformed stream event ({data[:80]!r})") from None
            if not isinstance(chunk, dict):
                continue
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if isinstance(delta.get("content"), str):
                    parts.append(delta["content"])
                if isinstance(delta.get("reasoning_content"), str):
                    thoughts.append(delta["reasoning_content"])
                finish = choice.get("finish_reason") or finish
        if not done and finish is None:
            raise _Retryable("the stream ended before its last event (no finish_reason, no [DONE])")
        return {"content": "".join(parts), "finish_reason": finish, "usage": usage,
                "reasoning": "".join(thoughts) if thoughts else None}


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read(400).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the status alone says enough
        return f" {exc.reason}" if exc.reason else ""
    try:
        msg = json.loads(text)["error"]
        text = msg.get("message", text) if isinstance(msg, dict) else str(msg)
    except (ValueError, KeyError, TypeError):
        pass
    text = " ".join(str(text).split())[:160]
    return f": {text}" if text else (f" {exc.reason}" if exc.reason else "")


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def chat_url(endpoint: str) -> str:
    """The chat-completions URL of an endpoint given as a base (``.../v1``) or in full."""
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise SrmBenchError(f"--endpoint {endpoint!r} is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)")
    if parsed.username or parsed.password:
        raise SrmBenchError(f"--endpoint must not hold credentials; put the API key in ${API_KEY_ENV}")
    path = parsed.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, path, parsed.query, ""))


_SECRET_PARAM = ("key", "token", "secret", "sig", "password", "auth")


def redact(url: str) -> str:
    """The URL as recorded: values of query parameters that look like credentials replaced.

    Example:
        >>> redact("https://h/v1/chat/completions?api-version=2024&api_key=abc")
        'https://h/v1/chat/completions?api-version=2024&api_key=REDACTED'
    """
    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return url
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    safe = [(k, "REDACTED" if any(w in k.lower() for w in _SECRET_PARAM) else v) for k, v in pairs]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(safe)))


# ----------------------------------------------------------------------------- answers file

def read_answers(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The header, the answer lines and the byte length of the complete lines.

    A last line without its newline (a run killed mid-write) is not counted; any other line
    that is not a JSON object is an error.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot read ({exc.strerror})") from None
    good = data.rfind(b"\n") + 1
    lines = data[:good].splitlines()
    if not lines:
        raise SrmBenchError(f"{path}: empty; not an srm-bench answers file (delete it to start afresh)")
    try:
        header = json.loads(lines[0])
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise SrmBenchError(f"{path}: not an srm-bench answers file (its first line is no {FORMAT} header)")
    if not isinstance(header.get("format_version"), int) or header["format_version"] > FORMAT_VERSION:
        raise SrmBenchError(f"{path}: answers format version {header.get('format_version')!r} is newer than this "
                            "srm-bench reads; upgrade srm-bench")
    answers = []
    for no, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise SrmBenchError(f"{path}: line {no} is not valid JSON; the file was edited or damaged") from None
        if not isinstance(obj, dict) or isinstance(obj.get("puzzle"), bool) or not isinstance(obj.get("puzzle"), int):
            raise SrmBenchError(f"{path}: line {no} has no integer 'puzzle'; the file was edited or damaged")
        answers.append(obj)
    return header, answers, good


def _scrub(text: str, secret: str | None) -> str:
    """``text`` with the API key replaced, should a server echo it in an error or a reply."""
    if secret and len(secret) >= 8 and secret in text:
        return text.replace(secret, "REDACTED")
    return text


class _Appender:
    """Appends one complete line per ``write`` call to a file opened with O_APPEND."""

    def __init__(self, path: Path, secret: str | None = None) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self.secret = secret

    def write(self, obj: dict[str, Any]) -> None:
        text = json.dumps(obj, ensure_ascii=False)
        data = (_scrub(text, self.secret) + "\n").encode()
        written = os.write(self.fd, data)
        if written != len(data):  # pragma: no cover - regular files take small writes whole
            raise OSError("short write")

    def close(self) -> None:
        os.close(self.fd)


def _create_header(path: Path, header: dict[str, Any]) -> None:
    from .io import atomic_path

    tmp = atomic_path(path)
    try:
        tmp.write_text(json.dumps(header, ensure_ascii=False) + "\n")
        try:
            os.link(tmp, path)  # exclusive: a file that appeared meanwhile is not replaced
        except FileExistsError:
            raise SrmBenchError(f"{path}: appeared while starting; run the command again to resume it") from None
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot write ({exc.strerror}); pass another -o") from None
    finally:
        tmp.unlink(missing_ok=True)


_SAME = ("task", "split", "dataset_sha256", "model", "shots", "prompt_sha256", "params", "resample")
_OPTION = {"dataset_sha256": "puzzle set", "model": "--model", "shots": "--shots", "prompt_sha256": "prompt",
           "params": "--max-tokens/--temperature", "resample": "--resample"}


def _rewrite_header(path: Path, header: dict[str, Any]) -> None:
    """Replace the header line (temp file + rename; the answer lines are copied unchanged)."""
    from .io import atomic_output

    data = path.read_bytes()
    rest = data[data.index(b"\n") + 1:]
    try:
        with atomic_output(path) as tmp:
            tmp.write_bytes((json.dumps(header, ensure_ascii=False) + "\n").encode() + rest)
    except OSError as exc:
        raise SrmBenchError(f"{path}: cannot rewrite its header ({exc.strerror})") from None


def run_llm(*, task: str, split: str, endpoint: str, model: str, out: Path, shots: int = MAX_SHOTS,
            concurrency: int = 8, limit: int | None = None, reference: Path | None = None,
            timeout: float = 120.0, retries: int = 5, backoff: float = 1.0, stream: bool = False,
            max_tokens: int | None = 1024, temperature: float | None = None, resample: int = 0,
            progress: bool = False) -> dict[str, int]:
    """Ask the model for every puzzle of the split without an answer in ``out``.

    Returns:
        ``{"asked": k, "answered": m, "total": n}`` for this run.

    Raises:
        SrmBenchError: bad options, a foreign or mismatched ``out``, or a request that failed
        after its retries (the answers written so far are kept).
    """
    if task != "sudoku":
        raise SrmBenchError(f"the text track has Sudoku only (got {task!r})")
    if concurrency < 1:
        raise SrmBenchError(f"--concurrency must be >= 1 (got {concurrency})")
    if limit is not None and limit < 1:
        raise SrmBenchError(f"--limit must be >= 1 (got {limit})")
    if retries < 0 or resample < 0 or timeout <= 0 or backoff < 0:
        raise SrmBenchError("--retries and --resample must be >= 0, --timeout > 0 and --backoff >= 0")
    url = chat_url(endpoint)
    ds = _puzzles(task, split, reference, progress)
    total = min(limit, ds.count) if limit else ds.count
    sys_prompt = system_prompt(shots)
    params: dict[str, Any] = {"stream": stream}
    if max_tokens is not None:
        params["max_tokens"] = int(max_tokens)
    if temperature is not None:
        params["temperature"] = float(temperature)
    header = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "task": task, "split": split,
        "dataset_sha256": ds.content_sha256, "count": ds.count, "puzzles": total, "model": model,
        "endpoint": redact(url), "shots": shots, "prompt_sha256": hashlib.sha256(sys_prompt.encode()).hexdigest(),
        "system_prompt": sys_prompt, "params": {k: v for k, v in params.items() if k != "stream"},
        "resample": resample, "srm_bench_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
    }
    done: set[int] = set()
    if out.exists():
        old, answers, good = read_answers(out)
        for key in _SAME:
            if old.get(key) != header[key]:
                raise SrmBenchError(f"{out}: was started with another {_OPTION.get(key, key)} ({old.get(key)!r}, now "
                                    f"{header[key]!r}); pass the same options to resume it, or another -o")
        if not isinstance(old.get("puzzles"), int) or old["puzzles"] > total:
            raise SrmBenchError(f"{out}: was started for {old.get('puzzles')!r} puzzles; a smaller --limit ({total}) "
                                "cannot resume it (pass the same or a larger one, or another -o)")
        if good < out.stat().st_size:
            log.warning("%s: dropping a torn last line (a run stopped mid-write)", out)
            os.truncate(out, good)
        if old["puzzles"] < total:  # a larger --limit extends the run: the header says so, the answers stay
            _rewrite_header(out, dict(old, puzzles=total))
        done = {a["puzzle"] for a in answers}
    else:
        _create_header(out, header)
    todo = [i for i in range(total) if i not in done]
    api_key = os.environ.get(API_KEY_ENV) or None
    client = Client(url, api_key, timeout=timeout, retries=retries, backoff=backoff,
                    stream=stream)
    grids, masks = ds.items["grid"], ds.items["mask"]

    def ask(i: int, stop: threading.Event) -> dict[str, Any]:
        from .evaluators.sudoku_text import parse_reply

        body = {"model": model, "messages": [{"role": "system", "content": sys_prompt},
                                             {"role": "user", "content": user_prompt(grids[i], masks[i])}], **params}
        body.pop("stream")
        t0 = time.monotonic()
        replies: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        for _ in range(resample + 1):
            if stop.is_set():
                if replies:
                    break  # stopping: the reply received stands
                raise _Skipped()
            try:
                reply, attempts = client.complete(body, stop)
            except RequestFailed:
                stop.set()  # before this worker takes the next puzzle
                raise
            failed += attempts
            replies.append(reply)
            if parse_reply(reply["content"], reply["finish_reason"])[0] is not None:
                break
        last = replies[-1]
        return {"puzzle": i, "reply": last["content"], "finish_reason": last["finish_reason"], "usage": last["usage"],
                "reasoning": last.get("reasoning"),
                "earlier_replies": [r["content"] for r in replies[:-1]], "failed_attempts": failed,
                "seconds": round(time.monotonic() - t0, 3), "endpoint": redact(url), "request": dict(body, stream=stream)}

    asked = answered = 0
    if not todo:
        return {"asked": 0, "answered": 0, "total": total}
    from tqdm.auto import tqdm

    stop = threading.Event()
    appender = _Appender(out, api_key)
    error: str | None = None
    pool = cf.ThreadPoolExecutor(max_workers=min(concurrency, len(todo)), thread_name_prefix="srm-llm")
    bar = tqdm(total=total, initial=total - len(todo), desc=f"llm {split}", unit="puzzle", disable=not progress)
    futures: dict[cf.Future, int] = {}

    collected: set[cf.Future] = set()

    def collect(fut: cf.Future) -> None:
        nonlocal error, answered
        collected.add(fut)
        if fut.cancelled():
            return
        try:
            record = fut.result()
        except _Skipped:
            return
        except RequestFailed as exc:
            if error is None:
                error = f"puzzle {futures[fut]}: {exc}"
                stop.set()
                for f in futures:
                    f.cancel()
            return
        appender.write(record)
        answered += 1
        bar.update(1)

    try:
        futures = {pool.submit(ask, i, stop): i for i in todo}
        asked = len(futures)
        try:
            for fut in cf.as_completed(futures):
                collect(fut)
        except KeyboardInterrupt:
            # Ctrl-C: no new puzzle starts and no retry waits; replies already on their way are kept.
            stop.set()
            for f in futures:
                f.cancel()
            for fut in cf.as_completed([f for f in futures if f not in collected]):
                collect(fut)
            raise
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        appender.close()
        bar.close()
    if error is not None:
        have = len(done) + answered
        raise SrmBenchError(_scrub(f"{error}; {have} of {total} answers kept in {out}: run the same command again to resume",
                                   api_key))
    return {"asked": asked, "answered": answered, "total": total}


def _puzzles(task: str, split: str, reference: Path | None, progress: bool):
    from .canonical import canonical_dataset, pinned
    from .dataset import load_dataset

    if reference is not None:
        ds = load_dataset(reference)
        if ds.task != task or ds.split != split:
            raise SrmBenchError(f"{reference}: is {ds.task}/{ds.split}, not {task}/{split}")
        return ds
    if pinned(task, split) is None:
        raise SrmBenchError(f"no canonical {task}/{split} set; use --split easy, medium or hard, or pass --reference DIR")
    return canonical_dataset(task, split, progress=progress)


# ----------------------------------------------------------------------------- scoring

def is_answers_file(path: Path) -> bool:
    """Whether ``path`` is (meant as) an answers file: a ``.jsonl`` or a file starting with our header."""
    if not path.is_file():
        return False
    if path.suffix == ".jsonl":
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(200)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and FORMAT.encode() in head


def evaluate_answers(path: Path, *, reference: str | Path | None = None, out: str | Path | None = "results",
                     model: str | None = None, task: str | None = None, split: str | None = None,
                     progress: bool = False) -> Evaluation:
    """Score an answers file with the image track's Sudoku rules; write a result like ``evaluate``
    and return ``(result, path)`` as it does.

    Raises:
        SrmBenchError: a foreign or damaged file, puzzles without an answer, answers naming a
        puzzle twice or outside the set, or a puzzle set that does not match the file's hash.
    """
    from types import SimpleNamespace

    from .evaluation import Evaluation, _write, aggregate, resolve_reference
    from .evaluators import sudoku_text
    from .registry import get_task
    from .results import stamp, validate_result

    header, answers, _ = read_answers(path)
    if task and task != header["task"]:
        raise SrmBenchError(f"{path}: answers are of task {header['task']!r}, not {task!r}; drop --task")
    if split and split != header["split"]:
        raise SrmBenchError(f"{path}: answers are of split {header['split']!r}, not {split!r}; drop --split")
    spec = get_task(header["task"])
    spec.check_split(header["split"])
    ref = resolve_reference(spec, header["split"], {"dataset_sha256": header.get("dataset_sha256")}, reference, progress)
    assert ref is not None  # Sudoku is conditional: resolve_reference returns its puzzle set or raises
    total = header.get("puzzles")
    if not isinstance(total, int) or not 1 <= total <= ref.count:
        raise SrmBenchError(f"{path}: header 'puzzles' is {total!r}; want 1..{ref.count}")
    index = np.array([a["puzzle"] for a in answers], dtype=np.int64)
    if index.size and (index.min() < 0 or index.max() >= total):
        raise SrmBenchError(f"{path}: answers name puzzles outside 0..{total - 1}")
    values, counts = np.unique(index, return_counts=True)
    if (counts > 1).any():
        raise SrmBenchError(f"{path}: puzzle {int(values[counts > 1][0])} is answered more than once; "
                            "the file was edited or merged")
    if index.size < total:
        missing = sorted(set(range(total)) - set(index.tolist()))
        shown = ", ".join(map(str, missing[:5])) + (" ..." if len(missing) > 5 else "")
        raise SrmBenchError(f"{path}: {len(missing)} of {total} puzzles have no answer yet ({shown}); "
                            "run the same 'srm-bench llm' command again to finish it")
    order = np.argsort(index)
    answers = [answers[k] for k in order]
    index = index[order]
    parsed = [sudoku_text.parse_reply(a.get("reply"), a.get("finish_reason")) for a in answers]
    per_sample = sudoku_text.score_grids([g for g, _ in parsed], ref.items["grid"][index], ref.items["mask"][index])
    per_sample["parse_error"] = np.array([why for _, why in parsed], dtype=object)
    evaluator = SimpleNamespace(metrics=sudoku_text.METRICS)
    metrics = aggregate(evaluator, per_sample)  # type: ignore[arg-type]
    replies = hashlib.sha256(json.dumps([[int(i), a.get("reply")] for i, a in zip(index, answers)]).encode()).hexdigest()
    result: Result = {
        "task": spec.name,
        "split": header["split"],
        "dataset": {"task_version": ref.task_version, "seed": ref.seed, "count": ref.count,
                    "content_sha256": ref.content_sha256, "source": {}},
        "evaluator": {"name": sudoku_text.NAME, "version": sudoku_text.VERSION, "weights_sha256": None},
        "model": {"name": model or str(header.get("model") or path.stem), "provenance": "user",
                  "sampler": {"name": "few-shot text", "label": f"{header.get('shots')}-shot (text)",
                              "shots": header.get("shots"), **(header.get("params") or {}),
                              "resample": header.get("resample", 0)},
                  "training": {"arch": "llm"}},
        "samples": {"path": str(path), "sha256": replies, "count": int(index.size)},
        "metrics": metrics,
        "seed": ref.seed,
        "config": {"track": "text", "prompt_sha256": header.get("prompt_sha256"), "endpoint": header.get("endpoint")},
        "per_sample_file": None,
    }
    stamp(result)
    validate_result(result, str(path))
    written = _write(result, per_sample, index, Path(out)) if out is not None else None
    failures = [(int(i), why) for i, (_, why) in zip(index, parsed) if why]
    result["_unparsable"] = failures  # type: ignore[typeddict-unknown-key]
    result["_by_masked"] = by_masked(per_sample)  # type: ignore[typeddict-unknown-key]
    return Evaluation(result, written)


def by_masked(per_sample: dict[str, np.ndarray], width: int = 9) -> list[dict[str, Any]]:
    """Validity, consistency and accuracy per number of empty cells (bins of ``width``), as the
    paper's Figure for the LLMs breaks them down."""
    masked = np.asarray(per_sample["masked"])
    rows = []
    for lo in range(0, 82, width):
        sel = (masked >= lo) & (masked < lo + width)
        if sel.any():
            rows.append({"masked": [lo, min(lo + width - 1, 81)], "n": int(sel.sum()),
                         **{k: float(np.asarray(per_sample[k])[sel].mean()) for k in ("accuracy", "givens_kept", "solved")}})
    return rows


# ----------------------------------------------------------------------------- command line

def _llm_sudoku_command():
    import click

    @click.command("sudoku")
    @click.option("--split", "-s", required=True, help="Puzzle split: easy, medium or hard (the canonical sets).")
    @click.option("--endpoint", required=True,
                  help="OpenAI-compatible server: its base URL (http://127.0.0.1:8000/v1) or the full "
                       ".../chat/completions URL.")
    @click.option("--model", "model_name", required=True, help="Model name sent in every request (and shown on the leaderboard).")
    @click.option("-o", "--out", type=click.Path(path_type=Path), required=True,
                  help="Answers file (JSON Lines); an existing one is resumed.")
    @click.option("--shots", type=click.IntRange(0, MAX_SHOTS), default=MAX_SHOTS, show_default=True,
                  help="Worked examples in the prompt (train-split puzzles).")
    @click.option("--concurrency", type=int, default=8, show_default=True, help="Requests in flight at once.")
    @click.option("--limit", type=int, default=None, help="Only the first N puzzles of the split.")
    @click.option("--reference", type=click.Path(path_type=Path), default=None,
                  help="Dataset directory of the puzzles [default: the canonical set of --split].")
    @click.option("--stream/--no-stream", default=False, show_default=True, help="Ask for server-sent events.")
    @click.option("--max-tokens", type=int, default=1024, show_default=True, help="max_tokens of every request.")
    @click.option("--temperature", type=float, default=None, help="Sampling temperature [default: the server's].")
    @click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds to wait for a reply.")
    @click.option("--retries", type=int, default=5, show_default=True,
                  help="Retries of a request after HTTP 429/5xx, a timeout or a broken connection.")
    @click.option("--backoff", type=float, default=1.0, show_default=True,
                  help="First retry delay in seconds; doubled on every retry (capped at 60 s), or the server's Retry-After.")
    @click.option("--resample", type=int, default=0, show_default=True,
                  help="Ask again up to N times when a reply holds no grid (the paper resampled until it did).")
    @click.pass_context
    def command(ctx: click.Context, split: str, endpoint: str, model_name: str, out: Path, shots: int, concurrency: int,
                limit: int | None, reference: Path | None, stream: bool, max_tokens: int, temperature: float | None,
                timeout: float, retries: int, backoff: float, resample: int) -> None:
        """Ask a language model to complete the Sudoku puzzles of a split, as text.

        The prompt gives the rules, the output format and SHOTS worked examples (the paper's
        Appendix F setup); every request and raw reply goes to OUT, one line per puzzle. The
        API key, if the server needs one, is read from $SRM_BENCH_API_KEY and written nowhere.
        Stopped or failed runs resume: run the same command again.

        \b
        Examples:
          srm-bench llm sudoku --split hard --endpoint http://127.0.0.1:8000/v1 --model phi-4 -o phi4-hard.jsonl
          SRM_BENCH_API_KEY=... srm-bench llm sudoku --split easy --endpoint https://api.openai.com/v1 \\
              --model gpt-4o-mini --limit 50 -o mini-easy.jsonl
          srm-bench evaluate phi4-hard.jsonl
        """
        from .cli import progress_enabled

        stats = run_llm(task="sudoku", split=split, endpoint=endpoint, model=model_name, out=out, shots=shots,
                        concurrency=concurrency, limit=limit, reference=reference, timeout=timeout, retries=retries,
                        backoff=backoff, stream=stream, max_tokens=max_tokens, temperature=temperature,
                        resample=resample, progress=progress_enabled(ctx))
        click.echo(f"{out}: {stats['total']} of {stats['total']} puzzles answered ({stats['answered']} this run); "
                   f"score it with: srm-bench evaluate {out}")

    return command


def _llm_group():
    import click

    @click.group("llm")
    def group() -> None:
        """Text track: ask a language model (any OpenAI-compatible server) to solve the puzzles as text.

        Example: srm-bench llm sudoku --split hard --endpoint http://127.0.0.1:8000/v1 --model NAME -o a.jsonl
        """

    group.add_command(_llm_sudoku_command())
    return group


llm = _llm_group()
