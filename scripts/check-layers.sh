#!/usr/bin/env bash
# Checks that every layer of gshmem uses only the layers below it (the folders
# are the layers, src/CMakeLists.txt): fails on
#  - an #include of a higher layer's header, of a transport's own folder from
#    outside src/transports (only transports/transport.h), or of another
#    transport's folder from inside one;
#  - a call into (or use of) a symbol defined only in a higher layer's objects
#    or in a transport's folder (nm of the gshmem target's objects in BUILD);
#  - a comparison of a transport's ops->name, or a transport name in a string
#    comparison or lookup, outside src/transports and the settings parsing.
# Usage: scripts/check-layers.sh [BUILD]      after the build (default build)
#        scripts/check-layers.sh --sources-only   includes and names only
#        scripts/check-layers.sh --self-test  plants violations in temporary
#                                             trees and expects each one found
# Prints one line per violation and a summary line "check-layers: ...";
# exits 1 on violations, 2 when it could not check (e.g. no build).
set -euo pipefail
args=()
for a in "$@"; do
  # A build folder given relative to the caller's directory.
  if [[ $a != -* && -d $a ]]; then a=$(cd "$a" && pwd); fi
  args+=("$a")
done
cd "$(dirname "$0")/.."
exec python3 scripts/check_layers.py "${args[@]}"
