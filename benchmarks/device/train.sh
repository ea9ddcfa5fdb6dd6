# One training call of a baseline campaign on the GPU machine (runs kept in /tmp/runs between
# calls of one machine). Usage:
#   [TASK=sudoku] [NPROC=4] [GPUS=0,1] [PORT=29500] [COMPILE=1] [EVAL_BUDGET=200] [EVAL_ETA=0] [EVAL_EVERY=1000] \
#   [EVAL_SPLITS=easy,medium,hard] [BASELINE=srm] [RUN=PRESET] [WEIGHTS=1] \
#     bash benchmarks/device/train.sh PRESET MINUTES [INIT] [extra train args]
# (benchmarks/device/sudoku_cell.sh is this with TASK=sudoku.) EVAL_SPLITS defaults to
# easy,medium,hard for Sudoku and test otherwise; EVAL_EVERY=0 turns evaluation off.
# NPROC > 1 runs DDP under torchrun (--batch-size is then the batch over all GPUs); GPUS and
# PORT let several runs share one machine (a race: one GPU each). RUN names the run folder
# /tmp/runs/RUN (default: the preset; set it when two runs share a preset, e.g. the DDPM).
# A run folder with last.pt is resumed (INIT is then ignored). With COMPILE=1 a run that
# fails is started again for the minutes left: eagerly if the compiler failed, else compiled.
# The log goes to /tmp/runs/RUN/train.log (benchmarks/device/collect.sh tars every run's logs into $OUT);
# with WEIGHTS=1 the EMA weights come back in <= 15 MB parts (a second EMA as weights-RUN-ema2.part-*):
#   cat weights-RUN.part-* > weights.safetensors
# (carried as runs/RUN-ema2.safetensors beside INIT, the second EMA continues on the next machine: --init-ema2)
# With COMPILE=1 torch.compile's artifacts (`train --compile-cache`) are kept in the run folder and come back
# as $OUT/compile-cache-RUN.part-*; joined and carried as runs/RUN.compile-cache.gz, they spare a fresh host most of the
# compilation (a warm host reads its own cache anyway).
source benchmarks/device/setup.sh
preset=$1; minutes=$2; init=${3:-}; shift 3 || shift $#
task=${TASK:-sudoku}
splits=${EVAL_SPLITS:-$([ "$task" = sudoku ] && echo easy,medium,hard || echo test)}
name=${RUN:-$preset}
run=/tmp/runs/$name
mkdir -p $run
[ -n "${GPUS:-}" ] && export CUDA_VISIBLE_DEVICES=$GPUS
# A last.pt older than INIT is not this campaign's latest (a host's /tmp from an earlier lease, or a run carried on
# elsewhere since): set aside, and INIT continues instead of an old state being resumed in silence
if [ -n "$init" ] && [ -e $run/last.pt ]; then
  have=$(bash benchmarks/device/campaign.sh record $run/weights.safetensors step 2>/dev/null || echo 0)
  want=$(bash benchmarks/device/campaign.sh record "$init" step)
  if [ "${have:-0}" -lt "${want:-0}" ]; then
    mkdir -p /tmp/stale && mv $run /tmp/stale/$name-$(date +%s) && mkdir -p $run
    echo "train.sh: $run was at step ${have:-0}, behind INIT's $want: set aside in /tmp/stale, $init continues" | tee $run/train.log
  fi
