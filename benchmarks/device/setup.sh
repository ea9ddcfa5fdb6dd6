# Sourced at the start of every GPU-machine call (see ../shared/device/README.md):
# installs the carried wheels and the package once per machine, sets the log options.
set -o pipefail
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
if [ ! -e /tmp/site/.done ]; then
  # The first call of ours on this host. A host lent afresh can still hold an earlier lease's /tmp (seen in the
  # thirtieth session: another lease's o-g16l logs and results): its runs would be resumed (train.sh resumes a
  # run folder's last.pt) and its `once` marks would skip this lease's work, so they are set aside first
  for d in /tmp/runs /tmp/results; do
    [ -d $d ] && [ -n "$(ls -A $d)" ] && mkdir -p /tmp/stale && mv $d /tmp/stale/$(basename $d)-$(date +%s) \
      && echo "setup: $d held an earlier lease's files; set aside in /tmp/stale"
  done
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>&1 | tail -1
  python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -1
  touch /tmp/site/.done
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
fi
