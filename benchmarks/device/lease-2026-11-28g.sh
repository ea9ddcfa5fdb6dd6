# Lease g (twenty-ninth session, the last ~4 device-minutes after lease f): more seeds for lease e's arms. Lease f
# showed one seed's 500 samples do not rank arms 0.05 apart (docs/even-pixels-baselines.md, "Twenty-fourth lease").
# `score` draws eight rows at once, two on each GPU (~70 s): seed 1 of o-g16g's three judged rows (its 0.478 in
# predicted order at overlap 0.9 is the one row above the bar's 0.45), of o-g16i's two overlap-0.95 rows and of
# o-g16s's predicted order at 0.9; seed 2 of o-g16s's and o-g16f's predicted order at 0.95. Results under
# $R/ep-seeds, with the leaderboard names of their seed-0 rows. No `once`: a call this short has no second part.
# Commands (carry [".whl", "runs"]; runs/ holding o-g16f, o-g16g and o-g16i only; `campaign.sh restore` them):
#   export T0=$(date +%s); export END=<budget_left_s - 80, at most 560>; bash benchmarks/device/lease-2026-11-28g.sh score
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results
L=/tmp/lease-g; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
NS=srm-unet-unet-s-g16-gc-seqmix0.5-ov0.95  # the names their seed-0 rows carry
JOBS=("runs/o-g16g.safetensors $NS-lr8e-4-ema0.9999-anneal 1 :predicted@0.9"
  "runs/o-g16g.safetensors $NS-lr8e-4-ema0.9999-anneal 1 :predicted@0.95"
  "runs/o-g16g.safetensors $NS-lr8e-4-ema0.9999-anneal 1 :random@0.95"
  "$G16S $NS 1 :predicted@0.9"
  "runs/o-g16i.safetensors $NS-lr8e-4-anneal-ov0.9 1 :predicted@0.95"
  "runs/o-g16i.safetensors $NS-lr8e-4-anneal-ov0.9 1 :random@0.95"
  "$G16S $NS 2 :predicted@0.95"
  "runs/o-g16f.safetensors $NS-lr8e-4-anneal 2 :predicted@0.95")
declare -A STEP_OF=([$G16S]=104000 [runs/o-g16f.safetensors]=128000 [runs/o-g16g.safetensors]=128000
  [runs/o-g16i.safetensors]=128000)
job() {  # J GPU
  local a=(${JOBS[$1]})
  NAME=${a[1]} SEED=${a[2]} GPU=$2 timeout $(left) bash benchmarks/device/eval.sh ${a[0]} $R/ep-seeds ${a[3]}
}
score() {  # GPU...
  local w
  for w in ${!STEP_OF[*]}; do
    [ "$(wstep $w)" = ${STEP_OF[$w]} ] || { echo "$w is not at step ${STEP_OF[$w]}"; return 1; }
  done
  deal_each job ${#JOBS[@]} "$@"
}
case $1 in
score)
  score $(seq 0 $((NGPU - 1))) > $L/score 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 score" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
