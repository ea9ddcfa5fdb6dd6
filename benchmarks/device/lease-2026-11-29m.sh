# Lease m of 2026-11-29 (planned in the thirty-seventh session; run in the thirty-eighth on one 2x H200 host, all
# done in one session: docs/runs/lease-2026-11-29m/output.txt): the paper's Table 4 for Sudoku at a
# telling budget, issue 11's ablation still owed (docs/sudoku-baselines.md, "Ablations at a glance": 3.1M images only).
# The paper trains the SRM with Uniform t-bar levels and shows that independent uniform levels per patch (Diffusion
# Forcing's) fail on hard puzzles: predicted order 0.018 against 0.516 (its Table 4, 14M images). At 3.1M images our
# independent run was ahead on easy and medium and both were at 0 on hard, which does not test the claim.
# Two runs of the shipped recipe from scratch, the same in everything but the levels: preset cell-aux-tpl, batch 512,
# lr 3e-4 after 1,000 warm-up steps, linear to 0 over the last COOL [8,000] steps, EMA 0.999, compiled (under the
# CUDA graph once benchmarks/check_cuda_graph.py passes for the preset on the host), seed 0, no sampler-state mix:
#   o-t4u   --tsampling uniform_tbar (the paper's; sharpness 1)
#   o-t4i   --tsampling independent
# to STOP [40,000] steps, 20.5M images (the paper's Table 4: 14M), with an evaluation every 10,000 steps (64 hard
# puzzles). Then, once both reached STOP with JUDGE_MIN_S [240] s left, Table 4's rows without overlap on the 500
# canonical hard puzzles (1000 NFE, eta 1): parallel, predicted order (the head), random and graph order, a run each,
# EVAL_PER_GPU [4] jobs at once on a GPU. What it decides: the claim holds at this budget if o-t4u's predicted-order
# row is above o-t4i's at paired p < 0.05 (`srm-bench compare`, McNemar on the same puzzles).
# Time: cell-aux-tpl trained at ~13k images/s on one H200, compiled, batch 512 (docs/sudoku-baselines.md); two runs
# side by side on one GPU ~52 minutes without the graph, so two sessions of 30 device-minutes (the weights, 19 MB
# each, carried between them); on a two-GPU kind one GPU each (~26 minutes); on four, two GPUs each under DDP.
# Commands (carry [".whl", "runs"]; every shipped baseline weights file and the Counting evaluators' weights set aside:
# the tree is then ~17 MB, and the two runs' weights 36 MB more from the second call on; runs/ empty in the first call,
# then the runs' weights as joined):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   FRESH=1 bash benchmarks/device/lease-2026-11-29m.sh go     # the first call; later calls without FRESH=1
#   bash benchmarks/device/campaign.sh join <files_at>          # after every call, in one tool block with the next
#   bash benchmarks/device/campaign.sh save runs/o-t4u.safetensors runs/o-t4i.safetensors   # at the session's end
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29m; rm -rf $L; mkdir -p $L
STOP=${STOP:-40000}; COOL=${COOL:-8000}
RUNS=(t4u t4i)
declare -A LEVELS=([t4u]=uniform_tbar [t4i]=independent)
JOBS=(hard:parallel hard:predicted hard:random hard:graph)
t4() {  # GPUS RUN: o-RUN (a comma list of GPUs: DDP over them) from its carried weights or from scratch, to STOP
  local gpus=$1 run=$2 init n
  reached $run $STOP && return 0
  fresh $run || return 1
  [ $(left) -ge 150 ] || return 0
  n=$(( $(tr -cd , <<< "$gpus" | wc -c) + 1 ))
  init=$(init_of $run)
  echo "o-$run from ${init:-scratch}, --tsampling ${LEVELS[$run]}, CUDA graph $GRAPH"
  TASK=sudoku GPUS=$gpus NPROC=$n PORT=$((29500 + ${gpus%%,*})) BASELINE=srm RUN=o-$run COMPILE=1 CACHE_OUT=0 \
    EVAL_EVERY=10000 EVAL_SPLITS=hard DEADLINE=$(( T0 + ${END:-560} - 45 )) \
    bash benchmarks/device/train.sh cell-aux-tpl $(mins 60) "$init" --seed 0 --batch-size 512 --lr 3e-4 \
    --ema-decay 0.999 --steps $STOP --cooldown-steps $COOL --tsampling ${LEVELS[$run]} \
    $([ "$GRAPH" = 1 ] && echo --cuda-graph)
}
judge_job() {  # J GPU: JOBS of the runs, run by run, into $R/t4 under the run's name
  local r=${RUNS[$(( $1 / ${#JOBS[@]} ))]} job=${JOBS[$(( $1 % ${#JOBS[@]} ))]}
  NAME=srm-cellnet-cell-aux-tpl-t4-${LEVELS[$r]} GPU=$2 timeout $(left) bash benchmarks/device/eval.sh \
    $(latest $r) $R/t4 $job
}
judge() {  # GPU...: once both runs reached STOP
  local r
  for r in ${RUNS[*]}; do
    reached $r $STOP || { echo "o-$r at $(wstep $(latest $r)) of $STOP: not judged yet"; return 1; }
  done
  [ $(left) -ge ${JUDGE_MIN_S:-240} ] || { echo "$(left) s left: judged in the next call"; return 1; }
  EVAL_PER_GPU=${EVAL_PER_GPU:-4} deal_each judge_job $(( ${#RUNS[@]} * ${#JOBS[@]} )) "$@"
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  if [ $NGPU -ge 4 ]; then a=${g[0]},${g[1]}; b=${g[2]},${g[3]}
  elif [ $NGPU -ge 2 ]; then a=${g[0]}; b=${g[1]}
  else a=${g[0]}; b=${g[0]}; fi  # one GPU: side by side
  GRAPH=0  # checked once a host, before the runs start (not while they train), and only if one of them will train
  for r in ${RUNS[*]}; do
    ! reached $r $STOP && fresh $r > /dev/null && { GRAPH=$(graph_ok ${g[0]} sudoku cell-aux-tpl srm 512); break; }
  done
  t4 $a t4u > $L/t4u 2>&1 &
  t4 $b t4i > $L/t4i 2>&1 &
  wait
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
