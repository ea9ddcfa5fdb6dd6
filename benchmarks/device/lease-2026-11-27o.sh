# Leases o, q (and on): the Even Pixels `unet-s-g16-gc` SRM and its DDPM to >= 60M images each and
# the Counting baselines (issue 12); in lease o also the Sudoku DDPM with the paper's objective.
# One 4- or 2-GPU host a lease, three `go` calls each; every call stands alone (it carries its start
# weights and returns its weights).
#
# Lease o RAN 2026-11-27 (4x H200, 29.2 device-min; logs docs/runs/lease-2026-11-27o/): call 1
# G23=count, calls 2-3 G23=rcb. The g16-gc checkpoint of lease n (21.9M images) was lost with runs/
# (never committed), so GPU 0 started again from scratch. Ended at: SRM step 11,800 (24.2M images),
# DDPM 13,200 (27.0M), rcb 29,600 (30.3M), s2 3,000 and s4 3,050 (0.77M; s2 wins, s4 draws 0/64).
# Weights kept with benchmarks/device/campaign.sh (campaign/INDEX.tsv).
#
# Lease p ran `benchmarks/device/lease-2026-11-27p.sh` instead (only 2-GPU kinds were lent): it
# finished and scored `cell-rcb`, so from lease q on this script no longer touches the Sudoku DDPM.
#
# From lease q, on a 4-GPU host (2-GPU host):
# GPU 0: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~8.5 steps/s alone,
#   so ~40 more minutes after lease o. Probed on its GPU after every call.
# GPU 1: the DDPM with the same network, seed 0, to the same 32,000 steps; ~9 steps/s alone.
# GPU 2 (GPU 0) / GPU 3 (GPU 1): the Counting baselines with the stem race's winner `small-s2`
#   (batch 256, lr 4e-4, seed 0, evaluated every 2,000 steps on 64 test images at 256 NFE: lease o spent
#   ~20 s an evaluation, 22% of its time at 1,000) to step
#   20,000 (5.1M images, the last 4,000 in a linear decay), SRM and DDPM, two runs a GPU (one run
#   uses ~1% of a GPU's FLOPs): polygons (the SRM `o-s2` continued, the DDPM `o-d2`) and stars
#   (`o-s2s`, `o-d2s`). On a 2-GPU host they share the GPUs with the Even Pixels runs, which slows
#   those by an amount this script's logs will show (not measured before).
# Call 1 of lease q also times the training level sampler and the whole Counting step on the polygons
#   GPU before and after the batched tree, 3-7 minutes (timeouts) before the Counting runs start there
#   (docs/baselines.md, "A host cost in the level sampler"): needs runs/tsampling_8f0bb1b.py.
#
#   bash benchmarks/device/campaign.sh restore o-srm o-ddpm o-s2                   # before call 1
#   git show 8f0bb1b:baselines/tsampling.py > runs/tsampling_8f0bb1b.py
#   mkdir -p /work/aside && mv baselines/weights/*.safetensors /work/aside/          # the carry limit; back after
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27o.sh go   # every call, carry [".whl", "runs"]
#   D=<files_at>; for r in srm ddpm; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
#   [ -e $D/weights-count.tar.part-aa ] && { rm -rf /tmp/wc; mkdir /tmp/wc; cat $D/weights-count.tar.part-* | tar xf - -C /tmp/wc;
#     for d in /tmp/wc/o-*; do cp $d/weights.safetensors runs/$(basename $d).safetensors; done; }
#   bash benchmarks/device/campaign.sh save runs/o-*.safetensors                    # after the lease
# runs/ must hold only what the calls need (the carry, tree included, stays under 64 MiB).
# `score` (~4 minutes on four GPUs): the Table 2 rows and the overlap sweep of the SRM
# (runs/o-srm.safetensors) and the DDPM's parallel row (runs/o-ddpm.safetensors), each only if its
# weights reached the end. `score-count`: Table 3 (SRM parallel, predicted and random order with and
# without overlap 0.95; DDPM parallel) for both shapes, 500 test images, 1000 NFE, eta 1. Both
# spread their jobs over the GPUs there are (two or four).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
L=/tmp/lease-o; rm -rf $L; mkdir -p $L  # this call's printed logs
EP_STOP=${EP_STOP:-32000}; EP_COOL=${EP_COOL:-6000}
CO_STOP=${CO_STOP:-20000}; CO_COOL=${CO_COOL:-4000}  # Counting: 5.1M images at batch 256
init_of() { [ -e runs/o-$1.safetensors ] && echo runs/o-$1.safetensors || echo ""; }
srm() {  # GPU 0
  TASK=even-pixels GPUS=0 RUN=o-srm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc $(mins 45) \
    "$(init_of srm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
  CUDA_VISIBLE_DEVICES=0 timeout $(left) python $P $W/o-srm/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
}
ddpm() {  # GPU 1
  TASK=even-pixels GPUS=1 BASELINE=ddpm RUN=o-ddpm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc \
    $(mins 20) "$(init_of ddpm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
}
count() {  # GPU RUN PRESET TASK: one Counting run (BASELINE from B, default srm)
  local gpu=$1 run=$2 preset=$3 task=$4
  TASK=$task GPUS=$gpu RUN=$run COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 BASELINE=${B:-srm} WEIGHTS=0 bash benchmarks/device/train.sh \
    $preset $(mins 60) "$(init_of ${run#o-})" --seed 0 --batch-size 256 --lr 4e-4 --steps $CO_STOP --cooldown-steps $CO_COOL
}
counting() {  # polygons on GPU $1, stars on GPU $2: SRM and DDPM a shape with the stem race's winner (lease o)
  sampler_bench $1
  count $1 o-s2 small-s2 counting-polygons > $L/s2 2>&1 &
  B=ddpm count $1 o-d2 small-s2 counting-polygons > $L/d2 2>&1 &
  count $2 o-s2s small-s2 counting-stars > $L/s2s 2>&1 &
  B=ddpm count $2 o-d2s small-s2 counting-stars > $L/d2s 2>&1 &
  wait  # their weights in one file pair: $OUT holds 8 files
  ( cd $W && tar cf - $(for r in s2 d2 s2s d2s; do ls o-$r/weights.safetensors 2>/dev/null; done) ) \
    | split -b 15000000 - $OUT/weights-count.tar.part-
}
sampler_bench() {  # GPU $1, once a host: the level sampler and the whole Counting step, before and after
  # the batched tree (needs runs/tsampling_8f0bb1b.py); the Even Pixels runs already share the host
  local old=runs/tsampling_8f0bb1b.py
  [ -e $old ] && [ ! -e $R/.sampler ] || return 0
  mkdir -p $R && touch $R/.sampler
  for impl in "" "--impl $old"; do
    CUDA_VISIBLE_DEVICES=$1 timeout 60 python benchmarks/bench_level_sampler.py --device cuda $impl
    CUDA_VISIBLE_DEVICES=$1 timeout 150 python benchmarks/profile_loop.py --task counting-polygons --preset small-s2 \
      --batch 256 --compile --steps 100 --top 8 $impl
  done 2>&1 | grep -v -i warn | tee $OUT/bench-level-sampler.txt
}
gpu() {  # the GPU of slot $1 (0..3) on this host: all four, or two shared
  echo $(( $1 % NGPU ))
}
case $1 in
go)
  { srm; } > $L/srm 2>&1 &
  { ddpm; } > $L/ddpm 2>&1 &
  counting $(gpu 2) $(gpu 3) &
  wait
  grep -h -v -i warn $L/*
  ;;
score)
  s=runs/o-srm.safetensors; d=runs/o-ddpm.safetensors
  if [ "$(wstep $s)" -ge "$EP_STOP" ]; then  # Table 2, the reference protocol, the overlap sweep
    { GPU=$(gpu 0) timeout $(left) bash $E $s $R/ep-srm :predicted@0.95 :random@0.95 :parallel :predicted@0.99
      GPU=$(gpu 0) NFE=100 ETA=0 RAMP=reference timeout $(left) bash $E $s $R/ep-srm :predicted@0.95; } &
    { GPU=$(gpu 1) timeout $(left) bash $E $s $R/ep-srm :predicted :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.9; } &
    { GPU=$(gpu 2) timeout $(left) bash $E $s $R/ep-srm :random :random@0.25 :random@0.5 :random@0.75 :random@0.9 :random@0.99; } &
  else echo "EP SRM at step $(wstep $s) of $EP_STOP: not scored"; fi
  if [ "$(wstep $d)" -ge "$EP_STOP" ]; then GPU=$(gpu 3) timeout $(left) bash $E $d $R/ep-ddpm :parallel &
  else echo "EP DDPM at step $(wstep $d) of $EP_STOP: not scored"; fi
  wait
  ;;
score-count)  # Table 3 for both shapes, one model a slot, each only if it reached the end (overlap
  # for Counting is not given by the paper: 0.95, Even Pixels' value, labelled in every result)
  i=0
  for m in s2:polygons:srm d2:polygons:ddpm s2s:stars:srm d2s:stars:ddpm; do
    w=runs/o-${m%%:*}.safetensors; shape=${m#*:}; shape=${shape%:*}
    if [ "$(wstep $w)" -lt "$CO_STOP" ]; then echo "Counting $m at step $(wstep $w) of $CO_STOP: not scored"; continue; fi
    if [ ${m##*:} = ddpm ]; then jobs=(:parallel); else jobs=(:parallel :predicted :random :predicted@0.95 :random@0.95); fi
    GPU=$(gpu $i) timeout $(left) bash $E $w $R/count-$shape "${jobs[@]}" &
    i=$((i + 1))
  done
  wait
  ;;
*) echo "usage: $0 go|score|score-count" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
