/* ofi_nic.h: which of the NICs (libfabric domains) on offer a PE uses: the
 * one nearest its GPU, or else its CPU binding, in the hwloc topology, as
 * NCCL and NVSHMEM choose, so that PEs of one node spread over the node's
 * NICs instead of all taking libfabric's first. A leaf (hwloc and the C
 * library only): the caller turns fi_info entries into candidates. */
#ifndef GSHMEMI_OFI_NIC_H
#define GSHMEMI_OFI_NIC_H

#include <hwloc.h>

#define OFI_NIC_MAX 64   /* candidates one choice takes */

typedef struct ofi_nic_cand {
    const char *domain;   /* fi_info->domain_attr->name: "mlx5_0", "cxi1", "rdmap16s27-rdm" */
    const char *pci;      /* "dddd:bb:dd.f" from fi_info->nic's PCI bus attributes, or NULL */
} ofi_nic_cand_t;

typedef struct ofi_nic_choice {
    int index;            /* the chosen candidate; -1 on error */
    char why[256];        /* one line for the INFO log, or the error */
} ofi_nic_choice_t;

/* The topology the choice needs, I/O devices kept (hwloc's default drops
 * them, and then no NIC is found): the hwloc XML file xml, or with xml
 * NULL this machine's (hwloc itself honours HWLOC_XMLFILE). 0 and *topo_p,
 * freed with hwloc_topology_destroy; -1 when hwloc fails. */
int ofi_nic_topology_load(const char *xml, hwloc_topology_t *topo_p);

/* Chooses among cand[0..n) (libfabric's order) for one PE:
 *  - want (GSHMEM_OFI_NIC; NULL or "": automatic) set: the first candidate
 *    of that domain; none: -1.
 *  - else each candidate is placed in topo (NULL: none is) by its pci, else
 *    by a network or OpenFabrics OS device named like its domain (less a
 *    provider's "-rdm"/"-dgrm"); placed ones beat the rest, and with none
 *    placed the choice is candidate 0.
 *  - closeness: to the GPU gpu_busid ("0000:17:00.0"; NULL for CPU PEs),
 *    the deeper the common ancestor the closer (one PCI switch, one host
 *    bridge, one package, the machine); without it in topo, to the CPU
 *    binding cpus (NULL: unknown), NICs whose CPUs hold the binding (the
 *    fewer the closer), then those sharing some; without either, all
 *    placed NICs are as close.
 *  - ties: the (local_rank % m)-th of the m closest distinct domains, in
 *    input order, so PEs of a node that share a socket share its NICs.
 * 0, out->index and out->why (the reason, for the INFO log); or -1 with
 * out->index -1 and out->why the error (unknown want, with the candidates'
 * domains; n outside 1..OFI_NIC_MAX). */
int ofi_nic_choose(hwloc_topology_t topo, const ofi_nic_cand_t *cand, int n, const char *want,
                   const char *gpu_busid, hwloc_const_cpuset_t cpus, int local_rank,
                   ofi_nic_choice_t *out);

#endif
