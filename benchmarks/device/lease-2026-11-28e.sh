# Lease e (planned in the twenty-eighth session): does the mix's longer run pay once it is annealed? Lease d
# (docs/even-pixels-baselines.md "Twenty-second lease") continued the shipped o-g16s (step 104,000; 0.344 / 0.310 in
# Table 2's overlap-0.95 rows) 20,000 steps under its mix at the paper's constant lr 8e-4: o-g16e's EMA 0.999 scored
# 0.302 / 0.270 and its EMA 0.9999 0.268 / 0.276, while the count probe sharpened (24 noisy patches: 0.93 px against
# o-g16s's 1.11). o-g16s itself had its lr annealed to 0 over its last 4,000 steps; o-g16e had none. Each arm here
# gets that anneal, lease a's recipe (ep_cont: lr 4e-4 after the warm-up, decayed linearly to 0 over 4,000 steps,
# 8.2M images, ~0.17 GPU-h, `--sequential-mix 0.5`), one H200 each under --cuda-graph:
#   GPU 0  o-g16f  from o-g16e (EMA 0.999, step 124,000) to 128,000, overlap 0.95 states (o-g16s's recipe)
#   GPU 1  o-g16g  from o-g16e's EMA 0.9999 (runs/o-g16e-ema2.safetensors) to 128,000, the same
#   GPU 2  o-g16h  from o-g16s (step 104,000) to 108,000, the same: a second anneal at equal steps, without
#                  lease d's 20,000 (a host of 3+ GPUs)
#   GPU 3  o-g16i  from o-g16e to 128,000 with overlap 0.9 states (o-g16s's Figure 6 peaks at 0.9; a host of 4)
# ~4,000 steps at ~9.1 steps/s a GPU: two calls with a fresh host's start. Judged once every arm reached its STOP
# (`judge`): the completion probe (K = 1 and 4, 200 test images, o-g16s beside them), and Table 2's two
# overlap-0.95 rows plus predicted order at overlap 0.9 of each arm (leaderboard names below), two jobs at once
# on each GPU. An arm beats o-g16s when its predicted-order row at 0.95 does (Fisher p < 0.05), then it can ship
# after lease c's 16 EP_JOBS on it.
# Commands (carry [".whl", "runs"]; o-g16s is the shipped srm-even-pixels, read from baselines/weights/. Call 1:
# runs/ holding o-g16e.safetensors and o-g16e-ema2.safetensors (`bash benchmarks/device/campaign.sh restore o-g16e
# o-g16e-ema2`) and the shipped Sudoku weights set aside. Later calls: runs/ holding the four arms' weights only (move
# o-g16e and -ema2 out) and the Counting weights set aside too; tree 35 MB + wheels 1.4 + 4 x 6.6 MB = 60 MiB):
#   mkdir -p /work/aside/shipped && mv baselines/weights/sudoku-*.safetensors /work/aside/shipped/   # back after
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; bash benchmarks/device/lease-2026-11-28e.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16f.safetensors ...   # the arms, after the lease
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-e; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
G16E=runs/o-g16e.safetensors; G16E2=runs/o-g16e-ema2.safetensors
declare -A STOP_OF=([g16f]=128000 [g16g]=128000 [g16h]=108000 [g16i]=128000)
JUDGE_JOBS=()
RUNS=(g16f g16g)
[ $NGPU -ge 3 ] && RUNS+=(g16h)
[ $NGPU -ge 4 ] && RUNS+=(g16i)
declare -A NAME_OF=([g16f]=seqmix0.5-ov0.95-lr8e-4-anneal [g16g]=seqmix0.5-ov0.95-lr8e-4-ema0.9999-anneal
  [g16h]=seqmix0.5-ov0.95-anneal2 [g16i]=seqmix0.5-ov0.95-lr8e-4-anneal-ov0.9)
for r in ${RUNS[*]}; do
  for j in :predicted@0.95 :random@0.95 :predicted@0.9; do JUDGE_JOBS+=("$r ${NAME_OF[$r]} $j"); done
done
arm() {  # GPU RUN FROM STEP [train args]: RUN continued from FROM (which must be at STEP) to its STOP_OF
  local gpu=$1 run=$2 from=$3 step=$4; shift 4
  [ -n "$(init_of $run)" ] || [ "$(wstep $from)" = $step ] || { echo "$from is not at step $step"; return 1; }
  STOP=${STOP_OF[$run]} ep_cont $gpu $run $from $step --sequential-mix 0.5 "$@"
}
judge() {  # GPU...: every arm at its own STOP, then lease.sh's race_judge (its one STOP check is then moot)
  local r
  for r in ${RUNS[*]}; do
    reached $r ${STOP_OF[$r]} || { echo "o-$r at $(wstep $(latest $r)) of ${STOP_OF[$r]}: not judged"; return 1; }
  done
  STOP=0 race_judge $G16S "$@"
}
case $1 in
go)
  arm 0 g16f $G16E 124000 --sequential-overlap 0.95 > $L/g16f 2>&1 &
  arm 1 g16g $G16E2 124000 --sequential-overlap 0.95 > $L/g16g 2>&1 &
  [ $NGPU -ge 3 ] && { arm 2 g16h $G16S 104000 --sequential-overlap 0.95 > $L/g16h 2>&1 & }
  [ $NGPU -ge 4 ] && { arm 3 g16i $G16E 124000 --sequential-overlap 0.9 > $L/g16i 2>&1 & }
  wait
  once judge judge $(seq 0 $((NGPU - 1))) > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
