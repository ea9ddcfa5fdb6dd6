# The seventh Sudoku / second Even Pixels lease (prepared at the end of lease f for a 2-GPU host,
# re-planned for the 4-GPU host lent in the eighth session). Three calls chained without a pause:
#   export T0=$(date +%s); END=550 bash benchmarks/device/lease-2026-11-26g.sh train   # call 1
#   export T0=$(date +%s); END=550 bash benchmarks/device/lease-2026-11-26g.sh train   # call 2 (resumes)
#   export T0=$(date +%s); END=500 bash benchmarks/device/lease-2026-11-26g.sh eval    # call 3
# carry: [".whl"] (every run starts from weights shipped in the tree).
# As run (eighth session): calls 1-2 as above; the host went back before call 3, which ran on a
# fresh host with the weights carried (WC=runs/g-const.safetensors WK=runs/g-cool.safetensors
# P=<the new Even Pixels weights in place of the shipped file> END=430 ... eval); a fourth call
# (100 s) scored the rest of `cool`'s Table 1 on the same host:
#   E=benchmarks/device/eval.sh W=runs/g-cool.safetensors R=/tmp/results/cool
#   GPU=0: easy:random easy:graph; GPU=1: easy:predicted-entropy medium:parallel;
#   GPU=2: medium:random medium:graph; GPU=3: medium:predicted-entropy, then
#   NFE=100 ETA=0 RAMP=reference into $R-ref: hard:predicted-entropy.
# GPU 0: `const`, the shipped srm-sudoku (tpl2, 47.4M images) continued at lr 3e-4 to step STOP;
# GPU 1: `cool`, the same with the lr decayed linearly to 0 over the last COOL steps;
# GPUs 2+3 (a 4-GPU host only): Even Pixels SRM unet-s continued from the shipped srm-even-pixels
# under DDP, batch 2048 over both GPUs.
# Lease f's tpl2 ran ~25 steps/s at batch 512 on one H200, compiled (13.3k steps in a 9-minute call).
source benchmarks/device/setup.sh
T0=${T0:-$(date +%s)}
W0=baselines/weights/sudoku-srm-cell-aux-tpl.safetensors
NGPU=$(nvidia-smi -L | wc -l)
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) in
  *H200*) STOP=109100; COOL=12000;;   # 22,000 steps from 87,100 in two calls
  *) STOP=102100; COOL=8000;;          # H100: assumed ~2/3 of that
esac
left() { echo $(( ${END:-500} - ($(date +%s) - T0) )); }
case $1 in
train)
  M=$(python3 -c "print(round((${END:-550}-($(date +%s)-$T0))/60,2))"); echo "train $M min to step $STOP on $NGPU GPUs"
  GPUS=0 RUN=const COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $W0 \
    --batch-size 512 --steps $STOP > /tmp/l0 2>&1 &
  GPUS=1 RUN=cool COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux-tpl $M $W0 \
    --batch-size 512 --steps $STOP --cooldown-steps $COOL > /tmp/l1 2>&1 &
  [ "$NGPU" -ge 4 ] && NPROC=2 GPUS=2,3 PORT=29502 TASK=even-pixels RUN=ep-srm-s COMPILE=1 EVAL_EVERY=2000 \
    EVAL_BUDGET=100 bash benchmarks/device/train.sh unet-s $M baselines/weights/even-pixels-srm-unet-s.safetensors \
    > /tmp/l2 2>&1 &
  wait; cat /tmp/l?; bash benchmarks/device/collect.sh
  ;;
eval)
  E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
  F=leaderboard/results/baselines/sudoku-2026-11-26f/sudoku-hard-srm-cellnet-cell-aux-tpl-20261126T185605Z-b4b750447c39.json
  # The host went back between calls 2 and 3 (this session): the weights come back carried, as
  # WC / WK / P (the runs' folders in /tmp are gone on a fresh host).
  P=${P:-$W/ep-srm-s/weights.safetensors}; WC=${WC:-$W/const/weights.safetensors}; WK=${WK:-$W/cool/weights.safetensors}
  if [ "$NGPU" -ge 4 ] && [ -e $P ]; then
    { GPU=2 timeout $(left) bash $E $P $R/ep-srm-s :predicted@0.95 :parallel :predicted@0.99
      GPU=2 NFE=100 ETA=0 RAMP=reference timeout $(left) bash $E $P $R/ep-srm-s-ref :predicted@0.95; } > /tmp/e2 2>&1 &
    { GPU=3 timeout $(left) bash $E $P $R/ep-srm-s :random@0.95 :random@0.99
      [ -e baselines/weights/sudoku-srm-cell-aux-tpl.safetensors ] && CUDA_VISIBLE_DEVICES=3 timeout $(left) srm-bench reproduce $F --device cuda; } > /tmp/e3 2>&1 &
  fi
  # Stage 1: both Sudoku runs on hard with the head; the better one gets the rest of Table 1.
  GPU=0 bash $E $WC $R/const hard:predicted > /tmp/e0 2>&1 & p0=$!
  GPU=1 bash $E $WK $R/cool hard:predicted > /tmp/e1 2>&1 & p1=$!
  wait $p0 $p1; cat /tmp/e0 /tmp/e1
  acc() { grep -o "'accuracy': [0-9.]*" /tmp/$1 | tail -1 | cut -d' ' -f2; }
  a0=$(acc e0); a1=$(acc e1); echo "hard predicted: const $a0 cool $a1"
  if python3 -c "import sys; sys.exit(0 if float('${a0:-0}') > float('${a1:-0}') else 1)"; then
    win=const; lose=cool; WW=$WC; WL=$WK; else win=cool; lose=const; WW=$WK; WL=$WC; fi
  echo "the rest of Table 1 for $win"
  { GPU=0 timeout $(left) bash $E $WW $R/$win hard:predicted-entropy hard:graph easy:predicted medium:predicted easy:parallel
  } >> /tmp/e0 2>&1 &
  { GPU=1 timeout $(left) bash $E $WW $R/$win hard:random hard:parallel
    GPU=1 NFE=100 ETA=0 RAMP=reference timeout $(left) bash $E $WW $R/$win-ref hard:predicted
    GPU=1 timeout $(left) bash $E $WL $R/$lose hard:predicted-entropy medium:predicted
  } >> /tmp/e1 2>&1 &
  wait; cat /tmp/e0 /tmp/e1 /tmp/e2 /tmp/e3 2>/dev/null
  bash benchmarks/device/collect.sh
  ;;
*) echo "usage: $0 train|eval" >&2; exit 2;;
esac
