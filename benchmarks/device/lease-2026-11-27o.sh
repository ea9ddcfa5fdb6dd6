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
# Lease r RAN 2026-11-27 (sixteenth session; 4x H200, 27.2 device-min, 3 calls, END=560/560/585, calls 2-3 with
# EP_STOP=30000 EP_COOL=5800 so that the scoring fit; logs docs/runs/lease-2026-11-27r/): both Even Pixels
# runs reached 61.4M images and were scored (docs/even-pixels-baselines.md, ninth lease). DDP gave 13.6-14.2
# steps/s on two GPUs and 13.0 on four. The Counting runs got no time: they are where lease q left them.
#
# Lease s RAN 2026-11-27 (seventeenth session; 4x H200, 29.4 device-min, 3 calls of `CO_STOP=16000 ... count`,
# END=560/560/575; logs docs/runs/lease-2026-11-27s/): every Counting run reached step 16,000 (4.1M images)
# in call 2 and was scored there and in call 3 (docs/baselines.md, "Counting: lease s"). The polygons SRMs'
# overlap rows (o-s2 and o-s2z, :predicted@0.95 and :random@0.95) were not reached: call 3 scored their
# finished jobs again (same numbers, same sample hashes), which eval.sh's marks now prevent on a warm host.
# Weights: campaign commit 0205f95.
#   bash benchmarks/device/campaign.sh restore o-s2 o-s2z   # the missing rows, on any host (~2 min a job):
#   GPU=0 bash benchmarks/device/eval.sh runs/o-s2.safetensors /tmp/results/count-polygons :predicted@0.95
#   (GPU=1 ... :random@0.95; GPU=2/3 NAME=srm-unet-small-s2-zp0.5 ... runs/o-s2z.safetensors ...), then collect.sh
#
# From lease r (`go`): the Even Pixels runs first, under DDP, so that their Table 2 rows are scored in
# this lease; the Counting runs take the GPUs that are left. Two slots while both Even Pixels runs train
# (on 4 GPUs: the SRM on GPUs 0-1, the DDPM on GPUs 2-3; on 2 GPUs one each); once one has reached the
# end, the other trains on every GPU. A run that reached the end is scored in its slot (the SRM's 16
# jobs dealt over the GPUs), whose GPUs then take Counting runs, one a GPU, in the order s2z, s2,
# s2s, d2s, d2 (`fill`).
# Even Pixels: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~9 steps/s on one GPU.
#   Probed on its first GPU after every call that did not finish it. The DDPM with the same network,
#   seed 0, to the same 32,000 steps.
# Counting: the stem race's winner `small-s2` (batch 256, lr 4e-4, seed 0, evaluated every 2,000 steps
#   on 64 test images at 256 NFE) to step 20,000 (5.1M images, the last 4,000 in a linear decay): SRM
#   and DDPM a shape, polygons (`o-s2`, `o-d2`) and stars (`o-s2s`, `o-d2s`); `o-s2z` is o-s2's
#   step-11,300 weights continued with `--zero-patch-prob 0.5` (half the rows without clean patches:
#   the fifteenth session found the Counting SRMs 17-20x worse than their DDPMs when no patch is clean,
#   docs/baselines.md), scored as `srm-unet-small-s2-zp0.5`. Each run's Table 3 rows are scored on its
#   GPU once it reached the end.
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
ep() {  # RUN GPUS PORT: Even Pixels run o-RUN (srm, ddpm) towards EP_STOP, under DDP over GPUS (a comma
  # list, one process a GPU); the SRM is probed on its first GPU after every call that did not finish it
  local n=$(( $(tr -cd , <<< "$2" | wc -c) + 1 ))
  reached $1 $EP_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  fresh $1 || return 1
  TASK=even-pixels GPUS=$2 NPROC=$n PORT=$3 BASELINE=$1 RUN=o-$1 COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh \
    unet-s-g16-gc $(mins 45) "$(init_of $1)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL
  if [ $1 = srm ] && ! reached srm $EP_STOP; then
    CUDA_VISIBLE_DEVICES=${2%%,*} timeout $(left) python $P $W/o-srm/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
  fi
  return 0
}
ep_srm_job() { ep_job $(latest srm) $R/ep-srm "$@"; }  # J GPU: EP_JOBS[J] (lease.sh) of the SRM on GPU
score_ep_srm() {  # GPU...: Table 2, the reference protocol (`ref`: predicted order + overlap 0.95 at 100 NFE,
  # eta 0) and the overlap sweep of the SRM, the jobs dealt over the GPUs
  [ $# -gt 0 ] || { echo "score_ep_srm: no GPU given" >&2; return 1; }
  reached srm $EP_STOP || { echo "EP SRM at step $(wstep $(latest srm)) of $EP_STOP: not scored"; return 1; }
  deal ep_srm_job ${#EP_JOBS[@]} "$@"  # a job cut short leaves the SRM to be scored again
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
crun() {  # GPU RUN: Counting run o-RUN (s2, d2, s2s, d2s, s2z) with the stem race's winner `small-s2`
  local task=counting-polygons b=srm args=()
  [[ $2 == *s ]] && task=counting-stars
  [[ $2 == d* ]] && b=ddpm
  [ $2 = s2z ] && args=(--zero-patch-prob 0.5)  # o-s2's step-11,300 weights, zero patches in half the rows
  reached $2 $CO_STOP && return 0
  fresh $2 || return 1
  TASK=$task GPUS=$1 RUN=o-$2 COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 BASELINE=$b WEIGHTS=0 bash benchmarks/device/train.sh \
    small-s2 $(mins 60) "$(init_of $2)" --seed 0 --batch-size 256 --lr 4e-4 --steps $CO_STOP --cooldown-steps $CO_COOL "${args[@]}"
}
fill() {  # GPU...: a worker a GPU takes the Counting runs in the order below (the zero-patch race first), one
  # at a time: it trains the run until it reaches the end or the call does, scores it on its GPU once it reached
  # the end, and takes the next; a run is claimed by one worker a call (mkdir is atomic)
  local g
  for g in "$@"; do
    { local m r
      while [ $(left) -ge 150 ]; do
        m=; for r in s2z s2 s2s d2s d2; do mkdir $L/claim-$r 2>/dev/null && { m=$r; break; }; done
        [ -n "$m" ] || break
        crun $g $m >> $L/$m 2>&1; once count-$m score_count $m $g
      done; } &
  done
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
go)  # (done since lease r: `go` on a fresh host would score the finished Even Pixels runs again; use `count`)
  # two slots while both Even Pixels runs train: the SRM on the first half of the GPUs, the DDPM on the
  # second (DDP); a run that finished is scored in its slot, whose GPUs then take Counting runs. Once one
  # of the two finished, the other trains on every GPU, and then all GPUs score and take Counting runs.
  [ $NGPU -ge 2 ] || { echo "lease-o go: needs two GPUs or more" >&2; exit 2; }
  g=($(seq 0 $((NGPU - 1)))); h=$((NGPU / 2))
  A=${g[*]:0:h}; B=${g[*]:h}; all=${g[*]}
  if ! reached srm $EP_STOP && ! reached ddpm $EP_STOP; then
    { ep srm ${A// /,} 29500 > $L/srm 2>&1; once ep-srm score_ep_srm $A; fill $A; } &
    { ep ddpm ${B// /,} 29501 > $L/ddpm 2>&1; once ep-ddpm score_ep_ddpm ${B%% *}; fill $B; } &
    wait
  else  # at most one of these trains
    ep srm ${all// /,} 29500 > $L/srm 2>&1
    ep ddpm ${all// /,} 29501 > $L/ddpm 2>&1
    if [ -e $R/.done-ep-ddpm ]; then once ep-srm score_ep_srm ${g[*]}
    else once ep-srm score_ep_srm ${g[*]:0:NGPU-1} & once ep-ddpm score_ep_ddpm ${g[NGPU-1]} & wait; fi
    fill ${g[*]}
  fi
  count_weights
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
count)  # Counting only (the Even Pixels runs are done; runs/ needs only the Counting runs' weights): each
  # run on a fixed GPU, the zero-patch race's two runs side by side on GPU 0 (same GPU, same share), the
  # others a GPU each on 4 GPUs (a small run leaves its GPU partly idle: in lease q two Counting runs beside an
  # Even Pixels run on one GPU ran 7.5 steps/s each, against 12.9 alone); each run is scored on its GPU once it
  # reached the end
  declare -A at=([s2z]=0 [s2]=0 [s2s]=1 [d2s]=2 [d2]=3)
  [ $NGPU -ge 4 ] || at=([s2z]=0 [s2]=0 [s2s]=1 [d2s]=1 [d2]=0)
  for m in s2z s2 s2s d2s d2; do
    { crun ${at[$m]} $m >> $L/$m 2>&1; once count-$m score_count $m ${at[$m]}; } &
  done
  wait
  count_weights
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
score)  # the Even Pixels rows, spread over the GPUs
  g=($(seq 0 $((NGPU - 1))))
  if [ $NGPU -ge 2 ]; then once ep-srm score_ep_srm ${g[*]:0:NGPU-1} & once ep-ddpm score_ep_ddpm ${g[NGPU-1]} & wait
  else once ep-srm score_ep_srm 0; once ep-ddpm score_ep_ddpm 0; fi
  ;;
score-count)  # Table 3 for both shapes, one model a slot (overlap for Counting is not given by the
  # paper: 0.95, Even Pixels' value, labelled in every result)
  i=0
  for m in s2 d2 s2s d2s s2z; do once count-$m score_count $m $(gpu $i) & i=$((i + 1)); done
  wait
  ;;
*) echo "usage: $0 go|count|score|score-count" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
