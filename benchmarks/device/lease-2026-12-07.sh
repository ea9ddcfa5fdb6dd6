# Lease 2026-12-07 (planned in the fifty-fifth session; not yet run): Counting's design step after the capacity race,
# to run only if that race's rule (benchmarks/device/lease-2026-12-05b.sh, docs/baselines.md "Counting: the capacity
# race, run") says that capacity is not the lever. Should capacity be the lever, o-ch's continuation runs instead.
# What runs: `o-pq`, preset `paper-q` (every level of the paper's Counting UNet, its 128-pixel one included, at a
# quarter of its channels: 5.90M parameters, 29.0 GFLOPs a forward per image), SRM, Counting Polygons, from scratch with
# the authors' Counting recipe: batch 56, lr 1e-4 after the preset's 5,000-step warm-up, EMA 0.9999 (the preset's), seed
# 0, the authors' zero-patch rule; compiled and under --cuda-graph once benchmarks/check_cuda_graph.py passed for it at
# batch 56 on the host (else without); evaluated every 8,000 steps (0.45M images) on 64 test images (256 NFE, eta 0),
# whose eval.csv logs consistency and top_objects; to STOP (48,000 steps = 2.69M images, the control o-cr2's count;
# the run goes on past it only on the decision below). Its rows at STOP, with SCORE=1 in the call that reaches it: the
# 500 test images at 1000 NFE, eta 1, seed 0, predicted order, parallel, predicted order + overlap 0.95, into
# $R/count-pq (the jobs one after another with EVAL_PER_GPU=1; BATCH=125 lets a job cut short continue on the host).
# The decision, fixed now, against o-cr2 at 2.68M images (predicted order: accuracy 0.060, consistency 0.150, 90% of
# the samples read as one object; parallel: 0.022 / 0.018) and o-ch's rows at the same count:
#   - the authors' level and recipe are the lever if o-pq's consistency in predicted order is above both at Fisher
#     p < 0.01 (`srm-bench compare -m consistency`) with fewer than half its samples read as one object (`python
#     benchmarks/check_counting_objects.py`), or its parallel consistency is above both at p < 0.01 with no object
#     count in half its samples: then o-pq goes on to the authors' ~14M images (STOP=250000) across leases;
#   - otherwise neither width nor the full-resolution level moves Counting at this image count, and the next step is
#     the image count itself: the better of o-ch and o-pq continued to ~14M images before any other design.
# Cost (estimates, to be measured in call 1): 2.3x half-s2's CPU step per image, so ~1,000 images/s (~18 steps/s) on
# one H100 compiled under the graph against half-s2's ~2,400: 48,000 steps in ~45 minutes, three to five calls of one
# host, plus the graph check (<= 4 minutes) and compile (~3 minutes) on each fresh host. Weights come back in every
# call (11.8 MB in bf16, one part): keep them at once (`campaign.sh join <files_at>`, `campaign.sh save
# runs/o-pq.safetensors`).
# Commands (carry [".whl", "runs"]; runs/ without o-pq in call 1 (FRESH=1), later runs/o-pq.safetensors; set aside the
# shipped baseline weights, the stars evaluator's weights, docs/img/ and leaderboard/results/ as for lease 2026-12-05b
# and check with `bash benchmarks/device/travel_size.sh .whl runs`):
#   export T0=$(date +%s); export END=560; export LEASE=2026-12-07; export FRESH=1   # FRESH in call 1 only
#   bash -c 'source benchmarks/device/setup.sh'; bash benchmarks/device/lease-2026-12-07.sh go
# with SCORE=1 EVAL_PER_GPU=1 BATCH=125 in the call that reaches STOP; send calls back to back in one tool block.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
R=/tmp/results L=/tmp/lease-07 STOP=${STOP:-48000}
count_lease "${1:-}" pq paper-q 56 1e-4 8000 /tmp/results/count-pq  # lease.sh: count_go