fi
args=()
[ -n "$init" ] && [ ! -e $run/last.pt ] && args+=(--init "$init")
# A second EMA carried from the last machine (cat weights-RUN-ema2.part-* > runs/RUN-ema2.safetensors) continues
# there instead of starting again from INIT (`train --init-ema2`; the run must pass --ema-decay2)
[ -n "$init" ] && [ ! -e $run/last.pt ] && [ -e runs/$name-ema2.safetensors ] && args+=(--init-ema2 runs/$name-ema2.safetensors)
cache=$run/compile-cache.gz
[ ! -e $cache ] && [ -e runs/$name.compile-cache.gz ] && cp runs/$name.compile-cache.gz $cache
launch=(srm-bench)
[ "${NPROC:-1}" -gt 1 ] && launch=(torchrun --nproc_per_node "$NPROC" --master_port "${PORT:-29500}" -m srm_bench.cli)
start=$(date +%s)
echo "train.sh: started at $start (epoch s; the summary's loop_epoch and first_step_s say where the start went)" >> $run/train.log
# DEADLINE (epoch seconds, optional): the run is stopped there whatever --max-minutes says, so that
# the weights of its last checkpoint still come back inside the call (lease y lost a call's weights
# when the call's limit killed everything). train's --max-minutes clock starts only inside the process,
# after torchrun's start, the imports and the data stream (tens of seconds), so train also gets
# --stop-at DEADLINE - SAVE_S (20): it then stops itself with a checkpoint of its last step before the
# guard cuts it back to its last periodic one (lease f lost 300 DDPM steps so).
go() {
  local guard=()
  [ -n "${DEADLINE:-}" ] && guard=(timeout $(( DEADLINE - $(date +%s) > 1 ? DEADLINE - $(date +%s) : 1 )))
  [ -n "${DEADLINE:-}" ] && set -- --stop-at $(( DEADLINE - ${SAVE_S:-20} )) "$@"
  "${guard[@]}" "${launch[@]}" -q train --baseline "${BASELINE:-srm}" --task $task --preset $preset -o $run \
    --eval-every "${EVAL_EVERY:-1000}" --eval-count 64 --eval-splits $splits \
    --eval-budget "${EVAL_BUDGET:-200}" --eval-eta "${EVAL_ETA:-0}" "$@"
}
if [ "${COMPILE:-0}" = 1 ]; then
  lines=$( (wc -l < $run/train.log) 2>/dev/null || echo 0)
  go --max-minutes $minutes --compile --compile-cache $cache "${args[@]}" "$@" >> $run/train.log 2>&1 || [ $? = 124 ] || {
    left=$(python3 -c "print(round($minutes - ($(date +%s) - $start) / 60, 2))")
    # Eager only when the compiler failed; anything else (e.g. a lock held by a run starting
    # beside this one) gets one more compiled try.
    failed=$(tail -n +$((lines + 1)) $run/train.log)
    if grep -q "the run diverged" <<< "$failed"; then
      # stopped by its spike guard (train --spike-guard): it would only diverge again from the same state
      echo "run diverged, not retried: $(grep -m1 -o 'the run diverged.*' <<< "$failed" | cut -c1-400)" | tee -a $run/train.log
    else
      if grep -q -E "torch\._(dynamo|inductor)|InductorError|BackendCompilerFailed" <<< "$failed"; then
        mode=--no-compile; else mode=--compile; fi
      echo "run failed ($(grep -m1 -i error <<< "$failed" | cut -c1-160)); again with $mode for $left minutes" | tee -a $run/train.log
      go --max-minutes $left $mode --compile-cache $cache "${args[@]}" "$@" >> $run/train.log 2>&1
    fi; }
else
  go --max-minutes $minutes "${args[@]}" "$@" >> $run/train.log 2>&1
fi
if [ "${WEIGHTS:-1}" = 1 ] && [ -e $run/weights.safetensors ]; then
  [ $(stat -c %s $run/weights.safetensors) -lt 120000000 ] && split -b 15000000 $run/weights.safetensors $OUT/weights-$name.part-
  # The second EMA (--ema-decay2), if the run keeps one: cat weights-RUN-ema2.part-* > weights-ema2.safetensors
  [ -e $run/weights-ema2.safetensors ] && [ $(stat -c %s $run/weights-ema2.safetensors) -lt 120000000 ] \
    && split -b 15000000 $run/weights-ema2.safetensors $OUT/weights-$name-ema2.part-
fi
# The artifacts of a GPU compile can pass $OUT's 16 MB a file (none came back in the seventeenth Even Pixels lease):
# in parts, like the weights (cat compile-cache-RUN.part-* > runs/RUN.compile-cache.gz), up to 45 MB.
# CACHE_OUT=0 leaves it in the run folder (for a lease that returns several runs' caches itself).
if [ "${CACHE_OUT:-1}" = 1 ] && [ -e $cache ]; then
  size=$(stat -c %s $cache)
  if [ $size -le 45000000 ]; then split -b 15000000 $cache $OUT/compile-cache-$name.part-
    echo "compile cache: $size bytes, returned as compile-cache-$name.part-*"
  else echo "compile cache: $size bytes, too large to return (45 MB at most)"; fi
fi
echo "== $name"; tail -2 $run/log.csv; tail -4 $run/eval.csv 2>/dev/null
