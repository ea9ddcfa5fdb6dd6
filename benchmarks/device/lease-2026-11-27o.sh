# Leases o, p, q: the Even Pixels `unet-s-g16-gc` SRM and its DDPM to >= 60M images each and the
# Counting baselines (issue 12), the Sudoku DDPM with the paper's objective (issue 11's open item).
# One 4-GPU host a lease, three `go` calls each; every call stands alone (it carries its start
# weights and returns its weights).
#
# Lease o RAN 2026-11-27 (4x H200, 29.0 device-min; logs docs/runs/lease-2026-11-27o/): call 1
# G23=count, calls 2-3 G23=rcb. The g16-gc checkpoint of lease n (21.9M images) was lost with runs/
# (never committed), so GPU 0 started again from scratch. Ended at: SRM step 11,800 (24.2M images),
# DDPM 13,200 (27.0M), rcb 29,600 (30.3M), s2 3,000 and s4 3,050 (0.77M; s2 wins, s4 draws 0/64).
# Weights kept with benchmarks/device/campaign.sh (campaign/INDEX.tsv).
#
# GPU 0: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~8.5 steps/s, so
#   ~40 more minutes after lease o: leases p and q. Probed on its GPU after every call.
# GPU 1: the DDPM with the same network, seed 0, to the same 32,000 steps; ~9 steps/s: p and q.
# GPUs 2-3 (G23=g23, the default from lease p): the Sudoku DDPM `cell-rcb` (seed 0, DDP on two GPUs,
#   batch 1024, 512 a GPU) to step 68,300 (69.9M images) with the last 11,000 in a linear decay;
#   ~29.5 steps/s, ~22 more minutes after lease o. When it has reached the end its Table 1 row
#   (parallel, three splits, 500 puzzles, ~40 s a split) is scored on the spot, and the time left
#   goes to Counting with the stem race's winner `small-s2` (batch 256, lr 4e-4, seed 0, evaluated
#   every 1,000 steps on 64 test images at 256 NFE): polygons continued (GPU 2), stars (GPU 3).
# G23=count was lease o's first call: `small-s2` (GPU 2) against `small-s4` (GPU 3) on polygons,
#   with bench_train.py rows first (docs/baselines.md, "Counting: the stem race").
#
#   bash benchmarks/device/campaign.sh restore                                              # before call 1
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27o.sh go             # every call
#   D=<files_at>; for r in srm ddpm rcb s2 s2s s4; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
#   bash benchmarks/device/campaign.sh save runs/o-*.safetensors                             # after the lease
# `score` (all four GPUs, ~4 minutes, lease q): the Table 2 rows and the overlap sweep of the SRM
# (runs/o-srm.safetensors), the DDPM's parallel row (runs/o-ddpm.safetensors), and the Sudoku
# `cell-rcb` DDPM's three splits (runs/o-rcb.safetensors), each only if its weights reached the end.
# Carry: [".whl", "runs/o-srm.safetensors", "runs/o-ddpm.safetensors", "runs/o-rcb.safetensors",
# "runs/o-s2.safetensors", "runs/o-s2s.safetensors"] (those that exist: 6.6 + 6.6 + 19 + 3.9 + 3.9 MB)
# with both shipped weights files moved out of the tree (mv baselines/weights/*.safetensors /work/aside/).
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
count() {  # GPU RUN PRESET TASK [PRESET:BATCH...]: throughput first on a host without the run, then training
  local gpu=$1 run=$2 preset=$3 task=$4; shift 4
  if [ ! -e $W/$run/last.pt ] && [ -z "$(init_of ${run#o-})" ]; then  # the first call only
    mkdir -p $R/bench
    for pb in "$@"; do
      CUDA_VISIBLE_DEVICES=$gpu timeout 120 python benchmarks/bench_train.py --task $task --preset ${pb%:*} \
        --batch ${pb#*:} --compile --steps 60 --warmup 20 --json $R/bench/train-throughput-gpu$gpu.json | tail -1
    done
  fi
  TASK=$task GPUS=$gpu RUN=$run COMPILE=1 EVAL_EVERY=1000 EVAL_BUDGET=256 bash benchmarks/device/train.sh \
    $preset $(mins 60) "$(init_of ${run#o-})" --seed 0 --batch-size 256 --lr 4e-4
}
newest() { [ -e $W/o-$1/weights.safetensors ] && echo $W/o-$1/weights.safetensors || echo runs/o-$1.safetensors; }
g23() {  # GPUs 2-3 from lease p: the Sudoku DDPM to its end and its Table 1 row, then Counting with what is left
  [ "$(wstep $(newest rcb))" -lt "$SU_STOP" ] && rcb
  local c=$(newest rcb)
  if [ "$(wstep $c)" -ge "$SU_STOP" ] && [ ! -e $R/rcb/.done ] && [ "$(left)" -gt 200 ]; then
    { GPU=2 timeout $(left) bash $E $c $R/rcb hard:parallel; } &
    { GPU=3 timeout $(left) bash $E $c $R/rcb medium:parallel easy:parallel; } &
    wait; touch $R/rcb/.done
  fi
  if [ "$(left)" -gt 300 ]; then  # Counting with the stem race's winner (lease o): polygons on, stars begun
    count 2 o-s2 small-s2 counting-polygons &
    count 3 o-s2s small-s2 counting-stars &
    wait
  fi
}
case $1 in
go)
  { srm; } > $L/srm 2>&1 &
  { ddpm; } > $L/ddpm 2>&1 &
  case ${G23:-g23} in
    g23) { g23; } > $L/g23 2>&1 &;;
    rcb) { rcb; } > $L/rcb 2>&1 &;;
    count)  # lease o's first call: the stem race
      { count 2 o-s2 small-s2 counting-polygons small:64 small:256; } > $L/s2 2>&1 &
      { count 3 o-s4 small-s4 counting-polygons small-s2:256 small-s4:256; } > $L/s4 2>&1 &;;
  esac
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
