# Lease 2026-12-07c (planned in the fifty-eighth session): the shipped `srm-counting-stars` model's five Table 3 rows
# drawn again and scored by the open-set Counting classifiers (evaluator version 3), beside o-ch's training.
# Why: version 3 (lease 2026-12-07b, fifty-eighth session: both shapes passed the rule fixed before the run) ships as
# the default Counting evaluator, and results scored by different evaluator weights never share a leaderboard cell. The
# shipped model's rows (counting-stars-2026-11-27s, version 2) would then stand apart from every new submission; its
# samples are not kept (24 MB a row), so the rows must be sampled again. The same sampler settings as the shipped rows
# (500 test images, 1000 NFE, eta 1, seed 0, batch 500, EMA weights): parallel, predicted order, predicted order +
# overlap 0.95, random order, random order + overlap 0.95. On an H100 the pixels will not be the H200's bit for bit
# (baselines/reproduce.py), so these are new rows of the same model and settings; their version-2 rows stay in the
# leaderboard as they were. Once back (development CPU): rows into leaderboard/results/baselines/
# counting-stars-2026-12-07c/, models.json's `measured` for srm-counting-stars pointed at them (its status text
# rewritten from the new figures), LEADERBOARD.md rebuilt, docs/baselines.md and docs/counting.md given both versions'
# figures side by side: how much of each row's accuracy were guessed numbers (the parallel row's 0.022 above all).
# What runs: benchmarks/device/eval.sh on baselines/weights/counting-stars-srm-small-s2.safetensors, one job after
# another (a job cut short keeps its finished batches on the host, and the same command continues it; a finished job
# is marked and skipped). ~64 s a row alone on one H200 (the shipped rows' wall_s), so ~6-10 minutes beside o-ch's
# training: one or two calls.
# Checks before sampling: the travelling stars evaluator is version 3 (its pin's `open_set`), else nothing runs.
# Commands (carry [".whl", "runs"]; the shipped Sudoku and Even Pixels weights, docs/ (commit first: it comes back
# with `git restore docs`), leaderboard/results/ and evaluators/weights/digit_cnn.* set aside, both Counting evaluators'
# weights and the stars SRM's kept: `bash benchmarks/device/travel_size.sh .whl runs` ~58.9 MiB):
#   export T0=$(date +%s); export END=560; export LEASE=2026-12-05c; export STOP=54700; export COOLDOWN=10000
#   bash -c 'source benchmarks/device/setup.sh'
#   bash benchmarks/device/lease-2026-12-07c.sh go > /tmp/st.log 2>&1 & bash benchmarks/device/lease-2026-12-05b.sh go; wait
#   cat /tmp/st.log   # the same command in every call of the session
# (o-ch compiled and under the graph: eager under the graph ran at 5.57 steps/s in the fifty-eighth session, no faster
# than plain eager, so COMPILE=0 spares nothing but the compile; the compile's minutes leave the GPU to the sampling.)
# Simulated on the development CPU (fifty-eighth session) with a stub nvidia-smi, DEVICE=cpu N=2 NFE=256, SETUP_TMP and
# OUT in /tmp: the version check passed, the five rows were sampled and scored (evaluator version 3 in every result
# JSON, 4 minutes), and a second run skipped the finished rows.
# Run in the fifty-ninth session (calls 13-14 of lease 2026-12-05c, one H100; 78-147 s a row beside o-ch's training):
# five rows, accuracy 0.000-0.002, consistency 0.190 parallel -> 0.460 / 0.476 with overlap 0.95; results in
# leaderboard/results/baselines/counting-stars-2026-12-07c/, docs/baselines.md "The shipped stars model under
# evaluator version 3". Done: later sessions run lease-2026-12-05b.sh alone.
# Back: $OUT/stars-v3.tgz (result JSONs and per-sample CSVs) and $OUT/lease-07c.txt; `tar xzf stars-v3.tgz`.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
[ "${1:-}" = go ] || { echo "usage: $0 go" >&2; exit 2; }
R=/tmp/results
W=baselines/weights/counting-stars-srm-small-s2.safetensors
mkdir -p $R/stars-v3
{
  python3 -c "from srm_bench.evaluators import counting as ev; v = ev.STARS.version; print('stars evaluator version', v); \
    raise SystemExit(v != 3)" || { echo "not the open-set stars evaluator: nothing sampled"; exit 1; }
  [ -e $W ] || { echo "$W did not travel: nothing sampled"; exit 1; }
  timeout $(( $(left) - 40 )) bash benchmarks/device/eval.sh $W $R/stars-v3 \
    :parallel :predicted :predicted@0.95 :random :random@0.95
  echo "rows finished: $(ls $R/stars-v3/.done-*-${NFE:-1000}-${ETA:-1}-${N:-500}-* 2>/dev/null | wc -l) of 5"
} > $OUT/lease-07c.txt 2>&1
tar czf $OUT/stars-v3.tgz -C $R stars-v3
cat $OUT/lease-07c.txt
