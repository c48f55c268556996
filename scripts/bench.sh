#!/usr/bin/env bash
# Times `kmerge merge3` on the large real manifests in ../shared/perf/<name>/ and reports the
# time per MB. Each folder holds base.yaml and theirs.yaml (two upstream releases); ours.yaml
# is made here by a scripted local edit of base.yaml (replica counts, image tags, a few
# descriptions), as a user's fork of the upstream file would differ.
#
# Usage: scripts/bench.sh [RUNS]   (default 5 runs per file; uses hyperfine when installed)
# Not part of CI: speed is shown here, never asserted by a timed test.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
perf="$repo/../shared/perf"
runs="${1:-5}"
cd "$repo"

if [ ! -d "$perf" ]; then
  echo "bench: $perf not found; the shared corpus must sit beside the repository" >&2
  exit 2
fi

cargo build --release --quiet
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$repo/$target" ;; esac
kmerge="$target/release/kmerge"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The local edit: bump the first three replica counts, suffix the first three image tags,
# and append a sentence to every 200th plain one-line description.
derive_ours() {
  python3 - "$1" "$2" <<'PY'
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().split("\n")
replicas = images = descriptions = 0
for i, line in enumerate(lines):
    m = re.match(r"^(\s*replicas: )(\d+)\s*$", line)
    if m and replicas < 3:
        lines[i] = f"{m.group(1)}{int(m.group(2)) + 1}"
        replicas += 1
        continue
    m = re.match(r"^(\s*(?:- )?image: )([^\s\"'#]+)\s*$", line)
    if m and images < 3:
        lines[i] = f"{m.group(1)}{m.group(2)}-local"
        images += 1
        continue
    m = re.match(r"^(\s*description: )([^\s\"'|>].*)$", line)
    if m and " #" not in m.group(2):
        descriptions += 1
        if descriptions % 200 == 0:
            lines[i] = line.rstrip() + " Local edit."
open(dst, "w", encoding="utf-8").write("\n".join(lines))
PY
}

now_ns() { date +%s%N; }

printf '%-32s %8s %10s %10s %6s\n' "case" "MB" "mean ms" "ms/MB" "exit"
total_mb=0
total_ms=0
for dir in "$perf"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/base.yaml" ] && [ -f "$dir/theirs.yaml" ] || continue
  ours="$work/$name.ours.yaml"
  out="$work/$name.out.yaml"
  derive_ours "$dir/base.yaml" "$ours"
  bytes=$(($(stat -c %s "$dir/base.yaml") + $(stat -c %s "$ours") + $(stat -c %s "$dir/theirs.yaml")))
  mb=$(python3 -c "print(f'{$bytes / 1e6:.2f}')")
  cmd=("$kmerge" merge3 --base "$dir/base.yaml" --ours "$ours" --theirs "$dir/theirs.yaml" -o "$out")
  set +e
  "${cmd[@]}" 2>/dev/null
  code=$?
  set -e
  if command -v hyperfine >/dev/null 2>&1; then
    json="$work/$name.json"
    hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$json" \
      "$(printf '%q ' "${cmd[@]}")" >/dev/null 2>&1
    ms=$(python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['mean'] * 1000:.1f}\")" "$json")
  else
    sum=0
    for _ in $(seq "$runs"); do
      start=$(now_ns)
      "${cmd[@]}" >/dev/null 2>&1 || true
      sum=$((sum + $(now_ns) - start))
    done
    ms=$(python3 -c "print(f'{$sum / $runs / 1e6:.1f}')")
  fi
  per_mb=$(python3 -c "print(f'{$ms / $mb:.1f}')")
  printf '%-32s %8s %10s %10s %6s\n' "$name" "$mb" "$ms" "$per_mb" "$code"
  total_mb=$(python3 -c "print($total_mb + $mb)")
  total_ms=$(python3 -c "print($total_ms + $ms)")
done
python3 -c "print(f'all: {$total_mb:.2f} MB of input (base+ours+theirs) in {$total_ms:.1f} ms per round: {$total_ms / $total_mb:.1f} ms/MB, {$total_mb / $total_ms * 1000:.1f} MB/s')"
