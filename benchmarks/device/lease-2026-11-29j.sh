# Lease j of 2026-11-29 (planned in the thirty-fifth session; not run yet; only if lease d finds capacity the lever):
# the paper's UNet to the paper's images. If lease d's judging (benchmarks/device/lease-2026-11-29d.sh) finds `o-epm`
# (the paper's UNet, 19.7M) ahead of `o-g16m` (`unet-s-g16-gc`, 3.3M) in predicted order + overlap 0.95 at equal
# images (Fisher p < 0.05 over both seeds), the paper's UNet goes the way the shipped network went: `o-g16l`, the
# paper's recipe from 61.4M to 204.8M images, then `o-g16s`, 4,000 steps annealed on the mix. Its origin probe already
# drew a missing patch exactly a little more often than `unet-s-g16-gc` at equal images, before and after the anneal
# (0.415 / 0.425 against 0.360 / 0.350 of 200; docs/even-pixels-baselines.md, thirty-first lease). So:
# o-epl: o-epp (the paper's UNet, step 30,000, 61.4M images, campaign f8705f8) continued with `--init` and the recipe
# o-g16l had (batch 2048, lr 8e-4 after a new warm-up, EMA 0.999, the authors' zero-patch rule, no mix) to step 100,000
# = 204.8M images, the last 10,000 steps in a linear decay; under the CUDA graph once benchmarks/check_cuda_graph.py
# passed on the host (it passed on an H200 in lease 2026-11-29g; ~1 minute, once a host; a failed check trains it
# without). One H200 alone runs it at 5.43 steps/s (lease 2026-11-29g): 70,000 steps are ~3.6 hours, ~26 calls of
# ~500 s, about eight sessions' device time; four H200s under DDP would take about a quarter of that where lent. The
# count probe follows every call. This script trains only: the rows at step 100,000 and the mix's anneal after it are
# planned when the run gets there. The weights (39.5 MB, bf16) cannot ship; a network within 8 MB has to follow.
# Commands (carry [".whl", "runs"]; runs/ holding only o-epp.safetensors in the first call, then only
# o-epl.safetensors; every shipped weights file and the Counting evaluators' weights set aside, as for lease d):
#   bash benchmarks/device/campaign.sh restore o-epp      # first call only
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29j.sh go
#   bash benchmarks/device/campaign.sh join <files_at>    # after every call, in one tool block with the next call;
#     # then rm runs/o-epp.safetensors (runs/ holds o-epl from the second call on)
#   bash benchmarks/device/campaign.sh save runs/o-epl.safetensors   # at the end of every session
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29j; rm -rf $L; mkdir -p $L
STOP=100000
EPP=runs/o-epp.safetensors
epl() {  # GPUS: o-epl from o-epp (or its carried weights) to STOP, under DDP when GPUS names more than one
  if [ -z "$(init_of epl)" ] && [ ! -e $W/o-epl/last.pt ]; then
    [ "$(wstep $EPP)" = 30000 ] || { echo "o-epl: neither runs/o-epl.safetensors nor its start $EPP at step 30,000"; return 1; }
  fi
  local graph=1
  reached epl $STOP || graph=$(graph_ok ${1%%,*} even-pixels paper srm 512)
  GRAPH=$graph PRESET=paper LR=8e-4 COOL=10000 ep_cont $1 epl $EPP 30000
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  epl $(tr ' ' , <<< "${g[*]}") > $L/epl 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
