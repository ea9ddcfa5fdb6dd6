"""The repository stays small enough to travel to the GPU machine, and committed results compact."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TREE_LIMIT = 60 * 2**20  # the working tree is copied to the GPU machine, 64 MiB with what a lease carries


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / p for p in out.decode().split("\0") if p]


def test_the_tracked_tree_fits_the_device_budget() -> None:
    files = [p for p in tracked_files() if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    biggest = sorted(files, key=lambda p: p.stat().st_size)[-3:]
    assert total < TREE_LIMIT, (f"tracked tree is {total / 2**20:.1f} MiB (limit {TREE_LIMIT / 2**20:.0f} MiB); "
                                f"biggest: {[str(p.relative_to(REPO)) for p in biggest]}")


def test_committed_per_sample_files_are_compressed() -> None:
    """A plain per-sample CSV under leaderboard/results/ is ~4x its .gz: compress before committing."""
    plain = [p for p in tracked_files() if p.name.endswith(".per_sample.csv") and "leaderboard/results" in p.as_posix()]
    assert not plain, (f"{len(plain)} plain per-sample CSV(s), e.g. {plain[0].relative_to(REPO)}; "
                       "run python -m leaderboard.compress leaderboard/results")


def test_every_device_script_parses() -> None:
    """The lease scripts run only on the GPU machine, where a syntax error costs a device call: `bash -n` them here."""
    scripts = sorted((REPO / "benchmarks" / "device").glob("*.sh"))
    assert scripts, "no scripts under benchmarks/device"
    bad = {}
    for script in scripts:
        done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        if done.returncode:
            bad[script.name] = done.stderr.strip().splitlines()[-1]
    assert not bad, f"bash -n fails: {bad}"


def test_the_eta_race_decision_is_drawn_again_from_the_committed_rows(tmp_path: Path) -> None:
    """benchmarks/device/pick_eta.py, the rule lease 2026-12-02a applied on the GPU host: on the committed rows the
    host held then (etas 1-4; eta 8 was drawn in the next call, under its own rule) it picks eta 4 again (every eta of
    2-4 lifted predicted order; 4 has the most correct samples), and none against a control no eta beats; rows of
    other models, overlaps or seeds 2-3 are not pooled."""
    import json
    import shutil

    rows = REPO / "leaderboard/results/baselines/even-pixels-2026-12-02a"
    res = tmp_path / "ep-eta"
    res.mkdir()
    for f in rows.glob("*.json"):
        if json.loads(f.read_text())["model"]["sampler"]["eta"] <= 4:
            shutil.copy(f, res / f.name)
    name = "srm-unet-unet-s-g16-gc-seqmix1-ov0.95-comp0.5-anneal2"
    cmd = [sys.executable, str(REPO / "benchmarks/device/pick_eta.py"), str(res), name, "--control"]
    got = subprocess.run([*cmd, "predicted=358/1000", "random=385/1000"], capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "4"
    assert "eta 4 predicted: 452/1000" in got.stderr and "eta 4 random: 496/1000" in got.stderr  # seeds 0-1 only
    assert "eta 2 random: 433/1000 = 0.433 vs 385/1000 = 0.385, p 0.0325\n" in got.stderr  # not a lift at alpha 0.0167
    none = subprocess.run([*cmd, "predicted=560/1000", "random=600/1000"], capture_output=True, text=True, check=True)
    assert none.stdout == "" and "(lifts)" not in none.stderr


GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, check=True, text=True).stdout


def test_campaign_weights_live_in_the_history_and_come_back_checked(tmp_path: Path) -> None:
    """benchmarks/device/campaign.sh: weights saved are out of the tree but restorable bit for bit;
    other staged work is left alone; a copy whose hash disagrees with the index is refused."""
    import json
    import shutil

    import torch
    from safetensors.torch import save_file

    repo = tmp_path / "repo"
    (repo / "benchmarks/device").mkdir(parents=True)
    shutil.copy(REPO / "benchmarks/device/campaign.sh", repo / "benchmarks/device/campaign.sh")
    _git(repo, "init", "-q")
    (repo / "README").write_text("x\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "start")
    (repo / "runs").mkdir()
    record = {"step": 11800, "images": 24166400, "gpu_hours": 0.43, "init": {"step": 9000}}
    save_file({"w": torch.arange(6, dtype=torch.float32)}, str(repo / "runs/o-srm.safetensors"),
              metadata={"record": json.dumps(record)})
    original = (repo / "runs/o-srm.safetensors").read_bytes()
    script = ["bash", "benchmarks/device/campaign.sh"]
    rec = subprocess.run([*script, "record", "runs/o-srm.safetensors"], cwd=repo, capture_output=True, text=True,
                         check=True).stdout
    assert rec == "11800\t24166400\t0.43\n"  # what the lease scripts read a run's step from
    fields = subprocess.run([*script, "record", "runs/o-srm.safetensors", "init.step", "step", "init.file"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout
    assert fields == "9000\t11800\t\n"  # the fields asked for, in order; "" for one the record lacks
    (repo / "README").write_text("staged, not for the campaign commits\n")
    _git(repo, "add", "README")

    subprocess.run([*script, "save", "runs/o-srm.safetensors"], cwd=repo, env=GIT_ENV, check=True, capture_output=True)
    tree = _git(repo, "ls-files").split()
    assert "campaign/INDEX.tsv" in tree and not any(p.endswith(".safetensors") for p in tree)
    assert "README" in _git(repo, "diff", "--cached", "--name-only")  # still staged, not committed
    name, commit, sha, step, images, hours = (repo / "campaign/INDEX.tsv").read_text().splitlines()[1].split("\t")
    assert (name, step, images, hours) == ("o-srm", "11800", "24166400", "0.43")
    assert "campaign/o-srm.safetensors" in _git(repo, "ls-tree", "-r", "--name-only", commit)

    shutil.rmtree(repo / "runs")
    subprocess.run([*script, "restore"], cwd=repo, env=GIT_ENV, check=True, capture_output=True)
    assert (repo / "runs/o-srm.safetensors").read_bytes() == original

    index = repo / "campaign/INDEX.tsv"
    index.write_text(index.read_text().replace(sha, "0" * 64))
    (repo / "runs/o-srm.safetensors").unlink()
    bad = subprocess.run([*script, "restore", "o-srm"], cwd=repo, env=GIT_ENV, capture_output=True, text=True)
    assert bad.returncode == 1 and "sha256" in bad.stderr
    assert not list((repo / "runs").iterdir())  # nothing half-written left behind


def test_campaign_join_puts_a_calls_weight_parts_back_together(tmp_path: Path) -> None:
    """`campaign.sh join DIR` joins every weights-NAME.part-* of a device call into runs/NAME.safetensors
    (a second EMA into runs/NAME-ema2.safetensors, a compile cache into runs/NAME.compile-cache.gz), bit for
    bit; a set with a part missing is refused and leaves nothing in runs/."""
    import json
    import shutil

    import torch
    from safetensors.torch import save_file

    repo = tmp_path / "repo"
    (repo / "benchmarks/device").mkdir(parents=True)
    shutil.copy(REPO / "benchmarks/device/campaign.sh", repo / "benchmarks/device/campaign.sh")
    out = tmp_path / "files_at"
    out.mkdir()
    whole = {}
    for name, step in (("o-a", 104000), ("o-a-ema2", 104000), ("o-b", 7)):
        f = tmp_path / f"{name}.safetensors"
        save_file({"w": torch.arange(3000, dtype=torch.float32) + step}, str(f),
                  metadata={"record": json.dumps({"step": step, "images": step * 2048})})
        whole[name] = f.read_bytes()
        subprocess.run(["split", "-b", "5000", str(f), str(out / f"weights-{name}.part-")], check=True)
    assert len(list(out.glob("weights-o-a.part-*"))) == 3  # 12 kB of data and a header in 5 kB parts
    (out / "compile-cache-o-a.part-aa").write_bytes(b"cache-1")
    (out / "compile-cache-o-a.part-ab").write_bytes(b"cache-2")
    script = ["bash", "benchmarks/device/campaign.sh", "join", str(out)]
    done = subprocess.run(script, cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for name, data in whole.items():
        assert (repo / f"runs/{name}.safetensors").read_bytes() == data, name
    assert (repo / "runs/o-a.compile-cache.gz").read_bytes() == b"cache-1cache-2"
    assert "runs/o-a.safetensors: step 104000, 212992000 images" in done.stdout

    shutil.rmtree(repo / "runs")
    (out / "weights-o-b.part-ac").unlink()  # the last part of o-b lost
    bad = subprocess.run(script, cwd=repo, capture_output=True, text=True)
    assert bad.returncode == 1 and "weights-o-b.part-*" in bad.stderr and "\n" not in bad.stderr.strip()
    assert not (repo / "runs/o-b.safetensors").exists() and not list((repo / "runs").glob("*.tmp"))
    empty = tmp_path / "empty"
    empty.mkdir()
    none = subprocess.run([*script[:-1], str(empty)], cwd=repo, capture_output=True, text=True)
    assert none.returncode == 1 and "no weights-" in none.stderr


def test_setup_sh_sets_aside_an_earlier_lease_s_tmp(tmp_path: Path) -> None:
    """benchmarks/device/setup.sh sets an earlier lease's runs/ and results/ aside on our first call of a host, and
    with LEASE on the first call of each lease even where the host kept its installed site (thirty-first session);
    a later call of the same lease keeps them (a warm host resumes its runs)."""
    root = tmp_path / "tmp"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("python3", "nvidia-smi"):
        (bin_dir / tool).write_text("#!/bin/bash\nexit 0\n")
        (bin_dir / tool).chmod(0o755)

    def call(lease: str | None) -> bool:
        """One call; whether its runs/ and results/ were set aside (each holds a file before it)."""
        for d in ("runs", "results"):
            (root / d).mkdir(parents=True, exist_ok=True)
            (root / d / "mark").write_text("x")
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SETUP_TMP": str(root)}
        env.pop("LEASE", None)
        if lease is not None:
            env["LEASE"] = lease
        done = subprocess.run(["bash", "-c", "source benchmarks/device/setup.sh"], cwd=REPO, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        gone = [not (root / d / "mark").exists() for d in ("runs", "results")]
        assert gone[0] == gone[1] and (root / "site/.done").exists(), (gone, done.stdout)
        return gone[0]

    assert call(None)  # a host new to us
    assert not call(None)  # the next call on it, without LEASE: as before
    assert call("k")  # a host that kept its site from another lease
    assert not call("k")  # the same lease's next call: its runs continue
    assert call("l")  # the next lease on the same host
    assert len(list((root / "stale").iterdir())) == 6
    # A call of the same lease leaves the lease file alone, and calls started together (lease.sh deals scoring jobs,
    # each sourcing setup.sh) keep the runs they share: one read the file while another truncated it to rewrite it
    # in lease 2026-11-29e, took the lease for new and set aside the weights under the others.
    before = (root / "lease").stat()
    assert not call("l")
    after = (root / "lease").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SETUP_TMP": str(root), "LEASE": "l"}
    jobs = [subprocess.Popen(["bash", "-c", "source benchmarks/device/setup.sh"], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(24)]
    assert all(job.wait() == 0 for job in jobs)
    assert (root / "runs/mark").exists() and len(list((root / "stale").iterdir())) == 6


def test_lease_sh_graph_ok_checks_the_graph_once_a_host(tmp_path: Path) -> None:
    """benchmarks/device/lease.sh's graph_ok: 1 once the CUDA-graph check passed for a preset, 0 once it failed (one
    line), each checked only once a host; 0 without checking when too little of the call is left; the check's own
    lines go to stderr so that GRAPH=$(graph_ok ...) reads 0 or 1 only."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text("#!/bin/bash\necho 'GPU 0: stub'\n")
    (bin_dir / "nvidia-smi").chmod(0o755)
    count = tmp_path / "checks"
    script = f"""
source benchmarks/device/lease.sh
R={tmp_path}/results
graph_check() {{ echo "checked $3" >> {count}; echo "check output"; [ $3 = good ]; }}
echo "good=$(graph_ok 0 even-pixels good srm 512)"
echo "good=$(graph_ok 0 even-pixels good srm 512)"
echo "bad=$(graph_ok 0 even-pixels bad srm 512)"
echo "bad=$(graph_ok 0 even-pixels bad srm 512)"
COMPILE=0; echo "eager=$(graph_ok 0 even-pixels good srm 512)"; echo "eager=$(graph_ok 0 even-pixels good srm 512)"
unset COMPILE
END=100 T0=$(date +%s); echo "late=$(graph_ok 0 even-pixels late srm 512)"
"""
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", script], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["good=1", "good=1", "bad=0", "bad=0", "eager=1", "eager=1", "late=0"]
    # once a host for each of compiled and eager (COMPILE=0: the step checked as it will train); none when late
    assert count.read_text().split("\n")[:-1] == ["checked good", "checked bad", "checked good"]
    assert done.stderr.count("the graph check of bad failed") == 1 and "check output" in done.stderr
    # the check itself compiles the step unless COMPILE=0
    (bin_dir / "python").write_text(f"#!/bin/bash\necho \"$*\" >> {tmp_path}/args\n")
    (bin_dir / "python").chmod(0o755)
    run = f"source benchmarks/device/lease.sh; L={tmp_path}; T0=$(date +%s); END=600; graph_check 0 t p srm 8; " \
          f"COMPILE=0 graph_check 0 t p srm 8"
    done = subprocess.run(["bash", "-c", run], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    first, second = (tmp_path / "args").read_text().splitlines()
    assert "--compile" in first.split() and "--compile" not in second.split() and "--preset p" in second


def test_train_sh_sets_aside_a_run_folder_behind_its_init(tmp_path: Path) -> None:
    """benchmarks/device/train.sh resumes a run folder's last.pt only when it is not behind the carried INIT: a
    host lent afresh can hold an earlier lease's /tmp/runs, whose older state would otherwise be trained on in
    silence. Behind INIT, the folder is set aside and INIT continues; level with it, the folder is resumed."""
    import json
    import shutil
    import uuid

    import torch
    from safetensors.torch import save_file

    repo = tmp_path / "repo"
    (repo / "benchmarks/device").mkdir(parents=True)
    for f in ("train.sh", "campaign.sh"):
        shutil.copy(REPO / "benchmarks/device" / f, repo / "benchmarks/device" / f)
    (repo / "benchmarks/device/setup.sh").write_text("set -o pipefail\n")  # no install on the CPU
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "srm-bench").write_text('#!/bin/bash\necho "$@" > "$ARGS_FILE"; touch "$RUN_DIR"/{log,eval}.csv\n')
    (bin_dir / "srm-bench").chmod(0o755)
    (repo / "runs").mkdir()

    def weights(path: Path, step: int) -> None:
        save_file({"w": torch.zeros(2)}, str(path), metadata={"record": json.dumps({"step": step})})

    weights(repo / "runs/o-x.safetensors", 5000)
    name = f"test-stale-{uuid.uuid4().hex[:8]}"
    run = Path("/tmp/runs") / name
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "ARGS_FILE": str(tmp_path / "args"),
           "RUN": name, "RUN_DIR": str(run), "TASK": "even-pixels", "OUT": str(out), "WEIGHTS": "0"}
    try:
        for have, resumed in ((3000, False), (5000, True)):
            shutil.rmtree(run, ignore_errors=True)
            run.mkdir(parents=True)
            (run / "last.pt").write_bytes(b"state")
            weights(run / "weights.safetensors", have)
            done = subprocess.run(["bash", "benchmarks/device/train.sh", "unet-s", "1", "runs/o-x.safetensors"],
                                  cwd=repo, env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            args = (tmp_path / "args").read_text()
            assert ("--init runs/o-x.safetensors" not in args) == resumed, (have, args)
            assert (run / "last.pt").exists() == resumed, have
            assert ("behind INIT's 5000" in done.stdout) != resumed, done.stdout
    finally:
        shutil.rmtree(run, ignore_errors=True)
        for stale in Path("/tmp/stale").glob(f"{name}-*"):
            shutil.rmtree(stale, ignore_errors=True)


def test_train_sh_retries_a_failed_compiled_run_but_not_a_diverged_one(tmp_path: Path) -> None:
    """With COMPILE=1 a failed run gets one more try, except one that its spike guard stopped
    (`train --spike-guard`): from the same state it would diverge again and spend the call."""
    import shutil
    import uuid

    repo = tmp_path / "repo"
    (repo / "benchmarks/device").mkdir(parents=True)
    for f in ("train.sh", "campaign.sh"):
        shutil.copy(REPO / "benchmarks/device" / f, repo / "benchmarks/device" / f)
    (repo / "benchmarks/device/setup.sh").write_text("set -o pipefail\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "srm-bench").write_text('#!/bin/bash\necho call >> "$CALLS"; echo "error: $MESSAGE" >&2; exit 1\n')
    (bin_dir / "srm-bench").chmod(0o755)
    name = f"test-retry-{uuid.uuid4().hex[:8]}"
    run = Path("/tmp/runs") / name
    try:
        for message, calls in (("the run diverged: loss 1.4 at step 6200, 3.7x the median 0.38", 1),
                               ("CUDA out of memory", 2)):
            shutil.rmtree(run, ignore_errors=True)
            (tmp_path / "calls").unlink(missing_ok=True)
            env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CALLS": str(tmp_path / "calls"),
                   "MESSAGE": message, "RUN": name, "TASK": "even-pixels", "OUT": str(tmp_path), "WEIGHTS": "0",
                   "COMPILE": "1"}
            done = subprocess.run(["bash", "benchmarks/device/train.sh", "unet-s", "1"], cwd=repo, env=env,
                                  capture_output=True, text=True)
            assert (tmp_path / "calls").read_text().count("call") == calls, (message, done.stdout)
            assert ("not retried: the run diverged: loss 1.4 at step 6200" in done.stdout) == (calls == 1), done.stdout
    finally:
        shutil.rmtree(run, ignore_errors=True)


def test_travel_size_counts_the_tree_and_the_carried_paths(tmp_path: Path) -> None:
    """benchmarks/device/travel_size.sh: tracked and untracked-not-ignored files count, ignored ones only when
    carried; over 64,000,000 bytes it says so and exits 1 (a sparse file: its size counts, whatever its blocks)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("runs/\n")
    (repo / "a.txt").write_text("x" * 5000)
    _git(repo, "add", "a.txt", ".gitignore")
    (repo / "untracked.txt").write_text("y" * 3000)
    (repo / "runs").mkdir()
    with open(repo / "runs" / "big.bin", "wb") as f:
        f.truncate(65_000_000)
    script = REPO / "benchmarks" / "device" / "travel_size.sh"
    fits = subprocess.run(["bash", str(script)], cwd=repo, capture_output=True, text=True)
    assert fits.returncode == 0 and fits.stdout.startswith("3 files:") and "fits" in fits.stdout
    over = subprocess.run(["bash", str(script), "runs"], cwd=repo, capture_output=True, text=True)
    assert over.returncode == 1 and over.stdout.startswith("4 files:") and "over the device's 64 MiB" in over.stdout
    assert "runs/big.bin" in over.stdout


def _fake_device_tools(tmp_path: Path, srm_bench_body: str) -> tuple[Path, Path, dict[str, str]]:
    """Stubs for benchmarks/device/eval.sh: python3 and nvidia-smi that succeed, and an `srm-bench` that appends its
    arguments to the returned log and then runs ``srm_bench_body``; returns (weights file, log, environment)."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    for tool in ("python3", "nvidia-smi"):
        (bin_dir / tool).write_text("#!/bin/bash\nexit 0\n")
        (bin_dir / tool).chmod(0o755)
    (bin_dir / "srm-bench").write_text(f"#!/bin/bash\necho \"$*\" >> {log}\n{srm_bench_body}")
    (bin_dir / "srm-bench").chmod(0o755)
    weights = tmp_path / "w.safetensors"
    weights.write_bytes(b"weights")
    return weights, log, {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SETUP_TMP": str(tmp_path / "tmp")}


def test_eval_sh_continues_a_scoring_job_cut_short(tmp_path: Path) -> None:
    """benchmarks/device/eval.sh names a job's samples file by its settings, so that a rerun on the same host hands
    `srm-bench sample` the same OUT (whose OUT.partial.npz it continues), scores a samples file that was written
    before its scoring was cut, and skips a job once scored (fifty-fifth session)."""
    # sample: the first call is cut after a batch (leaves OUT.partial.npz), a rerun finishes OUT;
    # evaluate: fails while tmp_path/eval-fails exists
    weights, log, env = _fake_device_tools(tmp_path, f"""if [ "$2" = sample ]; then
  out=${{@: -1}}
  [ -e "$out.partial.npz" ] && {{ touch "$out"; exit 0; }}
  touch "$out.partial.npz"; exit 1
fi
[ -e {tmp_path}/eval-fails ] && exit 1
echo '{{"metrics": {{}}}}'
""")
    env["BATCH"] = "125"

    def run() -> tuple[int, list[str]]:
        log.write_text("")
        done = subprocess.run(["bash", "benchmarks/device/eval.sh", str(weights), str(tmp_path / "res"), ":predicted"],
                              cwd=REPO, env=env, capture_output=True, text=True)
        return done.returncode, log.read_text().splitlines()

    code, calls = run()
    assert code == 1 and len(calls) == 1 and "--batch-size 125" in calls[0] and "--order predicted" in calls[0]
    first_out = calls[0].split()[-1]
    assert Path(first_out + ".partial.npz").exists()
    (tmp_path / "eval-fails").write_text("")
    code, calls = run()  # continues the same OUT, then its scoring is cut
    assert code == 1 and calls[0].split()[-1] == first_out and calls[1].split()[:3] == ["-q", "evaluate", first_out]
    assert Path(first_out).exists()
    (tmp_path / "eval-fails").unlink()
    code, calls = run()  # scores the written samples without sampling again
    assert code == 0 and [c.split()[1] for c in calls] == ["evaluate"]
    assert not Path(first_out).exists() and len(list((tmp_path / "res").glob(".done-*"))) == 1
    code, calls = run()
    assert code == 0 and calls == []


def test_eval_sh_takes_a_job_s_own_eta(tmp_path: Path) -> None:
    """A JOB of benchmarks/device/eval.sh may end in /ETA (`:predicted@0.95/0`): that job samples at its own eta
    beside jobs at ETA, and its done-mark differs, so both rows are drawn in one call (sixty-third session)."""
    weights, log, env = _fake_device_tools(tmp_path, """[ "$2" = sample ] && touch "${@: -1}"
echo '{"metrics": {}}'
""")
    done = subprocess.run(["bash", "benchmarks/device/eval.sh", str(weights), str(tmp_path / "res"),
                           ":predicted@0.95", ":predicted@0.95/0"], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    samples = [c.split() for c in log.read_text().splitlines() if c.split()[1] == "sample"]
    assert len(samples) == 2
    for call, eta in zip(samples, ("1", "0")):
        assert call[call.index("--eta") + 1] == eta and call[call.index("--overlap") + 1] == "0.95"
        assert "predicted" in call and "predicted@0.95" not in " ".join(call)
    assert len(list((tmp_path / "res").glob(".done-*"))) == 2
