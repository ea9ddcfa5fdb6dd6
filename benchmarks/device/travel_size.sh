# What a device call would carry, measured here before the call: the working tree (tracked and
# untracked-not-ignored files that exist) plus the carried paths. The device tool refuses more than 64 MiB.
# In the fortieth session it refused a tree + carry of 62.7 MiB by file sizes (65.3 MiB by 4 KiB disk blocks,
# 65.7 MB) and took 55.9 MiB; which of these measures it applies is not known, so this check applies both:
# file sizes under 64,000,000 bytes and disk blocks under 64 MiB. Run from the repository root:
#   bash benchmarks/device/travel_size.sh .whl runs        # the paths you will name in carry
# Prints the three figures and the largest files; exits 1 when either limit is reached.
set -euo pipefail
list=$(mktemp); trap 'rm -f $list' EXIT
git ls-files -z --cached --others --exclude-standard > $list
for p in "$@"; do
  [ -e "$p" ] || { echo "travel_size: $p does not exist (a carried path that is missing travels as nothing)" >&2; continue; }
  find "$p" -type f -print0 >> $list
done
python3 - $list <<'EOF'
import os, sys

names = [n for n in open(sys.argv[1], "rb").read().decode().split("\0") if n and os.path.isfile(n)]
stats = {n: os.stat(n) for n in names}
size = sum(s.st_size for s in stats.values())
blocks = sum(s.st_blocks * 512 for s in stats.values())
print(f"{len(names)} files: {size / 2**20:.2f} MiB by file sizes ({size / 1e6:.2f} MB), {blocks / 2**20:.2f} MiB by disk blocks")
for n in sorted(names, key=lambda n: -stats[n].st_size)[:5]:
    print(f"  {stats[n].st_size / 2**20:6.2f} MiB  {n}")
over = size >= 64_000_000 or blocks >= 64 * 2**20
print("over the device's 64 MiB (by one measure or both): set more aside or carry less" if over else "fits")
sys.exit(1 if over else 0)
EOF
