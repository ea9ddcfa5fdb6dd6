# The fifth Sudoku / first Even Pixels lease (2026-11-26, one 4-GPU host), as run; see
# docs/sudoku-baselines.md and docs/even-pixels-baselines.md for what each part found.
#   bash benchmarks/device/lease-2026-11-26e.sh bench   # issue 10's throughput rows (~3 min)
#   bash benchmarks/device/lease-2026-11-26e.sh train   # 4 runs, one GPU each, until END s after T0
#   bash benchmarks/device/lease-2026-11-26e.sh eval    # 500 samples per row, 1000 NFE
# GPU 0: Sudoku cell-aux-tpl continued from the plain cell-aux run (30.6M images);
# GPU 1/2: Even Pixels SRM / DDPM, unet-s (3.2M); GPU 3: Even Pixels SRM, the paper's UNet (19.7M).
source benchmarks/device/setup.sh
T0=${T0:-$(date +%s)}
case $1 in
bench)
  b(){ g=$1; shift; CUDA_VISIBLE_DEVICES=$g python3 benchmarks/bench_train.py --json /tmp/tp-$g.json "$@" > /tmp/b$g.log 2>&1 || echo "failed $*"; }
  bt(){ n=$1; shift; torchrun --nproc_per_node $n --master_port 29511 benchmarks/bench_train.py --json /tmp/tp-$n-$RANDOM.json "$@" > /tmp/bt.log 2>&1 || { echo "failed $n $*"; tail -3 /tmp/bt.log; }; grep '^{' /tmp/bt.log; }
  b 0 --task sudoku --preset dit-cell --batch 256 --data files gpu --compile --steps 90 --warmup 30 &
  b 1 --task sudoku --preset paper --batch 56 --steps 30 --warmup 10 &
  b 2 --task even-pixels --preset paper --batch 2048 --steps 40 --warmup 10 &
  b 3 --task even-pixels --preset paper --batch 512 --steps 40 --warmup 10 &
  wait; grep -h '^{' /tmp/b?.log; grep -h -m3 -i error /tmp/b?.log
  bt 2 --task even-pixels --preset paper --batch 4096 --steps 40 --warmup 10
  bt 4 --task even-pixels --preset paper --batch 8192 --steps 40 --warmup 10
  bt 4 --task even-pixels --preset paper --batch 2048 --steps 40 --warmup 10
  python3 -c "import json,glob; json.dump([r for f in sorted(glob.glob('/tmp/tp-*.json')) for r in json.load(open(f))], open('$OUT/train-throughput.json','w'), indent=1)"
  echo "bench done $(( $(date +%s) - T0 )) s"
  ;;
train)
  M=$(python3 -c "print(round((${END:-580}-($(date +%s)-$T0))/60,2))"); echo "train $M min"
  GPUS=0 RUN=tpl COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M runs/srm-cell-aux-30.6M.safetensors --batch-size 512 > /tmp/l0 2>&1 &
  TASK=even-pixels GPUS=1 RUN=ep-srm-s COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=100 bash benchmarks/device/train.sh unet-s $M > /tmp/l1 2>&1 &
  TASK=even-pixels BASELINE=ddpm GPUS=2 RUN=ep-ddpm-s COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=100 bash benchmarks/device/train.sh unet-s $M > /tmp/l2 2>&1 &
  TASK=even-pixels GPUS=3 RUN=ep-srm-p COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=100 WEIGHTS=${WP:-0} bash benchmarks/device/train.sh paper $M "" --ema-decay 0.999 > /tmp/l3 2>&1 &
  wait; cat /tmp/l?; bash benchmarks/device/collect.sh
  ;;
eval)
  E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
  GPU=0 bash $E $W/tpl/weights.safetensors $R/tpl hard:predicted hard:predicted-entropy easy:predicted medium:predicted > /tmp/e0 2>&1 &
  GPU=1 bash $E $W/ep-srm-s/weights.safetensors $R/ep-srm-s :parallel :predicted@0.95 :random@0.95 \
    :predicted@0 :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.9 :predicted@0.99 > /tmp/e1 2>&1 &
  { GPU=2 bash $E $W/ep-ddpm-s/weights.safetensors $R/ep-ddpm-s :parallel
    GPU=2 bash $E $W/ep-srm-s/weights.safetensors $R/ep-srm-s :random@0 :random@0.25 :random@0.5 :random@0.75 :random@0.9 :random@0.99
  } > /tmp/e2 2>&1 &
  { GPU=3 bash $E $W/ep-srm-p/weights.safetensors $R/ep-srm-p :parallel :predicted@0.95 :random@0.95
    GPU=3 NFE=100 ETA=0 bash $E $W/ep-srm-s/weights.safetensors $R/ep-srm-s-ref :predicted@0.95  # the reference code's protocol
  } > /tmp/e3 2>&1 &
  wait; cat /tmp/e?; bash benchmarks/device/collect.sh
  ;;
*) echo "usage: $0 bench|train|eval" >&2; exit 2;;
esac
