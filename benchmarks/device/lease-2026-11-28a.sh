# Lease a (planned in the twenty-sixth session, run in the twenty-seventh): Even Pixels' count-precision race. At the paper's
# 204.8M images the shipped SRM (`srm-even-pixels`, unet-s-g16-gc) scores 0.216 / 0.252 in predicted / random
# order + overlap 0.95, half the paper's. benchmarks/probe_even_pixels_completion.py (CPU, twenty-sixth session)
# found where: given 63 of a test image's 64 patches exactly, the model completes the last one exactly in only
# 53 of 100 images (100 NFE, predicted order, eta 1), and the count probe's slope with one noisy patch is 0.78:
# the network's own count of the given pixels is off by about a pixel, so the samplers cannot be exact either
# (docs/even-pixels-baselines.md, "Eighteenth lease"). Under Uniform t-bar with the zero-patch rule a row with only
# a few noisy patches left, the state that fixes the count, is rare. The race, at equal images, one H200 each,
# both continued from the shipped weights (step 100,000) to STOP (104,000: 8.2M images, ~9 minutes a run at
# ~7.5 steps/s), at lr 4e-4 after the usual warm-up, decayed linearly to 0 over the whole continuation:
#   GPU 0  o-g16p  the paper's recipe (Uniform t-bar, the zero-patch rule): the control, more images and a new anneal
#   GPU 1  o-g16s  the same with `--sequential-mix 0.5 --sequential-overlap 0.95` (our deviation): half the rows drawn
#                  as states of the overlap-0.95 sampler that Table 2 scores (clean patches, ~20 in flight at levels
#                  0.05 apart, the rest pure noise, at a uniform point of the budget), which holds every "few
#                  patches left" state and the many-in-flight ones where a whole sample loses what the last patches
#                  gain (the completion probe: K = 16 0.37, a whole sample 0.216)
#   GPU 2  o-g16q  (a host of 3+ GPUs only) `--sequential-mix 0.5` alone, one patch at a time, as the shipped Sudoku
#                  SRM's last 4.2M images
# With the zero-patch rule on top, rows with at most 4 noisy patches carry 0.5% of the loss's weight in the control,
# 1.1% with g16s's mix and 1.3% with g16q's (200,000 rows of DeviceLevelSampler, twenty-sixth session).
# Judged, once both reached STOP (`judge`, ~3 minutes on two GPUs): the completion probe (K = 1 and 4 patches drawn
# again, 200 test images, the shipped weights beside them), the count probe, and Table 2's two overlap-0.95 rows of
# each run on 500 samples at 1000 NFE (leaderboard names srm-unet-unet-s-g16-gc-cont4k, -seqmix0.5-ov0.95, -seqmix0.5).
# Also, once a lease: `srm-bench reproduce` of the shipped model's predicted-order result on GPU 1 (issue 12's
# "reproduces a committed result on the same device type"; ~1 minute beside o-g16s's start).
# Both runs train under --cuda-graph without a check: the graph passed bit for bit for this network (lease y), and
# the levels of --sequential-mix are drawn outside the captured step (baselines/train.py's batch), like the others.
# Commands (carry [".whl", "runs"], runs/ empty in call 1; the base is the shipped file itself). Carry limit:
#   mkdir -p /work/aside/shipped && mv baselines/weights/sudoku-*.safetensors /work/aside/shipped/   # back after
#   export T0=$(date +%s); END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28a.sh go
#   D=<files_at>; for r in g16p g16s g16q; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
#   bash benchmarks/device/campaign.sh save runs/o-g16?.safetensors   # after the lease
# Issue the weights' `cat` and the next call in one tool block (the host is given back 30 s after a call).
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-a; rm -rf $L; mkdir -p $L
BASE=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # step 100,000, 204.8M images (sha256 97e609c3...)
STOP=${STOP:-104000}
JUDGE_JOBS=("g16p cont4k :predicted@0.95" "g16p cont4k :random@0.95" "g16s seqmix0.5-ov0.95 :predicted@0.95"
  "g16s seqmix0.5-ov0.95 :random@0.95")
[ $NGPU -ge 3 ] && JUDGE_JOBS+=("g16q seqmix0.5 :predicted@0.95" "g16q seqmix0.5 :random@0.95")
RUNS=(g16p g16s); [ $NGPU -ge 3 ] && RUNS+=(g16q)
case $1 in
go)
  [ -e $BASE ] && { once reproduce-ep reproduce_ep 1 > $L/reproduce 2>&1 & }
  ep_cont 0 g16p $BASE 100000 > $L/g16p 2>&1 &
  ep_cont 1 g16s $BASE 100000 --sequential-mix 0.5 --sequential-overlap 0.95 > $L/g16s 2>&1 &
  [ $NGPU -ge 3 ] && { ep_cont 2 g16q $BASE 100000 --sequential-mix 0.5 > $L/g16q 2>&1 & }
  wait
  once judge race_judge $BASE $(seq 0 $((NGPU - 1))) > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
