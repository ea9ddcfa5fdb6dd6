# Lease 2026-11-30a (planned in the forty-second session; run in the forty-third as 2026-12-01a, ended at one arm):
# o-g16y ran (call 1 with `count`, call 2 inline: docs/runs/lease-2026-12-01a/output.txt) and lost to the control at
# p = 3e-19 (predicted order 196 against 377 of 1,000): the count loss took the gradient over. o-g16z was dropped, not
# postponed (docs/even-pixels-baselines.md, "Forty-third session"). Kept as the record of what was planned.
# The plan as written: Even Pixels' count race, Sudoku's finding
# carried over. Sudoku's SRM ranked cells well only once its uncertainty head learnt the class head's cross-entropy
# at the cell's digit (hard 0.470 -> 0.680, docs/sudoku-baselines.md, lease o); without the auxiliary digit loss
# neither its SRM nor its DDPM learnt the rules. Even Pixels shows the same symptom as Sudoku's template heads did:
# predicted order sits below random order at overlap 0.95 (0.357 against 0.393, the shipped o-g16c), and the ranker's
# log-variance barely spreads between a row's patches (benchmarks/probe_mix_order.py). Two arms, each the shipped
# o-g16c (step 108,000, 221.2M images) annealed 4,000 steps with its own recipe (lease.sh's ep_cont: lr 4e-4 after
# the warm-up, linear to 0; `--sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5`; EMA 0.999), to
# step 112,000, exactly as the dose o-g16d was (its four rows: predicted 377 and random 375 of 1,000 at overlap 0.95,
# seeds 0-1; docs/even-pixels-baselines.md, thirty-third lease), so o-g16d is the control:
#   o-g16y  preset unet-s-g16-gc-cnt: a class head (17 classes: how many of a patch's 16 pixels take the second hue)
#           and its cross-entropy (weight 1), the head new (--init from o-g16c's weights leaves the denoiser as it was)
#   o-g16z  preset unet-s-g16-gc-cls: the same, and the uncertainty head learns the class head's cross-entropy at the
#           patch's count, floored at 1e-4 (Sudoku's cell-aux-cls)
# Judged once both reached 112,000, with JUDGE_MIN_S [300] s left in the call: the completion probe (K = 1 and 4, 200
# test images) of o-g16c and both arms on the first GPU, then per arm predicted order with the head, predicted order
# with the class entropy (`--uncertainty entropy`) and random order, all at overlap 0.95, seeds 0 and 1 (500 samples,
# 1000 NFE, eta 1), four jobs at once a GPU. The decisions, fixed before the runs:
#   - an arm lifts predicted order if its head's row (seeds 0-1 pooled, n = 1,000) beats o-g16d's 377 of 1,000,
#     Fisher p < 0.025 (two arms against one control); its entropy row and random order are reported beside;
#   - the count loss alone (o-g16y) against o-g16d says whether the class head's loss helps the denoiser; o-g16z
#     against o-g16y whether the head's target does;
#   - either replaces the shipped o-g16c only after its own sweep, if no Table 2 row is below o-g16c's and one is
#     above at p < 0.05; issue 12's bar (predicted + overlap 0.95 >= 0.45, random >= 0.40) decides the issue.
# Time: both arms side by side on a 2x H200 host (one a GPU; ~165 s of compiling, then ~9 steps/s under the graph:
# ~7.5 minutes for 4,000 steps), judging ~5 minutes (12 jobs and the probes): two or three calls. On a one-GPU host
# the arms run one after the other (o-g16y first), judging in the last call. On a 4x host the arms take GPUs 0 and 1.
# Commands (carry [".whl", "runs"]; set aside every shipped baseline weights file except
# baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors (o-g16c: the arms' start and the completion probe's
# reference), both Counting evaluators' weights, docs/img/ and leaderboard/results/; runs/ empty in the first call,
# then the arms' weights as joined; check with `bash benchmarks/device/travel_size.sh .whl runs`):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=2026-11-30a
#   bash -c 'source benchmarks/device/setup.sh'; bash benchmarks/device/lease-2026-11-30a.sh count    # every call
#   bash benchmarks/device/campaign.sh join <files_at>            # after every call, in one tool block with the next
#   bash benchmarks/device/campaign.sh save runs/o-g16y.safetensors runs/o-g16z.safetensors   # at the session's end
# Results come back in runs.tgz (collect.sh): $R/ep-race holds the rows, named srm-unet-<preset>-<suffix>.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results
L=/tmp/lease-30a; rm -rf $L; mkdir -p $L
G16C=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16c, shipped
STOP=112000
RUNS=(g16y g16z)
SUFFIX=seqmix1-ov0.95-comp0.5-anneal3
JUDGE_JOBS=()
judge_at_095 g16y unet-s-g16-gc-cnt:$SUFFIX g16z unet-s-g16-gc-cls:$SUFFIX
JUDGE_JOBS+=("g16y unet-s-g16-gc-cnt:$SUFFIX :predicted-entropy@0.95 0" "g16z unet-s-g16-gc-cls:$SUFFIX :predicted-entropy@0.95 0"
  "g16y unet-s-g16-gc-cnt:$SUFFIX :predicted-entropy@0.95 1" "g16z unet-s-g16-gc-cls:$SUFFIX :predicted-entropy@0.95 1")
judge() {  # GPU...: the completion probe and the twelve rows (race_judge: once both arms reached STOP)
  [ $(left) -ge ${JUDGE_MIN_S:-300} ] || { echo "$(left) s left: judged in the next call"; return 1; }
  EVAL_PER_GPU=${EVAL_PER_GPU:-4} race_judge $G16C "$@"
}
case $1 in
count)
  g=($(seq 0 $((NGPU - 1))))
  if [ $NGPU -gt 1 ]; then
    ep_anneal ${g[0]} g16y unet-s-g16-gc-cnt > $L/g16y 2>&1 &
    ep_anneal ${g[1]} g16z unet-s-g16-gc-cls > $L/g16z 2>&1 &
    wait
  else
    { ep_anneal 0 g16y unet-s-g16-gc-cnt; ep_anneal 0 g16z unet-s-g16-gc-cls; } > $L/arms 2>&1
  fi
  once judge-count judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 count" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
