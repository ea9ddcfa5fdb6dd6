# The next lease, prepared at the end of lease e (not run yet; edit the header when it runs):
# Sudoku's template-target model continued and scored on the whole Table 1 grid, and Even Pixels
# continued towards the 60M images. One 4-GPU host, three calls (~26 device-minutes):
#   export T0=$(date +%s); END=570 bash benchmarks/device/lease-2026-11-26f.sh train   # call 1
#   export T0=$(date +%s); END=570 bash benchmarks/device/lease-2026-11-26f.sh train   # call 2 (resumes)
#   bash benchmarks/device/lease-2026-11-26f.sh eval                                   # call 3, ~6 min
# carry: [".whl", "runs/srm-cell-aux-tpl-40.6M.safetensors", "runs/ep-ddpm-unet-s-13.1M.safetensors"]
# (a weights file that is missing starts from the shipped model, or the DDPM from scratch).
# GPU 0: Sudoku cell-aux-tpl; GPUs 1+2: Even Pixels SRM unet-s under DDP; GPU 3: its DDPM.
source benchmarks/device/setup.sh
T0=${T0:-$(date +%s)}
TPL=runs/srm-cell-aux-tpl-40.6M.safetensors; [ -e $TPL ] || TPL=baselines/weights/sudoku-srm-cell-aux.safetensors
DDPM=runs/ep-ddpm-unet-s-13.1M.safetensors; [ -e $DDPM ] || DDPM=""
case $1 in
train)
  M=$(python3 -c "print(round((${END:-570}-($(date +%s)-$T0))/60,2))"); echo "train $M min; tpl from $TPL"
  GPUS=0 RUN=tpl COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $TPL --batch-size 512 > /tmp/l0 2>&1 &
  NPROC=2 GPUS=1,2 PORT=29502 TASK=even-pixels RUN=ep-srm-s COMPILE=1 EVAL_EVERY=2000 \
    bash benchmarks/device/train.sh unet-s $M baselines/weights/even-pixels-srm-unet-s.safetensors > /tmp/l1 2>&1 &
  TASK=even-pixels BASELINE=ddpm GPUS=3 RUN=ep-ddpm-s COMPILE=1 EVAL_EVERY=2000 \
    bash benchmarks/device/train.sh unet-s $M "$DDPM" > /tmp/l2 2>&1 &
  wait; cat /tmp/l?; bash benchmarks/device/collect.sh
  ;;
eval)
  E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
  GPU=0 bash $E $W/tpl/weights.safetensors $R/tpl hard:predicted hard:predicted-entropy hard:parallel hard:random hard:graph > /tmp/e0 2>&1 &
  GPU=1 bash $E $W/tpl/weights.safetensors $R/tpl easy:predicted easy:predicted-entropy easy:parallel easy:random easy:graph > /tmp/e1 2>&1 &
  GPU=2 bash $E $W/tpl/weights.safetensors $R/tpl medium:predicted medium:predicted-entropy medium:parallel medium:random medium:graph > /tmp/e2 2>&1 &
  { GPU=3 NFE=100 ETA=0 RAMP=reference bash $E $W/tpl/weights.safetensors $R/tpl-ref hard:predicted hard:predicted-entropy
    GPU=3 bash $E $W/ep-srm-s/weights.safetensors $R/ep-srm-s :predicted@0.95 :random@0.95 :parallel :predicted@0.99
    GPU=3 bash $E $W/ep-ddpm-s/weights.safetensors $R/ep-ddpm-s :parallel
  } > /tmp/e3 2>&1 &
  wait; cat /tmp/e?; split -b 15000000 $W/tpl/weights.safetensors $OUT/weights-tpl.part-; bash benchmarks/device/collect.sh
  ;;
*) echo "usage: $0 train|eval" >&2; exit 2;;
esac
