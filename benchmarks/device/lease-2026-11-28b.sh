# Lease b (twenty-seventh session): the second leg of Even Pixels' count-precision race. In lease a (this session,
# docs/even-pixels-baselines.md "Nineteenth lease") 4,000 steps of `--sequential-mix 0.5 --sequential-overlap 0.95`
# from the shipped weights (o-g16s, step 104,000) raised Table 2's overlap-0.95 rows to 0.344 / 0.310 (predicted /
# random order), against 0.266 / 0.264 for the paper's recipe over the same steps (o-g16p). This lease asks whether
# more of those steps, and a larger share of sampler-shaped rows, go on raising them. Both continue o-g16s to STOP
# (106,800: 2,800 steps, 5.7M images, ~5 minutes at 9.1 steps/s), lr 4e-4 after the usual warm-up, decayed
# linearly to 0 over the continuation, one H200 each under --cuda-graph:
#   GPU 0  o-g16t  `--sequential-mix 0.5 --sequential-overlap 0.95` (o-g16s's own recipe, continued)
#   GPU 1  o-g16u  `--sequential-mix 0.8 --sequential-overlap 0.95` (four rows in five sampler-shaped)
#   GPU 2  o-g16v  `--sequential-mix 1 --sequential-overlap 0.95` (a host of 3+ GPUs: every row sampler-shaped)
#   GPU 3  o-g16w  `--sequential-mix 0.5` alone (a host of 4 GPUs: one patch at a time, no overlap)
# Judged once both reached STOP (`judge`): the completion probe (K = 1 and 4, 200 test images, o-g16s beside them),
# the count probe, and Table 2's two overlap-0.95 rows of each (leaderboard names srm-unet-unet-s-g16-gc-seqmix0.5-
# ov0.95-c2 and -seqmix0.8-ov0.95), plus o-g16s's parallel row (issue 12's bar: parallel <= 0.10).
# Commands (carry [".whl", "runs"], runs/ holding only o-g16s.safetensors in call 1; sudoku weights set aside):
#   export T0=$(date +%s); END=<budget_left_s - 60, at most 560> bash benchmarks/device/lease-2026-11-28b.sh go
#   D=<files_at>; for r in g16t g16u g16v g16w; do [ -e $D/weights-o-$r.part-aa ] && cat $D/weights-o-$r.part-* > runs/o-$r.safetensors; done
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results; W=/tmp/runs
L=/tmp/lease-b; rm -rf $L; mkdir -p $L
FROM=runs/o-g16s.safetensors  # step 104,000 (lease a)
START=104000; STOP=${STOP:-106800}
JUDGE_JOBS=("g16t seqmix0.5-ov0.95-c2 :predicted@0.95" "g16t seqmix0.5-ov0.95-c2 :random@0.95"
  "g16u seqmix0.8-ov0.95 :predicted@0.95" "g16u seqmix0.8-ov0.95 :random@0.95" "g16s seqmix0.5-ov0.95 :parallel")
RUNS=(g16t g16u)
[ $NGPU -ge 3 ] && { RUNS+=(g16v); JUDGE_JOBS+=("g16v seqmix1-ov0.95 :predicted@0.95" "g16v seqmix1-ov0.95 :random@0.95"); }
[ $NGPU -ge 4 ] && { RUNS+=(g16w); JUDGE_JOBS+=("g16w seqmix0.5-c2 :predicted@0.95" "g16w seqmix0.5-c2 :random@0.95"); }
case $1 in
go)
  ep_cont 0 g16t $FROM $START --sequential-mix 0.5 --sequential-overlap 0.95 > $L/g16t 2>&1 &
  ep_cont 1 g16u $FROM $START --sequential-mix 0.8 --sequential-overlap 0.95 > $L/g16u 2>&1 &
  [ $NGPU -ge 3 ] && { ep_cont 2 g16v $FROM $START --sequential-mix 1 --sequential-overlap 0.95 > $L/g16v 2>&1 & }
  [ $NGPU -ge 4 ] && { ep_cont 3 g16w $FROM $START --sequential-mix 0.5 > $L/g16w 2>&1 & }
  wait
  once judge race_judge $FROM $(seq 0 $((NGPU - 1))) > $L/judge 2>&1
  grep -h -v -i warn $L/* 2>/dev/null
  ;;
*) echo "usage: $0 go" >&2; exit 2;;
esac
bash benchmarks/device/collect.sh
