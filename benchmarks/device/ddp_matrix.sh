# Why does DDP lose per-GPU throughput on a small network? One device call that runs
# benchmarks/bench_train.py for a preset on 1, 2 and 4 GPUs at the same per-GPU batch, compiled
# (with and without DDP graph splitting) and eager, and at twice the per-GPU batch. Rows go to
# $OUT/train-throughput.json. Usage (a 4-GPU machine):
#   [TASK=sudoku] [PER_GPU=256] [STEPS=60] bash benchmarks/device/ddp_matrix.sh PRESET
source benchmarks/device/setup.sh
preset=$1; task=${TASK:-sudoku}; b=${PER_GPU:-256}; steps=${STEPS:-60}
json=$OUT/train-throughput.json
bench() {  # nproc batch extra-args...
  local n=$1 batch=$2; shift 2
  torchrun --nproc_per_node $n --master_port 29511 benchmarks/bench_train.py --task $task --preset $preset \
    --batch $batch --steps $steps --warmup 20 --json $json "$@" 2>&1 | grep '^{' || echo "failed: $n GPUs, batch $batch, $*"
}
bench 1 $b --compile
bench 2 $((2 * b)) --compile
bench 4 $((4 * b)) --compile
bench 4 $((4 * b)) --compile --no-optimize-ddp
bench 4 $((4 * b))
bench 1 $b
bench 4 $((8 * b)) --compile
