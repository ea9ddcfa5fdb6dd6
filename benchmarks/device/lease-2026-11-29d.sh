# Lease d of 2026-11-29 (planned in the thirty-third session): capacity under the mix, at 61.4M images. Trained in the
# thirty-fifth session (lease 2026-11-29g, three calls): both arms at step 34,000, in campaign commit e2714ac; judged
# in the thirty-sixth (lease 2026-11-29h: 0.262 against 0.230 in predicted order, p 0.11, the decision below not met;
# docs/even-pixels-baselines.md, "Thirty-second lease"). To judge again: `campaign.sh restore o-epm o-g16m` (runs/ holding exactly these two), the weights set aside as
# below, then `go` once (the arms are skipped as reached; ~5 minutes of judging on a fresh host).
# Six changes to the shipped Even Pixels SRM (`o-g16s`: `unet-s-g16-gc`, 3.3M parameters, 204.8M images, then 4,000
# annealed steps with half the rows on overlap-0.95 states) have ended level with it: annealed again (`o-g16h`), the
# mix's tail (`o-g16t`), a squashed context (`o-g16q`), a patch pooling (`o-g16k`, lease 2026-11-29e), the EMA 0.9999,
# overlap-0.9 states; all 0.34-0.37 in predicted order + overlap 0.95, the bar 0.45, the paper 0.518
# (docs/even-pixels-baselines.md). The one lever not tried under
# the mix is the network: the paper's UNet (`paper`, 19.7M) was raced at 61.4M images before the mix existed, and led
# `unet-s-g16-gc` there within the noise (0.230 against 0.190, p 0.14; its count probe ahead, slope 0.73 against 0.65).
# So both 61.4M-image networks of that race get the shipped model's anneal, 4,000 steps each (lr 4e-4 after the
# warm-up, linear to 0; `--sequential-mix 0.5 --sequential-overlap 0.95`; EMA 0.999), at equal images:
#   o-g16m  from o-srm (`unet-s-g16-gc`, step 30,000, 61.4M images; campaign dc9271d)
#   o-epm   from o-epp (`paper`, step 30,000, 61.4M images; campaign f8705f8)
# to step 34,000 (69.6M images), then judged on predicted and random order at overlap 0.95, seeds 0 and 1 (500
# samples, 1000 NFE, eta 1), plus the completion probe (K = 1 and 4, 200 images) and where each arm's last patch is lost
# (benchmarks/probe_completion_origin.py --trajectory: the count it reads against the one it draws, and the level of
# the patch at which its x0-hat count leaves the required one: t 0.75 -> 0.25 for the shipped network). What it decides:
# - o-epm against o-g16m, predicted order over both seeds (n = 1,000 each, Fisher p < 0.05): capacity is the lever
#   under the mix. Then the paper's UNet goes on to the paper's 204.8M images (multi-session; it cannot ship at 39 MB,
#   so a network within 8 MB would have to follow it), and if level, the network is not what holds the row at 0.35.
# - o-g16m against o-g16s (0.353 over three seeds, 204.8M images + the same anneal): whether the 143M images between
#   61.4M and 204.8M still count once the mix is there.
# The paper's UNet trains under the CUDA graph only once benchmarks/check_cuda_graph.py found its captured step's
# gradients equal to the plain step's on this host (~1 minute, once a host; a failed check trains it without).
# On one GPU both arms train side by side on it (as lease z's two Counting runs do); on two or more, one GPU each.
# One H200 alone: `unet-s-g16-gc` 9.1 steps/s under the graph, `paper` 5.2 compiled (lease x's 10.6k images/s, no
# graph measured): ~7.5 and ~13 minutes of training, ~20 minutes of device time with compilation and the check, and
# ~4 minutes of judging (eight 1000-NFE jobs, ~50 s each on an H200, two at once): three calls of one H200 train, a
# fourth judges (judging starts only with JUDGE_MIN_S [300] s left in a call, so that the probes and the first
# rows are not cut off; eval.sh skips a row it scored before on the host, so a cut judging call loses only its
# unfinished rows).
# Carry: the tree without the shipped weights (baselines/weights/*.safetensors) and without the Counting evaluators'
# weights (evaluators/weights/counting-*.safetensors; nothing here scores Counting) is ~15.9 MB; with .whl (1.4 MB),
# o-epp (39.5 MB) and o-srm (6.6 MB) it is ~63.4 MB, under the 64 MiB (67.1 MB) carry. Commands:
#   mkdir -p /work/aside/shipped && mv baselines/weights/*.safetensors evaluators/weights/counting-*.safetensors \
#     /work/aside/shipped/   # back after the lease; never commit their deletion
#   bash benchmarks/device/campaign.sh restore o-epp o-srm   # call 1: runs/ holds exactly these two
#   export T0=$(date +%s); export END=<budget_left_s - 60, at most 560>; export LEASE=<name>
#   bash benchmarks/device/lease-2026-11-29d.sh go      # every call, carry [".whl", "runs"]
#   bash benchmarks/device/campaign.sh join <files_at>  # after every call, in one tool block with the next call;
#     # then rm runs/o-epp.safetensors runs/o-srm.safetensors (runs/ holds o-epm and o-g16m from call 2 on)
#   bash benchmarks/device/campaign.sh save runs/o-epm.safetensors runs/o-g16m.safetensors   # at the lease's end
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-29d; rm -rf $L; mkdir -p $L
STOP=34000
RUNS=(g16m epm)
SUFFIX=seqmix0.5-ov0.95-anneal61M
JUDGE_JOBS=()
judge_at_095 g16m unet-s-g16-gc:$SUFFIX epm paper:$SUFFIX
arm() {  # GPU NAME PRESET FROM: o-NAME from FROM (step 30,000) or its carried weights, to STOP
  if [ -z "$(init_of $2)" ] && [ ! -e $W/o-$2/last.pt ]; then
    [ "$(wstep $4)" = 30000 ] || { echo "o-$2: neither runs/o-$2.safetensors nor its start $4 at step 30,000"; return 1; }
  fi
  local graph=1  # unet-s-g16-gc's graph passed on H200s since the fifteenth lease
  [ $3 = paper ] && ! reached $2 $STOP && graph=$(graph_ok $1 even-pixels $3 srm 512)
  GRAPH=$graph PRESET=$3 ep_cont $1 $2 $4 30000 --sequential-mix 0.5 --sequential-overlap 0.95
}
judge() {  # GPU...: the completion probe of both arms, then JUDGE_JOBS, once both reached STOP
  local r w=()
  for r in ${RUNS[*]}; do
    reached $r $STOP || { echo "o-$r at $(wstep $(latest $r)) of $STOP: not judged yet"; return 1; }
    w+=($(latest $r))
  done
  [ $(left) -ge ${JUDGE_MIN_S:-300} ] || { echo "$(left) s left: judged in the next call"; return 1; }
  CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_even_pixels_completion.py ${w[*]} \
    -n 200 --missing 1 4 --device cuda
  for r in ${w[*]}; do  # where the last patch is lost: the count read, or the draw (thirty-third session's probe)
    CUDA_VISIBLE_DEVICES=$1 timeout $(left) python benchmarks/probe_completion_origin.py $r -n 200 --trajectory --device cuda
  done
  deal_each race_job ${#JUDGE_JOBS[@]} "$@"
}
case $1 in
go)
  g=($(seq 0 $((NGPU - 1))))
  arm ${g[0]} g16m unet-s-g16-gc runs/o-srm.safetensors > $L/g16m 2>&1 &
  arm ${g[$(( NGPU > 1 ? 1 : 0 ))]} epm paper runs/o-epp.safetensors > $L/epm 2>&1 &
  wait
  once judge judge ${g[*]} > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
