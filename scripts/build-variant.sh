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
for b in "${benches[@]}"; do
  d=$B/apps/perf/device/CMakeFiles/gshmem-perf-dev-$b.dir
  tmp=$(mktemp -d)
  objs=()
  for o in $(tr -d '"' <"$d/objects1"); do
    src=$(sed -n "s|^.*-c \(/[^ ]*\.cu\) -o $o\$|\1|p" "$d/build.make" 2>/dev/null | head -1)
    if [ -z "$src" ]; then objs+=("$B/apps/perf/device/$o"); continue; fi
    # shellcheck disable=SC2086
    (cd "$B/apps/perf/device" && /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler \
      --options-file "$d/includes_CUDA.rsp" $(sed -n 's/^CUDA_FLAGS = //p' "$d/flags.make") \
      $flags -x cu -c "$src" -o "$tmp/$(basename "$o")")
    objs+=("$tmp/$(basename "$o")")
  done
  (cd "$B/apps/perf/device" && g++ "${objs[@]}" -o "$out/gshmem-perf-dev-$b" \
    @"CMakeFiles/gshmem-perf-dev-$b.dir/linkLibs.rsp" \
    -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib)
  rm -rf "$tmp"
done
echo "build-variant: $out: ${benches[*]} with $flags"
