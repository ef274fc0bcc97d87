#!/usr/bin/env bash
# ptx-compare.sh REV_A [REV_B]: is the PTX of every CUDA source the same at
# two commits (REV_B default: the working tree)? Each side is configured in
# the same scratch folder (paths end up in the PTX: __FILE__ strings, line
# tables), compiled to PTX with the build's own flags (scripts/ptx_snapshot.py),
# and compared after removing what only a file's path or line numbers
# change: the hash in names of internal-linkage symbols (it hashes the
# source's path) and the line tables (.file and .loc lines). __LINE__ values
# in the code itself (device asserts) still count as differences.
# GSHMEM_PTX_KEEP=1 keeps the two PTX folders (their path is printed).
# Prints the files that differ; exit 0 when none does.
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=${2:-}
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
scratch=$(mktemp -d /tmp/gshmem-ptx-XXXXXX)
tree=/tmp/gshmem-ptx-tree
trap 'rm -rf "$tree"; [ -n "${GSHMEM_PTX_KEEP:-}" ] || rm -rf "$scratch"' EXIT
snap() {   # snap REV|"" OUT
  rm -rf "$tree"
  if [ -n "$1" ]; then
    mkdir -p "$tree" && git archive "$1" | tar -x -C "$tree"
  else
    mkdir -p "$tree" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree"
  fi
  cmake -S "$tree" -B "$tree/build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$2.cmake.log" 2>&1
  python3 scripts/ptx_snapshot.py "$tree/build" "$2" >/dev/null
  for f in "$2"/*.ptx; do
    sed -E -i 's/_INTERNAL_[0-9a-f]{8}_/_INTERNAL_X_/g; s/_GLOBAL__N__[0-9a-f]{8}_/_GLOBAL__N__X_/g; /^\s*\.(file|loc)\s/d' "$f"
  done
}
snap "$a" "$scratch/a"
snap "$b" "$scratch/b"
echo "ptx-compare: $(ls "$scratch/a" | wc -l) sources at ${a}, $(ls "$scratch/b" | wc -l) at ${b:-the working tree}"
if diff -rq "$scratch/a" "$scratch/b"; then
  echo "ptx-compare: identical"
else
  exit 1
fi
