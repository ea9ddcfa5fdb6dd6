# Lease b of 2026-11-29 (planned in the thirty-second session; not run yet): a squashed global context. The shipped
# Even Pixels SRM's own count is noisy by ~1 px (probe_even_pixels_count.py: slope ~0.8 with one noisy patch), and
# its branch's learnt gain barely grew (exp(log_gain) 1.03-1.74 after 104k steps): the MLP reads the count from means
# of pointwise features whose values depend on the image's two colours, so it has to divide them out. Trained alone to
# count (benchmarks/probe_count_precision.py, CPU), the branch with tanh-squashed features, which can saturate to +-1
# on each colour and then count exactly, got nearer the count than the branch as shipped (docs/even-pixels-baselines.md,
# "A squashed context", for the figures).
# o-g16q: the shipped o-g16s (step 104,000) as `unet-s-g16-gct` (the same parameters, the features squashed by tanh:
# --init takes them), annealed 4,000 steps exactly as o-g16h and o-g16t were (lr 4e-4 after the warm-up, linear to 0,
# half the rows of the mix on overlap-0.95 states). Its start is not o-g16s's function (tanh compresses the features,
# |f| ~0.5 on average, up to ~1.8), so the anneal also re-fits the branch's readout; a gain over o-g16h says the
# squash helps even so, a loss is not conclusive. One GPU: ~7.5 minutes of training (two calls), then ~4 minutes of
# judging, the graph checked for the new network first (~1 minute, once a host; a failed check trains without it).
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
for j in ":predicted@0.95 0" ":predicted@0.95 1" ":random@0.95 0" ":random@0.95 1"; do
  JUDGE_JOBS+=("g16q gct:seqmix0.5-ov0.95-anneal2 $j")
done
g16q() {  # GPUS: o-g16q from o-g16s to STOP (under DDP when GPUS names more than one)
  [ -n "$(init_of g16q)" ] || [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
  [ -e $R/.failed-check-gct ] || once check-gct graph_check ${1%%,*} even-pixels unet-s-g16-gct srm 512 \
    || { touch $R/.failed-check-gct; echo "o-g16q: the graph check failed: trains without --cuda-graph"; }
  GRAPH=$([ -e $R/.done-check-gct ] && echo 1 || echo 0) PRESET=unet-s-g16-gct \
    ep_cont $1 g16q $G16S 104000 --sequential-mix 0.5 --sequential-overlap 0.95
}
case $1 in
go) cont_and_judge g16q $G16S ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
