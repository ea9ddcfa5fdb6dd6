# Lease l (planned in the thirty-first session; not run yet): the mix read late in the run. In every arm scored so far a
# whole Even Pixels sample did about as well as, or worse than, the same weights completing only the last 4 patches of an
# exact image (the completion probe: o-g16s K = 4 0.370 against 0.344 / 0.380 / 0.336 for whole samples; o-g16g 0.445
# against 0.348; docs/even-pixels-baselines.md, leases y and e):
# a sample is decided where its last ~20 patches close the count, and the overlap-0.95 mix (our deviation) spends only
# ~1/4 of its rows there, since it reads the sampler's states at a uniform point u of its budget. `train
# --sequential-tail 0.25` (new) reads them in the last quarter only, u ~ U(0.75, 1).
# o-g16t: the shipped o-g16s (step 104,000) annealed 4,000 steps (lr 4e-4 after the warm-up, linear to 0, half the rows
# of the mix on overlap-0.95 states) with --sequential-tail 0.25: o-g16h's recipe (lease e: o-g16s annealed the same way,
# 0.362 / 0.344 in predicted / random order at overlap 0.95, seed 0) with that one change. One GPU does it (~9.1 steps/s:
# ~7.5 minutes of training, so two calls); with more GPUs it trains under DDP on all of them.
# Judged once it reached step 108,000 (race_judge): the completion probe (o-g16s, o-g16t, o-g16h; K = 1 and 4, 200 images)
# and predicted and random order at overlap 0.95 with seeds 0 and 1, beside o-g16h's seed-1 rows of both (its seed-0 rows
# are lease e's). It beats its control when its predicted-order rows over both seeds beat o-g16h's (Fisher p < 0.05);
# it can ship if they also beat o-g16s's pooled 0.353 (three seeds) there.
# Commands (carry [".whl", "runs"]; runs/ holding o-g16h.safetensors (`campaign.sh restore o-g16h`) and, from call 2 on,
# o-g16t's weights; the shipped Sudoku weights set aside; the shipped srm-even-pixels is this run's start and stays):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-28l.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16t.safetensors
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-l; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
STOP=108000
RUNS=(g16t g16h)
JUDGE_JOBS=()
for j in ":predicted@0.95 0" ":predicted@0.95 1" ":random@0.95 0" ":random@0.95 1"; do
  JUDGE_JOBS+=("g16t seqmix0.5-ov0.95-anneal2-tail0.25 $j")
done
JUDGE_JOBS+=("g16h seqmix0.5-ov0.95-anneal2 :predicted@0.95 1" "g16h seqmix0.5-ov0.95-anneal2 :random@0.95 1")
g16t() {  # GPUS: o-g16t from o-g16s to STOP (under DDP when GPUS names more than one)
  [ -n "$(init_of g16t)" ] || [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
  ep_cont $1 g16t $G16S 104000 --sequential-mix 0.5 --sequential-overlap 0.95 --sequential-tail 0.25
}
case $1 in
go)
  [ "$(wstep runs/o-g16h.safetensors)" = 108000 ] || { echo "runs/o-g16h.safetensors missing or not at step 108,000: campaign.sh restore o-g16h"; exit 1; }
  cont_and_judge g16t $G16S
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
