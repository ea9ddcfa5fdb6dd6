# Lease t (planned in the seventeenth session; not run yet): issue 11's settling run, Counting's missing
# Table 3 rows and an Even Pixels network race (issue 12). Three calls of `go` on a 4-GPU host (2 GPUs: slot A only).
# Every call stands alone: it carries its start weights and returns its weights.
#
# Slot A (GPUs 0-1; on a 2-GPU host both): the Sudoku SRM `cell-rcb` with the paper's objective (the shipped
#   SRM's CellNet and position code, no class head, no auxiliary digit loss), from scratch, seed 0, DDP at batch
#   1024 (512 a GPU), lr 3e-4, to step 68,300 (69.9M images) with the last 11,000 steps in a linear decay: the
#   recipe of the DDPM `cell-rcb` (leases o-p; hard 0.000) that it is to be set beside. If it reaches >= 0.50 in
#   predicted order on hard, Table 1 holds with the paper's objective on both sides (docs/sudoku-baselines.md,
#   "the run that would settle it"). ~31k images/s on two GPUs (the DDPM's rate): ~38 minutes, so leases t and u.
#   Evaluated every 10,000 steps on 64 puzzles a split at 200 NFE (eta 0). Scored on its GPUs once it reached the
#   end: hard in every order, predicted order on easy and medium (500 puzzles, 1000 NFE, eta 1).
# Slot B (GPUs 2-3, 4-GPU hosts only): first the Counting rows lease s left (the polygons SRMs' overlap rows)
#   and rows at other budgets: 256 NFE, one step a patch (the CPU pilot of the seventeenth session: o-s2 in
#   predicted order, 32 images, 0.156 against 0.040 on 500 at 1000 NFE; docs/baselines.md), and eta 0 at 1000
#   NFE (~12 jobs of ~1-2 minutes, ~8 minutes on two GPUs), and `srm-bench reproduce` of srm-counting-stars'
#   parallel row on a second H200 host (~1 minute), the shipped Even Pixels SRM in raster order (ours, a fixed
#   order: does order matter on that task at all? ~1 minute), then the Even Pixels SRM
#   `unet-s-g16-gc-w` (3.72M, 7.4 MB: the level embedding halved, the last level 3x wide) from scratch under
#   DDP, g16-gc's recipe (batch 2048, lr 8e-4, to step 30,000 with the decay from 24,200), raced against
#   g16-gc's own curve at equal images: the count probe after every call, as for g16-gc
#   (docs/runs/lease-2026-11-27{o,q,r}/o-srm/probe.txt). ~27k images/s on two GPUs: leases t and u.
#
#   bash benchmarks/device/campaign.sh restore o-s2 o-s2z o-s2s o-d2 o-srm   # before call 1 (o-rcbs, o-epw: later calls)
#   mkdir -p /work/aside && mv baselines/weights/*.safetensors /work/aside/          # the carry limit; back after
#   export T0=$(date +%s); FRESH=1 END=560 bash benchmarks/device/lease-2026-11-27t.sh go   # call 1, carry [".whl", "runs"]
#   export T0=$(date +%s); COUNT=0 END=560 bash benchmarks/device/lease-2026-11-27t.sh go   # calls 2-3 (COUNT=1 if call
#     1 left Counting jobs: on a fresh host every job is scored again, and carry only the Counting weights
#     still needed: the carry limit), runs/ then holds o-rcbs and o-epw
#   D=<files_at>; for r in rcbs epw; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
#   bash benchmarks/device/campaign.sh save runs/o-rcbs.safetensors runs/o-epw.safetensors   # after the lease
# What lease t did (eighteenth session; 4x H200, 30 device-minutes): call 1 `FRESH=1 END=560 ... go` took o-rcbs
# to step 13,500 and scored the twelve Counting jobs (they filled slot B's whole call); call 2 (the host still warm)
# `REPRO=1 COUNT=0 FRESH=1 END=560 ... go` took o-rcbs to 28,700, ran the reproduce job and the raster rows, and
# started o-epw (2,700); call 3 `REPRO=0 COUNT=0 END=505 ... go` was cut off at 454 s with nothing returned: the
# device budget had shrunk by the warm host's idle minutes between calls. So set END from `status` right before
# each call: END = budget_left_s - 60, at most 560.
# Lease u: `u` puts o-rcbs on all four GPUs (39,600 steps left; two GPUs ran it at 30.9k images/s, so ~22
# minutes there; four are not measured for this network), scores it on all four once it ends, then continues
# o-epw on GPUs 0-1 and runs the parallel-mix race (prace: o-s2c and o-s2p from o-s2) on GPUs 2 and 3. Before
# call 1: `bash benchmarks/device/campaign.sh restore o-rcbs o-epw o-s2` and the shipped weights out of the tree
# (carry limit); every call `export T0=$(date +%s); END=<budget_left_s - 60, at most 560> bash
# benchmarks/device/lease-2026-11-27t.sh u` with carry [".whl", "runs"] (RCBS=0 once o-rcbs is scored, and
# runs/o-rcbs.safetensors then left out); weights back as for go, with s2c and s2p added to its loop.
# What lease u did (nineteenth session; 4x H200, 29 device-minutes): call 1 `END=560 ... u` (fresh host, 590 s) took
# o-rcbs from 28,700 to 41,400 on four GPUs at 28.6k images/s, no faster than two; it diverged at step 40,300 (loss
# 0.125 -> 1.32) and was not scored (docs/sudoku-baselines.md, "Fifteenth lease"). Calls 2 and 3 `RCBS=0 END=560`
# (fresh host, 599 s) and `RCBS=0 END=410` (warm, 385 s) took o-epw to 11,100 (22.7M images; it lost its race) and
# both prace runs to step 24,000. The host is given back 30 s after a call ends (`status`: idle_release_s), so a
# call that follows more slowly starts a fresh one.
# REPRO=1 (default: COUNT) runs the reproduce job and the raster rows even with COUNT=0 (call 1 of lease t
# spent its whole slot B on the Counting jobs; call 2 was `REPRO=1 COUNT=0 FRESH=1`: o-epw had not started).
# FRESH=1 lets a run without weights to continue start from scratch (call 1 only: a later call without
# them would silently start again). A run that reached its end is not trained again; a job scored on this host is not scored again (eval.sh's
# marks); nothing starts with fewer than 150 s left.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
L=/tmp/lease-t; rm -rf $L; mkdir -p $L  # this call's printed logs
SU_STOP=${SU_STOP:-68300}; SU_COOL=${SU_COOL:-11000}
EW_STOP=${EW_STOP:-30000}; EW_COOL=${EW_COOL:-5800}
P=benchmarks/probe_even_pixels_count.py
# srm-counting-stars' parallel row, sampled in lease s: drawn again on this host, bit for bit or not
STARS_PARALLEL=leaderboard/results/baselines/counting-stars-2026-11-27s/counting-stars-test-srm-unet-small-s2-20261127T172316Z-16cc81b45749.json
rcbs() {  # GPUS PORT: the Sudoku SRM cell-rcb towards SU_STOP under DDP over GPUS (a comma list)
  local n=$(( $(tr -cd , <<< "$1" | wc -c) + 1 ))
  reached rcbs $SU_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  fresh rcbs || return 1
  NPROC=$n GPUS=$1 PORT=$2 BASELINE=srm RUN=o-rcbs COMPILE=1 EVAL_EVERY=10000 EVAL_BUDGET=200 \
    bash benchmarks/device/sudoku_cell.sh cell-rcb $(mins 20) "$(init_of rcbs)" \
    --seed 0 --batch-size 1024 --steps $SU_STOP --cooldown-steps $SU_COOL
}
RCBS_JOBS=(hard:predicted hard:parallel hard:random hard:graph easy:predicted medium:predicted)
rcbs_job() { GPU=$2 timeout $(left) bash $E $(latest rcbs) $R/sudoku-rcbs ${RCBS_JOBS[$1]}; }  # J GPU
score_rcbs() {  # GPU...: its Table 1 rows, the jobs dealt over the GPUs (hard predicted first)
  reached rcbs $SU_STOP || { echo "o-rcbs at step $(wstep $(latest rcbs)) of $SU_STOP: not scored"; return 1; }
  deal rcbs_job ${#RCBS_JOBS[@]} "$@"
}
# The Counting rows lease s left, then the budget rows (a job: run, leaderboard name or -, eta, NFE, eval.sh
# job). 256 NFE over 256 patches in order without overlap is one step a patch (x0-hat at once, eta moot): the
# CPU pilot found it ahead of 1000 NFE
COUNT_JOBS=(
  "o-s2 - 1 1000 :predicted@0.95" "o-s2 - 1 1000 :random@0.95"
  "o-s2z srm-unet-small-s2-zp0.5 1 1000 :predicted@0.95" "o-s2z srm-unet-small-s2-zp0.5 1 1000 :random@0.95"
  "o-s2 - 1 256 :predicted" "o-s2 - 1 256 :random" "o-s2z srm-unet-small-s2-zp0.5 1 256 :predicted"
  "o-s2s - 1 256 :predicted" "o-s2 - 0 1000 :predicted" "o-s2s - 0 1000 :predicted@0.95"
  "o-s2 - 0 1000 :parallel" "o-d2 - 0 1000 :parallel")
count_job() {  # J GPU: COUNT_JOBS[J] on GPU
  local g=$2 shape=polygons; set -- ${COUNT_JOBS[$1]}
  [[ $1 == *s ]] && shape=stars
  [ -e runs/$1.safetensors ] || { echo "runs/$1.safetensors missing: $5 not scored"; return 1; }
  NAME=${2#-} ETA=$3 NFE=$4 GPU=$g timeout $(left) bash $E runs/$1.safetensors $R/count-$shape $5
}
ep_raster() {  # GPU GPU: the Even Pixels SRM (srm-even-pixels, 61.4M images) in raster order (ours), with and
  # without overlap 0.95: does order matter on this task at all (docs/even-pixels-baselines.md, next step 1)
  [ -e runs/o-srm.safetensors ] || { echo "runs/o-srm.safetensors missing: raster rows not scored"; return 1; }
  GPU=$1 timeout $(left) bash $E runs/o-srm.safetensors $R/ep-raster :raster@0.95 & local p=$!
  GPU=$2 timeout $(left) bash $E runs/o-srm.safetensors $R/ep-raster :raster
  wait $p
}
epw() {  # GPUS PORT: the Even Pixels SRM unet-s-g16-gc-w towards EW_STOP under DDP over GPUS
  local n=$(( $(tr -cd , <<< "$1" | wc -c) + 1 ))
  reached epw $EW_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  fresh epw || return 1
  TASK=even-pixels GPUS=$1 NPROC=$n PORT=$2 BASELINE=srm RUN=o-epw COMPILE=1 EVAL_EVERY=0 \
    bash benchmarks/device/train.sh unet-s-g16-gc-w $(mins 60) "$(init_of epw)" \
    --seed 0 --steps $EW_STOP --cooldown-steps $EW_COOL
  [ -e $W/o-epw/weights.safetensors ] && CUDA_VISIBLE_DEVICES=${1%%,*} timeout $(left) \
    python $P $W/o-epw/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
  return 0
}
PM_STOP=${PM_STOP:-24000}; PM_COOL=${PM_COOL:-4000}
prace() {  # GPU RUN: the parallel-mix race on Counting Polygons, both from o-s2's 4.1M-image weights (step 16,000)
  # with o-s2's recipe to PM_STOP (2.0M more images, the last PM_COOL steps decayed): o-s2c on the authors' rule
  # (the control), o-s2p with `--parallel-mix 0.5` (half the rows one shared level and no clean patch, parallel
  # sampling's state; our deviation). Judged by the clean-context probe (benchmarks/probe_clean_context.py, CPU)
  # and the object counts of their samples (benchmarks/check_counting_objects.py).
  local args=() init
  [ $2 = s2p ] && args=(--parallel-mix 0.5)
  reached $2 $PM_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  init=$(init_of $2); [ -n "$init" ] || [ -e $W/o-$2/last.pt ] || init=$(init_of s2)
  [ -n "$init" ] || [ -e $W/o-$2/last.pt ] || { echo "o-$2: neither its weights nor runs/o-s2.safetensors"; return 1; }
  TASK=counting-polygons GPUS=$1 RUN=o-$2 COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 BASELINE=srm \
    bash benchmarks/device/train.sh small-s2 $(mins 20) "$init" --seed 0 --batch-size 256 --lr 4e-4 \
    --steps $PM_STOP --cooldown-steps $PM_COOL "${args[@]}"
}
case $1 in
u)  # lease u: the Sudoku SRM on all four GPUs (batch 1024 = 256 a GPU) to its end, scored on all four; then, with
    # what is left, the Even Pixels race on GPUs 0-1 and the parallel-mix race on GPUs 2 and 3. RCBS=0 skips the
    # Sudoku run (once it is scored: its weights then need not be carried)
  [ $NGPU -ge 4 ] || { echo "lease-t u: needs four GPUs" >&2; exit 2; }
  if [ "${RCBS:-1}" = 1 ]; then
    rcbs 0,1,2,3 29500 > $L/rcbs 2>&1; once rcbs score_rcbs 0 1 2 3 > $L/score 2>&1
  fi
  if [ "${RCBS:-1}" = 0 ] || [ -e $R/.done-rcbs ]; then
    epw 0,1 29501 > $L/epw 2>&1 & prace 2 s2c > $L/s2c 2>&1 & prace 3 s2p > $L/s2p 2>&1 & wait
  fi
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
go)
  [ $NGPU -ge 2 ] || { echo "lease-t go: needs two GPUs or more" >&2; exit 2; }
  if [ $NGPU -ge 4 ]; then
    { rcbs 0,1 29500 > $L/rcbs 2>&1; once rcbs score_rcbs 0 1; } &
    { [ "${COUNT:-1}" = 1 ] && once count deal count_job ${#COUNT_JOBS[@]} 2 3 > $L/count 2>&1
      [ "${REPRO:-${COUNT:-1}}" = 1 ] && [ -e runs/o-s2s.safetensors ] && CUDA_VISIBLE_DEVICES=2 once repro srm-bench reproduce \
        $STARS_PARALLEL --checkpoint runs/o-s2s.safetensors > $L/repro 2>&1
      [ "${REPRO:-${COUNT:-1}}" = 1 ] && once ep-raster ep_raster 2 3 > $L/ep-raster 2>&1
      epw 2,3 29501 > $L/epw 2>&1; } &
    wait
  else
    rcbs 0,1 29500 > $L/rcbs 2>&1; once rcbs score_rcbs 0 1
  fi
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go|u" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
