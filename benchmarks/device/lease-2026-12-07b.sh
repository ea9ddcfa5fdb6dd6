# Lease 2026-12-07b (planned in the fifty-seventh session): the Counting classifiers fine-tuned open-set (evaluator
# version 3), one call of one H100 or H200.
# Why: the shipped classifiers (version 2) must name a digit pair and an object count for every image, so a sample that
# draws the test set's objects and no numbers scores 0.124 accuracy on polygons and 0.058 on stars, and its object
# count reads one low on 87% of polygons images (benchmarks/check_counting_evaluator.py, "the numbers left out";
# docs/counting.md). Our SRMs' parallel samples are such samples (docs/baselines.md, "the capacity race, run"). The
# open-set heads read "no pair" (one number or both not drawn) and "no object", which cannot meet the rule.
# What runs, per shape (stars, then polygons): `srm-bench train-evaluator counting-SHAPE --open-set --init
# evaluators/weights/counting-SHAPE.safetensors` (the shipped version-2 weights, heads widened so that they first
# read as before), 200,000 classifier-mode training images of which 10% lack both numbers, 10% one number and 5% the
# objects, 3,000 steps at batch 512, lr 5e-4 (cosine), seed 0; the held-out report (10,000 images with the test
# backgrounds, the same shares) gives each head's accuracy and the "no pair" / "no object" recall and false-alarm
# rates, and the canonical test set's accuracy and consistency. A run cut short keeps its checkpoint in /tmp/ev3 and
# the same command on the same host continues it.
# Cost (estimates): the shipped weights' 12,000 steps took ~600 s on one H200 (50 ms a step) and 600,000 images ~90 s
# with 16 workers, so ~150 s of training and ~35 s of images a shape: both shapes in one call of ~450 s.
# Pass (fixed now, on the held-out report): every head (pair, objects, vertex set) and consistency >= 0.999 (the
# paper's "over 99.9%"; the held-out images include the open-set ones), "no pair" and "no object" recall >= 0.999 and
# false alarms <= 0.001, canonical accuracy and consistency >= 0.998. A fine-tune that misses it (an --augment
# fine-tune of the stars weights at this lr cost clean accuracy: docs/counting.md) is not shipped; the next try is a
# full-length open-set training from scratch (12,000 steps, two calls a shape, as the shipped ones). Then, on the
# development CPU: the weights and their pins into evaluators/weights/ (evaluator version 3 from the pins'
# `open_set`), `python benchmarks/check_counting_evaluator.py --robust-n 0` again (the "numbers left out" floor must
# fall to ~0 accuracy), and the shipped `srm-counting-stars` rows drawn again under version 3 before they ship (the
# reproduce check compares against them). A miss keeps version 2 and says why in docs/counting.md.
# Commands (carry [".whl"]; both evaluators' weights must travel, runs/ need not; the shipped baseline weights,
# docs/img/ and leaderboard/results/ set aside; `bash benchmarks/device/travel_size.sh .whl`):
#   export T0=$(date +%s); export END=560; export LEASE=2026-12-07b
#   bash -c 'source benchmarks/device/setup.sh'; bash benchmarks/device/lease-2026-12-07b.sh go
# or beside o-ch's eager training (under the graph once its eager check passed) in the same call (carry [".whl",
# "runs"], the stars evaluator's weights kept in the tree: 57.7 MiB), one LEASE for both scripts (setup.sh sets a
# host's runs aside when LEASE changes):
#   export T0=$(date +%s); export END=560; export LEASE=2026-12-05c; export COMPILE=0; export STOP=54700
#   export COOLDOWN=10000; bash -c 'source benchmarks/device/setup.sh'
#   bash benchmarks/device/lease-2026-12-07b.sh go > /tmp/ev3.log 2>&1 & bash benchmarks/device/lease-2026-12-05b.sh go; wait
#   cat /tmp/ev3.log   # the same command in every call of the session: a shape done is skipped, one cut short continues
# Back: $OUT/counting-weights/ (both safetensors and counting-weights.json, 6.8 MB each) and $OUT/lease-07b.txt.
source benchmarks/device/setup.sh
source benchmarks/device/lease.sh
[ "${1:-}" = go ] || { echo "usage: $0 go" >&2; exit 2; }
R=/tmp/results L=/tmp/lease-07b
mkdir -p $R $L /tmp/ev3 $OUT/counting-weights
[ -e /tmp/ev3/counting-weights.json ] || cp evaluators/weights/counting-weights.json /tmp/ev3/
ev3() {  # SHAPE: fine-tuned open-set into /tmp/ev3 (its pin merged into /tmp/ev3/counting-weights.json)
  [ $(left) -ge 120 ] || { echo "counting-$1: $(left) s left, not started"; return 1; }
  srm-bench train-evaluator counting-$1 -o /tmp/ev3 --open-set --init evaluators/weights/counting-$1.safetensors \
    --n-train 200000 --steps 3000 --batch-size 512 --lr 5e-4 --seed 0 --workers 14 --device cuda \
    --checkpoint /tmp/ev3/counting-$1.ckpt --max-seconds $(( $(left) - 75 )) > $L/$1.json 2> $L/$1.err
  grep -q "no weights written" $L/$1.err && { echo "counting-$1: stopped early, checkpoint kept"; return 1; }
  [ -e /tmp/ev3/counting-$1.safetensors ]
}
for shape in stars polygons; do
  once ev3-$shape ev3 $shape
  echo "== counting-$shape"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({k: r.get(k) for k in \
    ('steps_done', 'train_seconds', 'generation_seconds', 'device', 'held_out', 'canonical_test')}))" $L/$shape.json \
    2>/dev/null || tail -3 $L/$shape.err
done > $OUT/lease-07b.txt
cp /tmp/ev3/counting-*.safetensors /tmp/ev3/counting-weights.json $OUT/counting-weights/ 2>/dev/null
cat $OUT/lease-07b.txt
ls -la $OUT/counting-weights
