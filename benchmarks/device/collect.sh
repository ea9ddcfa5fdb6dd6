# Tars the logs of every run in /tmp/runs (log.csv, eval.csv, train.log) and every result
# in /tmp/results into $OUT/runs.tgz: one file back, whatever the number of runs.
# Usage: bash benchmarks/device/collect.sh
mkdir -p /tmp/results
( cd /tmp && find runs results -maxdepth 3 \( -name train.log -o -name '*.json' -o -name '*.csv' \) -print0 \
    | tar czf $OUT/runs.tgz --null -T - )
ls -la $OUT
