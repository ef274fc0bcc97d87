#!/usr/bin/env bash
# gpu-pack.sh [BUILD_DIR]: packs a CUDA build made here for the GPU machine
# (see ../shared/GPU_MACHINE.md), under the device tool's 64 MiB limit:
# .gpu/lib gets the Criterion runtime libraries that machine lacks, .gpu/bin
# fi_pingpong (the provider anchor of scripts/queue-bench.sh), and
# .gpu/ip iproute2's ip, .gpu/build.tar.xz the build without its object files (CMakeFiles stays:
# the install test runs cmake --install). There, in the checkout:
#   tar -xJf .gpu/build.tar.xz && bash scripts/gpu-check.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
[ -f "$B/CMakeCache.txt" ] || { echo "gpu-pack: $B is not a build folder" >&2; exit 2; }
mkdir -p .gpu/lib .gpu/bin
command -v fi_pingpong >/dev/null && cp -L "$(command -v fi_pingpong)" .gpu/bin/
for l in libcriterion.so.3 libgit2.so.1.5 libnanomsg.so.5 libmbedtls.so.14 libmbedx509.so.1 \
         libmbedcrypto.so.7 libhttp_parser.so.2.9 libssh2.so.1; do
  cp -L "/lib/x86_64-linux-gnu/$l" .gpu/lib/
done
# iproute2's ip, which that machine lacks (tests/cluster/cluster.sh makes
# its simulated nodes with it): the binary and its libraries but libc,
# behind a wrapper that scripts/gpu-env.sh puts on PATH there
if command -v ip >/dev/null; then
  mkdir -p .gpu/ip/lib
  cp -L "$(command -v ip)" .gpu/ip/ip.bin
  ldd "$(command -v ip)" | awk '/=> \// { print $3 }' | grep -v '/libc\.so' |
    while read -r l; do cp -L "$l" .gpu/ip/lib/; done
  printf '%s\n' '#!/bin/sh' 'd=$(dirname "$(readlink -f "$0")")' \
    'LD_LIBRARY_PATH=$d/lib exec "$d/ip.bin" "$@"' >.gpu/ip/ip
  chmod +x .gpu/ip/ip
fi
# (not the test venvs: their interpreter paths are this machine's; the
# tests make them again there)
tar -cJf .gpu/build.tar.xz --exclude='*.o' --exclude='*.a' --exclude='*.cmake.log' \
  --exclude="$B/python-venv*" "$B"
du -sh .gpu/build.tar.xz .gpu/lib | sed 's/^/gpu-pack: /'
