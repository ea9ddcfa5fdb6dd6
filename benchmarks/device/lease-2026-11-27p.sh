# Lease p RAN 2026-11-27 (fourteenth session; 2x H200, 27.6 device-min, 3 calls; cell-rcb reached step
# 68,300 in call 3 and was scored there: easy / medium / hard 0.930 / 0.072 / 0.000; no minutes were
# left for Even Pixels; logs docs/runs/lease-2026-11-27p/). Planned: only 1- and 2-GPU kinds are lent (`status`), so the
# 4-GPU plan of benchmarks/device/lease-2026-11-27o.sh is cut to what closes issue 11 first: the
# Sudoku DDPM `cell-rcb` (the paper's objective, no auxiliary digit loss) on both GPUs of a 2x host
# under DDP (batch 1024, 512 a GPU, as in lease o) from runs/o-rcb.safetensors (step 29,600) to step
# 68,300 (69.9M images, the last 11,000 in a linear decay). Lease o ran ~14,800 steps in a 560 s
# call, so three calls reach the end with ~3 minutes left in the third; there its Table 1 row
# (parallel, hard on GPU 0, medium and easy on GPU 1, 500 puzzles, 1000 NFE, eta 1) is scored on
# the spot. Minutes left after that go to the Even Pixels SRM (GPU 0) and DDPM (GPU 1), resumed
# from runs/o-srm and runs/o-ddpm (the same commands as lease o's, so their runs stay one run).
#
#   bash benchmarks/device/campaign.sh restore                                     # before call 1
#   export T0=$(date +%s); END=560 bash benchmarks/device/lease-2026-11-27p.sh      # every call (kind nvidia-h200-x2)
#   D=<files_at>; for r in srm ddpm rcb; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
#   bash benchmarks/device/campaign.sh save runs/o-*.safetensors                    # after the lease
# Carry: [".whl", "runs/o-rcb.safetensors", "runs/o-srm.safetensors", "runs/o-ddpm.safetensors"] with
# the shipped weights moved out of the tree (mv baselines/weights/*.safetensors /work/aside/).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
L=/tmp/lease-p; rm -rf $L; mkdir -p $L
EP_STOP=${EP_STOP:-32000}; EP_COOL=${EP_COOL:-6000}
SU_STOP=${SU_STOP:-68300}; SU_COOL=${SU_COOL:-11000}
if [ "$(wstep $(latest rcb))" -lt "$SU_STOP" ]; then
  NPROC=2 GPUS=0,1 BASELINE=ddpm RUN=o-rcb COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/sudoku_cell.sh cell-rcb \
    $(mins 20) "$(init_of rcb)" --seed 0 --batch-size 1024 --steps $SU_STOP --cooldown-steps $SU_COOL
fi
c=$(latest rcb)
if [ "$(wstep $c)" -ge "$SU_STOP" ] && [ ! -e $R/rcb/.done ] && [ "$(left)" -gt 150 ]; then
  GPU=0 timeout $(left) bash $E $c $R/rcb hard:parallel > $L/hard 2>&1 & p0=$!
  GPU=1 timeout $(left) bash $E $c $R/rcb medium:parallel easy:parallel > $L/rest 2>&1 & p1=$!
  wait $p0 $p1 && touch $R/rcb/.done
  cat $L/hard $L/rest
fi
if [ -e $R/rcb/.done ] && [ "$(left)" -gt 150 ]; then  # the rest of the call: Even Pixels
  TASK=even-pixels GPUS=0 RUN=o-srm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc $(mins 30) \
    "$(init_of srm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL &
  TASK=even-pixels GPUS=1 BASELINE=ddpm RUN=o-ddpm COMPILE=1 EVAL_EVERY=0 bash benchmarks/device/train.sh unet-s-g16-gc \
    $(mins 30) "$(init_of ddpm)" --seed 0 --steps $EP_STOP --cooldown-steps $EP_COOL &
  wait
fi
for r in $W/*/train.log; do echo "== $r"; grep -v -i warn $r | tail -3; done
bash benchmarks/device/collect.sh
