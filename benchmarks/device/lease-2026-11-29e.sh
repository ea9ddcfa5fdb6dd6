# Lease e of 2026-11-29 (planned in the thirty-third session; run in the thirty-fourth: lost, level with its control,
# docs/even-pixels-baselines.md "Thirtieth lease"): a pooling over each patch. The shipped Even
# Pixels SRM (`o-g16s`) reads the colour count its last patch must take better than it draws it: its one-step estimate
# is right for 74% of images, its draw of that patch exact for 51%, and the draw hardly depends on whether the estimate
# was right (benchmarks/probe_completion_origin.py; docs/even-pixels-baselines.md, "Where the last patch is lost"). A
# toy denoiser told the count draws an exact patch 0.64-0.74 of the time with convolutions alone and 0.82-0.99 with a
# pooling over the patch in each block (benchmarks/probe_patch_draw.py). The UNet has no such pooling. So:
# o-g16k: the shipped o-g16s (step 104,000) as `unet-s-g16-gcp` (`--init` fills the new poolings with zeros, so it
# starts computing what o-g16s computes), annealed 4,000 steps exactly as o-g16h, o-g16t and o-g16q were (lr 4e-4
# after the warm-up, linear to 0, half the rows of the mix on overlap-0.95 states): the pooling is the one change.
# One GPU: ~7.5 minutes of training (two calls), the graph checked for the new network first (~1 minute, once a host;
# a failed check trains without it), then ~4 minutes of judging at step 108,000: the completion probe (o-g16s, o-g16k;
# K = 1 and 4, 200 images), where each one's last patch is lost (probe_completion_origin.py), and predicted and random
# order at overlap 0.95 with seeds 0 and 1, against o-g16h's four rows (0.362 / 0.332 predicted, 0.344 / 0.336
# random). It beats its control when its predicted-order rows over both seeds beat o-g16h's 347 of 1,000 (Fisher
# p < 0.05); it can ship if they also beat o-g16s's pooled 0.353 (three seeds) there (6.6 MB, inside the 8 MB limit).
# Commands (carry [".whl", "runs"]; runs/ empty in call 1, then holding o-g16k's weights; the shipped Sudoku weights
# set aside; the shipped srm-even-pixels is this run's start and stays):
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29e.sh go
#   bash benchmarks/device/campaign.sh join <files_at>   # after every call, in one tool block with the next call
#   bash benchmarks/device/campaign.sh save runs/o-g16k.safetensors
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29e; rm -rf $L; mkdir -p $L
G16S=baselines/weights/even-pixels-srm-unet-s-g16-gc.safetensors  # o-g16s, shipped
STOP=108000
RUNS=(g16k)
JUDGE_JOBS=()
judge_at_095 g16k unet-s-g16-gcp:seqmix0.5-ov0.95-anneal2
g16k() {  # GPUS: o-g16k from o-g16s with the patch pooling, to STOP (under DDP when GPUS names more than one)
  if [ -z "$(init_of g16k)" ]; then
    [ "$(wstep $G16S)" = 104000 ] || { echo "$G16S is not o-g16s at step 104,000"; return 1; }
  fi
  [ -e $R/.failed-check-gcp ] || once check-gcp graph_check ${1%%,*} even-pixels unet-s-g16-gcp srm 512 \
    || { touch $R/.failed-check-gcp; echo "o-g16k: the graph check failed: trains without --cuda-graph"; }
  GRAPH=$([ -e $R/.done-check-gcp ] && echo 1 || echo 0) PRESET=unet-s-g16-gcp \
    ep_cont $1 g16k $G16S 104000 --sequential-mix 0.5 --sequential-overlap 0.95
}
judge() {  # GPU...: once o-g16k reached STOP, race_judge's probes and rows, and where each last patch is lost
  reached g16k $STOP || { echo "o-g16k at $(wstep $(latest g16k)) of $STOP: not judged yet"; return 1; }
  for w in $G16S $(latest g16k); do
    CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_completion_origin.py $w -n 200 --device cuda
  done
  race_judge $G16S "$@"
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  g16k $(tr ' ' , <<< "${g[*]}") > $L/g16k 2>&1
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
