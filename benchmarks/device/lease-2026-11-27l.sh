# Lease l (prepared 2026-11-27 after lease i, not run yet; edit this header when it runs): the first
# Counting baselines (issue 12). Nothing has run on a GPU for Counting yet; a CPU smoke of the same
# path (train -> sample predicted order -> evaluate, preset `tiny`) passes. Every call stands alone.
#
# Call 1, `race` (one 4-GPU host, ~9.5 minutes; carry [".whl"]):
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27l.sh race
# The network race the issue asks for, on Counting Polygons, SRM, equal minutes from scratch:
# GPU 0 `small` (1.8M parameters, 3.6 MB in bf16: fits the <= 4 MB a shipped Counting SRM may take)
# against GPU 1 `unet-s` (3.4M, 6.8 MB: it would be recorded by hash, not shipped). GPU 2 `small` on
# Counting Stars, GPU 3 the DDPM `small` on Counting Polygons, so every model the table needs starts
# now. Evaluation during training every 2,000 steps (64 test images, parallel and, for the SRMs,
# predicted order, 256 NFE: the least predicted order takes, one evaluation a patch) gives the
# curves; the 500-image Table 3 rows wait for trained models. CPU smoke of the same commands
# (2 steps, 2 images, `--device cpu`): both baselines train, evaluate and write weights. The rate the GPU
# draws from the rendered bank (4 render workers a run, 16 CPU cores for four runs) is measured
# here for the first time: `data_wait_s` in each run's record says whether rendering kept up.
# $OUT: four weights (<= 6.8 MB each) + runs.tgz.
#
# Call 2, `more`: each run continues from its returned weights (carry the four files as
# runs/l-*.safetensors; ~21 MB with the tree's ~50 MB and the wheel: move the Even Pixels weights
# out of the tree if the carry limit refuses):
#   for r in poly-small poly-unet-s stars-small poly-ddpm; do cat weights-$r.part-* > runs/l-$r.safetensors; done
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27l.sh more
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
run() {  # GPU RUN TASK BASELINE PRESET INIT
  TASK=$3 BASELINE=$4 GPUS=$1 RUN=$2 COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 \
    bash benchmarks/device/train.sh $5 $(mins 40) $6
}
case $1 in
race|more)
  init() { [ "$1" = more ] && echo runs/l-$2.safetensors || echo ""; }
  { run 0 poly-small counting-polygons srm small "$(init $1 poly-small)"; } > /tmp/l0 2>&1 &
  { run 1 poly-unet-s counting-polygons srm unet-s "$(init $1 poly-unet-s)"; } > /tmp/l1 2>&1 &
  { run 2 stars-small counting-stars srm small "$(init $1 stars-small)"; } > /tmp/l2 2>&1 &
  { run 3 poly-ddpm counting-polygons ddpm small "$(init $1 poly-ddpm)"; } > /tmp/l3 2>&1 &
  wait
  cat /tmp/l0 /tmp/l1 /tmp/l2 /tmp/l3 | grep -v -i warn
  grep -h data_wait /tmp/runs/*/train.log | tail -4
  ;;
*) echo "usage: $0 race|more" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
