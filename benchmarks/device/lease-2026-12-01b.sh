# Lease 2026-12-01b (planned in the forty-third session, run in the forty-fourth: o-g16im level with its control,
# 390 against 377 of 1,000, p 0.58; o-g16c at eta 0 below eta 1; o-g16pm trained to 110,500 only, in an inline call
# recorded in docs/runs/lease-2026-12-01b/output.txt): Even Pixels' mean-term race. The count loss of
# lease 2026-11-30a (o-g16y) lost at p = 3e-19 because an auxiliary head's loss asked the shared features for
# something else and took the step over (gradient norm 1.1-9.5 against 0.10-0.19). The samples fail on the count the
# last patches close (one pixel off in ~47% of them), a count that is <= 1.5% of the best reachable MSE. The mean
# terms (LossWeights.patch_mse / image_mse, ours) weigh that part of the same residual more and move no optimum; their
# weights (presets.MEAN_TERM_WEIGHTS) make each term's gradient as large as the rest of the loss's at o-g16c. In the
# arms' rows (CPU, batch 512, train's log) the shipped network leaves an image-mean term of 0.025-0.029, ~7% of what a
# white residual gives (the MSE, 0.37); the clean rest fixes the noisy patches' total, so little of that is noise. A CPU
# pilot (160 steps at batch 64 from o-g16c): the paper's loss let a lone patch's count drift (exact 0.867 -> 0.613 at
# t = 1), -im held it at 0.844 and -pm at 0.734, the MSE level (docs, forty-third session).
# Arms, each the shipped o-g16c (step 108,000, 221.2M images) annealed 4,000 steps with its own recipe (lease.sh's
# ep_cont: lr 4e-4 after the warm-up, linear to 0; `--sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix
# 0.5`; EMA 0.999) to step 112,000, exactly as the control o-g16d was (predicted 377 and random 375 of 1,000 at
# overlap 0.95, seeds 0-1; docs/even-pixels-baselines.md, thirty-third lease):
#   o-g16im  preset unet-s-g16-gc-im: the image-mean term, weight 0.02 (the first arm: one GPU runs it alone)
#   o-g16pm  preset unet-s-g16-gc-pm: the patch-mean term, weight 0.15 (with two or more GPUs, beside o-g16im)
# Besides, eval only: o-g16c at eta 0 (1000 NFE; predicted and random order at overlap 0.95, seed 0), whether the
# sampler's noise kicks lose the count (the static probe holds the last patch's count at 0.996 at t = 0.25 from a true
# state, the sampler's trajectories at 0.625: docs, forty-third session).
# Judged once an arm reached 112,000, with JUDGE_MIN_S [200] s left in the call: the completion probe (K = 1 and 4,
# 200 test images) of o-g16c and the arm, then its predicted and random order at overlap 0.95, seeds 0 and 1 (500
# samples, 1000 NFE, eta 1), four jobs at once. The decisions, fixed before the runs:
#   - an arm lifts the samples if its predicted-order row (seeds 0-1 pooled, n = 1,000) beats o-g16d's 377 of 1,000 at
#     Fisher p < 0.025 (two arms against one control; p < 0.05 when only o-g16im ran), random order beside it the same
#     way against 375; either is a lift;
#   - an arm that lifts replaces the shipped o-g16c only after its own sweep (lease.sh's EP_JOBS), if no Table 2 row is
#     below o-g16c's and one is above at p < 0.05; issue 12's bar decides the issue;
#   - a loss's gradient norm (log.csv) is reported beside: above 0.5 on most steps is the take-over o-g16y showed.
# Time: one GPU (lease 2026-11-30a's figures): ~150 s setup and graph check, ~140 s compiling, ~440 s training,
# ~170 s judging, ~120 s the eta-0 rows: three calls,
# ~20 minutes. Two GPUs: the arms side by side, then both judged. A one-GPU host counted its whole held time in the
# forty-third session: plan on that.
# Commands (carry [".whl", "runs"]; set aside every shipped baseline weights file except
# baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors (o-g16c: the arms' start, the eta-0 rows and the
# completion probe's reference), both Counting evaluators' weights, docs/img/ and leaderboard/results/; runs/ empty in
# the first call, then the arms' weights as joined; check with `bash benchmarks/device/travel_size.sh .whl runs`):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=2026-12-01b
#   bash -c 'source benchmarks/device/setup.sh'; bash benchmarks/device/lease-2026-12-01b.sh mean    # every call
#   bash benchmarks/device/campaign.sh join <files_at>            # after every call, in one tool block with the next
#   bash benchmarks/device/campaign.sh save runs/o-g16im.safetensors [runs/o-g16pm.safetensors]   # at the session's end
# Results come back in runs.tgz (collect.sh): $R/ep-race holds the arms' rows, named srm-unet-<preset>-<suffix>;
# $R/ep-eta0 o-g16c's eta-0 rows.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results
L=/tmp/lease-01b; rm -rf $L; mkdir -p $L
G16C=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16c, shipped
STOP=112000
SUFFIX=seqmix1-ov0.95-comp0.5-anneal3
judge() {  # GPU...: the completion probe and the arms' rows (race_judge: once every arm in RUNS reached STOP)
  [ $(left) -ge ${JUDGE_MIN_S:-200} ] || { echo "$(left) s left: judged in the next call"; return 1; }
  EVAL_PER_GPU=${EVAL_PER_GPU:-4} race_judge $G16C "$@"
}
eta0_job() {  # J GPU: o-g16c's predicted (J = 0) or random (J = 1) order at overlap 0.95, eta 0, 1000 NFE, seed 0
  local job=(:predicted@0.95 :random@0.95)
  NAME=srm-unet-unet-s-g16-gc-seqmix1-ov0.95-comp0.5-anneal2 ETA=0 GPU=$2 timeout $(left) bash benchmarks/device/eval.sh \
    $G16C $R/ep-eta0 ${job[$1]}
}
eta0() {  # GPU...: both eta-0 rows at once
  [ $(left) -ge ${ETA0_MIN_S:-200} ] || { echo "$(left) s left: the eta-0 rows in the next call"; return 1; }
  EVAL_PER_GPU=2 deal_each eta0_job 2 "$@"
}
case $1 in
mean)
  g=($(seq 0 $((NGPU - 1))))
  if [ $NGPU -gt 1 ]; then
    RUNS=(g16im g16pm)
    ep_anneal ${g[0]} g16im unet-s-g16-gc-im > $L/g16im 2>&1 &
    ep_anneal ${g[1]} g16pm unet-s-g16-gc-pm > $L/g16pm 2>&1 &
    wait
    JUDGE_JOBS=(); judge_at_095 g16im unet-s-g16-gc-im:$SUFFIX g16pm unet-s-g16-gc-pm:$SUFFIX
    once judge-mean judge ${g[*]} > $L/judge 2>&1
  else
    RUNS=(g16im)
    ep_anneal 0 g16im unet-s-g16-gc-im > $L/g16im 2>&1
    JUDGE_JOBS=(); judge_at_095 g16im unet-s-g16-gc-im:$SUFFIX
    once judge-im judge 0 > $L/judge 2>&1
  fi
  # the eta-0 rows only after the arms' judging has succeeded on this host (the arms come first; a later call runs them)
  if [ -e $R/.done-judge-mean ] || [ -e $R/.done-judge-im ]; then once eta0 eta0 ${g[*]} > $L/eta0 2>&1; fi
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 mean" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
