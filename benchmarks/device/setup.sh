# Sourced at the start of every GPU-machine call (see ../shared/device/README.md):
# installs the carried wheels and the package once per machine, sets the log options.
set -o pipefail
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
if [ ! -e /tmp/site/.done ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>&1 | tail -1
  python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -1
  touch /tmp/site/.done
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
fi
