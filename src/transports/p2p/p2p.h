/* p2p.h: the p2p transport (CUDA heaps of the PEs of one node, mapped into
 * each other's address space with CUDA IPC and reached by load/store, copy
 * engines and system-scope atomics). Built only with GSHMEM_ENABLE_CUDA
 * (GSHMEM_HAVE_CUDA): callers guard their uses with that macro.
 *
 * What the core calls:
 *   gshmemi_p2p_select_device  before gshmemi_heap_create(CUDA): picks and
 *                              sets this PE's GPU;
 *   gshmemi_p2p_ops            through gshmemi_transport_lookup("p2p");
 *   gshmemi_p2p_peer_bases*    the peer heap bases for the device API. */
#ifndef GSHMEMI_P2P_H
#define GSHMEMI_P2P_H

#include "transports/transport.h"

extern const gshmemi_transport_ops_t gshmemi_p2p_ops;

/* Pick this PE's GPU: its index among the PEs of its node (node_of[n_pes],
 * from gshmemi_bootstrap_node_map) modulo the number of devices this
 * process sees (so CUDA_VISIBLE_DEVICES is honoured), then cudaSetDevice.
 * GSHMEM_ERR_NO_DEVICE, logged with the cause, when no GPU can be used.
 * Not collective. */
int gshmemi_p2p_select_device(const int *node_of, int my_pe, int n_pes, int *device_p);

/* The heap base of every PE as seen from this process: [n_pes] pointers,
 * NULL where tp does not reach the PE. Valid from init to finalize; NULL
 * when tp is not an initialized p2p transport. The host array holds
 * device pointers (for kernels and cudaMemcpy*); the device array is the
 * same table in device memory, for the device API. */
void *const *gshmemi_p2p_peer_bases(gshmemi_transport_t *tp);
void *const *gshmemi_p2p_peer_bases_device(gshmemi_transport_t *tp);

#endif /* GSHMEMI_P2P_H */
