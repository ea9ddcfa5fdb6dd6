# Lease v (planned in the nineteenth session): issue 12's capacity question on Even Pixels. The
# shipped SRM `unet-s-g16-gc` (3.3M parameters) and its DDPM both stand at a third to a half of the paper's
# Table 2 after 61.4M images, and more images moved the count probe but hardly the samples (0.188 at 33.8M,
# 0.190 at 61.4M), while a wider network within the 8 MB limit lost its race (docs/even-pixels-baselines.md,
# eleventh lease). So: the paper's own UNet (preset `paper`, 19.7M parameters, 39 MB: a reference that cannot
# ship) as an SRM, from scratch, with g16-gc's recipe (batch 2048, lr 8e-4, EMA 0.999, the authors' zero-patch
# rule, data drawn on the GPU, to step 30,000 = 61.4M images with the last 5,800 steps in a linear decay), under
# DDP on every GPU of the host. The count probe after every call, against g16-gc's curve at equal images
# (docs/runs/lease-2026-11-27{o,q,r}/o-srm/probe.txt), says whether capacity moves the count; once the run
# reaches its end, Table 2's SRM rows and the reference protocol are scored on all GPUs (500 samples, 1000 NFE,
# eta 1), then the overlap sweep. The DDPM of the same network follows only if the SRM shows a lead.
# Speed: 17.9k images/s on four H200s at 512 a GPU (benchmarks/results/train-throughput.json: eager, 3.0x one
# GPU), 10.6k on one compiled; so ~25-45M images in one lease's ~25 training minutes, and the end (61.4M) and the
# scoring in the lease after.
# First, in call 1 on all four GPUs (~1.5 minutes): the Counting parallel-mix race of lease u scored on 500 test
# images (1000 NFE, eta 1; parallel and predicted order), `o-s2p` (`--parallel-mix 0.5`) and its control `o-s2c`
# (the authors' rule), both at step 24,000: does the SRM's parallel row reach its DDPM's once the clean-context
# gap is closed (the probe: it is), and do the predicted-order samples still draw one object (docs/baselines.md)?
# Run in the twentieth session on 2x H200 (only 1- and 2-GPU kinds lent; PM_JOBS skipped by leaving the two
# Counting weights out of runs/): o-epp to step 11,000 = 22.5M images in three calls (docs/even-pixels-baselines.md,
# twelfth lease). Run again in the twenty-first session (2x H200, three calls of END=560, the host kept warm from
# call 1 to 3): o-epp to step 23,150 = 47.4M images (thirteenth lease). To go on: `bash benchmarks/device/campaign.sh
# restore o-epp`, then the later-call commands below: 6,850 steps (the cool-down) and the scoring are left.
# Finished in the twenty-second session (lease x, 4x H200): o-epp to step 30,000 and scored, and PM_JOBS scored in
# a third call (docs/even-pixels-baselines.md, fourteenth lease; docs/baselines.md, lease x). Next: lease-2026-11-28y.sh.
#
#   mkdir -p /work/aside && mv baselines/weights/*.safetensors /work/aside/    # the carry limit; back after
#   bash benchmarks/device/campaign.sh restore o-s2p o-s2c   # if runs/ lacks them; then runs/ holds only these two
#   export T0=$(date +%s); FRESH=1 END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28v.sh go
#       # call 1 on a fresh 4-GPU host, carry [".whl", "runs"]
#   mv evaluators/weights/counting-*.safetensors /work/aside/   # before call 2 (back after): the carry limit
#   export T0=$(date +%s); END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28v.sh go
#       # later calls, carry [".whl", "runs"] with runs/ holding only o-epp.safetensors (39.5 MB). Measured in the
#       # nineteenth session: the tree without the shipped weights plus .whl and o-epp is 65.0 MiB, over the 64 MiB
#       # carry; without the Counting evaluators' weights too (13.6 MB; only call 1 scores Counting) 52.1 MiB
#   D=<files_at>; cat $D/weights-o-epp.part-* > runs/o-epp.safetensors     # after every call
#   bash benchmarks/device/campaign.sh save runs/o-epp.safetensors          # after the lease (39 MB in the history)
# Set END from `status` right before each call: a warm host's idle time counts against the device budget, and
# the host is given back 30 s after a call ends (`idle_release_s`), so a slower next call starts a fresh one.
# A fresh host costs ~50 s of device time and restarts the run from the carried EMA weights with a new warm-up
# (the optimizer state is not carried: lease v's call 2). To keep the host: issue the weights' `cat` and the next
# call together, at once, leaving everything else for after the lease.
# FRESH=1 lets the run start from scratch (call 1 only). Nothing starts with fewer than 150 s left.
# PROF=1 (any call) first profiles g16-gc's training step on GPU 0 (benchmarks/profile_loop.py, compiled, per-GPU
# batch 1024 and 512; ~2-3 minutes): the data for the step floor that keeps DDP from paying on four GPUs.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
E=benchmarks/device/eval.sh; R=/tmp/results; W=/tmp/runs
L=/tmp/lease-v; rm -rf $L; mkdir -p $L  # this call's printed logs
EP_STOP=${EP_STOP:-30000}; EP_COOL=${EP_COOL:-5800}
P=benchmarks/probe_even_pixels_count.py
epp() {  # GPUS PORT: the Even Pixels SRM `paper` towards EP_STOP under DDP over GPUS (a comma list)
  local n=$(( $(tr -cd , <<< "$1" | wc -c) + 1 ))
  reached epp $EP_STOP && return 0
  [ $(left) -ge 150 ] || return 0
  fresh epp || return 1
  TASK=even-pixels GPUS=$1 NPROC=$n PORT=$2 BASELINE=srm RUN=o-epp COMPILE=1 EVAL_EVERY=0 \
    bash benchmarks/device/train.sh paper $(mins 75) "$(init_of epp)" \
    --seed 0 --ema-decay 0.999 --steps $EP_STOP --cooldown-steps $EP_COOL
  [ -e $W/o-epp/weights.safetensors ] && CUDA_VISIBLE_DEVICES=${1%%,*} timeout $(left) \
    python $P $W/o-epp/weights.safetensors -n 1024 --noisy 1 4 16 24 --device cuda
  return 0
}
epp_job() { ep_job $(latest epp) $R/ep-paper "$@"; }  # J GPU: EP_JOBS[J] (lease.sh: Table 2, then Figure 6) on GPU
score_epp() {  # GPU...: the jobs dealt over the GPUs, once the run reached its end
  reached epp $EP_STOP || { echo "o-epp at step $(wstep $(latest epp)) of $EP_STOP: not scored"; return 1; }
  deal epp_job ${#EP_JOBS[@]} "$@"
}
# The parallel-mix race's rows (a job: run, leaderboard name, eval.sh job)
PM_JOBS=("o-s2p srm-unet-small-s2-pm0.5 :parallel" "o-s2p srm-unet-small-s2-pm0.5 :predicted"
  "o-s2c srm-unet-small-s2-6.1M :parallel" "o-s2c srm-unet-small-s2-6.1M :predicted")
pm_job() {  # J GPU: PM_JOBS[J] on GPU
  local g=$2; set -- ${PM_JOBS[$1]}
  [ -e runs/$1.safetensors ] || { echo "runs/$1.safetensors missing: $3 not scored"; return 1; }
  NAME=$2 GPU=$g timeout $(left) bash $E runs/$1.safetensors $R/count-polygons $3
}
prof() {  # GPU: where g16-gc's step floor (~70 ms at any per-GPU batch; docs/even-pixels-baselines.md, ninth lease)
  # goes, compiled, at the per-GPU batches of two and four GPUs: host time per step against wall time
  local b t
  for b in 1024 512; do
    t=$(left); [ $t -gt 10 ] || return 1  # `timeout 0` would not stop it
    CUDA_VISIBLE_DEVICES=$1 timeout $(( t < 150 ? t : 150 )) python benchmarks/profile_loop.py \
      --task even-pixels --preset unet-s-g16-gc --batch $b --compile --steps 30 --device cuda --top 15 || return 1
  done
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  if [ "${PROF:-0}" = 1 ]; then  # opt-in, ~2-3 minutes of GPU 0 before the training; the tables come back in $OUT
    once prof prof 0 > $OUT/prof.txt 2>&1; grep -h -E "^(loop|phases|aten)" $OUT/prof.txt
  fi
  [ -e runs/o-s2p.safetensors ] && once pm deal pm_job ${#PM_JOBS[@]} ${g[*]} > $L/pm 2>&1
  epp $(tr ' ' , <<< "${g[*]}") 29500 > $L/epp 2>&1
  once epp score_epp ${g[*]} > $L/score 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
