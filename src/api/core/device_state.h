/* device_state.h: the device API's state, built at init and published to
 * every translation unit that includes gshmem_device.h (see
 * include/gshmem/impl/gshmem_dev_state.h for the mechanism). */
#ifndef GSHMEMI_CORE_DEVICE_STATE_H
#define GSHMEMI_CORE_DEVICE_STATE_H

#include "api/gshmemi.h"
#include "gshmem/impl/gshmem_dev_state.h"

/* Collective; call once the heap and the transports exist and BEFORE the
 * barrier that ends init (peers may add to the barrier counters it zeroes
 * as soon as they leave that barrier). With a CUDA heap: reserves
 * GSHMEMI_DEV_SYNC_BYTES + GSHMEMI_DEV_TEAM_AREA_BYTES of the heap (same
 * offset everywhere), zeroes it, fills the state (PE, heap, p2p peer bases, error-check flag) and
 * publishes it. With a host heap: does nothing (the device API is for CUDA
 * heaps) and returns 0. */
int gshmemi_device_state_setup(gshmemi_state_t *g);

/* Fills s->peer_delta (s->my_pe, n_pes and heap_base set): this PE at 0,
 * the PEs below GSHMEMI_DEV_PEER_INLINE that tp maps (ops->ptr) at their
 * heap's offset from this one, GSHMEMI_DEV_PEER_NONE elsewhere; tp NULL:
 * no PE mapped. Returns 0, or GSHMEM_ERR_TRANSPORT (logged) when a mapped
 * heap, inline or not, is not a multiple of 16 bytes from this one (the
 * device copy takes its word width from untranslated addresses). */
int gshmemi_device_state_peers(gshmemi_dev_state_t *s, gshmemi_transport_t *tp);

/* The device copy of team slot's descriptor (gshmemi_dev_team_t): members
 * pes[0 .. size) (ascending world PEs), this PE at my_idx; pes NULL or
 * size 0: the slot holds no team. Written in place in the team area (a
 * copy that does not wait for the user's kernels), so kernels launched
 * after the call see it; nothing is republished. A no-op while no state
 * with a team area is published (host heaps). Returns 0, or the heap
 * copy's error (logged). */
int gshmemi_device_state_team(int slot, const int *pes, int size, int my_idx);

/* The distance between consecutive world PEs of a team whose members are
 * pes[0 .. size) (ascending): 1 for one member, 0 when they are not evenly
 * spaced (the device API, which maps team PE i to start + i * stride,
 * refuses such a team). */
int gshmemi_device_team_stride(const int *pes, int size);

/* 1 when the device reaches every PE of pes[0 .. size) by load/store (the
 * P2P transport maps it and GSHMEM_DEVICE_QUEUE_ONLY is off): what the
 * device collectives check before their direct algorithms, asked on the
 * host by the on-stream calls that then launch a grid. */
int gshmemi_device_team_mapped(const int *pes, int size);

/* At finalize, after the last barrier and before the heap goes: publishes
 * a zeroed state (device calls then report "not initialized") and gives
 * the reservation back. */
void gshmemi_device_state_teardown(gshmemi_state_t *g);

#endif /* GSHMEMI_CORE_DEVICE_STATE_H */
