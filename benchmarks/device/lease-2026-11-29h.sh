# Lease h of 2026-11-29 (planned in the thirty-fifth session; run in the thirty-sixth as lease 2026-11-29i, calls 2-3,
# o-g16c judged and then shipped as srm-even-pixels: docs/even-pixels-baselines.md, "Thirty-second lease"): a
# completion mix. The shipped Even Pixels
# SRM (`o-g16s`) finishes an image missing one patch exactly only about half the time, and it loses that patch's
# colour count in the middle of the draw: its x0-hat count is right for 88% of images at patch level t = 0.75 and for
# 51% at the end, the count leaving between t = 0.5 and 0.25 (benchmarks/probe_completion_origin.py --trajectory;
# docs/even-pixels-baselines.md, "Where in the draw the count goes"). Small denoisers lose it at the same point while
# they are still learning the draw, and draw it exactly once trained long enough on it (benchmarks/probe_patch_draw.py,
# probe_context_draw.py). In the SRM's training a completion state (a few noisy patches, the rest clean) comes only
# from the zero-patch rule's near-complete rows and the overlap mix's last steps: 12% of o-g16s's rows hold 1-4 noisy
# patches, 6% with one above t = 0.5. `--completion-mix P` (new) replaces a share P of the rows by completion states:
# K ~ U{1..4} open patches noisy, each at its own t ~ U(0, 1], the rest clean, whatever the row would have been.
# The dose has to be large: the draw grows with plain training images, not with the mix's anneal (the origin probe's
# drawn-exact K = 1 went 0.360 -> 0.485 from 61.4M to 204.8M images, p 0.015, and 0.360 -> 0.350 with the anneal;
# docs/even-pixels-baselines.md, thirty-first lease), and those 143M images held ~5.6M rows with 1-4 noisy patches,
# one above t = 0.5 (3.9% of the paper's recipe's rows; benchmarks/probe_training_rows.py). So:
# o-g16c: the shipped o-g16s (step 104,000) annealed 4,000 steps as o-g16h was (lr 4e-4 after the warm-up, linear to
# 0, half the rows on overlap-0.95 states, EMA 0.999), with its other half, the Uniform t-bar rows, completion states
# instead (`--sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5`: the mix on every row, then half of
# them replaced; the twentieth lease found the mix on every row level with half). Rows with 1-4 noisy patches, one
# above t = 0.5: 42.4% against o-g16h's 6.0%, ~3.0M more over the 8.2M images, about half what the 143M did.
# One GPU: ~7.5 minutes of training under the CUDA graph (unet-s-g16-gc's graph has passed on H200s since the
# fifteenth lease), then ~4 minutes of judging at step 108,000: the completion probe (o-g16s, o-g16c; K = 1 and 4,
# 200 images), where each one's last patch is lost with its count's trajectory (probe_completion_origin.py
# --trajectory), and predicted and random order at overlap 0.95 with seeds 0 and 1, against o-g16h's four rows
# (0.362 / 0.332 predicted, 0.344 / 0.336 random). It beats its control when its predicted-order rows over both seeds
# beat o-g16h's 347 of 1,000 (Fisher p < 0.05); it can ship if they also beat o-g16s's pooled 0.353 (three seeds)
# there (6.6 MB, inside the 8 MB limit). The trajectory says whether the draw kept more of its t = 0.75 count.
# Commands (carry [".whl", "runs"]; runs/ empty in call 1, then holding o-g16c's weights; the shipped Sudoku and
# Counting weights set aside; the shipped srm-even-pixels is this run's start and stays):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29h.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16c.safetensors
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29h; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
STOP=108000
RUNS=(g16c)
JUDGE_JOBS=()
judge_at_095 g16c unet-s-g16-gc:seqmix1-ov0.95-comp0.5-anneal2
g16c() {  # GPUS: o-g16c from o-g16s with the completion mix, to STOP (under DDP when GPUS names more than one)
  if [ -z "$(init_of g16c)" ]; then
    [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
  fi
  ep_cont $1 g16c $G16S 104000 --sequential-mix 1.0 --sequential-overlap 0.95 --completion-mix 0.5
}
judge() {  # GPU...: once o-g16c reached STOP, race_judge's probes and rows, and where each last patch is lost
  reached g16c $STOP || { echo "o-g16c at $(wstep $(latest g16c)) of $STOP: not judged yet"; return 1; }
  for w in $G16S $(latest g16c); do
    CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_completion_origin.py $w -n 200 --trajectory \
      --device cuda
  done
  race_judge $G16S "$@"
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  g16c $(tr ' ' , <<< "${g[*]}") > $L/g16c 2>&1
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
