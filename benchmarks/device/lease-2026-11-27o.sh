# Leases o, p, q: the Even Pixels `unet-s-g16-gc` SRM and its DDPM to >= 60M images each and the
# Counting baselines (issue 12), the Sudoku DDPM with the paper's objective (issue 11's open item).
# One 4-GPU host a lease, three `go` calls each; every call stands alone (it carries its start
# weights and returns its weights).
#
# Lease o RAN 2026-11-27 (4x H200, 29.2 device-min; logs docs/runs/lease-2026-11-27o/): call 1
# G23=count, calls 2-3 G23=rcb. The g16-gc checkpoint of lease n (21.9M images) was lost with runs/
# (never committed), so GPU 0 started again from scratch. Ended at: SRM step 11,800 (24.2M images),
# DDPM 13,200 (27.0M), rcb 29,600 (30.3M), s2 3,000 and s4 3,050 (0.77M; s2 wins, s4 draws 0/64).
# Weights kept with benchmarks/device/campaign.sh (campaign/INDEX.tsv).
#
# GPU 0: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~8.5 steps/s, so
#   ~40 more minutes after lease o: leases p and q. Probed on its GPU after every call.
# GPU 1: the DDPM with the same network, seed 0, to the same 32,000 steps; ~9 steps/s: p and q.
# GPUs 2-3 (from lease p): the Sudoku DDPM `cell-rcb` (seed 0, DDP on two GPUs, batch 1024, 512
#   a GPU) to step 68,300 (69.9M images) with the last 11,000 in a linear decay; ~29.5 steps/s,
#   ~22 more minutes after lease o. When it has reached the end its Table 1 row (parallel, three
#   splits, 500 puzzles, ~40 s a split) is scored on the spot. Beside it (two minutes after it
#   starts, if GPUs 2-3 still have >= 30 GiB free: its memory at 512 a GPU is not recorded; else,
#   or with CO_WITH_RCB=0, after it) run the Counting baselines with the stem race's winner
#   `small-s2` (batch 256, lr 4e-4, seed 0, evaluated every 1,000 steps on 64 test images at 256
#   NFE) to step 20,000 (5.1M images, the last 4,000 in a linear decay), SRM and DDPM, two runs a
#   GPU (one run uses ~1% of a GPU's FLOPs, and `small-s4` at a quarter of `small-s2`'s FLOPs ran
#   no faster, lease o): polygons (GPU 2: the SRM `o-s2` continued, the DDPM `o-d2`) and stars
#   (GPU 3: `o-s2s`, `o-d2s`).
# Lease o's calls ran this script at fe5c11e (G23=count: the stem race `small-s2` against `small-s4`
#   on polygons with bench_train.py rows first, docs/baselines.md "Counting: the stem race";
#   G23=rcb: the DDPM alone on GPUs 2-3); from lease p every call is the same `go`.
#
#   bash benchmarks/device/campaign.sh restore                                              # before call 1
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27o.sh go             # every call
#   D=<files_at>; for r in srm ddpm rcb; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
#   [ -e $D/weights-count.tar.part-aa ] && { rm -rf /tmp/wc; mkdir /tmp/wc; cat $D/weights-count.tar.part-* | tar xf - -C /tmp/wc;
#     for d in /tmp/wc/o-*; do cp $d/weights.safetensors runs/$(basename $d).safetensors; done; }
#   bash benchmarks/device/campaign.sh save runs/o-*.safetensors                             # after the lease
# `score` (all four GPUs, ~4 minutes, lease q): the Table 2 rows and the overlap sweep of the SRM
# (runs/o-srm.safetensors), the DDPM's parallel row (runs/o-ddpm.safetensors), and the Sudoku
# `cell-rcb` DDPM's three splits (runs/o-rcb.safetensors), each only if its weights reached the end.
# `score-count`: Table 3 (SRM parallel, predicted and random order with and without overlap 0.95;
# DDPM parallel) for both shapes, one model a GPU, 500 test images, 1000 NFE, eta 1.
# Carry: [".whl", "runs/o-srm.safetensors", "runs/o-ddpm.safetensors", "runs/o-rcb.safetensors",
# "runs/o-s2.safetensors", "runs/o-s2s.safetensors", "runs/o-d2.safetensors", "runs/o-d2s.safetensors"]
# (those that exist, and o-rcb only until it is scored: the carry, tree included, must stay under 64 MiB)
# with both shipped weights files moved out of the tree (mv baselines/weights/*.safetensors /work/aside/).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
L=/tmp/lease-o; rm -rf $L; mkdir -p $L  # this call's printed logs
EP_STOP=${EP_STOP:-32000}; EP_COOL=${EP_COOL:-6000}
SU_STOP=${SU_STOP:-68300}; SU_COOL=${SU_COOL:-11000}
CO_STOP=${CO_STOP:-20000}; CO_COOL=${CO_COOL:-4000}  # Counting: 5.1M images at batch 256
init_of() { [ -e runs/o-$1.safetensors ] && echo runs/o-$1.safetensors || echo ""; }
wstep() {  # the training step recorded in a weights file (0 if there is none)
  [ -e "$1" ] && bash benchmarks/device/campaign.sh record "$1" | cut -f1 || echo 0
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
count() {  # GPU RUN PRESET TASK: one Counting run (BASELINE from B, default srm)
  local gpu=$1 run=$2 preset=$3 task=$4
  TASK=$task GPUS=$gpu RUN=$run COMPILE=1 EVAL_EVERY=1000 EVAL_BUDGET=256 BASELINE=${B:-srm} WEIGHTS=0 bash benchmarks/device/train.sh \
    $preset $(mins 60) "$(init_of ${run#o-})" --seed 0 --batch-size 256 --lr 4e-4 --steps $CO_STOP --cooldown-steps $CO_COOL
}
newest() { [ -e $W/o-$1/weights.safetensors ] && echo $W/o-$1/weights.safetensors || echo runs/o-$1.safetensors; }
counting() {  # Counting with the stem race's winner (lease o), SRM and DDPM a shape, two runs a GPU
  count 2 o-s2 small-s2 counting-polygons > $L/s2 2>&1 &
  B=ddpm count 2 o-d2 small-s2 counting-polygons > $L/d2 2>&1 &
  count 3 o-s2s small-s2 counting-stars > $L/s2s 2>&1 &
  B=ddpm count 3 o-d2s small-s2 counting-stars > $L/d2s 2>&1 &
  wait  # their weights in one file pair: $OUT holds 8 files
  ( cd $W && tar cf - $(for r in s2 d2 s2s d2s; do ls o-$r/weights.safetensors 2>/dev/null; done) ) \
    | split -b 15000000 - $OUT/weights-count.tar.part-
}
beside() {  # Counting beside the DDPM once its memory has settled, if GPUs 2-3 keep >= 30 GiB free
  sleep ${SETTLE:-120}
  local free=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits -i 2,3 | sort -n | head -1)
  if [ "${free:-0}" -ge 30000 ]; then counting
  else echo "Counting not started beside the DDPM: ${free:-?} MiB free on GPU 2 or 3"; rm -f $L/counting; fi
}
g23() {  # GPUs 2-3 from lease p: the Sudoku DDPM to its end and its Table 1 row; Counting beside it
  local c
  if [ "$(wstep $(newest rcb))" -lt "$SU_STOP" ]; then
    [ "${CO_WITH_RCB:-1}" = 1 ] && { touch $L/counting; beside & }  # CO_WITH_RCB=0 if it slows the DDPM much
    rcb
  fi
  c=$(newest rcb)
  if [ "$(wstep $c)" -ge "$SU_STOP" ] && [ ! -e $R/rcb/.done ] && [ "$(left)" -gt 200 ]; then
    GPU=2 timeout $(left) bash $E $c $R/rcb hard:parallel & local p2=$!
    GPU=3 timeout $(left) bash $E $c $R/rcb medium:parallel easy:parallel & local p3=$!
    wait $p2 $p3 && touch $R/rcb/.done
  fi
  wait  # for Counting beside the DDPM, if it started; else Counting now if the call has time
  [ ! -e $L/counting ] && [ "$(left)" -gt 300 ] && counting
}
case $1 in
go)
  { srm; } > $L/srm 2>&1 &
  { ddpm; } > $L/ddpm 2>&1 &
  { g23; } > $L/g23 2>&1 &
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
    if [ "$(wstep $c)" -ge "$SU_STOP" ] && [ "${SCORE_RCB:-1}" = 1 ]; then  # SCORE_RCB=0 once scored in g23
      GPU=3 timeout $(left) bash $E $c $R/rcb hard:parallel medium:parallel easy:parallel
    else echo "Sudoku cell-rcb DDPM at step $(wstep $c) of $SU_STOP or scored already: not scored"; fi; } &
  wait
  ;;
score-count)  # Table 3 for both shapes on the four GPUs, each model only if it reached the end (overlap
  # for Counting is not given by the paper: 0.95, Even Pixels' value, labelled in every result)
  i=0
  for m in s2:polygons:srm d2:polygons:ddpm s2s:stars:srm d2s:stars:ddpm; do
    w=runs/o-${m%%:*}.safetensors; shape=${m#*:}; shape=${shape%:*}
    if [ "$(wstep $w)" -lt "$CO_STOP" ]; then echo "Counting $m at step $(wstep $w) of $CO_STOP: not scored"; continue; fi
    if [ ${m##*:} = ddpm ]; then jobs=(:parallel); else jobs=(:parallel :predicted :random :predicted@0.95 :random@0.95); fi
    GPU=$i timeout $(left) bash $E $w $R/count-$shape "${jobs[@]}" &
    i=$((i + 1))
  done
  wait
  ;;
*) echo "usage: $0 go|score|score-count" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
