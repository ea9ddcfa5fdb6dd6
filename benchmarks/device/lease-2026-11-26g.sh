# The next lease (prepared at the end of lease f, not run yet; edit this header when it runs):
# the cool-down race on the shipped srm-sudoku (tpl2, 47.4M images) finished this time, the two
# Table 1 rows lease f's call limit cut, and `srm-bench reproduce` of a lease-f file. One 2-GPU
# host (GPUs 0 and 1; a 4-GPU host leaves 2 and 3 idle), three calls chained without a pause:
#   export T0=$(date +%s); END=550 bash benchmarks/device/lease-2026-11-26g.sh train   # call 1
#   export T0=$(date +%s); END=550 bash benchmarks/device/lease-2026-11-26g.sh train   # call 2 (resumes)
#   bash benchmarks/device/lease-2026-11-26g.sh eval                                   # call 3, ~6 min
# carry: [".whl"] (both runs start from the shipped weights in the tree).
# If the host is lost between calls (lease f), call 2 starts both runs again from the shipped
# weights: the tree (52 MB) leaves no room to carry the first call's 18 MB weights back (64 MiB).
# GPU 0: `const`, lr 3e-4 to step STOP; GPU 1: `cool`, the same with the lr decayed linearly to 0
# over the last COOL steps. Lease f's tpl2 ran ~25 steps/s at batch 512 on one H200, compiled.
source benchmarks/device/setup.sh
T0=${T0:-$(date +%s)}
W0=baselines/weights/sudoku-srm-cell-aux-tpl.safetensors
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) in
  *H200*) STOP=109100; COOL=12000;;   # 22,000 steps from 87,100 in two calls
  *) STOP=102100; COOL=8000;;          # H100: assumed ~2/3 of that
esac
case $1 in
train)
  M=$(python3 -c "print(round((${END:-550}-($(date +%s)-$T0))/60,2))"); echo "train $M min to step $STOP"
  GPUS=0 RUN=const COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $W0 \
    --batch-size 512 --steps $STOP > /tmp/l0 2>&1 &
  GPUS=1 RUN=cool COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $W0 \
    --batch-size 512 --steps $STOP --cooldown-steps $COOL > /tmp/l1 2>&1 &
  wait; cat /tmp/l?; bash benchmarks/device/collect.sh
  ;;
eval)
  E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
  F=leaderboard/results/baselines/sudoku-2026-11-26f/sudoku-hard-srm-cellnet-cell-aux-tpl-20261126T185605Z-b4b750447c39.json
  { GPU=0 bash $E $W/const/weights.safetensors $R/const hard:predicted hard:predicted-entropy
    GPU=0 timeout 150 bash $E $W0 $R/shipped easy:parallel medium:predicted-entropy; } > /tmp/e0 2>&1 &
  { GPU=1 bash $E $W/cool/weights.safetensors $R/cool hard:predicted hard:predicted-entropy
    CUDA_VISIBLE_DEVICES=1 timeout 150 srm-bench reproduce $F --device cuda; } > /tmp/e1 2>&1 &
  wait; cat /tmp/e0 /tmp/e1
  for r in const cool; do split -b 15000000 $W/$r/weights.safetensors $OUT/weights-$r.part-; done
  bash benchmarks/device/collect.sh
  ;;
*) echo "usage: $0 train|eval" >&2; exit 2;;
esac
