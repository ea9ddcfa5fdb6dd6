# Lease k (prepared 2026-11-27 after lease i; not run: lease-2026-11-27m.sh ran its race-s / race-g16 part on
# two GPUs; the paper-UNet and EMA-0.9999 runs were left out). The Even
# Pixels network race that docs/even-pixels-baselines.md ("Next step (after the fourth lease)")
# asks for. Every call stands alone: it carries its start weights, trains, probes on the GPU and
# returns weights and logs.
#
# Call 1, `race` (one 4-GPU host, ~9.5 minutes). Carry [".whl", "runs/ep-srm-unet-s-50.0M.safetensors"].
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27k.sh race
# GPU 0 `unet-s` and GPU 1 `unet-s-g16` (the same network with two channels a GroupNorm group) from
# scratch, same seed, same minutes (same images: the two run at the same speed); GPU 2 the paper's
# UNet (`paper`, 19.7M) from scratch for the same minutes (~60% of their images: a race at equal GPU
# time; its 39 MB of weights are not returned). GPU 3 continues the 50.0M-image `unet-s` trunk
# (constant lr, its last weights before lease i's cool-down) with the paper's EMA 0.9999. Each run is
# then probed on its own GPU (benchmarks/probe_even_pixels_count.py, 1,024 images, 1/4/16/24 noisy
# patches; 24 is about what overlap 0.95 leaves mid-ramp). Judge: the slope and count error with
# 16-24 noisy patches at equal images (docs: 12.5M `unet-s` 0.21 at 16, 34.0M 0.59, 58.0M 0.71).
# $OUT: weights of race-s, race-g16 and trunk (6.4 MB each) + runs.tgz.
#
# Call 2, `more`: continue race-s and race-g16 from call 1's weights for another call and probe
# again. Carry [".whl", "runs/k-race-s.safetensors", "runs/k-race-g16.safetensors"] after
#   cat weights-race-s.part-* > runs/k-race-s.safetensors; cat weights-race-g16.part-* > runs/k-race-g16.safetensors
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27k.sh more
# (GPUs 2-3 continue the trunk from runs/k-trunk.safetensors if it is carried too; with the Even
# Pixels shipped weights moved out of the tree the three 6.4 MB files fit the 64 MiB carry.)
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
probe() { CUDA_VISIBLE_DEVICES=$1 timeout $(left) python $P $2 -n 1024 --noisy 1 4 16 24 --device cuda; }
run() {  # GPU RUN PRESET INIT [extra train args]: train for the call's minutes, then probe
  local g=$1 r=$2 p=$3 init=$4; shift 4
  TASK=even-pixels GPUS=$g RUN=$r COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh $p $(mins 45) $init "$@"
  probe $g $W/$r/weights.safetensors
}
case $1 in
race)
  { run 0 race-s unet-s "" --seed 0; } > /tmp/l0 2>&1 &
  { run 1 race-g16 unet-s-g16 "" --seed 0; } > /tmp/l1 2>&1 &
  { WEIGHTS=0 run 2 race-paper paper "" --seed 0; } > /tmp/l2 2>&1 &
  { run 3 trunk unet-s runs/ep-srm-unet-s-50.0M.safetensors --ema-decay 0.9999; } > /tmp/l3 2>&1 &
  wait
  cat /tmp/l0 /tmp/l1 /tmp/l2 /tmp/l3 | grep -v -i warn
  ;;
more)
  { run 0 race-s unet-s runs/k-race-s.safetensors; } > /tmp/l0 2>&1 &
  { run 1 race-g16 unet-s-g16 runs/k-race-g16.safetensors; } > /tmp/l1 2>&1 &
  if [ -e runs/k-trunk.safetensors ]; then
    { run 2 trunk unet-s runs/k-trunk.safetensors --ema-decay 0.9999; } > /tmp/l2 2>&1 &
  fi
  wait
  cat /tmp/l? | grep -v -i warn
  ;;
*) echo "usage: $0 race|more" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
