# Lease c (planned in the twenty-seventh session): score the Even Pixels SRM that lease a trained on its sampler's
# states, so that it can ship, then lease d or the DDPM in the rest of the call. `o-g16s` (unet-s-g16-gc, step 104,000, 213.0M
# images; the shipped weights continued 4,000 steps with `--sequential-mix 0.5 --sequential-overlap 0.95`,
# docs/even-pixels-baselines.md "Nineteenth lease") scored 0.344 / 0.310 in predicted / random order + overlap
# 0.95 against the shipped weights' 0.216 / 0.252. It ships only with Table 2's SRM rows scored on its own weights
# (tests/test_pretrained.py): its parallel row, Figure 6's sweep and the reference protocol on an H200 (on the
# CPU: 0.234) are missing.
#   score  lease.sh's EP_JOBS (Table 2's SRM rows, the reference protocol, Figure 6's overlaps: 16 jobs of ~70 s,
#          two at once on every GPU: ~2.5 minutes on four H200s, ~5 on two) on o-g16s into $R/ep-g16s under the
#          leaderboard name srm-unet-unet-s-g16-gc-seqmix0.5-ov0.95 (lease a's rows' name); the overlap-0.95 rows
#          are drawn again here (same seed: the same samples, so lease a's and these must agree bit for bit)
#   then   in the same call, for the rest of it, and in the calls after, one of: lease-2026-11-28d.sh go (the EMA
#          question under the mix, ~20 minutes of four H200s; o-g16s is carried already), or lease-2026-11-28y.sh
#          ddpm (the DDPM o-ddpm from 61.4M images to step 100,000, ~40 minutes of four H200s, then its parallel row)
# Commands (carry [".whl", "runs"]; runs/ holding o-g16s.safetensors, and o-ddpm.safetensors for the DDPM,
# `bash benchmarks/device/campaign.sh restore o-g16s o-ddpm`; with the tree's 54 MiB and the wheels, 13.2 MB of
# weights pass the 64 MiB carry, so set the shipped Sudoku weights aside first and put them back after the lease):
#   mkdir -p /work/aside/shipped && mv baselines/weights/sudoku-*.safetensors /work/aside/shipped/
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>
#   bash benchmarks/device/lease-2026-11-28c.sh score; bash benchmarks/device/lease-2026-11-28d.sh go   # (or y.sh ddpm)
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call:
#       # every run's weights back into runs/ (o-ddpm's here), with their steps printed to check
# Ship after the lease (CPU): python benchmarks/ship_model.py srm-even-pixels runs/o-g16s.safetensors <the 16 results>
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results
L=/tmp/lease-c; rm -rf $L; mkdir -p $L
G16S=runs/o-g16s.safetensors
g16s_job() {  # J GPU
  NAME=srm-unet-unet-s-g16-gc-seqmix0.5-ov0.95 ep_job $G16S $R/ep-g16s "$@"
}
score() {  # GPU...: EVAL_PER_GPU (2) jobs at once a GPU
  [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
  deal_each g16s_job ${#EP_JOBS[@]} "$@"
}
case $1 in
score)
  once g16s-score score $(seq 0 $((NGPU - 1))) > $L/score 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 score" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
