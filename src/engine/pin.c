/* pin.c: binds the engine thread to the CPUs nearest the GPU (hwloc: the
 * GPU's PCI device, its first non-I/O ancestor, that object's cpuset).
 * Every failure falls back to no binding with an INFO line. */
#include <stdio.h>
#include <hwloc.h>

#include "proxy_impl.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

void gshmemi_proxy_pin(int cuda_device)
{
#if defined(GSHMEM_HAVE_CUDA)
    char busid[32], cpus[256] = "";
    hwloc_topology_t topo;
    const char *why = NULL;

    if (cudaDeviceGetPCIBusId(busid, sizeof busid, cuda_device) != cudaSuccess) {
        (void)cudaGetLastError();
        GSHMEMI_INFO(PROXY_SUBSYS, "proxy: no PCI bus id for GPU %d: engine thread not "
                     "pinned", cuda_device);
        return;
    }
    if (hwloc_topology_init(&topo) != 0) {
        GSHMEMI_INFO(PROXY_SUBSYS, "proxy: hwloc_topology_init failed: engine thread not "
                     "pinned");
        return;
    }
    (void)hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        why = "hwloc_topology_load failed";
    } else {
        hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring(topo, busid);
        hwloc_obj_t anc = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
        if (pci == NULL)
            why = "the GPU's PCI device is not in the hwloc topology";
        else if (anc == NULL || anc->cpuset == NULL)
            why = "no CPU set above the GPU's PCI device";
        else if (hwloc_set_cpubind(topo, anc->cpuset, HWLOC_CPUBIND_THREAD) != 0)
            why = "hwloc_set_cpubind failed";
        else
            (void)hwloc_bitmap_list_snprintf(cpus, sizeof cpus, anc->cpuset);
    }
    if (why != NULL)
        GSHMEMI_INFO(PROXY_SUBSYS, "proxy: GPU %d (%s): %s: engine thread not pinned",
                     cuda_device, busid, why);
    else
        GSHMEMI_INFO(PROXY_SUBSYS, "proxy: engine thread pinned to CPUs %s near GPU %d (%s)",
                     cpus, cuda_device, busid);
    hwloc_topology_destroy(topo);
#else
    (void)cuda_device;
#endif
}
