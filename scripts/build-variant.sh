#!/usr/bin/env bash
# build-variant.sh BUILD_DIR NAME "NVCC FLAGS" [BENCH...]: the P2P device
# benchmarks (default put-bw put-latency signal-pingpong) compiled again
# from BUILD_DIR's settings, with extra nvcc flags (a device-side knob,
# e.g. -DSOME_MACRO=2) or none (the headers as they are now, BUILD_DIR not
# rebuilt), into .gpu/var/NAME, linked against BUILD_DIR's library: a
# variant for scripts/gpu-ab.sh (gpu-ab.sh BUILD_DIR BASE_DIR
# .gpu/var/NAME ...). The device API is header-only, so the library needs
# no rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
B=$(cd "${1:?usage: build-variant.sh BUILD_DIR NAME FLAGS [BENCH...]}" && pwd)
name=${2:?name}
flags=${3?flags (may be "")}
shift 3
benches=("$@")
[ ${#benches[@]} -gt 0 ] || benches=(put-bw put-latency signal-pingpong)
out=$PWD/.gpu/var/$name
mkdir -p "$out"
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt")
for b in "${benches[@]}"; do
  t=gshmem-perf-dev-$b
  d=$B/apps/perf/device/CMakeFiles/$t.dir
  tmp=$(mktemp -d)
  # each object of the target as build.make compiles it (flags.make's
  # variables), plus the flags; the link as link.txt says, on these objects
  mkvar() { sed -n "s/^$1 = //p" "$d/flags.make"; }
  objs=()
  for o in $(tr -d '"' <"$d/objects1"); do
    src=$(sed -n "s|^.*-c \(/[^ ]*\.cu\) -o $o\$|\1|p" "$d/build.make" | head -1)
    if [ -z "$src" ]; then objs+=("$B/apps/perf/device/$o"); continue; fi
    # shellcheck disable=SC2046,SC2086
    (cd "$B/apps/perf/device" && "$nvcc" -forward-unknown-to-host-compiler $(mkvar CUDA_DEFINES) \
      $(mkvar CUDA_INCLUDES) $(mkvar CUDA_FLAGS) $flags -x cu -c "$src" -o "$tmp/$(basename "$o")")
    objs+=("$tmp/$(basename "$o")")
  done
  link=$(sed "s|@CMakeFiles/$t.dir/objects1|${objs[*]}|; s| -o $t | -o $out/$t |" "$d/link.txt")
  (cd "$B/apps/perf/device" && eval "$link")
  rm -rf "$tmp"
done
echo "build-variant: $out: ${benches[*]} with $flags"
