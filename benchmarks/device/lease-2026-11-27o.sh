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
# Lease q RAN 2026-11-27 (fifteenth session; 2x H200, 28.8 device-min, 3 calls; logs
# docs/runs/lease-2026-11-27q/): Counting shared the two GPUs with Even Pixels, and GPU time-slicing
# gave each Even Pixels run a third of its GPU (2.7 steps/s against 9 alone). Ended at: SRM step
# 16,500 (33.8M images), DDPM 18,600 (38.1M), o-s2 11,300, o-d2 8,650, o-s2s 8,200, o-d2s 8,650.
# Its first call also timed the level sampler on the GPU (docs/baselines.md).
#
# From lease r, on a 4-GPU host:
# GPU 0: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~9 steps/s alone.
#   Probed on its GPU after every call; scored there (`score_ep_srm`) once it reached the end.
# GPU 1: the DDPM with the same network, seed 0, to the same 32,000 steps (~9 steps/s); its
#   Table 2 row scored there once it reached the end.
# GPUs 2 / 3: the Counting baselines with the stem race's winner `small-s2` (batch 256, lr 4e-4,
#   seed 0, evaluated every 2,000 steps on 64 test images at 256 NFE) to step 20,000 (5.1M images,
#   the last 4,000 in a linear decay), SRM and DDPM side by side on one GPU a shape: polygons
#   (`o-s2`, `o-d2`) and stars (`o-s2s`, `o-d2s`); each run's Table 3 rows scored on its GPU once it
#   reached the end. Beside the polygons pair, `o-s2z`: o-s2's step-11,300 weights continued with
#   `--zero-patch-prob 0.5` (half the rows without clean patches: the fifteenth session found the
#   Counting SRMs 17-20x worse than their DDPMs when no patch is clean, docs/baselines.md), scored
#   as `srm-unet-small-s2-zp0.5`.
# On a 2-GPU host: the SRM alone on GPU 0; on GPU 1 the DDPM, then all four Counting runs.
# A run that reached its end is not trained again; a scoring that succeeded on the host is not
# repeated (marks in /tmp/results); nothing starts with fewer than 150 s left.
#
#   bash benchmarks/device/campaign.sh restore o-srm o-ddpm o-s2 o-d2 o-s2s o-d2s o-s2z   # before call 1
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
reached() { [ "$(wstep $(latest $1))" -ge "$2" ]; }  # RUN STOP: run o-RUN reached step STOP
srm() {  # GPU 0
  reached srm $EP_STOP && return 0
  TASK=even-pixels GPUS=0 RUN=o-srm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc $(mins 45) \
    "$(init_of srm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
  CUDA_VISIBLE_DEVICES=0 timeout $(left) python $P $W/o-srm/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
}
ddpm() {  # GPU 1
  reached ddpm $EP_STOP && return 0
  TASK=even-pixels GPUS=1 BASELINE=ddpm RUN=o-ddpm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc \
    $(mins 20) "$(init_of ddpm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
}
once() {  # NAME CMD...: CMD, unless it succeeded on this host before or fewer than 150 s are left
  local mark=$R/.done-$1; shift
  [ -e $mark ] || [ $(left) -lt 150 ] && return 0
  mkdir -p $R; "$@" && touch $mark
}
score_ep_srm() {  # G0 G1 G2: Table 2, the reference protocol and the overlap sweep of the SRM, in three groups
  local s=$(latest srm)
  reached srm $EP_STOP || { echo "EP SRM at step $(wstep $s) of $EP_STOP: not scored"; return 1; }
  local a b c
  { GPU=$1 timeout $(left) bash $E $s $R/ep-srm :predicted@0.95 :random@0.95 :parallel :predicted@0.99 &&
    GPU=$1 NFE=100 ETA=0 RAMP=reference timeout $(left) bash $E $s $R/ep-srm :predicted@0.95; } & a=$!
  GPU=$2 timeout $(left) bash $E $s $R/ep-srm :predicted :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.9 & b=$!
  GPU=$3 timeout $(left) bash $E $s $R/ep-srm :random :random@0.25 :random@0.5 :random@0.75 :random@0.9 :random@0.99 & c=$!
  wait $a; a=$?; wait $b; b=$?; wait $c; c=$?
  return $((a | b | c))  # a group cut short leaves the SRM to be scored again
}
score_ep_ddpm() {  # GPU: the DDPM's Table 2 row
  local d=$(latest ddpm)
  reached ddpm $EP_STOP || { echo "EP DDPM at step $(wstep $d) of $EP_STOP: not scored"; return 1; }
  GPU=$1 timeout $(left) bash $E $d $R/ep-ddpm :parallel
}
score_count() {  # RUN GPU: Table 3 rows of Counting run o-RUN (s2, d2, s2s, d2s, s2z)
  local w=$(latest $1) shape=polygons jobs=(:parallel) name=
  [[ $1 == *s ]] && shape=stars
  [[ $1 == s* ]] && jobs=(:parallel :predicted :random :predicted@0.95 :random@0.95)
  [ $1 = s2z ] && name=srm-unet-small-s2-zp0.5
  reached $1 $CO_STOP || { echo "Counting o-$1 at step $(wstep $w) of $CO_STOP: not scored"; return 1; }
  NAME=$name GPU=$2 timeout $(left) bash $E $w $R/count-$shape "${jobs[@]}"
}
count() {  # GPU RUN TASK [ARGS...]: one Counting run with the stem race's winner `small-s2` (BASELINE from B, default srm)
  local gpu=$1 run=$2 task=$3; shift 3
  reached ${run#o-} $CO_STOP && return 0
  TASK=$task GPUS=$gpu RUN=$run COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 BASELINE=${B:-srm} WEIGHTS=0 bash benchmarks/device/train.sh \
    small-s2 $(mins 60) "$(init_of ${run#o-})" --seed 0 --batch-size 256 --lr 4e-4 --steps $CO_STOP --cooldown-steps $CO_COOL "$@"
}
pair() {  # GPU SHAPE: a shape's SRM and DDPM side by side on one GPU, each scored there once it reached the end;
  # for polygons also `o-s2z`, the SRM continued from o-s2's step 11,300 with zero patches in half the rows
  local s=s2 d=d2 task=counting-polygons
  [ $2 = stars ] && { s=s2s; d=d2s; task=counting-stars; }
  [ $(left) -ge 150 ] || return 0
  { count $1 o-$s $task > $L/$s 2>&1; once count-$s score_count $s $1; } &
  { B=ddpm count $1 o-$d $task > $L/$d 2>&1; once count-$d score_count $d $1; } &
  [ $2 = polygons ] && [ -e runs/o-s2z.safetensors ] && \
    { count $1 o-s2z $task --zero-patch-prob 0.5 > $L/s2z 2>&1; once count-s2z score_count s2z $1; } &
  wait
}
count_weights() {  # the Counting runs' weights in one file pair ($OUT holds 8 files)
  local f=$(cd $W 2>/dev/null && for r in s2 d2 s2s d2s s2z; do ls o-$r/weights.safetensors 2>/dev/null; done)
  [ -n "$f" ] && ( cd $W && tar cf - $f ) | split -b 15000000 - $OUT/weights-count.tar.part-
  return 0
}
gpu() {  # the GPU of slot $1 (0..3) on this host: all four, or two shared
  echo $(( $1 % NGPU ))
}
case $1 in
go)
  if [ $NGPU -ge 4 ]; then
    { srm > $L/srm 2>&1; once ep-srm score_ep_srm 0 0 0; } &
    { ddpm > $L/ddpm 2>&1; once ep-ddpm score_ep_ddpm 1; } &
    pair 2 polygons &
    pair 3 stars &
  else  # two GPUs: an Even Pixels run got a third of its GPU beside a Counting pair (lease q), so
    # the Counting runs wait for the DDPM's GPU (and the SRM finishes first on its own)
    { srm > $L/srm 2>&1; once ep-srm score_ep_srm 0 0 0; } &
    { ddpm > $L/ddpm 2>&1; once ep-ddpm score_ep_ddpm 1; pair 1 polygons & pair 1 stars & wait; } &
  fi
  wait
  count_weights
  grep -h -v -i warn $L/*
  ;;
score)  # the Even Pixels rows, spread over the GPUs
  once ep-srm score_ep_srm $(gpu 0) $(gpu 1) $(gpu 2) &
  once ep-ddpm score_ep_ddpm $(gpu 3) &
  wait
  ;;
score-count)  # Table 3 for both shapes, one model a slot (overlap for Counting is not given by the
  # paper: 0.95, Even Pixels' value, labelled in every result)
  i=0
  for m in s2 d2 s2s d2s s2z; do once count-$m score_count $m $(gpu $i) & i=$((i + 1)); done
  wait
  ;;
*) echo "usage: $0 go|score|score-count" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
