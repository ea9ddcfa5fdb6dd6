# Sourced at the start of every GPU-machine call (see ../shared/device/README.md):
# installs the carried wheels and the package once per machine, sets the log options.
# SETUP_TMP (default /tmp) is the root of site/, runs/, results/ and stale/; tests point it elsewhere.
set -o pipefail
S=${SETUP_TMP:-/tmp}
export PYTHONPATH=$S/site PYTHONUNBUFFERED=1
# A host lent afresh can still hold an earlier lease's /tmp (thirtieth session: another lease's o-g16l logs and
# results; thirty-first: a host that also kept its site/.done, so it did not look new): its runs would be resumed
# (train.sh resumes a run folder's last.pt) and its `once` marks would skip this lease's work. So they are set aside
# on our first call of a host, and with LEASE (a name for this session's lease, the same in each of its calls, e.g.
# LEASE=2026-11-28k) on the first call of this lease, whatever the host kept
new=0
[ -e $S/site/.done ] || new=1
[ -n "${LEASE:-}" ] && [ "$(cat $S/lease 2>/dev/null)" != "$LEASE" ] && new=1
if [ $new = 1 ]; then
  for d in $S/runs $S/results; do
    [ -d $d ] && [ -n "$(ls -A $d)" ] && mkdir -p $S/stale && mv $d $S/stale/$(basename $d)-$(date +%s%N) \
      && echo "setup: $d held an earlier lease's files; set aside in $S/stale"
  done
fi
# written only when it changes, and by rename: scoring jobs started together each source this file, and one reading
# the file while another truncated it took the lease for new and set aside the runs it was judging (lease 2026-11-29e)
if [ -n "${LEASE:-}" ] && [ "$(cat $S/lease 2>/dev/null)" != "$LEASE" ]; then
  mkdir -p $S && echo "$LEASE" > $S/lease.$$ && mv $S/lease.$$ $S/lease
fi
if [ ! -e $S/site/.done ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target $S/site .whl/*.whl 2>&1 | tail -1
  python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -1
  mkdir -p $S/site && touch $S/site/.done
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
fi
