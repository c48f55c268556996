#!/usr/bin/env bash
# Fuzzes kmerge with cargo-fuzz (libFuzzer).
#
#   scripts/fuzz.sh parse 600      # the parser, for 600 seconds
#   scripts/fuzz.sh merge3 600     # merge_bytes under every policy, for 600 seconds
#   scripts/fuzz.sh merge3 600 -max_len=8192   # extra arguments go to libFuzzer
#   scripts/fuzz.sh tmin merge3 fuzz/artifacts/merge3/crash-…   # minimise a crash
#
# Targets live in fuzz/fuzz_targets/; the invariants they assert are fuzz/invariants.rs.
# A `merge3` input is `base NUL ours NUL theirs`. The seed corpus is rebuilt on every run from
# tests/cases/** and tests/conformance/** (for merge3, their base/ours/theirs triples)
# into fuzz/corpus/<target>/, which keeps what libFuzzer finds between runs (not committed).
# Crashes land in fuzz/artifacts/<target>/: minimise one with `tmin`, save it under
# tests/fuzz-regressions/<target>/<name>, and `cargo test --release --test fuzz_regressions`
# replays it in CI.
#
# libFuzzer needs nightly compiler features (-Zsanitizer): the machine's stable toolchain
# provides them with RUSTC_BOOTSTRAP=1 (no nightly needed; the first build takes ~7 minutes).
# libFuzzer runs one process on one core and stops at the first crash; to go on past crashes
# pass `-fork=1 -ignore_crashes=1`.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "scripts/fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked
fi

export RUSTC_BOOTSTRAP=1
fuzz() { cargo fuzz "$@"; }

# Copies a file into a corpus folder under its content hash (so reruns add no duplicates).
add_seed() {
  local dir=$1 file=$2
  local hash
  hash=$(sha1sum "$file" | cut -c1-40)
  [ -e "$dir/$hash" ] || cp "$file" "$dir/$hash"
}

seed_corpus() {
  local target=$1 dir="fuzz/corpus/$1"
  mkdir -p "$dir"
  local roots=("tests/cases" "tests/conformance")
  case "$target" in
    parse)
      while IFS= read -r -d '' f; do add_seed "$dir" "$f"; done \
        < <(find "${roots[@]}" -name '*.yaml' -type f -print0)
      ;;
    merge3)
      local tmp
      tmp=$(mktemp)
      # Case folders name the versions base/ours/theirs, conformance ones original/dest/updated.
      while IFS= read -r -d '' d; do
        if [ -f "$d/base.yaml" ]; then
          { cat "$d/base.yaml"; printf '\0'; cat "$d/ours.yaml"; printf '\0'; cat "$d/theirs.yaml"; } > "$tmp"
        else
          { cat "$d/original.yaml"; printf '\0'; cat "$d/dest.yaml"; printf '\0'; cat "$d/updated.yaml"; } > "$tmp"
        fi
        add_seed "$dir" "$tmp"
      done < <(find "${roots[@]}" -type d \( -exec test -f '{}/theirs.yaml' \; -o -exec test -f '{}/updated.yaml' -a -f '{}/original.yaml' \; \) -print0)
      rm -f "$tmp"
      ;;
  esac
}

[ $# -ge 1 ] || usage
if [ "$1" = tmin ]; then
  [ $# -ge 3 ] || usage
  fuzz tmin -O "$2" "$3" -- -runs=20000
  exit
fi

target=$1
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
case "$target" in parse | merge3) ;; *) echo "scripts/fuzz.sh: unknown target $target" >&2; usage ;; esac

seed_corpus "$target"
echo "scripts/fuzz.sh: $target for ${seconds}s, corpus fuzz/corpus/$target ($(ls "fuzz/corpus/$target" | wc -l) files)" >&2
fuzz run -O "$target" "fuzz/corpus/$target" -- \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
  -dict=fuzz/yaml.dict -print_final_stats=1 "$@"
