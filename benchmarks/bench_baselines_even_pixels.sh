#!/usr/bin/env bash
# Even Pixels proof of life for the baselines: train the SRM (sharpness 0.75) and the DDPM
# side by side for a fixed wall time, then sample with the four samplers of the paper's
# Table 2 and score every file. Usage (GPU machine, results under $RESULTS):
#   RUN=/tmp/ep MINUTES=6 RESULTS=$OUT bash benchmarks/bench_baselines_even_pixels.sh
# Knobs (env): PRESET (small), MINUTES (training wall time per model), N_TRAIN (100000),
# N_SAMPLES (500), NFE (1000), OVERLAP (0.95), TRAIN_ARGS (extra 'srm-bench train' options),
# SAMPLE_ARGS (extra 'srm-bench sample' options), DEVICE (cuda), TAG (suffix of the sample names,
# for a second round after resuming the training).
set -euo pipefail
RUN=${RUN:-/tmp/ep}; RESULTS=${RESULTS:-$RUN/results}; PRESET=${PRESET:-small}; MINUTES=${MINUTES:-6}
N_TRAIN=${N_TRAIN:-100000}; N_SAMPLES=${N_SAMPLES:-500}; NFE=${NFE:-1000}; OVERLAP=${OVERLAP:-0.95}
TRAIN_ARGS=${TRAIN_ARGS:-}; SAMPLE_ARGS=${SAMPLE_ARGS:-}; DEVICE=${DEVICE:-cuda}; TAG=${TAG:-}
mkdir -p "$RUN" "$RESULTS"
[ -f "$RUN/data/manifest.json" ] || srm-bench -q generate even-pixels --split train -n "$N_TRAIN" -j 8 -o "$RUN/data"
for b in srm ddpm; do
  srm-bench -q train --baseline $b --task even-pixels --preset "$PRESET" --data "$RUN/data" -o "$RUN/$b" \
    --max-minutes "$MINUTES" --device "$DEVICE" $TRAIN_ARGS > "$RUN/$b.train.json" 2> "$RUN/$b.train.err" &
done
wait
for b in srm ddpm; do cat "$RUN/$b.train.json"; tail -n 3 "$RUN/$b.train.err" || true; cp "$RUN/$b/log.csv" "$RESULTS/$b-log$TAG.csv"; done
sample() {  # name checkpoint sampler-args...
  local name=$1 ckpt=$2; shift 2
  srm-bench -q sample "$ckpt" -n "$N_SAMPLES" --steps "$NFE" --batch-size "$N_SAMPLES" --device "$DEVICE" \
    --name "$name" -o "$RUN/samples/$name.h5" $SAMPLE_ARGS "$@"
  srm-bench -q evaluate "$RUN/samples/$name.h5" --out "$RUN/scores" --json > "$RUN/scores-$name.json"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], {k: round(v['value'], 4) for k, v in r['metrics'].items()}, r['model']['training']['steps'], 'steps')" "$RUN/scores-$name.json" "$name"
}
mkdir -p "$RUN/samples"
sample ddpm-unet-parallel$TAG "$RUN/ddpm/last.pt" --sampler parallel
sample srm-unet-parallel$TAG "$RUN/srm/last.pt" --sampler parallel
sample srm-unet-predicted-overlap$TAG "$RUN/srm/last.pt" --sampler sequential --order predicted --overlap "$OVERLAP"
sample srm-unet-random-overlap$TAG "$RUN/srm/last.pt" --sampler sequential --order random --overlap "$OVERLAP"
tar czf "$RESULTS/even_pixels_results$TAG.tgz" -C "$RUN" scores samples
