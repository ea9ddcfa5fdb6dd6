# Sourced by a lease script (benchmarks/device/lease-*.sh) after setup.sh: the call's clock, a weights
# file's step, and where the weights of a campaign run o-NAME (benchmarks/device/campaign.sh) are.
# T0 is the call's start (export it in the run command), END its budget in seconds (default 560).
#   left         seconds left in the call
#   mins S       minutes to give a job that must end S seconds before the call does (>= 0.5)
#   wstep W      the training step recorded in weights file W (0 if there is none)
#   init_of N    the carried weights runs/o-N.safetensors, or nothing
#   latest N     the newest weights of run o-N: this host's /tmp/runs/o-N, else the carried ones
#   reached N S  run o-N's newest weights are at step S or later
#   fresh N      run o-N has weights to continue (carried, or last.pt on this host), or FRESH=1 lets it
#                start from scratch; else one line and non-zero (a later call must not restart a run)
#   once K CMD   CMD, unless it succeeded on this host before (mark $R/.done-K) or fewer than 150 s are left
#   deal F C G.. jobs 0..C-1 as `F J GPU`, dealt round-robin over the GPUs G.., one worker a GPU; a
#                worker stops at its first failed job, and deal fails when any worker did
#   deal_each F C G..   deal over EVAL_PER_GPU (2) workers on every GPU G: two 1000-NFE scoring jobs of a small
#                network at once nearly double an H200's rate (lease y)
#   ema2_steps W the steps the second EMA in weights file W has run: since its record's ema2_from (carried from host
#                to host as runs/RUN-ema2.safetensors, `train --init-ema2`), else since the host's --init (files
#                written before ema2_from existed)
#   ema2_ready W the second EMA W is on this host and has run EMA2_MIN (20,000: two time constants of 0.9999)
#                steps, else one line saying why and non-zero
#   graph_check GPU TASK PRESET BASELINE BATCH   benchmarks/check_cuda_graph.py, compiled: the captured step's
#                gradients against the plain step's on GPU (fails above a relative difference of 0.05; a real
#                change of batch is ~0.4); output in $L/check-PRESET-BASELINE.txt
#   graph_ok GPU TASK PRESET BASELINE BATCH   1 if graph_check passed for PRESET on this host, else 0: checked once
#                a host (marks $R/.done-check-PRESET, or $R/.failed-check-PRESET and one line), its lines on stderr;
#                0 too with fewer than 150 s left to check. For GRAPH=$(graph_ok ...) before ep_cont
#   reproduce_ep GPU  `srm-bench reproduce` of the shipped srm-even-pixels' predicted-order result (EP_RESULT:
#                o-g16c, 221.2M images, seed 0, one H200; o-g16s's 213.0M result until the thirty-sixth session):
#                issue 12's "reproduces a committed result on the same device type"
#   EP_JOBS      Even Pixels' scoring jobs (eval.sh's): Table 2's SRM rows, the reference protocol (`ref`:
#                predicted order + overlap 0.95 at 100 NFE, eta 0), then Figure 6's overlap sweep
#   ep_cont GPU NAME FROM START [train args]   Even Pixels' run o-NAME (unet-s-g16-gc) continued on one GPU from FROM
#                (or its carried weights) to STOP (the caller's), lr 4e-4 after the warm-up, decayed linearly to 0
#                from step START on, under --cuda-graph; then the count probe of its EMA (leases a and b)
#   cont_and_judge RUN REF  RUN (a function of the caller's running ep_cont) on every GPU, then race_judge REF on all
#   judge_at_095 RUN NAME [RUN NAME...]   JUDGE_JOBS += each o-RUN at overlap 0.95, predicted and random order, seeds 0, 1
#   ep_anneal GPU RUN PRESET   o-RUN: the shipped o-g16c (G16C) annealed to STOP with the control o-g16d's recipe under
#                PRESET (ep_cont), checked under the CUDA graph first
#   race_judge REF GPU...   a race of ep_cont runs judged once every run in RUNS reached STOP (the caller's): the
#                completion probe (K = 1 and 4, 200 test images) of REF and the runs on the first GPU, then the
#                caller's JUDGE_JOBS ("RUN NAME-SUFFIX JOB": eval.sh's JOB on o-RUN's newest weights, leaderboard
#                name srm-unet-unet-s-g16-gc-SUFFIX, into $R/ep-race), two at once on every GPU
#   ep_job W RES J GPU   EP_JOBS[J] of the weights W into the results folder RES on GPU (a lease script wraps it
#                as `F J GPU` for deal)
#   count_go N PRESET BATCH LR EVAL_EVERY RES   one call of a Counting Polygons SRM run o-N on GPU 0 (leases
#                2026-12-05b/c, 2026-12-07): trains it to STOP from its carried weights (FRESH=1: from scratch), seed 0,
#                compiled unless COMPILE=0, under --cuda-graph once graph_ok passed unless GRAPH=0, COOLDOWN passed as
#                --cooldown-steps; with SCORE=1 (RESERVE, 240 s, kept free of training) then its 500-image rows at
#                1000 NFE into RES: predicted order, parallel, predicted order + overlap 0.95, random order and random
#                order + overlap 0.95 (Table 3's five SRM rows; from the sixtieth session), EVAL_PER_GPU (3) at once;
#                the call's lines in $OUT/lease.txt; count_lease ACTION ... is a lease script's body around it
T0=${T0:-$(date +%s)}
NGPU=$(nvidia-smi -L | wc -l)
left() { echo $(( ${END:-560} - ($(date +%s) - T0) )); }
mins() { python3 -c "print(round(max(0.5, ($(left) - $1) / 60), 2))"; }
wstep() { [ -e "$1" ] && bash benchmarks/device/campaign.sh record "$1" | cut -f1 || echo 0; }
init_of() { [ -e runs/o-$1.safetensors ] && echo runs/o-$1.safetensors || echo ""; }
latest() {
  [ -e /tmp/runs/o-$1/weights.safetensors ] && echo /tmp/runs/o-$1/weights.safetensors || echo runs/o-$1.safetensors
}
reached() { [ "$(wstep $(latest $1))" -ge "$2" ]; }
fresh() {
  [ -n "$(init_of $1)" ] || [ -e /tmp/runs/o-$1/last.pt ] || [ "${FRESH:-0}" = 1 ] && return 0
  echo "o-$1: no weights to continue (runs/o-$1.safetensors) and FRESH is not 1"; return 1
}
once() {
  local mark=$R/.done-$1; shift
  [ -e $mark ] || [ $(left) -lt 150 ] && return 0
  mkdir -p $R; "$@" && touch $mark
}
# The graph check runs the step as the training will: compiled, or eager with COMPILE=0 (an eager step under the
# graph skips the 3-5 minutes of compile; added in the fifty-seventh session; measured in the fifty-eighth: half-s2
# at batch 256 passed and ran at 5.57 steps/s, no faster than plain eager's 5.45, against 9.4 compiled). Each
# kind is checked once a host: its marks are named by the preset and cN.
graph_check() {
  local f=$L/check-$3-$4-c${COMPILE:-1}.txt rc=0 compile=(--compile)
  [ "${COMPILE:-1}" = 0 ] && compile=()
  CUDA_VISIBLE_DEVICES=$1 timeout $(( $(left) < 240 ? $(left) : 240 )) python benchmarks/check_cuda_graph.py \
    --task $2 --preset $3 --baseline $4 --batch $5 "${compile[@]}" --max-diff 0.05 > $f 2>&1 || rc=1
  grep -v -i warn $f | tail -5
  return $rc
}
graph_ok() {
  local key=$3-c${COMPILE:-1}
  [ -e $R/.failed-check-$key ] || once check-$key graph_check "$@" >&2 \
    || { touch $R/.failed-check-$key; echo "the graph check of $3 failed: it trains without --cuda-graph" >&2; }
  [ -e $R/.done-check-$key ] && echo 1 || echo 0
}
deal() {
  local fn=$1 count=$2 i j rc=0 pids=(); shift 2
  local gpus=("$@")
  for ((i = 0; i < ${#gpus[@]}; i++)); do
    { for ((j = i; j < count; j += ${#gpus[@]})); do $fn $j ${gpus[i]} || exit 1; done; } & pids+=($!)
  done
  for i in "${pids[@]}"; do wait $i || rc=1; done
  return $rc
}
ema2_steps() {
  bash benchmarks/device/campaign.sh record $1 step ema2_from init.step | awk -F'\t' '{print $1 - ($2 != "" ? $2 : $3)}'
}
ema2_ready() {
  local n
  [ -e $1 ] || { echo "no second EMA on this host ($1)"; return 1; }
  n=$(ema2_steps $1) || return 1
  [ $n -ge ${EMA2_MIN:-20000} ] || { echo "the second EMA ran $n steps (${EMA2_MIN:-20000} needed)"; return 1; }
}
deal_each() {
  local fn=$1 count=$2 k workers=(); shift 2
  for ((k = 0; k < ${EVAL_PER_GPU:-2}; k++)); do workers+=("$@"); done
  deal $fn $count "${workers[@]}"
}
EP_JOBS=(:predicted@0.95 :random@0.95 :parallel ref :predicted@0.99 :predicted :predicted@0.25 :predicted@0.5
  :predicted@0.75 :predicted@0.9 :random :random@0.25 :random@0.5 :random@0.75 :random@0.9 :random@0.99)
ep_job() {
  if [ ${EP_JOBS[$3]} = ref ]; then
    GPU=$4 NFE=100 ETA=0 RAMP=reference timeout $(left) bash benchmarks/device/eval.sh $1 $2 :predicted@0.95
  else
    GPU=$4 timeout $(left) bash benchmarks/device/eval.sh $1 $2 ${EP_JOBS[$3]}
  fi
}
ep_cont() {  # GPUS NAME FROM START [train args]: o-NAME from FROM (at step START) to STOP; GPUS a comma list
  # (DDP over them under torchrun, port PORT [29500], when more than one); lr LR [4e-4] after the warm-up, decayed
  # linearly to 0 over the last COOL steps [all of them: STOP - START]; network PRESET [unet-s-g16-gc], under the
  # CUDA graph unless GRAPH=0
  local gpu=$1 name=$2 from=$3 start=$4 init; shift 4
  local n=$(( $(tr -cd , <<< "$gpu" | wc -c) + 1 ))
  reached $name $STOP && return 0
  [ $(left) -ge 150 ] || return 0
  init=$(init_of $name); [ -n "$init" ] || init=$from
  echo "o-$name from $init"
  TASK=even-pixels GPUS=$gpu NPROC=$n PORT=${PORT:-29500} BASELINE=srm RUN=o-$name COMPILE=1 EVAL_EVERY=0 CACHE_OUT=0 \
    DEADLINE=$(( T0 + ${END:-560} - 45 )) bash benchmarks/device/train.sh ${PRESET:-unet-s-g16-gc} $(mins 60) "$init" \
    --seed 0 --ema-decay 0.999 --lr ${LR:-4e-4} --steps $STOP --cooldown-steps ${COOL:-$(( STOP - start ))} \
    $([ "${GRAPH:-1}" = 1 ] && echo --cuda-graph) "$@"
  [ -e /tmp/runs/o-$name/weights.safetensors ] && CUDA_VISIBLE_DEVICES=${gpu%%,*} timeout $(left) python \
    benchmarks/probe_even_pixels_count.py /tmp/runs/o-$name/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
  return 0
}
ep_anneal() {  # GPU RUN PRESET: o-RUN from the shipped o-g16c (G16C, the caller's; step 108,000) annealed with the
  # arms' recipe under PRESET to STOP (the caller's), as the control o-g16d was (`--sequential-mix 1.0
  # --sequential-overlap 0.95 --completion-mix 0.5`), under the CUDA graph once graph_ok passed for PRESET on this host
  # (leases 2026-11-30a and 2026-12-01b)
  local gpu=$1 run=$2 preset=$3 graph
  if [ -z "$(init_of $run)" ] && [ ! -e /tmp/runs/o-$run/last.pt ]; then
    [ "$(wstep $G16C)" = 108000 ] || { echo "o-$run: $G16C is not o-g16c at step 108,000"; return 1; }
  fi
  reached $run $STOP || graph=$(graph_ok $gpu even-pixels $preset srm 512)
  PRESET=$preset GRAPH=${graph:-1} ep_cont $gpu $run $G16C 108000 --sequential-mix 1.0 --sequential-overlap 0.95 \
    --completion-mix 0.5
}
race_job() {  # J GPU; a JUDGE_JOBS entry is "RUN NAME JOB [SEED]" (seed 0 unless given), the result named
  # srm-unet-PRESET-NAME; PRESET is unet-s-g16-gc unless NAME is PRESET:NAME
  local a=(${JUDGE_JOBS[$1]}) net=unet-s-g16-gc name
  name=${a[1]}; [[ $name == *:* ]] && { net=${name%%:*}; name=${name#*:}; }
  NAME=srm-unet-$net-$name SEED=${a[3]:-0} GPU=$2 timeout $(left) bash benchmarks/device/eval.sh \
    $(latest ${a[0]}) $R/ep-race ${a[2]}
}
judge_at_095() {  # RUN NAME [RUN NAME...]: JUDGE_JOBS += predicted and random order at overlap 0.95, seeds 0 and 1,
  # of each o-RUN (NAME as race_job reads it, PRESET:SUFFIX); the runs interleaved, predicted order first
  local j a=("$@") i
  for j in ":predicted@0.95 0" ":predicted@0.95 1" ":random@0.95 0" ":random@0.95 1"; do
    for ((i = 0; i < ${#a[@]}; i += 2)); do JUDGE_JOBS+=("${a[i]} ${a[i + 1]} $j"); done
  done
}
cont_and_judge() {  # RUN REF: the caller's function RUN (o-RUN continued by ep_cont) under DDP on every GPU, then
  # race_judge against REF once each run in RUNS reached STOP; logs in $L/RUN and $L/judge, printed
  local g=($(seq 0 $((NGPU - 1))))
  $1 $(tr ' ' , <<< "${g[*]}") > $L/$1 2>&1
  once judge race_judge $2 ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
}
race_judge() {
  local ref=$1 r w=(); shift
  for r in ${RUNS[*]}; do
    reached $r $STOP || { echo "o-$r at $(wstep $(latest $r)) of $STOP: not judged"; return 1; }
    w+=($(latest $r))
  done
  CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_even_pixels_completion.py $ref ${w[*]} \
    -n 200 --missing 1 4 --device cuda
  deal_each race_job ${#JUDGE_JOBS[@]} "$@"
}
EP_RESULT=leaderboard/results/baselines/even-pixels-2026-11-29i/even-pixels-test-srm-unet-unet-s-g16-gc-seqmix1-ov0.95-comp0.5-anneal2-20261129T120443Z-c1b02dd8312e.json
reproduce_ep() {
  CUDA_VISIBLE_DEVICES=$1 timeout $(( $(left) < 240 ? $(left) : 240 )) srm-bench reproduce $EP_RESULT --device cuda
}
count_train() {  # N PRESET BATCH LR EVAL_EVERY
  local graph=()
  reached $1 $STOP && { echo "o-$1 at step $(wstep $(latest $1)): reached $STOP"; return 0; }
  [ $(left) -ge 150 ] || { echo "o-$1: $(left) s left, not started"; return 0; }
  fresh $1 || return 1
  # GRAPH=0 skips the graph check and the graph, COMPILE=0 the compile: a short call's steps start at once
  [ "${GRAPH:-1}" = 1 ] && [ "$(graph_ok 0 counting-polygons $2 srm $3)" = 1 ] && graph=(--cuda-graph)
  echo "o-$1 from $(init_of $1)${FRESH:+ (FRESH=$FRESH)} to step $STOP, ${graph[*]:-without the graph}"
  TASK=counting-polygons GPUS=0 RUN=o-$1 COMPILE=${COMPILE:-1} EVAL_EVERY=$5 EVAL_BUDGET=256 BASELINE=srm CACHE_OUT=0 \
    DEADLINE=$(( T0 + ${END:-560} - 45 - ${RESERVE:-0} )) bash benchmarks/device/train.sh $2 $(mins 60) \
    "$(init_of $1)" --seed 0 --batch-size $3 --lr $4 --steps $STOP "${graph[@]}" --render-workers 12 \
    ${COOLDOWN:+--cooldown-steps $COOLDOWN}
  echo "o-$1 now at step $(wstep $(latest $1)); $(left) s left"
  [ -e /tmp/runs/o-$1/eval.csv ] && tail -4 /tmp/runs/o-$1/eval.csv
}
COUNT_JOBS=(:predicted :parallel :predicted@0.95 :random :random@0.95 :predicted@0.95/0)  # the decisions' row first;
# Table 3's five at eta 1, then predicted + overlap 0.95 at eta 0 (the gauge's eta; eta 1 erased more objects on the CPU
# at step 31,250, docs/baselines.md)
count_job() {  # J GPU, for deal: COUNT_JOBS[J] of o-$COUNT_RUN into $COUNT_RES
  GPU=$2 timeout $(left) bash benchmarks/device/eval.sh $(latest $COUNT_RUN) $COUNT_RES ${COUNT_JOBS[$1]}
}
count_score() {
  reached $COUNT_RUN $STOP || { echo "o-$COUNT_RUN at step $(wstep $(latest $COUNT_RUN)) of $STOP: not scored yet"; return 1; }
  EVAL_PER_GPU=${EVAL_PER_GPU:-3} deal_each count_job ${#COUNT_JOBS[@]} 0  # EVAL_PER_GPU=1: one job after another
}
count_go() {  # N PRESET BATCH LR EVAL_EVERY RES
  local f
  COUNT_RUN=$1 COUNT_RES=$6
  mkdir -p $R $L; rm -f $L/call-*
  [ "${SCORE:-0}" = 1 ] && RESERVE=${RESERVE:-240}  # the scoring jobs' minutes kept free of training
  count_train "${@:1:5}" > $L/call-train 2>&1
  [ "${SCORE:-0}" = 1 ] && once $(basename $6)-score count_score > $L/call-score 2>&1
  for f in call-train call-score; do
    [ -s $L/$f ] && { echo "== $f"; grep -v -i warn $L/$f; }
  done > $OUT/lease.txt
  cat $OUT/lease.txt
}
count_lease() {  # ACTION N PRESET BATCH LR EVAL_EVERY RES: a lease script's whole body (ACTION: go), then collect.sh
  [ "${1:-}" = go ] || { echo "usage: $0 go" >&2; exit 2; }
  shift; count_go "$@"
  bash benchmarks/device/collect.sh
}
