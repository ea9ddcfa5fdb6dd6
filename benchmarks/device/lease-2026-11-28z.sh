# Lease z (planned in the twenty-fourth session; running on one H200 since the thirty-second, one call a session:
# docs/baselines.md, "Counting: the capacity race, begun" and "continued"): issue 12's Counting capacity race. Every Counting
# row of Table 3 stands at the floor with `small-s2` (1.9M parameters, the shipped `srm-counting-stars`), and its
# samples are round blobs and fragments with no legible digit, its DDPM's too (docs/baselines.md, leases s-x),
# while the paper's UNet has 76.8M. The issue asks for a network chosen by a short race, so: four runs from scratch
# on Counting Polygons, one GPU each, compiled, under the CUDA graph (`--cuda-graph`, once a host and run after
# benchmarks/check_cuda_graph.py found its gradients equal to the plain step's on that GPU, ~1 minute; it passed
# uncaptured on the CPU for every network here; lease y's count bench times each network with and without it), judged at equal images
# by the accuracy of their samples during training (`--eval-every 2000`: 64 test images, parallel and predicted
# order at 256 NFE, eta 0; eval.csv) and by what the samples hold. Each run renders its images with RENDER (12)
# processes of the host's 64 cores (`--render-workers`; the default 4 fed 3-4k images/s a run in lease s with
# ~2 s of waiting a call, and each image is drawn ~4.1 times, so ~12k images/s a run at most: the graph may
# outrun it; the summary's data_wait_s says):
#   GPU 0  o-cr2    small-s2, the control (1.9M; batch 256, lr 4e-4: the recipe of leases o-u)
#   GPU 1  o-cr2w   small-s2-w, twice the width (7.2M, 14.4 MB: carried with the shipped weights set aside)
#   GPU 2  o-crp    paper, the paper's UNet (76.8M; lr 2e-4 for batch 256, the paper's 1e-4 at 56 scaled by
#                   the square root of the batch ratio). Its weights (154 MB) can neither come back nor travel,
#                   so it trains on one host only: a fresh host starts it again (its curve is one host's;
#                   PAPER=0 leaves GPU 2 idle instead)
#   GPU 3  o-cr2wd  the DDPM of small-s2-w: whether capacity lifts the DDPM as well (the paper's DDPM: 0.132)
# Usage (4-GPU host; 2 GPUs: GPUs 0-1 only; 1 GPU: o-cr2 and o-cr2w side by side on it). Before call 1:
#   mkdir -p /work/aside/shipped && mv baselines/weights/sudoku-*.safetensors baselines/weights/counting-*.safetensors \
#     /work/aside/shipped/   # carry limit; back after (srm-even-pixels stays: the reproduce step below samples it)
#   export T0=$(date +%s); FRESH=1 END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28z.sh go
#       # carry [".whl", "runs"], runs/ empty; later calls without FRESH=1 (a run without carried weights would
#       # silently start again), runs/ holding what came back:
#   D=<files_at>; mkdir -p /tmp/zw && cat $D/weights-count.tar.part-* | tar xf - -C /tmp/zw && for r in cr2 cr2w cr2wd; do
#     [ -e /tmp/zw/o-$r/weights.safetensors ] && cp /tmp/zw/o-$r/weights.safetensors runs/o-$r.safetensors; done
#   mkdir -p /tmp/zc && cat $D/compile-caches.tar.part-* | tar xf - -C /tmp/zc && for r in cr2 cr2w cr2wd; do
#     [ -e /tmp/zc/o-$r/compile-cache.gz ] && cp /tmp/zc/o-$r/compile-cache.gz runs/o-$r.compile-cache.gz; done
#   (only while tree + .whl + runs/ stay under 64 MiB: `du -sh runs`; a GPU's caches may be tens of MB)
#   bash benchmarks/device/campaign.sh save runs/o-cr2.safetensors runs/o-cr2w.safetensors runs/o-cr2wd.safetensors
# Issue the weights' `cat` and the next call in one tool block (the host is given back 30 s after a call).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-z; rm -rf $L; mkdir -p $L
CR_STOP=${CR_STOP:-60000}  # 15.4M images at batch 256, past the paper's 14M: a race stops by the clock, not here
crun() {  # GPU RUN PRESET BASELINE LR
  local graph=()
  reached $2 $CR_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  [ $2 = crp ] || fresh $2 || return 1  # the paper's run resumes its last.pt on this host, else starts afresh
  # Under the graph only once its gradients matched the plain step's on this host (the Counting networks'
  # check passed on the CPU only, uncaptured); a failed check trains without it, and is not run again on this host
  [ -e $R/.failed-check-$2 ] || once check-$2 graph_check $1 counting-polygons $3 $4 256 || { touch $R/.failed-check-$2
    echo "o-$2: the graph check failed ($L/check-$3-$4.txt): trains without --cuda-graph"; }
  [ -e $R/.done-check-$2 ] && graph=(--cuda-graph)
  TASK=counting-polygons GPUS=$1 RUN=o-$2 COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 BASELINE=$4 \
    DEADLINE=$(( T0 + ${END:-560} - 45 )) WEIGHTS=0 CACHE_OUT=0 bash benchmarks/device/train.sh $3 $(mins 60) "$(init_of $2)" \
    --seed 0 --batch-size 256 --lr $5 --steps $CR_STOP "${graph[@]}" --render-workers ${RENDER:-$([ $NGPU -ge 2 ] && echo 12 || echo 6)}
}
tar_out() {  # NAME FILE: the carried runs' o-RUN/FILE as one tar in 15 MB parts $OUT/NAME.tar.part-* ($OUT holds
  # 8 files, runs.tgz comes last): not the paper's run (its 154 MB of weights neither come back nor travel)
  local f=$(cd $W 2>/dev/null && for r in cr2 cr2w cr2wd cra; do ls o-$r/$2 2>/dev/null; done) t=$W/$1.tar size
  [ -n "$f" ] || return 0
  ( cd $W && tar cf $t $f ) && size=$(stat -c %s $t) || return 1
  if [ $(( (size + 14999999) / 15000000 )) -le $(( 7 - $(ls $OUT | wc -l) )) ]; then
    split -b 15000000 $t $OUT/$1.tar.part- && echo "$1: $size bytes, returned as $1.tar.part-*"
  else echo "$1: $size bytes, no room left in \$OUT: not returned"; fi
  rm -f $t
}
# Issue 12's done-when for Even Pixels: the shipped srm-even-pixels (204.8M images, twenty-sixth session) redraws a
# committed result bit for bit on an H200 (`srm-bench reproduce`, ~1 minute beside o-cr2w's start on GPU 1). Needs
# that one shipped file carried: set aside only the other shipped weights for this lease.
# A host of one GPU (the only kind lent in the thirty-first session) runs the race's first two runs side by side on
# it: small networks at batch 256 may leave an H200 idle between launches, so that two processes lose little by sharing
# it (not measured: the rows' steps_per_s will say); their images come from RENDER (default 6 on such a host, which
# has 16 cores) processes each
gpu() { echo $(( $1 % NGPU )); }
# `aux` (planned in the thirty-eighth session, not run yet; docs/baselines.md, "Counting: the next design"): the
# design race. o-cra, preset small-s2-aux (small-s2 with a per-patch class head and a cross-entropy on what each
# patch holds: background, an object, a number; ours), from scratch with o-cr2's recipe and graph rule (batch 256,
# lr 4e-4, seed 0, --eval-every 2000 at 256 NFE, eta 0) to AUX_STOP [10,450] steps, o-cr2's last step (2.68M images,
# campaign 695e8c5), on AUX_GPU [0]. So o-cr2's eval.csv rows (docs/runs/lease-2026-11-29f/) are the control at equal
# images, without training it again. Then both are scored at that step on the 500 test images (1000 NFE, eta 1, seed
# 0): parallel and predicted order, four jobs at once. What it decides: the design is worth its Table 3 run if o-cra's
# predicted-order accuracy is above o-cr2's (Fisher p < 0.05) with fewer of its samples read as one object
# (`python benchmarks/check_counting_objects.py` on the four results, on the CPU), and its samples hold legible
# digits (`srm-bench plot samples`). ~5-12 minutes of one H200 (render-bound at 12 processes), ~2 of scoring.
# Commands (carry [".whl", "runs"]; runs/ holding o-cr2 (`campaign.sh restore o-cr2`) and, after the first call,
# o-cra; the shipped weights may stay: the two runs' weights are ~4 MB each):
#   export T0=$(date +%s); export END=<...>; export LEASE=<name>; FRESH=1 bash benchmarks/device/lease-2026-11-28z.sh aux
#   (later calls without FRESH=1; the weights come back as weights-count.tar.part-*, joined as for `go` above)
aux_job() {  # J GPU: job J of AUX_JOBS ("RUN SAMPLER")
  local job=(${AUX_JOBS[$1]})
  GPU=$2 timeout $(left) bash benchmarks/device/eval.sh $(latest ${job[0]}) $R/aux :${job[1]}
}
aux_judge() {  # GPU: both runs at AUX_STOP, then AUX_JOBS, four at once
  local r
  for r in cr2 cra; do
    reached $r $AUX_STOP || { echo "o-$r at $(wstep $(latest $r)) of $AUX_STOP: not scored yet"; return 1; }
  done
  [ $(left) -ge ${JUDGE_MIN_S:-150} ] || { echo "$(left) s left: scored in the next call"; return 1; }
  AUX_JOBS=("cr2 parallel" "cr2 predicted" "cra parallel" "cra predicted")
  EVAL_PER_GPU=4 deal_each aux_job ${#AUX_JOBS[@]} $1
}
case $1 in
aux)
  AUX_STOP=${AUX_STOP:-10450}
  reached cr2 $AUX_STOP || { echo "runs/o-cr2.safetensors (step $AUX_STOP, campaign.sh restore o-cr2) is needed"; exit 1; }
  CR_STOP=$AUX_STOP crun ${AUX_GPU:-0} cra small-s2-aux srm 4e-4 > $L/cra 2>&1
  once aux-judge aux_judge ${AUX_GPU:-0} > $L/judge 2>&1
  tar_out weights-count weights.safetensors
  [ -e $W/o-cra/eval.csv ] && { echo "== o-cra"; tail -6 $W/o-cra/eval.csv; }
  grep -h -v -i warn $L/* 2>/dev/null | grep -v "^==" | tail -20
  ;;
go)
  [ -e baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors ] && { once reproduce-ep reproduce_ep $(gpu 1) > $L/reproduce 2>&1 & }
  crun $(gpu 0) cr2 small-s2 srm 4e-4 > $L/cr2 2>&1 &
  crun $(gpu 1) cr2w small-s2-w srm 4e-4 > $L/cr2w 2>&1 &
  if [ $NGPU -ge 4 ]; then
    [ "${PAPER:-1}" = 1 ] && crun 2 crp paper srm 2e-4 > $L/crp 2>&1 &
    crun 3 cr2wd small-s2-w ddpm 4e-4 > $L/cr2wd 2>&1 &
  fi
  wait
  tar_out weights-count weights.safetensors
  tar_out compile-caches compile-cache.gz
  for r in cr2 cr2w crp cr2wd; do [ -e $W/o-$r/eval.csv ] && { echo "== o-$r"; tail -4 $W/o-$r/eval.csv; }; done
  grep -h -v -i warn $L/* 2>/dev/null | grep -v "^==" | tail -20
  ;;
*) echo "usage: $0 go|aux" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
