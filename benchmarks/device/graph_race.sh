# The CUDA-graph step (`srm-bench train --cuda-graph`) against the plain compiled step, on 1, 2 and
# 4 GPUs at a fixed batch over all GPUs (a recipe's batch; DDP splits it), plus one GPU at the
# per-GPU batch of four. The profile of the fourteenth Even Pixels lease
# (docs/even-pixels-baselines.md) found the plain step waiting on the host: ~80 ms of launches
# for 32 ms of device work at 512 images a GPU. Rows go to $OUT/train-throughput.json (printed
# too). Usage (a 4-GPU machine; ~1 minute a row, most of it compilation):
#   [TASK=even-pixels] [BATCH=2048] [STEPS=60] [END=seconds] [ONLY='^2 2048 --compile$'] bash benchmarks/device/graph_race.sh PRESET
source benchmarks/device/setup.sh
preset=$1; task=${TASK:-even-pixels}; b=${BATCH:-2048}; steps=${STEPS:-60}
json=$OUT/train-throughput.json; T0=${T0:-$(date +%s)}
ngpu=$(nvidia-smi -L | wc -l)
bench() {  # nproc batch extra-args...: one row, unless fewer than 90 s are left
  local n=$1 batch=$2 left=$(( ${END:-560} - ($(date +%s) - T0) )); shift 2
  [ $n -le $ngpu ] && [ $left -ge 90 ] || { echo "skipped: $n GPUs, batch $batch, $* (${left} s left)"; return 0; }
  [[ -z "${ONLY:-}" || "$n $batch $*" =~ $ONLY ]] || return 0  # ONLY: a regex on "GPUS BATCH ARGS"
  timeout $left torchrun --nproc_per_node $n --master_port 29512 benchmarks/bench_train.py --task $task \
    --preset $preset --batch $batch --steps $steps --warmup 20 --json $json "$@" 2>&1 | grep '^{' \
    || echo "failed: $n GPUs, batch $batch, $*"
}
bench 1 $((b / 4)) --compile --cuda-graph
bench 1 $((b / 4)) --compile
bench 4 $b --compile --cuda-graph
bench 4 $b --compile
bench 2 $b --compile --cuda-graph
bench 2 $b --compile
bench 1 $b --compile --cuda-graph
bench 1 $b --compile
