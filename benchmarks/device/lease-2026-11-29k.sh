# Lease k of 2026-11-29 (planned in the thirty-sixth session; not run yet): the completion mix's dose, then Figure 6 of
# the Even Pixels SRM that ships.
# Lease h (run as lease 2026-11-29i) annealed the shipped o-g16s 4,000 steps with completion states on half its rows
# (`o-g16c`, step 108,000, campaign ef39010): random order rose (overlap 0.95: 0.393 over four seeds against o-g16s's
# 0.317 and its control o-g16h's 0.340, p 0.005; overlap 0.9: 0.468 against 0.380), predicted order did not (0.357
# against 0.353 / 0.347), and the last patch's draw went 0.550 -> 0.620 exact (docs/even-pixels-baselines.md,
# "Thirty-second lease"). Its control, o-g16h (o-g16s annealed again without completion states), was level with
# o-g16s, so a second anneal alone gives nothing; whether more completion rows give more is this lease's question:
# o-g16d: o-g16c annealed again, exactly as o-g16c was made (4,000 steps, lr 4e-4 after the warm-up, linear to 0;
# `--sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5`; EMA 0.999), to step 112,000 (229.4M
# images), then judged against o-g16c on the same rows: the completion and origin probes (K = 1, 200 images,
# `--trajectory`), predicted and random order at overlap 0.95 and 0.9, seeds 0 and 1 (500 samples each, 1000 NFE,
# eta 1; o-g16c: 0.348 / 0.368 and 0.386 / 0.384 at 0.95, 0.402 / 0.390 and 0.468 / 0.468 at 0.9).
# What it decides: o-g16d is the one to ship instead of o-g16c if its four overlap-0.95 rows (2,000 samples) beat
# o-g16c's 743 of 2,000 (Fisher p < 0.05); otherwise o-g16c. Either way `sweep` then scores the rows of Table 2 and
# Figure 6 that the one to ship lacks (the reference protocol, both orders at overlap 0, 0.25, 0.5, 0.75, 0.99, and
# parallel for o-g16d), so that benchmarks/ship_model.py can write its catalogue entry from its own results (it ships
# only if no Table 2 row is below o-g16s's and one is above: the completion race's rule was predicted order alone,
# which o-g16c left level, so this is a new rule, stated before its rows exist).
# One H200: ~165 s to compile, 9.1 steps/s under the CUDA graph (~7.5 minutes of training); call 1 reaches ~110,900,
# call 2 finishes and judges (~1 + ~4.5 minutes), call 3 sweeps (11-12 jobs, two at once, ~65 s each: ~6.5 minutes).
# Commands (carry [".whl", "runs"]; every shipped weights file and the Counting evaluators' weights set aside, as in
# lease d's header; runs/ holds exactly o-g16c in call 1 from `campaign.sh restore o-g16c`, then o-g16d as well):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29k.sh go             # calls 1 and 2 (skips what is done)
#   bash benchmarks/device/campaign.sh join <files_at>          # after every call, in one tool block with the next
#   SHIP=g16c bash benchmarks/device/lease-2026-11-29k.sh sweep  # call 3: SHIP=g16d if o-g16d won above
#   bash benchmarks/device/campaign.sh save runs/o-g16d.safetensors
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29k; rm -rf $L; mkdir -p $L
STOP=112000
RUNS=(g16d)
declare -A SUFFIX=([g16c]=seqmix1-ov0.95-comp0.5-anneal2 [g16d]=seqmix1-ov0.95-comp0.5-anneal3)
JUDGE_JOBS=()
judge_at_095 g16d unet-s-g16-gc:${SUFFIX[g16d]}
for j in ":predicted@0.9 0" ":predicted@0.9 1" ":random@0.9 0" ":random@0.9 1"; do
  JUDGE_JOBS+=("g16d unet-s-g16-gc:${SUFFIX[g16d]} $j")
done
g16d() {  # GPUS: o-g16d from o-g16c (step 108,000) with o-g16c's own recipe, to STOP
  if [ -z "$(init_of g16d)" ]; then
    [ "$(wstep runs/o-g16c.safetensors)" = 108000 ] || { echo "runs/o-g16c.safetensors is not o-g16c at step 108,000"; return 1; }
  fi
  ep_cont $1 g16d runs/o-g16c.safetensors 108000 --sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5
}
judge() {  # GPU...: once o-g16d reached STOP, where each one's last patch is lost, then race_judge against o-g16c
  reached g16d $STOP || { echo "o-g16d at $(wstep $(latest g16d)) of $STOP: not judged yet"; return 1; }
  [ $(left) -ge ${JUDGE_MIN_S:-300} ] || { echo "$(left) s left: judged in the next call"; return 1; }
  for w in runs/o-g16c.safetensors $(latest g16d); do
    CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_completion_origin.py $w -n 200 --trajectory \
      --device cuda
  done
  race_judge runs/o-g16c.safetensors "$@"
}
SWEEP=(ref :predicted :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.99 :random :random@0.25
  :random@0.5 :random@0.75 :random@0.99)
sweep_job() {  # J GPU: SWEEP[J] of o-$SHIP's newest weights, seed 0, into $R/ep-race under the race's row name
  local job=${SWEEP[$1]} protocol=()
  [ $job = ref ] && { job=:predicted@0.95; protocol=(NFE=100 ETA=0 RAMP=reference); }
  env "${protocol[@]}" NAME=srm-unet-unet-s-g16-gc-${SUFFIX[$SHIP]} SEED=0 GPU=$2 timeout $(left) \
    bash benchmarks/device/eval.sh $(latest $SHIP) $R/ep-race $job
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  g16d $(tr ' ' , <<< "${g[*]}") > $L/g16d 2>&1
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
sweep)
  case ${SHIP:-} in g16c|g16d) ;; *) echo "SHIP must be g16c or g16d" >&2; exit 2;; esac
  [ -e "$(latest $SHIP)" ] || { echo "no weights of o-$SHIP here (runs/o-$SHIP.safetensors)" >&2; exit 2; }
  [ $SHIP = g16d ] && SWEEP+=(:parallel)
  deal_each sweep_job ${#SWEEP[@]} $(seq 0 $((NGPU - 1))) > $L/sweep 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go | SHIP=g16c|g16d $0 sweep" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
