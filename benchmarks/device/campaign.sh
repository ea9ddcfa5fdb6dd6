# Weights of runs that are still training, kept across sessions. runs/ is not kept from one
# session to the next (a checkpoint of 21.9M Even Pixels images was lost that way, lease o), and
# the bf16 weights of every run in training (4-19 MB each) do not fit the 60 MiB tree beside the
# shipped ones. So `save` commits them under campaign/ in one commit and takes them out again in
# the next: they live in the history only, and campaign/INDEX.tsv (tracked, a line per file: name,
# commit, sha256, step, images, gpu_hours) says where. `restore` writes the newest copy of each
# name back to runs/ and checks its hash. Run from the repository root:
#   bash benchmarks/device/campaign.sh save runs/o-srm.safetensors runs/o-ddpm.safetensors
#   bash benchmarks/device/campaign.sh restore          # every name in the index
#   bash benchmarks/device/campaign.sh restore o-srm    # one name
#   bash benchmarks/device/campaign.sh record FILE [FIELD...]  # step, images, gpu_hours of a weights file
#   bash benchmarks/device/campaign.sh join DIR         # a device call's files_at: every weights-NAME.part-*
#       # joined into runs/NAME.safetensors (weights-NAME-ema2 into runs/NAME-ema2.safetensors, as train.sh
#       # reads it), every compile-cache-NAME.part-* into runs/NAME.compile-cache.gz; a weights file whose
#       # size disagrees with its header (a part missing) is refused, and nothing is half-written
# Only campaign/ goes into these commits; anything else staged or changed stays as it was.
set -euo pipefail
index=campaign/INDEX.tsv
record() {  # FILE [FIELD...]: step, images, gpu_hours (or the FIELDs, e.g. init.step) of a weights file,
  # tab-separated, "" for a missing one (the header read directly: no packages)
  python3 - "$@" <<'EOF'
import json, struct, sys
with open(sys.argv[1], "rb") as f:
    header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
rec = json.loads(header.get("__metadata__", {}).get("record", "{}"))


def field(path):
    value = rec
    for key in path.split("."):
        value = value.get(key, "") if isinstance(value, dict) else ""
    return str(value)


print("\t".join(field(k) for k in sys.argv[2:] or ("step", "images", "gpu_hours")))
EOF
}
whole() {  # FILE: its size is what its safetensors header says (no part of a split file missing)
  python3 - "$1" <<'EOF' 2>/dev/null
import json, os, struct, sys
with open(sys.argv[1], "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
end = max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
sys.exit(os.path.getsize(sys.argv[1]) != 8 + n + end)
EOF
}
case ${1:-} in
save)
  shift
  [ $# -gt 0 ] || { echo "campaign.sh save: name the weights files to keep" >&2; exit 2; }
  mkdir -p campaign
  [ -e $index ] || printf 'name\tcommit\tsha256\tstep\timages\tgpu_hours\n' > $index
  names=()
  for f in "$@"; do
    [ -f "$f" ] || { echo "campaign.sh save: $f does not exist" >&2; exit 1; }
    n=$(basename "$f" .safetensors); names+=("$n")
    cp "$f" "campaign/$n.safetensors"
  done
  git add campaign/*.safetensors
  git commit -q -m "Campaign weights, kept in the history only (out of the tree in the next commit): ${names[*]}" \
    -- campaign/*.safetensors
  kept=$(git rev-parse HEAD)
  for f in "$@"; do
    n=$(basename "$f" .safetensors)
    printf '%s\t%s\t%s\t%s\n' "$n" "$kept" "$(sha256sum "$f" | cut -c1-64)" "$(record "$f")" >> $index
  done
  git rm -q campaign/*.safetensors
  git add $index
  git commit -q -m "Campaign weights out of the tree again (kept in ${kept:0:7}, listed in $index)" -- campaign
  echo "kept ${names[*]} in ${kept:0:12}"
  ;;
restore)
  shift
  [ -e $index ] || { echo "campaign.sh restore: no $index" >&2; exit 1; }
  mkdir -p runs
  want=("$@")
  [ ${#want[@]} -gt 0 ] || mapfile -t want < <(tail -n +2 $index | cut -f1 | sort -u)
  for n in "${want[@]}"; do
    line=$(awk -F'\t' -v n="$n" '$1 == n' $index | tail -1)
    [ -n "$line" ] || { echo "campaign.sh restore: $n is not in $index" >&2; exit 1; }
    IFS=$'\t' read -r _ commit sha step images _ <<< "$line"
    git show "$commit:campaign/$n.safetensors" > "runs/$n.safetensors.tmp"
    got=$(sha256sum "runs/$n.safetensors.tmp" | cut -c1-64)
    if [ "$got" != "$sha" ]; then
      rm -f "runs/$n.safetensors.tmp"
      echo "campaign.sh restore: $n from ${commit:0:12} has sha256 $got, the index says $sha" >&2; exit 1
    fi
    mv "runs/$n.safetensors.tmp" "runs/$n.safetensors"
    echo "runs/$n.safetensors: step $step, $images images (${commit:0:12})"
  done
  ;;
record)
  [ -f "${2:-}" ] || { echo "campaign.sh record: ${2:-(no file)} does not exist" >&2; exit 1; }
  shift; record "$@"
  ;;
join)
  d=${2:-}
  [ -d "$d" ] || { echo "campaign.sh join: ${2:-(no folder)} is not a folder (give a device call's files_at)" >&2; exit 1; }
  mkdir -p runs; joined=0
  for first in "$d"/weights-*.part-aa "$d"/compile-cache-*.part-aa; do
    [ -e "$first" ] || continue
    base=$(basename "$first" .part-aa)
    case $base in
      weights-*) out=runs/${base#weights-}.safetensors;;
      *) out=runs/${base#compile-cache-}.compile-cache.gz;;
    esac
    cat "$d/$base".part-* > "$out.tmp"
    if [[ $out == *.safetensors ]] && ! whole "$out.tmp"; then
      rm -f "$out.tmp"
      echo "campaign.sh join: $d/$base.part-* do not make a whole weights file (a part missing?)" >&2; exit 1
    fi
    mv "$out.tmp" "$out"; joined=$((joined + 1))
    if [[ $out == *.safetensors ]]; then
      IFS=$'\t' read -r step images _ <<< "$(record "$out")"
      echo "$out: step $step, $images images, sha256 $(sha256sum "$out" | cut -c1-12)"
    else echo "$out: $(stat -c %s "$out") bytes"; fi
  done
  [ $joined -gt 0 ] || { echo "campaign.sh join: no weights-*.part-* or compile-cache-*.part-* in $d" >&2; exit 1; }
  ;;
*) echo "usage: bash benchmarks/device/campaign.sh save FILE... | restore [NAME...] | record FILE [FIELD...] | join DIR" >&2; exit 2;;
esac
