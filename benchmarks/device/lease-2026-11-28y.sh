# Lease y (planned in the twenty-second session): take the host out of the training step, then give
# the shippable Even Pixels SRM the paper's images. The fourteenth Even Pixels lease
# (docs/even-pixels-baselines.md) found capacity not to be the lever (the paper's 19.7M UNet scores as
# our 3.3M `unet-s-g16-gc` at 61.4M images) and the step waiting on the host: ~80 ms of Python and
# ~2,600 kernel launches for 32 ms of device work at 512 images a GPU, so DDP gained 1.2-1.5x from two
# GPUs to four. `srm-bench train --cuda-graph` (new) replays the forward and backward as one CUDA
# graph and all-reduces the gradients itself.
# Call 1 on a fresh 4-GPU host, in order (each part once a host, `once`):
#   1. check (~1 minute, GPU 0): benchmarks/check_cuda_graph.py, compiled, batch 512: the graph's
#      gradient against the plain step's on two batches (passes below a relative difference of 0.05;
#      a real change of batch is ~0.4). If it fails, the run below trains without the graph.
#   2. race (~5 minutes, END_RACE): benchmarks/device/graph_race.sh unet-s-g16-gc: the graph against the
#      plain compiled step on 1 GPU at 512 and on 4 GPUs at 2048 (then 2 GPUs and 1 GPU at 2048 if time is
#      left); rows in $OUT/train-throughput.json.
#   3. g16l: `o-g16l`, the shipped SRM `srm-even-pixels` (unet-s-g16-gc, step 30,000, 61.4M images) continued
#      with `--init` and g16-gc's recipe (batch 2048, lr 8e-4 after a new warm-up, EMA 0.999) to step 100,000
#      = 204.8M images, the paper's count, with the last 10,000 steps in a linear decay; DDP on all GPUs,
#      compiled, with --cuda-graph when the check passed (GRAPH=0 turns it off). A second EMA at the paper's
#      decay 0.9999 rides along (--ema-decay2; the EMA race of the fourteenth lease's list): it continues
#      while the host stays warm and starts again from the carried 0.999 EMA on a fresh host. The count probe
#      of both EMAs after each call; Table 2 and Figure 6 (lease.sh's EP_JOBS, the 0.999 EMA) once the run
#      reaches step 100,000.
# Status after the fifteenth lease (2026-11-28, docs/even-pixels-baselines.md): the check passed bit
# for bit on an H200 (CHECK=0 now skips it and trusts the graph); the race has the 1-GPU rows and the
# 2-GPU graph row (RACE_ONLY='^2 2048 --compile$' or '^4 ' for the rows still missing, RACE=0 none);
# o-g16l is at step 38,000 (campaign/INDEX.tsv: `bash benchmarks/device/campaign.sh restore o-g16l`).
# After the sixteenth lease (three calls on a 4x H200, CHECK=0 RACE=0, 29.4 steps/s): step 71,700, 146.8M
# images, 3.57 GPU-h; 28,300 steps to go (~16 minutes on four H200s), then the scoring (~3 minutes).
# Added in the twenty-fourth session, for the seventeenth lease: once Table 2 is scored, the 0.9999 EMA on its three SRM
# rows (~1 minute) and the Counting candidates' step times with and without the graph (COUNT_BENCH, ~3 minutes;
# COUNT_BENCH_ON=0 skips them). Plan: two calls of END=560 (the second issued with the weights' `cat` so the
# host stays warm), then one of END=budget-60 for the rest, the scoring and these.
# After the seventeenth lease (three calls on a 2x H200, 16.8 steps/s): step 91,300, 187.0M images, 4.38 GPU-h, in
# the cool-down; 8,700 steps to go (~9 minutes on two H200s, ~5 on four), then the scoring (~6 / ~3 minutes). The
# 0.9999 EMA is scored only once it has run EMA2_MIN (20,000) steps on the scoring host: it restarts from the
# carried 0.999 EMA on every fresh host, and a few thousand steps of it would be the 0.999 EMA under another name.
# After the eighteenth lease (three calls on a 2x H200): o-g16l reached step 100,000 (204.8M images, 4.81 GPU-h) and
# Table 2 / Figure 6 are scored (even-pixels-2026-11-28y); it ships as srm-even-pixels. `go` has nothing left to train;
# `ddpm` is next for this script. The compile cache came back at 22.9 MB (two parts): carrying it needs the shipped
# weights set aside (below).
# Also new: train.sh returns torch.compile's artifacts (`train --compile-cache`); carried back, a fresh host
# skips most of its ~2 minutes of compilation (CPU: 121.6 s -> 66.8 s, benchmarks/bench_compile_cache.py).
# After every call, with the weights' `cat`: cat $D/compile-cache-o-g16l.part-* > runs/o-g16l.compile-cache.gz
# (if tree + .whl + runs/ pass 64 MiB: mkdir -p /work/aside/shipped && mv baselines/weights/*.safetensors
# /work/aside/shipped/ before the call, and back after the lease; nothing here reads them).
# After the twenty-sixth lease (thirtieth session; two calls on 2x H200 at 17.0 steps/s, one on 1x H200 at 9.1): o-ddpm at
# step 43,600 (89.3M images, campaign d427ead); `ddpm-mid` scored its step-42,600 weights first: 0.130 in parallel.
# 56,400 steps to go (~32 minutes of four H200s, ~55 of two). With CHECK=0 a fresh host skips the graph's check.
# Twenty-seventh lease (thirty-first session, 1x H200 only): a cooled branch, DDPM_RUN=ddpm-cool G16L_STOP=50600
# G16L_COOL=7000 from o-ddpm's step 43,600 (all 7,000 steps in the decay), scored 0.096 in parallel at 103.6M images,
# below the constant-lr 0.130 at 87.2M (p 0.11): the cool-down did not lift the DDPM. o-ddpm itself went on at the
# constant lr to step 47,200 (campaign 47d732c). Give every call of a lease the same LEASE=<date><letter>: setup.sh then
# sets aside what an earlier lease left on a host, even one that kept its installed site (this lease's call 3 found one).
# `ddpm` (once o-g16l is scored): the DDPM o-ddpm from its 61.4M images to the same step 100,000, the graph checked
# for the DDPM first (~1 minute, GPU 0, once a host), then its parallel row. Restore o-ddpm, carry runs/ holding
# o-ddpm.safetensors (and o-ddpm.compile-cache.gz), and after each call:
#   cat $D/weights-o-ddpm.part-* > runs/o-ddpm.safetensors; cat $D/compile-cache-o-ddpm.part-* > runs/o-ddpm.compile-cache.gz
# The training call stops at T0 + END - 45 s (DEADLINE in train.sh) so its weights come back.
# Commands (carry [".whl", "runs"]; runs/ empty in call 1, later only o-g16l.safetensors, 6.6 MB):
#   export T0=$(date +%s); END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28y.sh go
#   D=<files_at>; cat $D/weights-o-g16l.part-* > runs/o-g16l.safetensors     # after every call
#   cat $D/weights-o-g16l-ema2.part-* > runs/o-g16l-ema2.safetensors  # the 0.9999 EMA: carried, it continues on a
#       # fresh host (train.sh passes it as --init-ema2; before the twenty-sixth session it restarted there)
#   bash benchmarks/device/campaign.sh save runs/o-g16l.safetensors          # after the lease
# Issue the weights' `cat` and the next call in one tool block: the host is given back 30 s after a
# call, and a fresh one restarts from the carried EMA weights with a new warm-up.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-y; rm -rf $L; mkdir -p $L
G16L_STOP=${G16L_STOP:-100000}; G16L_COOL=${G16L_COOL:-10000}
# DDPM_RUN names the DDPM's run (default ddpm: o-ddpm, carried as runs/o-ddpm.safetensors); a branch such as
# DDPM_RUN=ddpm-cool with its own G16L_STOP / G16L_COOL trains and scores a copy under that name
DR=${DDPM_RUN:-ddpm}
# DDPM_PRESET (default unet-s-g16-gc) its network, e.g. DDPM_RUN=ddpm-paper DDPM_PRESET=paper FRESH=1 for the DDPM of the
# paper's 19.7M UNet from scratch (a preset other than the default gets its own graph check: CHECK=0 trusts only the default)
DP=${DDPM_PRESET:-unet-s-g16-gc}
SHIPPED=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors
P=benchmarks/probe_even_pixels_count.py
check() { graph_check $1 even-pixels unet-s-g16-gc ${2:-srm} 512; }  # GPU [BASELINE]
race() {  # the throughput rows, in at most END_RACE seconds, and never past the call's END
  local end=$(( $(date +%s) - T0 + ${END_RACE:-330} ))
  ONLY=${RACE_ONLY:-} T0=$T0 END=$(( end < ${END:-560} ? end : ${END:-560} )) bash benchmarks/device/graph_race.sh unet-s-g16-gc
}
g16l() {  # GPUS PORT: o-g16l towards G16L_STOP under DDP over GPUS (a comma list)
  local n=$(( $(tr -cd , <<< "$1" | wc -c) + 1 )) init extra=()
  reached g16l $G16L_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  init=$(init_of g16l); [ -n "$init" ] || init=$SHIPPED
  [ "${GRAPH:-1}" = 1 ] && [ -e $R/.done-check ] && extra=(--cuda-graph)
  echo "o-g16l from $init, ${extra[*]:-no graph}"
  TASK=even-pixels GPUS=$1 NPROC=$n PORT=$2 BASELINE=srm RUN=o-g16l COMPILE=1 EVAL_EVERY=0 DEADLINE=$(( T0 + ${END:-560} - 45 )) \
    bash benchmarks/device/train.sh unet-s-g16-gc $(mins 75) "$init" \
    --seed 0 --ema-decay 0.999 --ema-decay2 0.9999 --steps $G16L_STOP --cooldown-steps $G16L_COOL "${extra[@]}"
  local w
  for w in $W/o-g16l/weights.safetensors $W/o-g16l/weights-ema2.safetensors; do  # EMA 0.999, then 0.9999
    [ -e $w ] && CUDA_VISIBLE_DEVICES=${1%%,*} timeout $(left) python $P $w -n 1024 --noisy 1 4 16 24 --device cuda
  done
  return 0
}
g16l_job() { ep_job $(latest g16l) $R/ep-g16l "$@"; }
# The 0.9999 EMA on Table 2's three SRM rows, under its own leaderboard name (the EMA race; it lives only on
# the host that trained, and restarts from the carried 0.999 EMA on a fresh one: the log says since which step)
EMA2_JOBS=(:predicted@0.95 :random@0.95 :parallel)
ema2_job() {  # J GPU
  NAME=srm-unet-unet-s-g16-gc-ema0.9999 GPU=$2 timeout $(left) bash benchmarks/device/eval.sh \
    $W/o-g16l/weights-ema2.safetensors $R/ep-g16l-ema2 ${EMA2_JOBS[$1]}
}
score_ema2() {  # GPU...: only an EMA that has run EMA2_MIN steps (two time constants of 0.9999)
  reached g16l $G16L_STOP && ema2_ready $W/o-g16l/weights-ema2.safetensors || return 1
  deal ema2_job ${#EMA2_JOBS[@]} "$@"
}
# Counting's next campaign (issue 12: a network chosen by a race): the step time of each candidate with and
# without --cuda-graph, one GPU each (polygons SRM, batch 256, compiled, 200 steps: three bank switches of the
# background rendering with 12 processes as in lease z, whose waits the rows' data_wait_s gives; rows in
# $R/count-bench/, returned in runs.tgz). small-s2 is the shipped network (1.9M), small-s2-w twice its width (7.2M), paper the paper's (76.8M).
COUNT_BENCH=(paper small-s2-w small-s2)
count_bench() {  # J GPU
  local p=${COUNT_BENCH[$1]} extra
  mkdir -p $R/count-bench
  for extra in --cuda-graph ""; do
    CUDA_VISIBLE_DEVICES=$2 timeout $(( $(left) - 20 )) python benchmarks/bench_train.py --task counting-polygons \
      --preset $p --batch 256 --steps 200 --warmup 20 --compile $extra --render-workers 12 \
      --json $R/count-bench/$p.json 2>&1 \
      | grep '^{' || echo "failed: $p $extra"
  done
}
# Table 2's DDPM row at the SRM's images: the DDPM o-ddpm (unet-s-g16-gc, step 30,000, 61.4M images, ninth lease;
# `campaign.sh restore o-ddpm`) continued with o-g16l's recipe to the same step, under the graph once its check
# passed for the DDPM (the DDPM draws one level for every patch; checked on the CPU only so far)
ddpm() {  # GPUS PORT (DDPM_TRAIN=0: no training, e.g. `ddpm-mid` to score the carried weights only)
  local n=$(( $(tr -cd , <<< "$1" | wc -c) + 1 )) extra=()
  [ "${DDPM_TRAIN:-1}" = 1 ] || return 0
  reached $DR $G16L_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  fresh $DR || return 1
  [ "${GRAPH:-1}" = 1 ] && [ -e $R/.done-check-ddpm-$DP ] && extra=(--cuda-graph)
  echo "o-$DR from $(init_of $DR), ${extra[*]:-no graph}"
  TASK=even-pixels GPUS=$1 NPROC=$n PORT=$2 BASELINE=ddpm RUN=o-$DR COMPILE=1 EVAL_EVERY=0 DEADLINE=$(( T0 + ${END:-560} - 45 )) \
    bash benchmarks/device/train.sh $DP $(mins 60) "$(init_of $DR)" \
    --seed 0 --ema-decay 0.999 --steps $G16L_STOP --cooldown-steps $G16L_COOL "${extra[@]}"
  return 0
}
score_ddpm() {  # GPU: its one row (parallel sampling) once it reached the end
  reached $DR $G16L_STOP || { echo "o-$DR at step $(wstep $(latest $DR)) of $G16L_STOP: not scored"; return 1; }
  GPU=$1 timeout $(left) bash benchmarks/device/eval.sh $(latest $DR) $R/ep-$DR :parallel
}
score_g16l() {  # GPU...: Table 2 and Figure 6 once the run reached its end, EVAL_PER_GPU (2) jobs at once a GPU:
  # a 1000-NFE job of this 3.3M network took 44-48 s alone (~45 ms an evaluation at 500 images), which looks
  # bound by the host's launches as the training step was; eval.sh prints each job's time, which says whether two
  # at once share the GPU well (the samples do not depend on it: every job is its own seeded process)
  reached g16l $G16L_STOP || { echo "o-g16l at step $(wstep $(latest g16l)) of $G16L_STOP: not scored"; return 1; }
  deal_each g16l_job ${#EP_JOBS[@]} "$@"
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  if [ "${CHECK:-1}" = 0 ]; then mkdir -p $R; touch $R/.done-check  # trusted: it passed bit for bit in lease y
  else once check check 0 > $L/check-summary 2>&1 || echo "check failed: o-g16l trains without --cuda-graph" >> $L/check-summary; fi
  [ "${RACE:-1}" = 0 ] || once race race > $L/race 2>&1
  cp $L/check-unet-s-g16-gc-srm.txt $OUT/check.txt 2>/dev/null
  g16l $(tr ' ' , <<< "${g[*]}") 29500 > $L/g16l 2>&1
  once g16l-score score_g16l ${g[*]} > $L/score 2>&1
  [ -e $R/.done-g16l-score ] && once g16l-ema2 score_ema2 ${g[*]} > $L/ema2 2>&1
  [ -e $R/.done-g16l-score ] && [ "${COUNT_BENCH_ON:-1}" = 1 ] && once count-bench deal count_bench ${#COUNT_BENCH[@]} ${g[*]} > $L/count-bench 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
ddpm-mid)  # the carried o-ddpm scored as it stands first (parallel, ~1 minute on GPU 0), then `ddpm`: a point on the
  # way at a constant lr, not cooled down, so not the row the run ends with (results in $R/ep-ddpm-STEP)
  w=runs/o-$DR.safetensors
  [ -e $w ] && GPU=0 timeout 240 bash benchmarks/device/eval.sh $w $R/ep-$DR-$(wstep $w) :parallel > $L/ddpm-mid 2>&1
  ;&
ddpm)  # after o-g16l: the DDPM to the same images (~40 minutes of four H200s if it runs at the SRM's rate);
  # DDPM_GPUS (e.g. "2 3") gives it some of the GPUs only, the graph's check on the first of them
  g=(${DDPM_GPUS:-$(seq 0 $((NGPU - 1)))})
  # CHECK=0 trusts the graph for the DDPM (it passed bit for bit on three hosts, leases f and j) and saves ~1 minute
  # (a mark per network: CHECK=0 trusts only the default's)
  if [ "${CHECK:-1}" = 0 ] && [ $DP = unet-s-g16-gc ]; then mkdir -p $R; touch $R/.done-check-ddpm-$DP
  else once check-ddpm-$DP graph_check ${g[0]} even-pixels $DP ddpm 512 > $L/check-ddpm-summary 2>&1 \
    || echo "check failed: o-$DR trains without --cuda-graph" >> $L/check-ddpm-summary; fi
  cp $L/check-$DP-ddpm.txt $OUT/check-ddpm.txt 2>/dev/null
  ddpm $(tr ' ' , <<< "${g[*]}") 29500 > $L/ddpm 2>&1
  once $DR-score score_ddpm ${g[0]} > $L/ddpm-score 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go|ddpm|ddpm-mid" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
