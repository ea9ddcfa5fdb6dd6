# Lease k of 2026-11-29 (planned in the thirty-sixth session; run as lease 2026-11-29l in the thirty-seventh, calls 1-2
# `go`, call 3 `dose`, calls 4-5 `go`: docs/runs/lease-2026-11-29l/output.txt): the shipped Even Pixels SRM's missing
# rows, then a race for predicted order. The sweep, the reproduction and o-g16d ran and are judged. o-g16r trained at
# ~1-2 steps/s (likely because its ranker read a new batch size every step; it now reads one shape) and stopped at step
# 108,400 on a log.csv without a header (fixed), so it continues alone with `race`. Next session, every call:
#   export JUDGE_MIN_S=240; bash benchmarks/device/lease-2026-11-29k.sh race
# (with T0, END and LEASE as below; carry runs/o-g16d.safetensors and runs/o-g16r.safetensors, restored by
# campaign.sh). JUDGE_MIN_S 240 lets the call in which o-g16r reaches 112,000 judge it too: in lease 2026-11-29l four
# rows at once took 112 s, and the whole `dose` call (500 steps, probes, four rows) 252 s.
# `cmax` (added in the thirty-seventh session, not run yet): o-g16x, the completion anneal again from o-g16c with
# --completion-max 16, for the random-order row (0.393, its bar 0.40 inside the interval), judged on eight rows; first
# call on a host from the shipped weights (runs/ without o-g16x), later calls from runs/o-g16x.safetensors:
#   export JUDGE_MIN_S=300; bash benchmarks/device/lease-2026-11-29k.sh cmax
# Beside lease n's DDPM on a two-GPU host (its second session, when only the DDPM chain is left), one call runs both
# (setup first, so that the two scripts do not install the package at once on a fresh host):
#   bash -c 'source benchmarks/device/setup.sh'; bash benchmarks/device/lease-2026-11-29n.sh ddpm > /tmp/n.log 2>&1 &
#   EP_GPUS=1 JUDGE_MIN_S=300 bash benchmarks/device/lease-2026-11-29k.sh cmax;
#   EP_GPUS=1 JUDGE_MIN_S=240 bash benchmarks/device/lease-2026-11-29k.sh race; wait; cat /tmp/n.log
# (`race` takes the rest of each call once `cmax` is judged; carry o-g16r and o-g16d beside o-t4d6, o-g16x and the
# shipped Even Pixels SRM: ~61 MB with the tree)
# The completion race (lease h, run as lease 2026-11-29i) annealed the 213.0M-image o-g16s 4,000 steps with completion
# states on half its rows: o-g16c (step 108,000, 221.2M images) drew random order + overlap 0.95 at 0.393 over four
# seeds (o-g16s 0.317, its control o-g16h 0.340) and 0.468 at overlap 0.9, predicted order at 0.357 (0.353 / 0.347):
# random order now leads predicted order (p 0.02 at 0.95, 0.001 at 0.9), where they were level. It ships as
# srm-even-pixels since the thirty-sixth session, from its 13 rows; the reference protocol and Figure 6's other
# overlaps are not scored for it (docs/even-pixels-baselines.md, "Thirty-second lease").
# 1. sweep (first call, once): those 11 rows of the shipped weights (seed 0, 500 samples, 1000 NFE, eta 1; the
#    reference protocol at 100 NFE, eta 0), four jobs at once on a GPU, named as o-g16c's other rows; then
#    `srm-bench reproduce` of its committed predicted-order + overlap-0.95 seed-0 result on this device type (issue 12).
# 2. The race, from the shipped o-g16c, 4,000 steps each with o-g16c's own recipe (lr 4e-4 after the warm-up, linear to
#    0; `--sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5`; EMA 0.999), to step 112,000:
#      o-g16d  the recipe again (the dose; o-g16h showed that a second anneal alone gives nothing)
#      o-g16r  the same with `--sequential-order predicted`: the mix rows' levels handed to their patches in the order
#              of the EMA network's uncertainty at pure noise, as the predicted-order sampler picks them (new on the
#              GPU: CPU-tested, +19% a step on the CPU)
#    Predicted order picks, at every slot, the untouched patch whose own noise makes the network surest (rank
#    consistency +0.13-0.16 between two noise draws, benchmarks/probe_mix_order.py; its start order correlates +0.06
#    between samples, benchmarks/probe_sampler_order.py). Its gap does not form at the end: finishing 4 or 16
#    missing patches of exact test images, o-g16c's predicted order beats its random order (0.412 / 0.338 against
#    0.369 / 0.294 of 160; probe_even_pixels_completion.py --order), so it forms earlier in the draw, in states the
#    random-order mix does not show the network (starts chosen by their noise). o-g16r trains on those states.
#    Judged (once both reached STOP, with JUDGE_MIN_S [300] s left) by the origin probe (K = 1, --trajectory) of
#    o-g16c and both arms, the completion probe, and predicted and random order at overlap 0.95, seeds 0 and 1
#    (500 samples, 1000 NFE, eta 1), four jobs at once. What it decides:
#    - o-g16r against o-g16d in predicted order over both seeds (n = 1,000 each, Fisher p < 0.05): training on
#      predicted order's own states closes its gap;
#    - o-g16d against o-g16c's 743 of 2,000 in the four rows: the dose;
#    - either replaces the shipped o-g16c only if no sequential Table 2 row is below o-g16c's and one is above at
#      p < 0.05, after its own sweep.
# One H200: the sweep ~5 minutes (11 jobs, four at once; not measured at four), the reproduction ~1.5; the arms side
# by side after ~165 s of compilation (unet-s-g16-gc alone: 9.1 steps/s under the graph; two at once not measured,
# ~4-5 each expected): ~15-17 minutes; judging ~5. So the session's 30 minutes reach the arms' end or nearly, and
# judging is likely the next session's first call (the arms are skipped as reached; carry their weights).
# Commands (carry [".whl", "runs"]; the shipped Sudoku and Counting weights and the Counting evaluators' weights set
# aside; the shipped even-pixels-srm-unet-s-g16-gc.safetensors stays: it is o-g16c, the sweep's weights and the
# arms' start; runs/ empty in call 1, then the arms' weights as joined):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29k.sh go               # every call
#   bash benchmarks/device/campaign.sh join <files_at>            # after every call, in one tool block with the next
#   bash benchmarks/device/campaign.sh save runs/o-g16d.safetensors runs/o-g16r.safetensors   # at the session's end
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29k; rm -rf $L; mkdir -p $L
G16C=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16c, shipped
STOP=112000
RUNS=(g16d g16r)
JUDGE_JOBS=()
judge_at_095 g16d unet-s-g16-gc:seqmix1-ov0.95-comp0.5-anneal3 g16r unet-s-g16-gc:seqmix1-ov0.95-pred-comp0.5-anneal3
SWEEP=(ref :predicted :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.99 :random :random@0.25
  :random@0.5 :random@0.75 :random@0.99)
