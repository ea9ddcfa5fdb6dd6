# One call of the Sudoku campaign on the GPU machine (runs kept in /tmp/runs between calls
# of one machine). Usage:
#   [NPROC=4] [GPUS=0,1] [PORT=29500] [COMPILE=1] [EVAL_BUDGET=1000] [EVAL_EVERY=1000] \
#     bash benchmarks/device/sudoku_cell.sh PRESET MINUTES [INIT] [extra train args]
# NPROC > 1 runs DDP under torchrun (--batch-size is then the batch over all GPUs); GPUS and
# PORT let two runs share one machine (a race). With COMPILE=1 a run that fails (a compiler
# error) is started again eagerly for the minutes left.
# Weights come back split into <= 15 MB parts (cat weights-PRESET.part-* > weights.safetensors).
source benchmarks/device/setup.sh
preset=$1; minutes=$2; init=${3:-}; shift 3 || shift $#
run=/tmp/runs/$preset
mkdir -p $run
[ -n "${GPUS:-}" ] && export CUDA_VISIBLE_DEVICES=$GPUS
args=()
[ -n "$init" ] && [ ! -e $run/last.pt ] && args+=(--init "$init")
launch=(srm-bench)
[ "${NPROC:-1}" -gt 1 ] && launch=(torchrun --nproc_per_node "$NPROC" --master_port "${PORT:-29500}" -m srm_bench.cli)
start=$(date +%s)
go() {
  "${launch[@]}" -q train --baseline srm --task sudoku --preset $preset -o $run --eval-every "${EVAL_EVERY:-1000}" \
    --eval-count 64 --eval-splits easy,medium,hard --eval-budget "${EVAL_BUDGET:-200}" "$@"
}
if [ "${COMPILE:-0}" = 1 ]; then
  go --max-minutes $minutes --compile "${args[@]}" "$@" >> $OUT/train-$preset.log 2>&1 || {
    left=$(python3 -c "print(round($minutes - ($(date +%s) - $start) / 60, 2))")
    echo "compiled run failed; eager for $left minutes" | tee -a $OUT/train-$preset.log
    go --max-minutes $left --no-compile "${args[@]}" "$@" >> $OUT/train-$preset.log 2>&1; }
else
  go --max-minutes $minutes "${args[@]}" "$@" >> $OUT/train-$preset.log 2>&1
fi
cp $run/eval.csv $OUT/eval-$preset.csv; cp $run/log.csv $OUT/log-$preset.csv
[ $(stat -c %s $run/weights.safetensors) -lt 120000000 ] && split -b 15000000 $run/weights.safetensors $OUT/weights-$preset.part-
tail -3 $OUT/train-$preset.log
