# Lease o (prepared 2026-11-27 after lease n, not run yet; edit this header when it runs): the Even
# Pixels `unet-s-g16-gc` SRM on to >= 60M images and its DDPM from scratch, and the Counting stem race
# (issue 12); later the Sudoku DDPM with the paper's objective (issue 11's open item). Two leases of
# training (`go`), then `score`. One 4-GPU host; every call stands alone (it carries its start
# weights and returns its weights).
#
# GPU 0: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   (first copy runs/ep-g16-gc-21.9M.safetensors there: 21.9M images, step 10,700, `7de18100...`)
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~8.4 steps/s, so
#   ~42 minutes: two leases. Probed on its GPU after every call.
# GPU 1: the DDPM with the same network, from scratch (seed 0) to the same 32,000 steps; 19k images/s
#   on `unet-s`, so ~57 minutes: two to three leases.
# GPUs 2-3, G23=count (default): Counting polygons, `small-s2` (GPU 2) against `small-s4` (GPU 3)
#   (docs/baselines.md, "Counting: first runs": `small` drew 1.1k images/s, 0.59M images in 0.21
#   GPU-h). On a host without the runs, `bench_train.py` first measures `small` at batch 64 and
#   256 (GPU 2) and `small-s2`, `small-s4` at 256 (GPU 3), compiled (rows to /tmp/results/bench/). Both
#   race at batch 256, lr 4e-4 (the recipe `small` uses for Even Pixels), seed 0, evaluated every
#   1,000 steps (64 test images, 256 NFE). Judged against each other at equal GPU time and against
#   `small` at equal images.
# GPUs 2-3, G23=rcb: the Sudoku DDPM `cell-rcb` from scratch (seed 0), DDP on two GPUs at batch 1024
#   (512 a GPU: 1.89x one GPU in lease m) to step 68,300 (69.9M images) with the last 11,000 in a
#   linear decay; ~31k images/s, ~38 minutes: two leases. Its Table 1 row (parallel, 3 splits) is
#   in `score`.
#
#   cp runs/ep-g16-gc-21.9M.safetensors runs/o-srm.safetensors                              # before call 1
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27o.sh go             # every call
#   D=<files_at>; for r in srm ddpm rcb s2 s4; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
# `score` (all four GPUs, ~4 minutes): the Table 2 rows and the overlap sweep of the SRM
# (runs/o-srm.safetensors), the DDPM's parallel row (runs/o-ddpm.safetensors), and the Sudoku
# `cell-rcb` DDPM's three splits (runs/o-rcb.safetensors), each only if its weights reached the end.
# Carry: [".whl", "runs/o-srm.safetensors", "runs/o-ddpm.safetensors", "runs/o-s2.safetensors",
# "runs/o-s4.safetensors", "runs/o-rcb.safetensors"] (those that exist: 6.6 + 6.6 + 3.8 + 3.8 + 19 MB)
# with both shipped weights files moved out of the tree.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
L=/tmp/lease-o; rm -rf $L; mkdir -p $L  # this call's printed logs
EP_STOP=${EP_STOP:-32000}; EP_COOL=${EP_COOL:-6000}
SU_STOP=${SU_STOP:-68300}; SU_COOL=${SU_COOL:-11000}
init_of() { [ -e runs/o-$1.safetensors ] && echo runs/o-$1.safetensors || echo ""; }
wstep() {  # the training step recorded in a weights file (0 if there is none)
  [ -e "$1" ] || { echo 0; return; }
  python3 -c "import json,sys; from safetensors import safe_open; print(json.loads(safe_open(sys.argv[1], 'pt').metadata()['record'])['step'])" "$1"
}
srm() {  # GPU 0
  TASK=even-pixels GPUS=0 RUN=o-srm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc $(mins 45) \
    "$(init_of srm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
  CUDA_VISIBLE_DEVICES=0 timeout $(left) python $P $W/o-srm/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
}
ddpm() {  # GPU 1
  TASK=even-pixels GPUS=1 BASELINE=ddpm RUN=o-ddpm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc \
    $(mins 20) "$(init_of ddpm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
}
rcb() {  # GPUs 2-3
  NPROC=2 GPUS=2,3 PORT=29501 BASELINE=ddpm RUN=o-rcb COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-rcb \
    $(mins 20) "$(init_of rcb)" --seed 0 --batch-size 1024 --steps $SU_STOP --cooldown-steps $SU_COOL
}
count() {  # GPU RUN PRESET [PRESET:BATCH...]: throughput first on a host without the run, then the race
  local gpu=$1 run=$2 preset=$3; shift 3
  if [ ! -e $W/$run/last.pt ] && [ -z "$(init_of ${run#o-})" ]; then  # the first call only
    mkdir -p $R/bench
    for pb in "$@"; do
      CUDA_VISIBLE_DEVICES=$gpu timeout 120 python benchmarks/bench_train.py --task counting-polygons --preset ${pb%:*} \
        --batch ${pb#*:} --compile --steps 60 --warmup 20 --json $R/bench/train-throughput-gpu$gpu.json | tail -1
    done
  fi
  TASK=counting-polygons GPUS=$gpu RUN=$run COMPILE=1 EVAL_EVERY=1000 EVAL_BUDGET=256 bash benchmarks/device/train.sh \
    $preset $(mins 60) "$(init_of ${run#o-})" --seed 0 --batch-size 256 --lr 4e-4
}
case $1 in
go)
  { srm; } > $L/srm 2>&1 &
  { ddpm; } > $L/ddpm 2>&1 &
  if [ "${G23:-count}" = rcb ]; then
    { rcb; } > $L/rcb 2>&1 &
  else
    { count 2 o-s2 small-s2 small:64 small:256; } > $L/s2 2>&1 &
    { count 3 o-s4 small-s4 small-s2:256 small-s4:256; } > $L/s4 2>&1 &
  fi
  wait
  grep -h -v -i warn $L/*
  ;;
score)
  s=runs/o-srm.safetensors; d=runs/o-ddpm.safetensors; c=runs/o-rcb.safetensors
  if [ "$(wstep $s)" -ge "$EP_STOP" ]; then  # Table 2, the reference protocol, the overlap sweep
    { GPU=0 timeout $(left) bash $E $s $R/ep-srm :predicted@0.95 :random@0.95 :parallel :predicted@0.99
      GPU=0 NFE=100 ETA=0 RAMP=reference timeout $(left) bash $E $s $R/ep-srm :predicted@0.95; } &
    { GPU=1 timeout $(left) bash $E $s $R/ep-srm :predicted :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.9; } &
    { GPU=2 timeout $(left) bash $E $s $R/ep-srm :random :random@0.25 :random@0.5 :random@0.75 :random@0.9 :random@0.99; } &
  else echo "EP SRM at step $(wstep $s) of $EP_STOP: not scored"; fi
  { if [ "$(wstep $d)" -ge "$EP_STOP" ]; then GPU=3 timeout $(left) bash $E $d $R/ep-ddpm :parallel
    else echo "EP DDPM at step $(wstep $d) of $EP_STOP: not scored"; fi
    if [ "$(wstep $c)" -ge "$SU_STOP" ]; then GPU=3 timeout $(left) bash $E $c $R/rcb hard:parallel medium:parallel easy:parallel
    else echo "Sudoku cell-rcb DDPM at step $(wstep $c) of $SU_STOP: not scored"; fi; } &
  wait
  ;;
*) echo "usage: $0 go|score" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
