# Lease b of 2026-11-29 (planned in the thirty-second session; run in the thirty-third as lease 2026-11-29c, two calls
# of one H200, and lost: docs/even-pixels-baselines.md, "Twenty-ninth lease"): a squashed global context. The shipped
# Even Pixels SRM's own count is noisy by ~1 px (probe_even_pixels_count.py: slope ~0.8 with one noisy patch), and
# its branch's learnt gain barely grew (exp(log_gain) 1.03-1.74 after 104k steps): the MLP reads the count from means
# of pointwise features whose values depend on the image's two colours, so it has to divide them out. Trained alone to
# count (benchmarks/probe_count_precision.py, CPU), the branch with tanh-squashed features, which can saturate to +-1
# on each colour and then count exactly, got nearer the count than the branch as shipped (docs/even-pixels-baselines.md,
# "A squashed context", for the figures).
# o-g16q: the shipped o-g16s (step 104,000) turned into `unet-s-g16-gct` by benchmarks/squash_context.py --scale 8
# (the same parameters, the branch scaled so that the squashed network computes what o-g16s computed to the first
# order: its count probe reads slope 0.820 and 0.38 px with one noisy patch, o-g16s 0.822 and 0.38 px; loaded without
# the scaling, 0.49 and 2.6 px), then annealed 4,000 steps exactly as o-g16h and o-g16t were (lr 4e-4 after the
# warm-up, linear to 0, half the rows of the mix on overlap-0.95 states): the squash is the one change, and what
# training makes of it (growing the features into tanh's saturation, where their means count exactly). One GPU:
# ~7.5 minutes of training (two calls), then ~4 minutes of judging, the graph checked for the new network first
# (~1 minute, once a host; a failed check trains without it).
# Judged at step 108,000 (race_judge): the completion probe (o-g16s, o-g16q; K = 1 and 4, 200 images) and predicted
# and random order at overlap 0.95 with seeds 0 and 1, against o-g16h's four rows (seed 0 from lease e, seed 1 from
# lease 2026-11-29a: 0.362 / 0.332 predicted, 0.344 / 0.336 random). It beats its control when its predicted-order
# rows over both seeds beat o-g16h's 347 of 1,000 (Fisher p < 0.05); it can ship if they also beat o-g16s's pooled
# 0.353 (three seeds) there.
# Commands (carry [".whl", "runs"]; runs/ empty in call 1, then holding o-g16q's weights; the shipped Sudoku weights
# set aside; the shipped srm-even-pixels is this run's start and stays):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29b.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16q.safetensors
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29b; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
STOP=108000
RUNS=(g16q)
JUDGE_JOBS=()
judge_at_095 g16q unet-s-g16-gct:seqmix0.5-ov0.95-anneal2
START=/tmp/o-g16q-start.safetensors  # o-g16s squashed (scale 8): o-g16q's start
g16q() {  # GPUS: o-g16q from o-g16s, squashed, to STOP (under DDP when GPUS names more than one)
  if [ -z "$(init_of g16q)" ]; then
    [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
    python benchmarks/squash_context.py $G16S $START --scale 8 || return 1
  fi
  [ -e $R/.failed-check-gct ] || once check-gct graph_check ${1%%,*} even-pixels unet-s-g16-gct srm 512 \
    || { touch $R/.failed-check-gct; echo "o-g16q: the graph check failed: trains without --cuda-graph"; }
  GRAPH=$([ -e $R/.done-check-gct ] && echo 1 || echo 0) PRESET=unet-s-g16-gct \
    ep_cont $1 g16q $START 104000 --sequential-mix 0.5 --sequential-overlap 0.95
}
case $1 in
go) cont_and_judge g16q $G16S ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
