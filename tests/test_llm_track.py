"""The text Sudoku track against a real chat-completions server on 127.0.0.1.

The server below speaks the protocol (JSON replies and server-sent events) and follows a
script per puzzle: correct grids, grids in noise, malformed and truncated replies, slow
replies, HTTP 429 then success, HTTP 500 forever, broken streams. The client, its retries,
resume and the reply parser are exercised for real; ``srm-bench evaluate`` scores the result.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from srm_bench.cli import main
from srm_bench.evaluators.sudoku_text import parse_reply
from srm_bench.llm import grid_text, read_answers, user_prompt

SECRET = "sk-test-do-not-write-1234567890"
THOUGHT = "Row 1 lacks a 4, so ..."
SOLVED = np.array([[int(c) for c in row] for row in (
    "534678912", "672195348", "198342567", "859761423", "426853791", "713924856", "961537284", "287419635", "345286179")],
    dtype=np.uint8)


# ----------------------------------------------------------------------------- the parser

def _lines(g: np.ndarray) -> str:
    return "\n".join("".join(map(str, r)) for r in g)


OTHER = (SOLVED % 9) + 1  # relabelled: also a valid grid, different digits

PARSE_CASES = [
    ("nine lines", _lines(SOLVED), SOLVED),
    ("the prompt's format with prose around", "Here you go!\n" + grid_text(SOLVED) + "\nGood luck.", SOLVED),
    ("spaced digits and pipes", "\n".join(" ".join(map(str, r[:3])) + " | " + " ".join(map(str, r[3:6])) + " | "
                                          + " ".join(map(str, r[6:])) for r in SOLVED), SOLVED),
    ("81 digits in a row", "Answer: " + "".join(map(str, SOLVED.reshape(-1))) + ".", SOLVED),
    ("81 digits with commas", ",".join(map(str, SOLVED.reshape(-1))), SOLVED),
    ("JSON 9x9 in a code fence", "```json\n" + json.dumps(SOLVED.tolist()) + "\n```", SOLVED),
    ("JSON flat", json.dumps({"grid": SOLVED.reshape(-1).tolist()}), SOLVED),
    ("JSON strings", json.dumps(["".join(map(str, r)) for r in SOLVED]), SOLVED),
    ("compact JSON strings", json.dumps(["".join(map(str, r)) for r in SOLVED], separators=(",", ":")), SOLVED),
    ("echoed puzzle, then the answer", "Puzzle:\n" + grid_text(OTHER, SOLVED > 4) + "\nAnswer:\n" + grid_text(SOLVED), SOLVED),
    ("a draft, then the final grid", "Draft:\n" + _lines(OTHER) + "\n\nFinal:\n" + _lines(SOLVED), SOLVED),
    ("a tagged block wins over a later grid", grid_text(SOLVED) + "\nCheck:\n" + _lines(OTHER), SOLVED),
    ("zeros parse (and score invalid)", _lines(np.where(SOLVED == 5, 0, SOLVED)), np.where(SOLVED == 5, 0, SOLVED)),
    ("empty", "", None),
    ("prose only", "I cannot solve this puzzle.", None),
    ("blanks left in", grid_text(SOLVED, SOLVED > 2), None),
    ("eight lines", _lines(SOLVED[:8]), None),
    ("truncated tagged block", grid_text(SOLVED)[:60], None),
    ("ten digit lines", _lines(SOLVED) + "\n123456789", None),
    ("a row of ten digits", _lines(SOLVED).replace("534678912", "5346789121"), None),
    ("80 digits", "".join(map(str, SOLVED.reshape(-1)))[:80], None),
    ("JSON of the wrong shape", json.dumps(SOLVED[:8].tolist()), None),
    ("JSON with a 10", json.dumps(np.where(SOLVED == 5, 10, SOLVED).tolist()), None),
]


@pytest.mark.parametrize("text,want", [c[1:] for c in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parser(text, want):
    grid, why = parse_reply(text)
    if want is None:
        assert grid is None and why
    else:
        assert why == "" and grid is not None
        np.testing.assert_array_equal(grid, want)


def test_parser_takes_linear_time_on_long_replies():
    t0 = time.perf_counter()
    for text in ("[" * 100_000 + "]" * 100_000, "1" * 200_000, "[1, 2] 12345678\n" * 20_000):
        assert parse_reply(text)[0] is None
    assert parse_reply("[" * 300 + json.dumps(SOLVED.tolist()) + "]" * 300)[0] is not None
    assert time.perf_counter() - t0 < 5  # about 0.2 s; a quadratic scan takes minutes


def test_parser_names_a_reply_cut_at_the_token_limit():
    assert "token limit" in parse_reply(grid_text(SOLVED)[:60], "length")[1]


# ----------------------------------------------------------------------------- the server

class Script:
    """What the server does for each puzzle: a list of actions, one per request (the last repeats)."""

    def __init__(self, grids: np.ndarray, masks: np.ndarray, n: int) -> None:
        self.by_prompt = {user_prompt(grids[i], masks[i]): i for i in range(n)}
        self.grids, self.masks = grids, masks
        self.plan: dict[int, list[str]] = {}
        self.calls: list[dict] = []
        self.lock = threading.Lock()
        self.hold = threading.Event()  # "hang" waits on it
        self.reached: dict[int, threading.Event] = {}

    def action(self, puzzle: int) -> str:
        with self.lock:
            seen = sum(1 for c in self.calls if c["puzzle"] == puzzle) - 1
        steps = self.plan.get(puzzle, ["ok"])
        return steps[min(seen, len(steps) - 1)]

    def content(self, puzzle: int, action: str) -> tuple[str, str]:
        g, m = self.grids[puzzle], self.masks[puzzle]
        if action == "json":
            return "Sure, here is the grid:\n```json\n" + json.dumps(g.tolist()) + "\n```", "stop"
        if action == "malformed":
            return "I am not able to solve Sudoku puzzles, sorry.", "stop"
        if action == "truncated":
            return grid_text(g)[:50], "length"
        if action == "wrong":  # a valid grid that ignores the givens
            return grid_text((g % 9) + 1), "stop"
        if action == "invalid":  # givens kept, blanks all filled with one digit
            return grid_text(np.where(m, g, 1)), "stop"
        return "Answer:\n" + grid_text(g), "stop"


def _handler(script: Script):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            puzzle = script.by_prompt.get(body["messages"][-1]["content"], -1)
            with script.lock:
                script.calls.append({"puzzle": puzzle, "path": self.path, "stream": body.get("stream"),
                                     "auth": self.headers.get("Authorization"), "body": body})
            if puzzle in script.reached:
                script.reached[puzzle].set()
            action = script.action(puzzle)
            try:
                self._act(body, puzzle, action)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _send(self, code: int, obj: dict, headers: dict | None = None) -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _act(self, body: dict, puzzle: int, action: str) -> None:
            if action == "hang":
                script.hold.wait(30)
                return
            if action == "delay":  # in flight for a while, then a good reply
                time.sleep(0.8)
                action = "ok"
            if action == "slow":
                time.sleep(1.0)  # the client waits 0.3 s
                return
            if action == "429":
                return self._send(429, {"error": {"message": "rate limit reached"}}, {"Retry-After": "0"})
            if action == "500":
                return self._send(500, {"error": {"message": "the model crashed"}})
            if action == "echo-key":  # a careless server quoting the key back in its error
                return self._send(503, {"error": {"message": f"overloaded; your key {self.headers['Authorization']}"}})
            if action == "cut":  # a body shorter than its Content-Length
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "5000")
                self.end_headers()
                self.wfile.write(b'{"choices": [{"message": {"content": "12')
                return
            content, finish = script.content(puzzle, action)
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [content[i:i + 7] for i in range(0, len(content), 7)]
                if action == "broken-stream":
                    pieces = pieces[:3]
                if action == "json":  # a reasoning model's thoughts, split off by the server
                    chunk = {"choices": [{"index": 0, "delta": {"reasoning_content": THOUGHT}, "finish_reason": None}]}
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                for k, p in enumerate(pieces):
                    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant"} if k == 0 else {}, "finish_reason": None}]}
                    chunk["choices"][0]["delta"]["content"] = p
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()
                if action == "broken-stream":
                    return
                end = {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
                self.wfile.write(b": keep-alive\n\ndata: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
                return
            self._send(200, {"id": "x", "object": "chat.completion", "model": body["model"],
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": content,
                                                                  **({"reasoning_content": THOUGHT} if action == "json" else {})},
                                          "finish_reason": finish}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    return Handler


@pytest.fixture(scope="module")
def easy():
    from srm_bench.canonical import canonical_dataset

    return canonical_dataset("sudoku", "easy")


@pytest.fixture()
def server(easy):
    script = Script(easy.items["grid"], easy.items["mask"], 12)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    script.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield script
    script.hold.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv(SECRET_ENV, SECRET)


SECRET_ENV = "SRM_BENCH_API_KEY"
FAST = ["--timeout", "0.3", "--retries", "3", "--backoff", "0.01"]


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(["-q", *args])
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def _llm(url: str, out: Path, *extra: str) -> list[str]:
    return ["llm", "sudoku", "--split", "easy", "--endpoint", url, "--model", "scripted-llm", "-o", str(out), *FAST, *extra]


def _puzzles(script: Script) -> list[int]:
    return [c["puzzle"] for c in script.calls]


# ----------------------------------------------------------------------------- client, retries, scoring

@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_scripted_run_is_recorded_and_scored(server, tmp_path, capsys, stream):
    server.plan = {1: ["json"], 2: ["malformed"], 3: ["truncated"], 4: ["slow", "ok"], 5: ["429", "429", "ok"],
                   6: ["wrong"], 7: ["invalid"], 8: ["broken-stream" if stream else "cut", "ok"]}
    out = tmp_path / "answers.jsonl"
    code, text, err = _cli(capsys, *_llm(server.url, out, "--limit", "9", "--concurrency", "4",
                                         "--stream" if stream else "--no-stream"))
    assert code == 0, err
    assert "9 of 9 puzzles answered" in text
    # what went over the wire
    assert all(c["path"] == "/v1/chat/completions" and c["stream"] is stream for c in server.calls)
    assert all(c["auth"] == f"Bearer {SECRET}" for c in server.calls)
    assert sorted(_puzzles(server)) == [0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 7, 8, 8]
    body = server.calls[0]["body"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"].count("[Example") == 3 and body["max_tokens"] == 1024
    # what was recorded: every request and raw reply, failed attempts, never the key
    raw = out.read_bytes()
    assert SECRET.encode() not in raw
    header, answers, _ = read_answers(out)
    assert header["model"] == "scripted-llm" and header["puzzles"] == 9 and header["shots"] == 3
    by = {a["puzzle"]: a for a in answers}
    assert sorted(by) == list(range(9))
    assert by[1]["reasoning"] == THOUGHT and by[0]["reasoning"] is None
    assert by[2]["reply"].startswith("I am not able") and by[3]["finish_reason"] == "length"
    assert [a["error"] for a in by[5]["failed_attempts"]] == ["HTTP 429: rate limit reached"] * 2
    assert "no reply within 0.3 s" in by[4]["failed_attempts"][0]["error"]
    assert len(by[8]["failed_attempts"]) == 1 and by[0]["failed_attempts"] == []
    assert by[0]["request"]["messages"][1]["content"] == user_prompt(server.grids[0], server.masks[0])
    assert by[0]["request"]["stream"] is stream
    # scoring: 0, 1, 4, 5, 8 solved; 6 valid but ignores the givens; 7 keeps them but is invalid; 2, 3 unparsable
    results = tmp_path / "results"
    code, text, err = _cli(capsys, "evaluate", str(out), "--out", str(results), "--json")
    assert code == 0, err
    res = json.loads(text)
    m = {k: v["value"] for k, v in res["metrics"].items()}
    assert m["solved"] == pytest.approx(5 / 9) and m["accuracy"] == pytest.approx(6 / 9)
    assert m["givens_kept"] == pytest.approx(6 / 9) and m["parsed"] == pytest.approx(7 / 9)
    assert res["evaluator"]["name"] == "sudoku-text" and res["model"]["training"]["arch"] == "llm"
    assert res["samples"]["count"] == 9 and res["dataset"]["count"] == 500
    code, text, _ = _cli(capsys, "evaluate", str(out), "--no-save")
    assert "unparsable replies (2, scored as failures)" in text
    assert "by empty cells:" in text  # the paper's breakdown by the number of empty cells
    csv = (results / res["per_sample_file"]).read_text().splitlines()
    assert csv[0].split(",")[:3] == ["sample", "puzzle", "accuracy"] and "masked" in csv[0] and "parse_error" in csv[0]
    assert "puzzle 2: no 9x9 grid of digits found" in text and "puzzle 3: no complete grid" in text
    code, text, _ = _cli(capsys, "info", str(out))
    assert code == 0 and "9 of 9 puzzles answered" in text and "scripted-llm" in text


def test_l1_and_validity_follow_the_image_rules(easy):
    from srm_bench.evaluators.sudoku import sudoku_l1
    from srm_bench.evaluators.sudoku_text import score_grids

    g, m = easy.items["grid"][:3], easy.items["mask"][:3]
    bad = g[1].copy()
    bad[0, 0], bad[0, 1] = bad[0, 1], bad[0, 0]  # two cells swapped: L1 > 0 unless the swap keeps every unit
    s = score_grids([g[0], bad, None], g, m)
    assert s["l1"].tolist() == [0, int(sudoku_l1(bad[None])[0]), 243]
    assert s["accuracy"].tolist() == [True, False, False] and s["parsed"].tolist() == [True, True, False]
    assert s["givens_kept"][2] == False  # noqa: E712 - an unparsable reply keeps no givens


# ----------------------------------------------------------------------------- failures and resume

def test_http_500_forever_stops_with_one_line_and_resume_asks_only_the_missing(server, tmp_path, capsys):
    server.plan = {3: ["500"]}
    out = tmp_path / "a.jsonl"
    code, _, err = _cli(capsys, *_llm(server.url, out, "--limit", "6", "--concurrency", "1"))
    assert code == 1
    line = err.strip()
    assert "\n" not in line and "puzzle 3: HTTP 500: the model crashed (after 4 attempts)" in line
    assert "3 of 6 answers kept" in line
    assert sorted(a["puzzle"] for a in read_answers(out)[1]) == [0, 1, 2]
    assert _puzzles(server) == [0, 1, 2, 3, 3, 3, 3]
    server.calls.clear()
    server.plan = {}
    code, text, err = _cli(capsys, *_llm(server.url, out, "--limit", "6", "--concurrency", "1"))
    assert code == 0, err
    assert _puzzles(server) == [3, 4, 5]
    assert sorted(a["puzzle"] for a in read_answers(out)[1]) == list(range(6))
    # nothing left to ask: a third run sends no request
    server.calls.clear()
    assert _cli(capsys, *_llm(server.url, out, "--limit", "6"))[0] == 0 and server.calls == []


def test_unreachable_endpoint_keeps_the_answers(server, tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    assert _cli(capsys, *_llm(server.url, out, "--limit", "2"))[0] == 0
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    before = out.read_bytes()
    code, text, err = _cli(capsys, *_llm(f"http://127.0.0.1:{port}/v1", out, "--limit", "4"))
    assert code == 1 and text == ""
    assert err.count("\n") == 1 and "cannot connect" in err and "2 of 4 answers kept" in err
    after = out.read_bytes()
    assert after.split(b"\n", 1)[1] == before.split(b"\n", 1)[1]  # the two answers, byte for byte
    assert read_answers(out)[0]["puzzles"] == 4  # the larger --limit is recorded: evaluate wants 4 answers


def test_killed_run_resumes_with_exactly_the_missing_puzzles(server, tmp_path):
    k = 4
    server.plan = {k: ["hang"]}
    server.reached[k] = threading.Event()
    out = tmp_path / "a.jsonl"
    env = {**os.environ, "SRM_BENCH_API_KEY": SECRET}
    proc = subprocess.Popen([sys.executable, "-m", "srm_bench.cli", "-q", *_llm(server.url, out, "--limit", "8",
                             "--concurrency", "1", "--timeout", "20")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert server.reached[k].wait(30), "the run never reached puzzle k"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert sorted(a["puzzle"] for a in read_answers(out)[1]) == list(range(k))
    with open(out, "ab") as f:  # a line torn by the kill: dropped on resume
        f.write(b'{"puzzle": 99, "reply": "12')
    server.calls.clear()
    server.plan = {}
    with pytest.raises(SystemExit) as exc:
        main(["-q", *_llm(server.url, out, "--limit", "8", "--concurrency", "3")])
    assert exc.value.code == 0
    assert sorted(_puzzles(server)) == list(range(k, 8))
    header, answers, good = read_answers(out)
    assert sorted(a["puzzle"] for a in answers) == list(range(8)) and good == out.stat().st_size


def test_ctrl_c_keeps_the_replies_in_flight(server, tmp_path):
    k = 3
    server.plan = {k: ["delay"], k + 1: ["hang"]}
    server.reached[k] = threading.Event()
    out = tmp_path / "a.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "srm_bench.cli", "-q", *_llm(server.url, out, "--limit", "8",
                             "--concurrency", "1", "--timeout", "20")], env={**os.environ, "SRM_BENCH_API_KEY": SECRET},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert server.reached[k].wait(30), "the run never reached puzzle k"
        proc.send_signal(signal.SIGINT)  # while puzzle k is in flight
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    assert sorted(a["puzzle"] for a in read_answers(out)[1]) == list(range(k + 1))  # k was kept
    assert k + 1 not in _puzzles(server)  # nothing new was asked after Ctrl-C


def test_a_key_echoed_by_the_server_is_never_recorded_nor_printed(server, tmp_path, capsys):
    server.plan = {0: ["echo-key", "ok"], 1: ["echo-key"]}
    out = tmp_path / "a.jsonl"
    code, _, err = _cli(capsys, *_llm(server.url, out, "--limit", "2", "--concurrency", "1", "--retries", "1"))
    assert code == 1 and "your key Bearer REDACTED" in err and SECRET not in err
    assert read_answers(out)[1][0]["failed_attempts"][0]["error"].endswith("your key Bearer REDACTED")
    assert SECRET.encode() not in out.read_bytes()


def test_credentials_in_the_query_string_are_sent_but_not_recorded(server, tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    url = server.url + "/chat/completions?api-version=2024-06-01&api_key=" + SECRET
    assert _cli(capsys, *_llm(url, out, "--limit", "1"))[0] == 0
    assert server.calls[0]["path"].endswith("api_key=" + SECRET)  # the server got it
    assert SECRET.encode() not in out.read_bytes()
    assert read_answers(out)[0]["endpoint"].endswith("?api-version=2024-06-01&api_key=REDACTED")


def test_resume_refuses_other_options_and_foreign_files(server, tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    assert _cli(capsys, *_llm(server.url, out, "--limit", "2"))[0] == 0
    code, _, err = _cli(capsys, *_llm(server.url, out, "--limit", "2", "--shots", "1"))
    assert code == 1 and "another --shots (3, now 1)" in err and err.count("\n") == 1
    code, _, err = _cli(capsys, *_llm(server.url, out, "--limit", "1"))
    assert code == 1 and "a smaller --limit (1) cannot resume it" in err
    assert len(read_answers(out)[1]) == 2
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"hello": 1}\n')
    code, _, err = _cli(capsys, *_llm(server.url, foreign, "--limit", "2"))
    assert code == 1 and "not an srm-bench answers file" in err
    assert foreign.read_text() == '{"hello": 1}\n'
    code, _, err = _cli(capsys, *_llm("ftp://x/v1", tmp_path / "b.jsonl"))
    assert code == 1 and "not an http(s) URL" in err and not (tmp_path / "b.jsonl").exists()
    code, _, err = _cli(capsys, *_llm("http://user:pw@127.0.0.1:1/v1", tmp_path / "b.jsonl"))
    assert code == 1 and "SRM_BENCH_API_KEY" in err and not (tmp_path / "b.jsonl").exists()


def test_evaluate_refuses_an_unfinished_or_edited_file(server, tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    server.plan = {2: ["500"]}
    assert _cli(capsys, *_llm(server.url, out, "--limit", "4", "--concurrency", "1", "--retries", "0"))[0] == 1
    results = tmp_path / "results"
    code, text, err = _cli(capsys, "evaluate", str(out), "--out", str(results))
    assert code == 1 and "2 of 4 puzzles have no answer yet (2, 3)" in err and not results.exists()
    lines = out.read_text().splitlines()
    dup = tmp_path / "dup.jsonl"
    dup.write_text("\n".join(lines + [lines[1], lines[2]]) + "\n")
    code, _, err = _cli(capsys, "evaluate", str(dup), "--out", str(results))
    assert code == 1 and "answered more than once" in err and not results.exists()


# ----------------------------------------------------------------------------- leaderboard

def test_text_result_appears_beside_the_papers_llm_rows(server, tmp_path, capsys):
    out = tmp_path / "answers.jsonl"
    server.plan = {1: ["malformed"]}
    assert _cli(capsys, *_llm(server.url, out, "--limit", "4"))[0] == 0
    results = tmp_path / "results"
    assert _cli(capsys, "evaluate", str(out), "--out", str(results))[0] == 0
    code, text, err = _cli(capsys, "leaderboard", "--task", "sudoku", "-r", str(results))
    assert code == 0, err
    table = text.split("## Text Sudoku")[1]
    assert "GPT-4o-mini" in table and "Phi-4" in table and "scripted-llm" in table
    row = next(r for r in table.splitlines() if "scripted-llm" in r)
    assert "0.750" in row  # solved 3 of 4
    # the text result never lands in the image track's Table 1
    table1 = text.split("## Table 1")[1].split("## ")[0]
    assert "scripted-llm" not in table1 and "GPT-4o" not in table1
    code, text, err = _cli(capsys, "leaderboard", "--verify", "-r", str(results))
    assert code == 0, err
    code, _, err = _cli(capsys, "plot", "samples", str(next(results.glob("*.json"))), "-o", str(tmp_path / "p.png"))
    assert code == 1 and "no images to draw" in err and not (tmp_path / "p.png").exists()
