#!/usr/bin/env bash
# Installs what gshmem needs to build and test on Debian 12 / Ubuntu,
# skipping apt entirely when everything is already there.
set -euo pipefail
# hipcc (Debian's ROCm 5.2 HIP compiler, clang-15): scripts/test.sh compiles
# the device API with it for gfx90a (compile check only, no AMD GPU needed).
# python3-numpy, python3-torch (1.13, CPU): the Python package's tests
# (tests/python, run by /usr/bin/python3; about a minute of apt).
# iproute2, util-linux: the simulated nodes of tests/cluster (ip, unshare,
# nsenter); slurmctld, slurmd, slurm-client: a Slurm cluster on them
# (tests/cluster/slurm.sh: jobs under srun --mpi=pmix; about 15 s of apt).
# lintian: tests/multipe/test_package.c checks the .deb packages with it.
pkgs=(build-essential cmake pkg-config libfabric-dev libfabric-bin libhwloc-dev
      libcriterion-dev libopenmpi-dev openmpi-bin libpmix-dev hipcc
      python3-numpy python3-torch iproute2 util-linux slurmctld slurmd slurm-client
      lintian)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
