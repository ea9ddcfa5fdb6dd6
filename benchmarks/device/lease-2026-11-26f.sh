# Lease f (2026-11-26, seventh session), on one 2-GPU host (the 4-GPU kinds were not lent; the
# 4-GPU plan this file first held is in git history). A cool-down race on Sudoku's template-target
# model `tpl` (40.6M images), then the whole Table 1 grid for the winner. Three calls:
#   export T0=$(date +%s); END=550 bash benchmarks/device/lease-2026-11-26f.sh train   # call 1
#   export T0=$(date +%s); END=550 bash benchmarks/device/lease-2026-11-26f.sh train   # call 2 (resumes)
#   bash benchmarks/device/lease-2026-11-26f.sh eval                                   # call 3, ~9 min
# carry: [".whl", "runs/srm-cell-aux-tpl-40.6M.safetensors"]
# GPU 0: `tpl2`, tpl continued at the constant lr 3e-4; GPU 1: `cool`, the same start and steps
# with the lr decayed linearly to 0 over the second half. Both stop at step STOP (chosen from the
# card so that two calls reach it); the eval call scores both on 500 hard puzzles with the head,
# then the winner's other 14 Table 1 rows and the reference-protocol rows.
source benchmarks/device/setup.sh
T0=${T0:-$(date +%s)}
TPL=runs/srm-cell-aux-tpl-40.6M.safetensors
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) in
  *H200*) STOP=92800; COOL=9500;;   # tpl ran ~25 steps/s at batch 512 on one H200 (lease e)
  *) STOP=86000; COOL=6100;;         # H100: assumed ~2/3 of that
esac
case $1 in
train)
  M=$(python3 -c "print(round((${END:-550}-($(date +%s)-$T0))/60,2))"); echo "train $M min to step $STOP; from $TPL"
  GPUS=0 RUN=tpl2 COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $TPL \
    --batch-size 512 --steps $STOP > /tmp/l0 2>&1 &
  GPUS=1 PORT=29502 RUN=cool COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $TPL \
    --batch-size 512 --steps $STOP --cooldown-steps $COOL > /tmp/l1 2>&1 &
  wait; cat /tmp/l?; bash benchmarks/device/collect.sh
  ;;
eval)
  E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
  GPU=0 bash $E $W/tpl2/weights.safetensors $R/tpl2 hard:predicted > /tmp/a0 2>&1 &
  GPU=1 bash $E $W/cool/weights.safetensors $R/cool hard:predicted > /tmp/a1 2>&1 &
  wait; cat /tmp/a0 /tmp/a1
  acc() { python3 -c "import re,sys; m=re.search(r\"'accuracy': ([0-9.]+)\", open(sys.argv[1]).read()); print(m.group(1) if m else -1)" $1; }
  win=tpl2; python3 -c "import sys; sys.exit(not $(acc /tmp/a1) >= $(acc /tmp/a0))" && win=cool; echo "winner: $win"
  GPU=0 timeout 420 bash $E $W/$win/weights.safetensors $R/$win hard:predicted-entropy hard:parallel easy:predicted \
    hard:graph hard:random easy:predicted-entropy easy:parallel > /tmp/e0 2>&1 &
  { GPU=1 NFE=100 ETA=0 RAMP=reference bash $E $W/$win/weights.safetensors $R/$win-ref hard:predicted hard:predicted-entropy
    GPU=1 timeout 400 bash $E $W/$win/weights.safetensors $R/$win medium:predicted easy:random easy:graph \
      medium:parallel medium:graph medium:random medium:predicted-entropy; } > /tmp/e1 2>&1 &
  wait; cat /tmp/e0 /tmp/e1
  for r in tpl2 cool; do split -b 15000000 $W/$r/weights.safetensors $OUT/weights-$r.part-; done
  bash benchmarks/device/collect.sh
  ;;
*) echo "usage: $0 train|eval" >&2; exit 2;;
esac
