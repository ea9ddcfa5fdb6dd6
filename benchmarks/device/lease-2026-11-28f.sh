# Lease f (twenty-ninth session, after lease e): score lease e's best arm for shipping, and ask whether its lead is
# the seed's. Lease e (docs/even-pixels-baselines.md "Twenty-third lease") annealed four arms for 4,000 steps; o-g16f
# (o-g16e's EMA 0.999 annealed, step 128,000, 262.1M images) scored 0.398 / 0.380 on Table 2's two overlap-0.95 rows
# against the shipped o-g16s's 0.344 / 0.310 (Fisher p 0.089 / 0.024), the other arms between. Those rows, like all
# Table 2 rows here, draw with seed 0. `score` (~4 minutes of four H200s, EVAL_PER_GPU (2) jobs at once a GPU):
#   - the two overlap-0.95 rows of o-g16s and o-g16f again with seed 1 (500 other samples each; results under
#     $R/ep-seed1, the leaderboard names of their seed-0 rows);
#   - lease.sh's EP_JOBS on o-g16f but the three lease e drew already (predicted and random at 0.95, predicted at
#     0.9: docs/runs/lease-2026-11-28e/), so that o-g16f has Table 2 and Figure 6 whole if it ships.
# Then, in the same call: `bash benchmarks/device/lease-2026-11-28y.sh ddpm` (the DDPM towards step 100,000 with the
# rest of the call; its weights come back as weights-o-ddpm.part-*).
# Commands (carry [".whl", "runs"]; runs/ holding o-g16f.safetensors and o-ddpm.safetensors only, the shipped Sudoku
# weights set aside as in lease e):
#   export T0=$(date +%s); export END=<budget_left_s - 120, at most 560>
#   bash benchmarks/device/lease-2026-11-28f.sh score; bash benchmarks/device/lease-2026-11-28y.sh ddpm
#   bash benchmarks/device/campaign.sh join <files_at>
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results
L=/tmp/lease-f; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
G16F=runs/o-g16f.safetensors
NS=srm-unet-unet-s-g16-gc-seqmix0.5-ov0.95; NF=$NS-lr8e-4-anneal  # the names their seed-0 rows carry
JOBS=("$G16S $NS 1 0" "$G16F $NF 1 0" "$G16S $NS 1 1" "$G16F $NF 1 1")  # weights name seed EP_JOBS-index
for ((j = 0; j < ${#EP_JOBS[@]}; j++)); do
  case ${EP_JOBS[$j]} in :predicted@0.95|:random@0.95|:predicted@0.9) ;; *) JOBS+=("$G16F $NF 0 $j");; esac
done
job() {  # J GPU
  local a=(${JOBS[$1]}) res=$R/ep-g16f
  [ ${a[2]} = 0 ] || res=$R/ep-seed1
  NAME=${a[1]} SEED=${a[2]} ep_job ${a[0]} $res ${a[3]} $2
}
score() {  # GPU...
  [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
  [ "$(wstep $G16F)" = 128000 ] || { echo "$G16F is not o-g16f at step 128,000"; return 1; }
  deal_each job ${#JOBS[@]} "$@"
}
case $1 in
score)
  once g16f-score score $(seq 0 $((NGPU - 1))) > $L/score 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 score" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
