# Lease 2026-12-02a (planned in the forty-fourth session, run in the forty-fifth: docs/runs/lease-2026-12-02a): Even Pixels' sampler noise race, no training.
# Lease 2026-12-01b found that the sampler's fresh noise helps it keep the count: the shipped o-g16c at eta 0 drew
# 0.288 / 0.328 (predicted / random order + overlap 0.95, seed 0) against 0.348 / 0.386 at eta 1 (p 0.049 / 0.065),
# while a loss that lowered the count error on the training states (o-g16im) left the samples level. Deterministic
# steps follow the network's estimate down to t = 0 and never redraw what it got wrong on the way. So the next lever is
# more noise per step than the DDPM posterior's: `--eta` above 1 (ours; baselines/samplers.py: the paper's step with
# both sigmas scaled by eta and capped at the level's b_s). With a perfect denoiser this is exact only in the limit of
# small steps: on tests/test_baselines.py's Gaussian toy the samples' spread shrinks to 0.92 at eta 2 and 200 steps,
# 0.98 at 1000; Even Pixels' ramps are ~240 steps a patch at overlap 0.95 and 1000 NFE. Whether the
# correction outweighs that is what the rows say. CPU completion probe (benchmarks/probe_even_pixels_completion.py,
# n = 200, 100 NFE, K = 1 / 4 patches drawn again, the same masks and seeds): see docs/even-pixels-baselines.md,
# forty-fourth session.
# Jobs, all 500 samples, 1000 NFE, overlap 0.95 unless parallel, one H200:
#   step 1: o-g16c (shipped) at eta ETAS[0] [3]: predicted and random order, seeds 0 and 1; the DDPM o-ddpm-cool
#           (campaign 47d732c, 103.6M images, 0.096 at eta 1 seed 0) parallel at eta ETAS[0], seeds 0 and 1, and at
#           eta 1, seed 1 (its control to n = 1,000): seven jobs at once
#   step 2: o-g16c at every other eta of ETAS [2 4]: predicted and random order, seeds 0 and 1, eight at once
#   step 3 (only with O_G16PM=1 and >= 420 s left): o-g16pm (campaign 7cd29ee, step 110,500) to 112,000 and judged as
#           lease 2026-12-01b judged o-g16im (the race's second arm; low priority: the image term did not lift)
# The decisions, fixed before the runs:
#   - an eta lifts the SRM if its predicted-order row (seeds 0-1 pooled, n = 1,000) beats o-g16c's eta-1 rows of the
#     same seeds (358 of 1,000; even-pixels-2026-11-29i) at Fisher p < 0.0167 (three etas against one control), or
#     its random-order row beats 385 of 1,000 the same way;
#   - the DDPM's eta lifts if its parallel row (n = 1,000) beats its eta-1 rows (seed 0 committed, seed 1 here) at
#     p < 0.05;
#   - an eta that lifts becomes a sampler row of Table 2 beside the paper's eta 1, named as ours, not in its place;
#     the next lease then runs it over the shipped network's Figure 6 overlaps and seeds 2-3.
# Time: ~90 s setup on a fresh host, ~200 s for step 1, ~220 s for step 2: one call, ~9 minutes of one H200 (step 2
# waits for the next call when fewer than 240 s are left). With
# O_G16PM=1, ~100 s compiling, ~170 s training, ~120 s judging in a second call.
# Commands (carry [".whl", "runs"]; set aside every shipped baseline weights file except
# baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors, both Counting evaluators' weights, docs/img/ and
# leaderboard/results/; runs/ holds o-ddpm-cool only (`bash benchmarks/device/campaign.sh restore o-ddpm-cool`), and
# o-g16pm (`restore o-g16pm`) for step 3; check with `bash benchmarks/device/travel_size.sh .whl runs`):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=2026-12-02a
#   bash -c 'source benchmarks/device/setup.sh'; bash benchmarks/device/lease-2026-12-02a.sh eta    # every call
#   ... lease-2026-12-02a.sh follow    # the next call, same host (planned at the session of the lease): the
#       race's decision by benchmarks/device/pick_eta.py; an eta that lifts runs over o-g16c's seeds 2-3 at overlap
#       0.95 and Figure 6's overlaps 0 / 0.25 / 0.5 / 0.75 / 0.9 / 0.99 (seed 0), two steps of eight jobs; when none
#       lifts, o-g16pm is finished and judged (the `eta` call's step 3)
#   bash benchmarks/device/campaign.sh join <files_at>            # after a call that trained, in one tool block
# Results come back in runs.tgz (collect.sh): $R/ep-eta the rows (named as their committed eta-1 rows are).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results
L=/tmp/lease-02a; rm -rf $L; mkdir -p $L
G16C=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16c, shipped
G16C_NAME=srm-unet-unet-s-g16-gc-seqmix1-ov0.95-comp0.5-anneal2
DDPM=runs/o-ddpm-cool.safetensors
ETAS=(${ETAS:-3 2 4})
JOBS=()
srm_at() {  # ETA "JOB SEED"...: JOBS += o-g16c's JOB at ETA with SEED
  local e=$1 j; shift
  for j in "$@"; do JOBS+=("$e $j $G16C $G16C_NAME"); done
}
srm_jobs() { srm_at $1 ":predicted@0.95 0" ":predicted@0.95 1" ":random@0.95 0" ":random@0.95 1"; }
eta_job() {  # J GPU; a JOBS entry is "ETA JOB SEED WEIGHTS NAME"
  local a=(${JOBS[$1]})
  ETA=${a[0]} SEED=${a[2]} NAME=${a[4]} GPU=$2 timeout $(left) bash benchmarks/device/eval.sh ${a[3]} $R/ep-eta ${a[1]}
}
step() {  # MIN_S: every JOBS entry at once on GPU 0, if MIN_S seconds are left
  [ $(left) -ge $1 ] || { echo "$(left) s left: ${#JOBS[@]} jobs in the next call"; return 1; }
  EVAL_PER_GPU=${#JOBS[@]} deal_each eta_job ${#JOBS[@]} 0
}
G16PM_SUFFIX=seqmix1-ov0.95-comp0.5-anneal3
STOP=112000
judge_pm() { EVAL_PER_GPU=4 race_judge $G16C 0; }  # o-g16pm's completion probe and four rows (into $R/ep-race)
finish_pm() {  # o-g16pm to STOP under ep_anneal, then judged as lease 2026-12-01b judged o-g16im
  [ -e runs/o-g16pm.safetensors ] || { echo "runs/o-g16pm.safetensors missing: campaign.sh restore o-g16pm" >&2; return 1; }
  RUNS=(g16pm)
  ep_anneal 0 g16pm unet-s-g16-gc-pm > $L/g16pm 2>&1
  JUDGE_JOBS=(); judge_at_095 g16pm unet-s-g16-gc-pm:$G16PM_SUFFIX
  [ $(left) -ge 200 ] && once judge-pm judge_pm > $L/judge 2>&1
  return 0
}
case $1 in
eta)
  [ -e $DDPM ] || { echo "$DDPM missing: bash benchmarks/device/campaign.sh restore o-ddpm-cool" >&2; exit 2; }
  JOBS=(); srm_jobs ${ETAS[0]}
  JOBS+=("${ETAS[0]} :parallel 0 $DDPM ddpm-unet-unet-s-g16-gc" "${ETAS[0]} :parallel 1 $DDPM ddpm-unet-unet-s-g16-gc"
    "1 :parallel 1 $DDPM ddpm-unet-unet-s-g16-gc")
  once eta-first step 240 > $L/first 2>&1
  JOBS=(); for e in ${ETAS[@]:1}; do srm_jobs $e; done
  [ -e $R/.done-eta-first ] && once eta-second step 240 > $L/second 2>&1
  if [ "${O_G16PM:-0}" = 1 ] && [ -e $R/.done-eta-second ] && [ $(left) -ge 420 ]; then
    finish_pm || exit 2
  fi
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
follow)
  # The call after `eta`: the race's decision (benchmarks/device/pick_eta.py, the rule above) on this host's rows;
  # an eta that lifts runs over seeds 2-3 at overlap 0.95 and Figure 6's overlaps (seed 0), eight jobs a step;
  # when none lifts, o-g16pm is finished and judged instead (step 3 of `eta`)
  [ -e $R/.done-eta-second ] || { echo "the race is not complete on this host: run \`$0 eta\` first" >&2; exit 2; }
  E=$(python benchmarks/device/pick_eta.py $R/ep-eta $G16C_NAME --control predicted=358/1000 random=385/1000 \
    2> $L/pick) || exit 1
  cat $L/pick
  if [ -n "$E" ]; then
    echo "eta $E lifts: seeds 2-3 and the overlap sweep at eta $E"
    JOBS=(); srm_at $E ":predicted@0.95 2" ":predicted@0.95 3" ":random@0.95 2" ":random@0.95 3" \
      ":predicted@0.9 0" ":random@0.9 0" ":predicted@0.99 0" ":random@0.99 0"
    once follow-first step 240 > $L/follow1 2>&1
    JOBS=(); srm_at $E ":predicted 0" ":random 0" ":predicted@0.25 0" ":random@0.25 0" ":predicted@0.5 0" \
      ":random@0.5 0" ":predicted@0.75 0" ":random@0.75 0"
    [ -e $R/.done-follow-first ] && once follow-second step 240 > $L/follow2 2>&1
  elif [ $(left) -ge 420 ]; then
    echo "no eta lifts: o-g16pm finished and judged"
    finish_pm || exit 2
  fi
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
more)
  # The third call (planned after `follow`: eta 4 lifted most, 0.452 / 0.496 at seeds 0-1): Table 2's other rows at
  # eta 4 (the DDPM's parallel row, seeds 0-3 - its eta-3 rows 0.116 / 0.126 against 0.096 / 0.098 at eta 1 -,
  # the SRM's parallel row, Figure 6's peak overlap 0.9 at seed 1), then the race continued past eta 4: 8 and 16
  # (where nearly every step's noise is capped at b_s: x0_hat drawn afresh to the next level), predicted and random
  # order at overlap 0.95, seeds 0-1. Decision, fixed before the rows: eta 8 or 16 replaces 4 if its pooled row beats
  # eta 4's (452 / 496 of 1,000) at Fisher p < 0.025 (two etas against one control)
  JOBS=()
  for sd in 0 1 2 3; do JOBS+=("4 :parallel $sd $DDPM ddpm-unet-unet-s-g16-gc"); done
  srm_at 4 ":parallel 0" ":predicted@0.9 1" ":random@0.9 1"
  once more-first step 240 > $L/more1 2>&1
  JOBS=(); srm_jobs 8; srm_jobs 16
  [ -e $R/.done-more-first ] && once more-second step 240 > $L/more2 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 eta|follow|more" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
