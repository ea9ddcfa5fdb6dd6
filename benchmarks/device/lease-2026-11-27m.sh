# Lease m (2026-11-27, eleventh session; ran as written: 3 calls, 28.6 device-minutes; results in
# docs/sudoku-baselines.md "Tenth lease" and docs/even-pixels-baselines.md "Fifth lease"): lease j's DDPM and lease k's Even Pixels race share one
# 4-GPU host, because DDP does not pay on four GPUs for these small networks (Sudoku CellNet 2.3x,
# Even Pixels UNet 1.3-1.7x of one GPU): two GPUs train the DDPM, two run the race.
#
# GPUs 0-1: the Sudoku DDPM (`ddpm-cell-aux`, the SRM's CellNet, conditioning by concatenation)
# from 17.05M images (step 39,400) towards the SRM's 69.94M, under DDP on two GPUs at batch 1024
# (512 a GPU), constant lr 3e-4, then a linear decay to 0 over the last 11,000 steps: --steps 91050
# --cooldown-steps 11000, as prepared in lease-2026-11-27j.sh. When a call reaches step 91,050 it
# scores the DDPM with parallel sampling on easy / medium / hard (500 puzzles, 1000 NFE, eta 1).
# GPUs 2-3: Even Pixels `unet-s` (GPU 2) against `unet-s-g16` (GPU 3, two channels a GroupNorm
# group), from scratch, same seed and minutes, each probed on its GPU after every call
# (benchmarks/probe_even_pixels_count.py, 1,024 images, 1/4/16/24 noisy patches).
# With REPRO=1 (call 1), GPUs 2-3 first run the shipped srm-sudoku's fresh-host `reproduce` by name
# and its hard predicted-order row with sampling seed 1 (~1 minute), then the race.
#
# Every call stands alone: a run whose folder survives on a warm host resumes from last.pt; else it
# continues from the carried weights (DDPM `runs/ddpm-j.safetensors`; race `runs/m-race-s.safetensors`,
# `runs/m-race-g16.safetensors` when present, else from scratch).
#   cp runs/ddpm-cell-aux-17.0M.safetensors runs/ddpm-j.safetensors                  # before call 1
#   export T0=$(date +%s); END=560 REPRO=1 bash benchmarks/device/lease-2026-11-27m.sh go     # call 1
#   cat weights-ddpm-cell-aux.part-* > runs/ddpm-j.safetensors; for r in race-s race-g16; do
#     cat weights-$r.part-* > runs/m-$r.safetensors; done                              # after each call
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27m.sh go             # calls 2, 3
# Carry (64 MiB with the ~49.8 MB tree): call 1 [".whl", "runs/ddpm-j.safetensors"] with the Even
# Pixels weights moved out of the tree; later calls also carry the two race files, with the Sudoku
# SRM's weights moved out too (the reproduce check needs them only in call 1).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
STOP=${STOP:-91050}; COOL=${COOL:-11000}
ep() {  # GPU RUN PRESET: train for the call's minutes (from the carried weights if any), then probe
  local init=""; [ -e runs/m-$2.safetensors ] && init=runs/m-$2.safetensors
  TASK=even-pixels GPUS=$1 RUN=$2 COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh $3 $(mins 45) "$init" --seed 0
  CUDA_VISIBLE_DEVICES=$1 timeout $(left) python $P $W/$2/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
}
case $1 in
go)
  { NPROC=2 GPUS=0,1 BASELINE=ddpm RUN=ddpm-cell-aux COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux \
      $(mins 80) runs/ddpm-j.safetensors --batch-size 1024 --steps $STOP --cooldown-steps $COOL; } > /tmp/l0 2>&1 &
  ddpm=$!
  if [ -n "${REPRO:-}" ]; then
    # the shipped srm-sudoku's hard predicted-order file, found by its weights' hash (no --checkpoint),
    # and the same row with sampling seed 1: is 0.504 more than seed 0's luck?
    F=$(ls leaderboard/results/baselines/sudoku-2026-11-27i/sudoku-hard-srm-cellnet-cell-aux-tpl-20261127T021333Z-*.json | head -1)
    { CUDA_VISIBLE_DEVICES=2 timeout 150 srm-bench reproduce $F --device cuda 2>&1 | tail -2; } > /tmp/repro 2>&1 &
    repro=$!
    { GPU=3 SEED=1 timeout 150 bash $E baselines/weights/sudoku-srm-cell-aux-tpl.safetensors $R/seed1 hard:predicted 2>&1 | tail -1; } > /tmp/seed1 2>&1 &
    wait $repro $!
    cat /tmp/repro /tmp/seed1
  fi
  { ep 2 race-s unet-s; } > /tmp/l2 2>&1 &
  { ep 3 race-g16 unet-s-g16; } > /tmp/l3 2>&1 &
  wait $ddpm
  grep -v -i warn /tmp/l0 | tail -4
  step=$(tail -1 $W/ddpm-cell-aux/log.csv | cut -d, -f1)
  if [ "${step:-0}" -ge "$STOP" ]; then
    { GPU=0 timeout $(left) bash $E $W/ddpm-cell-aux/weights.safetensors $R/ddpm hard:parallel easy:parallel; } > /tmp/s0 2>&1 &
    { GPU=1 timeout $(left) bash $E $W/ddpm-cell-aux/weights.safetensors $R/ddpm medium:parallel; } > /tmp/s1 2>&1 &
  else
    echo "DDPM at step ${step:-?} of $STOP: continue in the next call"
  fi
  wait
  cat /tmp/s0 /tmp/s1 2>/dev/null
  grep -v -i warn /tmp/l2 /tmp/l3
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
