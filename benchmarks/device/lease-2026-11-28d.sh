# Lease d (planned in the twenty-seventh session): the EMA question under the sampler-state mix. Of the differences
# from the authors' Even Pixels run that remain (docs/even-pixels-baselines.md), the EMA is the one a lease can test:
# theirs 0.9999 at a constant lr 8e-4 to the end, ours 0.999 with the lr annealed to 0 over the last steps. At 0.9999
# the weights are averaged over ~10,000 steps (20M images), ten times ours, which may average out the count's noise.
#   o-g16e  o-g16s (unet-s-g16-gc, step 104,000, 213.0M images; 0.344 / 0.310 in Table 2's overlap-0.95 rows)
#           continued with its mix (`--sequential-mix 0.5 --sequential-overlap 0.95`) at the paper's constant lr
#           8e-4 (after train's warm-up; no anneal), keeping both EMAs (--ema-decay 0.999 --ema-decay2 0.9999), to
#           STOP (124,000: 20,000 steps, 41M images), DDP on every GPU under --cuda-graph (29.4 steps/s on four
#           H200s: ~11 minutes; 16.8 on two: ~20)
# The second EMA is carried from host to host (runs/o-g16e-ema2.safetensors, `train --init-ema2`), so at STOP it has
# run 20,000 steps (two time constants; EMA2_MIN). Judged at STOP (`judge`): Table 2's two overlap-0.95 rows of each
# EMA (names srm-unet-unet-s-g16-gc-seqmix0.5-ov0.95-lr8e-4 and -lr8e-4-ema0.9999) and the count probe of both.
# Read against o-g16s: the 0.999 EMA at a constant lr says what the anneal was worth, the 0.9999 EMA what the
# paper's averaging is worth instead.
# Commands (carry [".whl", "runs"]; runs/ holding o-g16s.safetensors in call 1, `campaign.sh restore o-g16s`; later
# calls add o-g16e.safetensors and o-g16e-ema2.safetensors: 19.8 MB, so set the shipped Sudoku weights aside):
#   mkdir -p /work/aside/shipped && mv baselines/weights/sudoku-*.safetensors /work/aside/shipped/   # back after
#   export T0=$(date +%s); END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28d.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16e.safetensors runs/o-g16e-ema2.safetensors   # after the lease
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-d; rm -rf $L; mkdir -p $L
FROM=runs/o-g16s.safetensors
STOP=${STOP:-124000}
g16e() {  # GPUS PORT: o-g16e from FROM (or its carried weights) towards STOP under DDP over GPUS (a comma list)
  local n=$(( $(tr -cd , <<< "$1" | wc -c) + 1 )) init w
  reached g16e $STOP && return 0
  [ $(left) -ge 150 ] || return 0
  init=$(init_of g16e)
  if [ -z "$init" ]; then
    [ "$(wstep $FROM)" = 104000 ] || { echo "$FROM is not o-g16s at step 104,000"; return 1; }
    init=$FROM
  fi
  echo "o-g16e from $init (step $(wstep $init))"
  TASK=even-pixels GPUS=$1 NPROC=$n PORT=$2 BASELINE=srm RUN=o-g16e COMPILE=1 EVAL_EVERY=0 CACHE_OUT=0 \
    DEADLINE=$(( T0 + ${END:-560} - 45 )) bash benchmarks/device/train.sh unet-s-g16-gc $(mins 75) "$init" \
    --seed 0 --lr 8e-4 --ema-decay 0.999 --ema-decay2 0.9999 --steps $STOP --cooldown-steps 0 --cuda-graph \
    --sequential-mix 0.5 --sequential-overlap 0.95
  for w in $W/o-g16e/weights.safetensors $W/o-g16e/weights-ema2.safetensors; do  # EMA 0.999, then 0.9999
    [ -e $w ] && CUDA_VISIBLE_DEVICES=${1%%,*} timeout $(left) python benchmarks/probe_even_pixels_count.py $w \
      -n 1024 --noisy 1 4 16 24 --device cuda
  done
  return 0
}
JUDGE_JOBS=("weights.safetensors lr8e-4 :predicted@0.95" "weights.safetensors lr8e-4 :random@0.95"
  "weights-ema2.safetensors lr8e-4-ema0.9999 :predicted@0.95" "weights-ema2.safetensors lr8e-4-ema0.9999 :random@0.95")
judge_job() {  # J GPU
  local a=(${JUDGE_JOBS[$1]})
  NAME=srm-unet-unet-s-g16-gc-seqmix0.5-ov0.95-${a[1]} GPU=$2 timeout $(left) bash benchmarks/device/eval.sh \
    $W/o-g16e/${a[0]} $R/ep-ema ${a[2]}
}
judge() {  # GPU...: both EMAs at STOP, on this host (the run's last call trains and judges)
  reached g16e $STOP || { echo "o-g16e at $(wstep $(latest g16e)) of $STOP: not judged"; return 1; }
  ema2_ready $W/o-g16e/weights-ema2.safetensors || return 1
  deal_each judge_job ${#JUDGE_JOBS[@]} "$@"
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  g16e $(tr ' ' , <<< "${g[*]}") 29500 > $L/g16e 2>&1
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
