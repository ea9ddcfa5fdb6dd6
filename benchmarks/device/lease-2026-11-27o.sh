# Lease o (prepared 2026-11-27 after lease n, not run yet; edit this header when it runs): the Even
# Pixels `unet-s-g16-gc` SRM on to >= 60M images and its DDPM from scratch (issue 12), and the Sudoku
# DDPM with the paper's objective (no auxiliary digit loss, preset `cell-rcb`) at the SRM's 69.9M
# images (issue 11's open item). Two leases of training (`go`), then `score`.
# One 4-GPU host; every call stands alone (it carries its start weights and returns its weights).
#
# GPU 0: the SRM `g16-gc` (docs/even-pixels-baselines.md, sixth lease) from runs/o-srm.safetensors
#   (first copy runs/ep-g16-gc-21.9M.safetensors there: 21.9M images, step 10,700, `7de18100...`)
#   to step 32,000 (65.5M images) with a linear cool-down over the last 6,000; ~8.4 steps/s, so
#   ~42 minutes: two leases. Probed on its GPU after every call.
# GPU 1: the DDPM with the same network, from scratch (seed 0) to the same 32,000 steps; 19k images/s
#   on `unet-s`, so ~57 minutes: two to three leases.
# GPUs 2-3: the Sudoku DDPM `cell-rcb` from scratch (seed 0), DDP on two GPUs at batch 1024 (512 a
#   GPU: 1.89x one GPU in lease m) to step 68,300 (69.9M images) with the last 11,000 in a linear
#   decay; ~31k images/s, ~38 minutes: two leases. Its Table 1 row (parallel, 3 splits) is `score`.
#
#   cp runs/ep-g16-gc-21.9M.safetensors runs/o-srm.safetensors                              # before call 1
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27o.sh go             # every call
#   D=<files_at>; for r in srm ddpm rcb; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
# `score` (all four GPUs, ~4 minutes): the Table 2 rows and the overlap sweep of the SRM
# (runs/o-srm.safetensors), the DDPM's parallel row (runs/o-ddpm.safetensors), and the Sudoku
# `cell-rcb` DDPM's three splits (runs/o-rcb.safetensors), each only if its weights reached the end.
# Carry: [".whl", "runs/o-srm.safetensors", "runs/o-ddpm.safetensors", "runs/o-rcb.safetensors"]
# (those that exist: 6.6 + 6.6 + ~18 MB) with both shipped weights files moved out of the tree.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
P=benchmarks/probe_even_pixels_count.py
L=/tmp/lease-o; mkdir -p $L  # this call's printed logs
EP_STOP=${EP_STOP:-32000}; EP_COOL=${EP_COOL:-6000}
SU_STOP=${SU_STOP:-68300}; SU_COOL=${SU_COOL:-11000}
init_of() { [ -e runs/o-$1.safetensors ] && echo runs/o-$1.safetensors || echo ""; }
wstep() {  # the training step recorded in a weights file (0 if there is none)
  [ -e "$1" ] || { echo 0; return; }
  python3 -c "import json,sys; from safetensors import safe_open; print(json.loads(safe_open(sys.argv[1], 'pt').metadata()['record'])['step'])" "$1"
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
case $1 in
go)
  { srm; } > $L/srm 2>&1 &
  { ddpm; } > $L/ddpm 2>&1 &
  { rcb; } > $L/rcb 2>&1 &
  wait
  grep -v -i warn $L/srm $L/ddpm $L/rcb
  ;;
score)
  s=runs/o-srm.safetensors; d=runs/o-ddpm.safetensors; c=runs/o-rcb.safetensors
  jobs0=(); jobs1=(); jobs2=(); jobs3=()
  if [ "$(wstep $s)" -ge "$EP_STOP" ]; then
    jobs0=(:predicted@0.95 :random@0.95 :parallel :predicted@0.99)
    jobs1=(:predicted :predicted@0.25 :predicted@0.5 :predicted@0.75 :predicted@0.9)
    jobs2=(:random :random@0.25 :random@0.5 :random@0.75 :random@0.9 :random@0.99)
  else echo "EP SRM at step $(wstep $s) of $EP_STOP: not scored"; fi
  { [ ${#jobs0[@]} -gt 0 ] && GPU=0 timeout $(left) bash $E $s $R/ep-srm "${jobs0[@]}"
    [ ${#jobs0[@]} -gt 0 ] && GPU=0 NFE=100 ETA=0 RAMP=reference timeout $(left) bash $E $s $R/ep-srm :predicted@0.95; } &
  { [ ${#jobs1[@]} -gt 0 ] && GPU=1 timeout $(left) bash $E $s $R/ep-srm "${jobs1[@]}"; } &
  { [ ${#jobs2[@]} -gt 0 ] && GPU=2 timeout $(left) bash $E $s $R/ep-srm "${jobs2[@]}"; } &
  { if [ "$(wstep $d)" -ge "$EP_STOP" ]; then GPU=3 timeout $(left) bash $E $d $R/ep-ddpm :parallel
    else echo "EP DDPM at step $(wstep $d) of $EP_STOP: not scored"; fi
    if [ "$(wstep $c)" -ge "$SU_STOP" ]; then GPU=3 timeout $(left) bash $E $c $R/rcb hard:parallel medium:parallel easy:parallel
    else echo "Sudoku cell-rcb DDPM at step $(wstep $c) of $SU_STOP: not scored"; fi; } &
  wait
  ;;
*) echo "usage: $0 go|score" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