sweep_job() {  # J GPU: SWEEP[J] of the shipped weights, seed 0, into $R/ep-race under o-g16c's row name
  local job=${SWEEP[$1]} protocol=()
  [ $job = ref ] && { job=:predicted@0.95; protocol=(NFE=100 ETA=0 RAMP=reference); }
  env "${protocol[@]}" NAME=srm-unet-unet-s-g16-gc-seqmix1-ov0.95-comp0.5-anneal2 SEED=0 GPU=$2 timeout $(left) \
    bash benchmarks/device/eval.sh $G16C $R/ep-race $job
}
sweep() {  # GPU...: the shipped weights' missing rows, then the reproduction of a committed one on the first GPU
  [ "$(wstep $G16C)" = 108000 ] || { echo "$G16C is not o-g16c at step 108,000"; return 1; }
  EVAL_PER_GPU=${EVAL_PER_GPU:-4} deal_each sweep_job ${#SWEEP[@]} "$@" || return 1
  reproduce_ep $1  # lease.sh's EP_RESULT: o-g16c's predicted-order + overlap-0.95 row, seed 0
}
arm() {  # GPU RUN [train args]: o-RUN from the shipped o-g16c (step 108,000) with its own recipe and the args, to STOP
  local gpu=$1 run=$2; shift 2
  if [ -z "$(init_of $run)" ] && [ ! -e $W/o-$run/last.pt ]; then
    [ "$(wstep $G16C)" = 108000 ] || { echo "o-$run: $G16C is not o-g16c at step 108,000"; return 1; }
  fi
  ep_cont $gpu $run $G16C 108000 --sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5 "$@"
}
judge() {  # GPU...: once both arms reached STOP, where each one's last patch is lost, then race_judge against o-g16c
  local r
  for r in ${RUNS[*]}; do
    reached $r $STOP || { echo "o-$r at $(wstep $(latest $r)) of $STOP: not judged yet"; return 1; }
  done
  [ $(left) -ge ${JUDGE_MIN_S:-300} ] || { echo "$(left) s left: judged in the next call"; return 1; }
  for w in $G16C $(for r in ${RUNS[*]}; do latest $r; done); do
    CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_completion_origin.py $w -n 200 --trajectory \
      --device cuda
  done
  EVAL_PER_GPU=${EVAL_PER_GPU:-4} race_judge $G16C "$@"
}
gpus() {  # the GPUs this script may use: EP_GPUS (e.g. "1", to leave GPU 0 to another lease script running beside
  # it in the same call: lease-2026-11-29n.sh's DDPM), else all
  echo ${EP_GPUS:-$(seq 0 $((NGPU - 1)))}
}
case $1 in
go)
  g=($(gpus))
  once sweep sweep ${g[*]} > $L/sweep 2>&1
  arm ${g[0]} g16d > $L/g16d 2>&1 &
  arm ${g[$(( NGPU > 1 ? 1 : 0 ))]} g16r --sequential-order predicted > $L/g16r 2>&1 &
  wait
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
dose)  # o-g16d alone to STOP, then judged against o-g16c without o-g16r: o-g16r trained at ~1.4 steps/s beside
  # o-g16d's ~6 in the second call (its predicted-order mix runs outside the graph), so it waits for a faster mix
  g=($(gpus))
  arm ${g[0]} g16d > $L/g16d 2>&1
  RUNS=(g16d); JUDGE_JOBS=(); judge_at_095 g16d unet-s-g16-gc:seqmix1-ov0.95-comp0.5-anneal3
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
race)  # the next lease: o-g16r alone (its ranker now reads one batch shape) from its 108,400 to STOP, then judged as
  # planned beside o-g16d, whose rows are committed: origin probes of o-g16c, o-g16d and o-g16r, the completion
  # probe, o-g16r's four rows (carry runs/o-g16d.safetensors and runs/o-g16r.safetensors)
  g=($(gpus))
  arm ${g[0]} g16r --sequential-order predicted > $L/g16r 2>&1
  JUDGE_JOBS=(); judge_at_095 g16r unet-s-g16-gc:seqmix1-ov0.95-pred-comp0.5-anneal3
  once judge-race judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
cmax)  # o-g16x: the shipped o-g16c's completion anneal again with --completion-max 16 (1-16 noisy patches in the
  # completion rows instead of 1-4), alone to STOP, then judged against o-g16c's committed rows: predicted and random
  # order + overlap 0.95, seeds 0-3 (docs/even-pixels-baselines.md, "Next step (after the thirty-third lease)", item 2)
  g=($(gpus))
  RUNS=(g16x)
  arm ${g[0]} g16x --completion-max 16 > $L/g16x 2>&1
  N=unet-s-g16-gc:seqmix1-ov0.95-comp0.5-k16-anneal3
  JUDGE_JOBS=(); judge_at_095 g16x $N
  JUDGE_JOBS+=("g16x $N :predicted@0.95 2" "g16x $N :random@0.95 2" "g16x $N :predicted@0.95 3" "g16x $N :random@0.95 3")
  once judge-cmax judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go|dose|race|cmax" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
