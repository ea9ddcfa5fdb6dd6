# Lease n (prepared 2026-11-27 after lease m; ran the same day: 3 calls on one 4x H200 host, 28.3
# device-minutes, call 3 with SCORED=1 END=430; results in docs/sudoku-baselines.md "Eleventh lease"): the Sudoku
# DDPM's last 13,650 steps and its Table 1 row (the last item of issue 11's bar), the Even Pixels
# global-context branch from scratch (issue 12), and the first Counting runs on the GPU (issue 12).
# One 4-GPU host; every call stands alone (it carries its start weights and returns its weights).
#
# GPUs 0-1, the DDPM (`ddpm-cell-aux`): from `runs/ddpm-j.safetensors` (56.0M images, step 77,400;
# `7d122aec...`), DDP on two GPUs at batch 1024 (30.3 steps/s in lease m) to step 91,050 with the
# cool-down (`--steps 91050 --cooldown-steps 11000`, as in lease m), ~7.5 minutes: most of call 1,
# the rest early in call 2. In the call that reaches step 91,050 with >= 130 s left, it is scored
# with parallel sampling (500 puzzles, 1000 NFE, eta 1): hard then easy on GPU 0, medium on GPU 1.
# Then, in calls 2-3, GPUs 0-1 start Counting: the SRM `small` (1.8M, 3.6 MB) on polygons (GPU 0) and
# on stars (GPU 1), evaluation during training every 2,000 steps (64 test images, 256 NFE; see
# lease-2026-11-27l.sh). Their `data_wait_s` says whether the CPU renderers keep up.
# GPUs 2-3, Even Pixels from scratch, seed 0, the race recipe of lease m: `unet-s-gc` (GPU 2; the
# global-context branch, docs/even-pixels-baselines.md "Fifth lease") and `unet-s-g16-gc` (GPU 3),
# probed after every call like `race-s` / `race-g16` were (6.6 / 13.9 / 21.9M images in lease m).
#
#   cp runs/ddpm-cell-aux-56.0M.safetensors runs/ddpm-j.safetensors                          # before call 1
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27n.sh go             # every call
#   D=<files_at>; [ -e $D/weights-ddpm-cell-aux.part-aa ] && cat $D/weights-ddpm-cell-aux.part-* > runs/ddpm-j.safetensors
#   for r in gc g16-gc poly stars; do [ -e $D/weights-$r.part-aa ] && cat $D/weights-$r.part-* > runs/n-$r.safetensors; done
# After the DDPM has been scored, export SCORED=1 for the later calls (a fresh host cannot know).
# Control flow dry-run on the CPU with stubbed train/eval/probe and a fake nvidia-smi (2026-11-27):
# DDPM short of the end (no scores), finishing (scores, then Counting), scored on this host
# (Counting only), a fresh host with carried weights at the end (scores them), SCORED=1.
# Carry: [".whl", "runs/ddpm-j.safetensors", "runs/n-gc.safetensors", "runs/n-g16-gc.safetensors",
# "runs/n-poly.safetensors", "runs/n-stars.safetensors"] (those that exist). Call 1 (the wheel and
# the DDPM, 20.4 MB) fits with the Even Pixels weights moved out of the tree (~43.6 MB left: 64 MB);
# later calls (up to 40.6 MB) with both shipped weights files moved out (~25 MB left: <= 66 MB, under
# the 64 MiB = 67.1 MB limit). The DDPM file can be left out once it is scored.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
L=/tmp/lease-n; mkdir -p $L  # this call's printed logs
STOP=${STOP:-91050}; COOL=${COOL:-11000}
init_of() { [ -e runs/n-$1.safetensors ] && echo runs/n-$1.safetensors || echo ""; }
wstep() {  # the training step recorded in a weights file
  python3 -c "import json,sys; from safetensors import safe_open; print(json.loads(safe_open(sys.argv[1], 'pt').metadata()['record'])['step'])" "$1"
}
ep() {  # GPU RUN PRESET: train for the call's minutes (from the carried weights if any), then probe
  TASK=even-pixels GPUS=$1 RUN=$2 COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh $3 $(mins 45) "$(init_of $2)" --seed 0
  CUDA_VISIBLE_DEVICES=$1 timeout $(left) python $P $W/$2/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
}
counting() {  # GPU RUN TASK: the SRM `small`, for the call's minutes
  TASK=$3 GPUS=$1 RUN=$2 COMPILE=1 EVAL_EVERY=2000 EVAL_BUDGET=256 bash benchmarks/device/train.sh small $(mins 60) "$(init_of $2)"
  grep -h data_wait $W/$2/train.log | tail -1
}
ddpm() {  # GPUs 0-1: train to STOP, score when there with time left, then Counting on the same GPUs
  local w=$W/ddpm-cell-aux/weights.safetensors
  # scored already: SCORED=1 from the caller (a fresh host), or the three result files on this host
  [ "$(ls $R/ddpm/sudoku-*.json 2>/dev/null | wc -l)" -ge 3 ] && SCORED=1
  if [ -z "${SCORED:-}" ]; then
    if [ -e runs/ddpm-j.safetensors ] && [ ! -e $W/ddpm-cell-aux/last.pt ] && [ "$(wstep runs/ddpm-j.safetensors)" -ge "$STOP" ]; then
      w=runs/ddpm-j.safetensors  # a fresh host and carried weights already at the end: score them
    else
      NPROC=2 GPUS=0,1 BASELINE=ddpm RUN=ddpm-cell-aux COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-aux \
        $(mins 80) runs/ddpm-j.safetensors --batch-size 1024 --steps $STOP --cooldown-steps $COOL
    fi
    local step; step=$(wstep $w 2>/dev/null || echo 0)
    if [ "$step" -ge "$STOP" ] && [ "$(left)" -ge 130 ]; then
      { GPU=0 timeout $(left) bash $E $w $R/ddpm hard:parallel easy:parallel; } &
      { GPU=1 timeout $(left) bash $E $w $R/ddpm medium:parallel; } &
      wait
    else
      echo "DDPM at step $step of $STOP, $(left) s left: score it in the next call"
      return
    fi
  fi
  if [ "$(left)" -ge 180 ]; then
    { counting 0 poly counting-polygons; } > $L/c0 2>&1 &
    { counting 1 stars counting-stars; } > $L/c1 2>&1 &
    wait
    grep -v -i warn $L/c0 $L/c1
  fi
}
case $1 in
go)
  { ddpm; } > $L/l0 2>&1 &
  { ep 2 gc unet-s-gc; } > $L/l2 2>&1 &
  { ep 3 g16-gc unet-s-g16-gc; } > $L/l3 2>&1 &
  wait
  grep -v -i warn $L/l0 $L/l2 $L/l3
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
