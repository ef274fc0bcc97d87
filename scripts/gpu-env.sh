# Sourced by the scripts that run on the GPU machine (see
# ../shared/GPU_MACHINE.md):  . scripts/gpu-env.sh BUILD_DIR
# - makes the build's configure-time source path lead to this checkout (the
#   build was made on the development machine and carried along);
# - library paths: Criterion's runtime (.gpu/lib), the build, and NCCL from
#   the Python environment (the apps' baselines dlopen libnccl.so.2);
# - the machine's rules: no NVLink multicast, loopback only; mpirun as root.
gpu_env_build=${1:?usage: . scripts/gpu-env.sh BUILD_DIR}
gpu_env_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case $gpu_env_build in /*) ;; *) gpu_env_build=$PWD/$gpu_env_build ;; esac
gpu_env_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$gpu_env_build/CMakeCache.txt")
if [ -n "$gpu_env_src" ] && [ ! -e "$gpu_env_src" ]; then
  mkdir -p "$(dirname "$gpu_env_src")" && ln -sfn "$gpu_env_root" "$gpu_env_src"
fi
gpu_env_py=$(python3 -c "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))" 2>/dev/null)
export LD_LIBRARY_PATH=$gpu_env_root/.gpu/lib:$gpu_env_build${gpu_env_py:+:$gpu_env_py/nvidia/nccl/lib}:${LD_LIBRARY_PATH:-}
export GSHMEM_TEST_BUILD_DIR=$gpu_env_build
# ip for the simulated nodes (tests/cluster), carried by scripts/gpu-pack.sh
command -v ip >/dev/null || [ ! -x "$gpu_env_root/.gpu/ip/ip" ] || export PATH=$gpu_env_root/.gpu/ip:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 FI_TCP_IFACE=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# The network path between GPUs on one machine, as between nodes: P2P off,
# the device queue -> engine -> libfabric tcp, on loopback only. Run as
#   env "${gpu_net_env[@]}" PROG ARGS
gpu_net_env=(GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=ofi "GSHMEM_OFI_PROVIDER=tcp;ofi_rxm"
             FI_TCP_IFACE=lo)

# NVSHMEM beside gshmem (perf-device.sh, gpu-ab.sh, gpu-prof-putbw.sh): its
# root (GSHMEM_NVSHMEM_ROOT, else the Python environment's; empty: none)
# and the launch of its 2-PE programs: mpirun, P2P only (its remote
# transport off), no NVLink multicast. Run as
#   LD_LIBRARY_PATH=$gpu_env_nvshmem/lib:$LD_LIBRARY_PATH "${gpu_nvshmem_mpirun[@]}" PROG ARGS
gpu_env_nvshmem=${GSHMEM_NVSHMEM_ROOT:-${gpu_env_py:+$gpu_env_py/nvidia/nvshmem}}
gpu_nvshmem_mpirun=(mpirun --allow-run-as-root -np 2 --bind-to none -x LD_LIBRARY_PATH
                    -x NVSHMEM_REMOTE_TRANSPORT=none -x NVSHMEM_DISABLE_NVLS=1
                    -x NCCL_NVLS_ENABLE=0)

# gpu_run NAME TIMEOUT CMD...: one step of a GPU script, its output in
# $OUT/logs/NAME.log, PASS/FAIL and the time printed; a failure sets status=1.
gpu_run() {
  local name=$1 t=$2 t0=$SECONDS; shift 2
  mkdir -p "$OUT/logs"
  if timeout "$t" "$@" >"$OUT/logs/$name.log" 2>&1; then echo "PASS $name ($((SECONDS - t0)) s)"
  else echo "FAIL $name (status $?, $((SECONDS - t0)) s)"; tail -5 "$OUT/logs/$name.log"; status=1; fi
}

# gpu_pingpong PROVIDER NAME: fi_pingpong's 8 B RDM round trip on loopback
# (the provider's own, .gpu/bin from gpu-pack.sh), log in
# $OUT/logs/pingpong-NAME.log, the round trip printed; nothing without it.
gpu_pingpong() {
  local prov=$1 n=$2 port=$((20000 + RANDOM % 20000))
  command -v fi_pingpong >/dev/null || return 0
  timeout 60 fi_pingpong -p "$prov" -e rdm -S 8 -I 20000 -B $port >/dev/null 2>&1 &
  sleep 0.5
  timeout 60 fi_pingpong -p "$prov" -e rdm -S 8 -I 20000 -P $port 127.0.0.1 \
    >"$OUT/logs/pingpong-$n.log" 2>&1
  wait
  awk '$1 == "8" && NF >= 8 {printf "  %s fi_pingpong 8 B round trip %.2f us\n", n, 2 * $7}' \
    n="$n" "$OUT/logs/pingpong-$n.log"
}
