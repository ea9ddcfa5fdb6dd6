# Lease h (planned in the twenty-ninth session): does the mix pay in predicted order once its states are taken up in
# the network's own predicted order? Leases e-g (docs/even-pixels-baselines.md, "Twenty-third" to "Twenty-fifth lease")
# annealed o-g16e (the mix at constant lr 8e-4 to step 124,000) with the mix's states in a random order: random order
# rose (o-g16f 0.371, o-g16i 0.402 over two seeds, against o-g16s's 0.317) and predicted order did not (0.375 / 0.375
# against 0.353). `train --sequential-order predicted` (new) ranks a mix row's noisy patches by the EMA network's
# uncertainty of them at pure noise, the most certain furthest along (one extra forward of those rows a step: +19% step
# time on the CPU, benchmarks/results/train-throughput.json). Two arms, lease e's anneal otherwise (ep_cont: 4,000
# steps, lr 4e-4 to 0, --sequential-mix 0.5), one H200 each under --cuda-graph:
#   GPU 0  o-g16j  from o-g16e (step 124,000) to 128,000, overlap 0.95, predicted order: against o-g16f (random order)
#   GPU 1  o-g16k  the same with overlap 0.9 states: against o-g16i
# and on GPUs 2 and 3 the DDPM towards step 100,000 meanwhile (`lease-2026-11-28y.sh ddpm` with DDPM_GPUS="2 3", DDP
# over the two under the graph; it trains to each call's end). Judged once both arms reached step 128,000, on GPUs 0
# and 1 (`race_judge`): the completion probe (o-g16s beside them; o-g16f and o-g16i drew theirs in lease e on an H200),
# and per arm predicted and random order at overlap 0.95 with seeds 0 and 1 and predicted order at 0.9 with seed 0.
# An arm beats its random-order twin when its predicted-order row at 0.95 over both seeds does (Fisher p < 0.05).
# ~4,000 steps at ~7-9 steps/s: two calls, the second ending with the judge (~4 minutes) while the DDPM trains on.
# Lower priority since benchmarks/probe_mix_order.py (docs/even-pixels-baselines.md, "Does predicted order have anything
# to follow?"): these networks' uncertainty at pure noise barely tells Even Pixels' patches apart, so this order is close
# to a random one here; lease i comes first.
# Commands (carry [".whl", "runs"]; the shipped Sudoku weights set aside: tree 21 MB + wheels 1.4 + o-g16e 6.6 +
# o-ddpm 6.6 + its compile cache 22.8 MB (if kept; else the DDPM compiles for ~2 minutes) = 58 MB. Call 1: runs/ holding
# o-g16e.safetensors, o-ddpm.safetensors (`campaign.sh restore o-g16e o-ddpm`) and o-ddpm.compile-cache.gz if at hand;
# later calls: o-g16j, o-g16k and o-ddpm's weights (and cache) only):
#   mkdir -p /work/aside/shipped && mv baselines/weights/sudoku-*.safetensors /work/aside/shipped/   # back after
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; bash benchmarks/device/lease-2026-11-28h.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16j.safetensors runs/o-g16k.safetensors runs/o-ddpm.safetensors
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-h; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
G16E=runs/o-g16e.safetensors
STOP=128000
RUNS=(g16j g16k)
declare -A NAME_OF=([g16j]=seqmix0.5-ov0.95-lr8e-4-anneal-pred [g16k]=seqmix0.5-ov0.95-lr8e-4-anneal-ov0.9-pred)
JUDGE_JOBS=()
for r in ${RUNS[*]}; do
  for j in ":predicted@0.95 0" ":predicted@0.95 1" ":random@0.95 0" ":random@0.95 1" ":predicted@0.9 0"; do
    JUDGE_JOBS+=("$r ${NAME_OF[$r]} $j")
  done
done
arm() {  # GPU RUN [train args]: RUN continued from o-g16e to STOP, its mix's states in predicted order
  local gpu=$1 run=$2; shift 2
  [ -n "$(init_of $run)" ] || [ "$(wstep $G16E)" = 124000 ] || { echo "$G16E is not o-g16e at step 124,000"; return 1; }
  ep_cont $gpu $run $G16E 124000 --sequential-mix 0.5 --sequential-order predicted "$@"
}
case $1 in
go)
  DDPM_GPUS="2 3" bash benchmarks/device/lease-2026-11-28y.sh ddpm > $L/ddpm 2>&1 &
  ddpm_pid=$!
  arm 0 g16j --sequential-overlap 0.95 > $L/g16j 2>&1 &
  j=$!
  arm 1 g16k --sequential-overlap 0.9 > $L/g16k 2>&1 &
  k=$!
  wait $j $k
  once judge race_judge $G16S 0 1 > $L/judge 2>&1
  wait $ddpm_pid
  grep -h -v -i warn $L/g16j $L/g16k $L/judge $L/ddpm 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
