# Samples and scores a trained baseline on its task's canonical test set with `srm-bench sample`
# and `srm-bench evaluate` (result JSON and per-sample CSV in RESULTS, leaderboard-ready).
# Usage (GPU machine; one GPU per call, run several in the background for several GPUs):
#   [GPU=0] [NFE=1000] [ETA=1] [N=500] [BATCH=N] [SEED=0] [DEVICE=cuda] [RAMP=even|reference] [NAME=model-name] \
#     bash benchmarks/device/eval.sh WEIGHTS RESULTS JOB...
# JOB is SPLIT:SAMPLER[@OVERLAP][/ETA] with SAMPLER one of parallel, predicted, predicted-entropy,
# random, graph, raster; e.g. hard:predicted (Sudoku) or :predicted@0.95 (Even Pixels: no split, overlap 0.95);
# /ETA sets that job's eta (:predicted@0.95/0: eta 0), else ETA (default 1) holds.
# The task comes from the weights. A job that already succeeded into RESULTS with the same weights
# (by hash) and the same settings is not run again (a mark RESULTS/.done-*), so a call that was cut
# short can be repeated on a warm host without scoring its finished jobs twice; with BATCH < N, a job cut short
# keeps its finished batches of BATCH samples and the repeat continues it (`srm-bench sample`'s OUT.partial.npz).
source benchmarks/device/setup.sh
w=$1; res=$2; shift 2
mkdir -p $res; rc=0  # non-zero when any job failed
wsha=$(sha256sum "$w" | cut -c1-16)
export CUDA_VISIBLE_DEVICES=${GPU:-0}
for job in "$@"; do
  split=${job%%:*}; s=${job#*:}; overlap=0; eta=${ETA:-1}
  case $s in */*) eta=${s#*/}; s=${s%/*};; esac
  case $s in *@*) overlap=${s#*@}; s=${s%@*};; esac
  case $s in
    parallel) a=(--sampler parallel);;
    predicted) a=(--sampler sequential --order predicted);;
    predicted-entropy) a=(--sampler sequential --order predicted --uncertainty entropy);;
    random|graph|raster) a=(--sampler sequential --order $s);;
    *) echo "unknown sampler $s" >&2; exit 2;;
  esac
  [ "$overlap" != 0 ] && a+=(--overlap $overlap)
  [ "$s" != parallel ] && [ -n "${RAMP:-}" ] && a+=(--ramp $RAMP)
  [ -n "$split" ] && a+=(--split $split)
  [ -n "${NAME:-}" ] && a+=(--name "$NAME")  # the leaderboard name [baseline-arch-preset]
  mark=$res/.done-$wsha-$split-$s-$overlap-${NFE:-1000}-$eta-${N:-500}-${SEED:-0}-${RAMP:-}-${NAME:-}
  [ -e $mark ] && { echo "$job: scored already (mark $mark)"; continue; }
  # one samples file per job and settings, the same in a rerun: a job cut short left its finished batches in
  # $h5.partial.npz (BATCH samples each), and the rerun continues from them (or scores $h5, if it was written)
  h5=$S/samples-${mark#$res/.done-}.h5; last=$res/last-$$-$split-$s-$overlap.json
  t0=$(date +%s)
  { [ -e $h5 ] || srm-bench -q sample "$w" "${a[@]}" --steps ${NFE:-1000} --eta $eta -n ${N:-500} --seed ${SEED:-0} \
      --batch-size ${BATCH:-${N:-500}} --device ${DEVICE:-cuda} -o $h5; } \
    && srm-bench -q evaluate $h5 --out $res --device ${DEVICE:-cuda} --json > $last \
    && python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], {k: round(v['value'], 4) for k, v in r['metrics'].items()})" $last "$job eta=$eta nfe=${NFE:-1000} $(( $(date +%s) - t0 ))s" \
    && touch $mark && rm -f $h5 \
    || { echo "$job failed" >&2; rc=1; }
  rm -f $last
done
exit $rc
