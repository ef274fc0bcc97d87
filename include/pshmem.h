/* pshmem.h: OpenSHMEM's profiling interface: pshmem_<name> for every C
 * name of shmem.h (p<name> for the deprecated start_pes, _my_pe, _num_pes,
 * shmalloc, shfree, shmemalign and shrealloc), with shmem.h's types and
 * constants (it includes shmem.h).
 *
 * No separate profiling layer: pshmem_ names call the same functions as
 * their shmem_ names (the gshmem_ call of gshmem.h, or the same inline
 * wrapper, generated here with the pshmem_ prefix). The shmem_ names are
 * macros and inline functions, which 1.5 allows ("for OpenSHMEM inlined
 * functions ... it is not possible to replace the shmem_ version"): a tool
 * cannot define its own shmem_long_put, but it can wrap the gshmem_
 * functions of libgshmem at link time. As 1.5 says, the C11 generic names
 * have no pshmem_ form. */
#ifndef GSHMEM_PSHMEM_H
#define GSHMEM_PSHMEM_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the shmem_ names that are gshmem_ calls ---------------------------- */
#define pshmem_init shmem_init
#define pshmem_finalize gshmem_finalize
#define pshmem_global_exit gshmem_global_exit
#define pshmem_my_pe gshmem_my_pe
#define pshmem_n_pes gshmem_n_pes
#define pshmem_pe_accessible gshmem_pe_accessible
#define pshmem_addr_accessible gshmem_addr_accessible
#define pshmem_ptr gshmem_ptr
#define pshmem_query_initialized shmem_query_initialized
#define pshmem_init_thread gshmem_init_thread
#define pshmem_query_thread gshmem_query_thread
#define pshmem_info_get_version gshmem_info_get_version
#define pshmem_info_get_name gshmem_info_get_name
#define pshmem_pcontrol gshmem_pcontrol
#define pshmem_team_my_pe gshmem_team_my_pe
#define pshmem_team_n_pes gshmem_team_n_pes
#define pshmem_team_split_strided gshmem_team_split_strided
#define pshmem_team_split_2d gshmem_team_split_2d
#define pshmem_team_translate_pe gshmem_team_translate_pe
#define pshmem_team_get_config gshmem_team_get_config
#define pshmem_team_sync gshmem_team_sync
#define pshmem_team_destroy gshmem_team_destroy
#define pshmem_team_create_ctx gshmem_team_create_ctx
#define pshmem_ctx_create gshmem_ctx_create
#define pshmem_ctx_destroy gshmem_ctx_destroy
#define pshmem_ctx_get_team gshmem_ctx_get_team
#define pshmem_malloc gshmem_malloc
#define pshmem_calloc gshmem_calloc
#define pshmem_align gshmem_align
#define pshmem_free gshmem_free
#define pshmem_realloc gshmem_realloc
#define pshmem_malloc_with_hints gshmem_malloc_with_hints
#define pshmem_putmem gshmem_putmem
#define pshmem_getmem gshmem_getmem
#define pshmem_putmem_nbi gshmem_putmem_nbi
#define pshmem_getmem_nbi gshmem_getmem_nbi
#define pshmem_ctx_putmem gshmem_ctx_putmem
#define pshmem_ctx_getmem gshmem_ctx_getmem
#define pshmem_ctx_putmem_nbi gshmem_ctx_putmem_nbi
#define pshmem_ctx_getmem_nbi gshmem_ctx_getmem_nbi
#define pshmem_quiet gshmem_quiet
#define pshmem_fence gshmem_fence
#define pshmem_ctx_quiet gshmem_ctx_quiet
#define pshmem_ctx_fence gshmem_ctx_fence
#define pshmem_barrier_all gshmem_barrier_all
#define pshmem_sync_all gshmem_sync_all
#define pshmem_putmem_signal gshmem_putmem_signal
#define pshmem_putmem_signal_nbi gshmem_putmem_signal_nbi
#define pshmem_ctx_putmem_signal gshmem_ctx_putmem_signal
#define pshmem_ctx_putmem_signal_nbi gshmem_ctx_putmem_signal_nbi
#define pshmem_signal_fetch gshmem_signal_fetch
#define pshmem_signal_wait_until gshmem_signal_wait_until
#define pshmem_broadcastmem gshmem_broadcastmem
#define pshmem_collectmem gshmem_collectmem
#define pshmem_fcollectmem gshmem_fcollectmem
#define pshmem_alltoallmem gshmem_alltoallmem
#define pshmem_alltoallsmem gshmem_alltoallsmem

/* ---- the typed names: shmem.h's wrappers under the pshmem_ prefix ------- */
#define GSHMEMI_PSHMEM_BOTH(KIND, T, S, N)                                            \
    GSHMEMI_SHMEM_##KIND(T, S, N, pshmem_, NOCTX)                                     \
    GSHMEMI_SHMEM_##KIND(T, S, N, pshmem_ctx_, CTX)
#define GSHMEMI_PSHMEM_SIZED_BOTH(B)                                                  \
    GSHMEMI_SHMEM_SIZED(B, pshmem_, NOCTX)                                            \
    GSHMEMI_SHMEM_SIZED(B, pshmem_ctx_, CTX)
GSHMEMI_SHMEM_SIZES(GSHMEMI_PSHMEM_SIZED_BOTH)
#define GSHMEMI_PSHMEM_RMA_BOTH(T, S, N) GSHMEMI_PSHMEM_BOTH(RMA, T, S, N)
GSHMEMI_RMA_TYPES(GSHMEMI_PSHMEM_RMA_BOTH)
#define GSHMEMI_PSHMEM_AMO_BOTH(T, S, N) GSHMEMI_PSHMEM_BOTH(AMO, T, S, N)
GSHMEMI_AMO_TYPES(GSHMEMI_PSHMEM_AMO_BOTH)
GSHMEMI_PSHMEM_BOTH(AMO_EXT, float, float, float)
GSHMEMI_PSHMEM_BOTH(AMO_EXT, double, double, double)
#define GSHMEMI_PSHMEM_AMO_BIT_BOTH(T, S, N) GSHMEMI_PSHMEM_BOTH(AMO_BIT, T, S, N)
GSHMEMI_AMO_BIT_TYPES(GSHMEMI_PSHMEM_AMO_BIT_BOTH)
#define GSHMEMI_PSHMEM_SYNC(T, S, N) GSHMEMI_SHMEM_SYNC_P(T, S, N, pshmem_)
GSHMEMI_AMO_TYPES(GSHMEMI_PSHMEM_SYNC)
GSHMEMI_PSHMEM_SYNC(short, short, int16)
GSHMEMI_PSHMEM_SYNC(unsigned short, ushort, uint16)
GSHMEMI_SHMEM_LOCKS(pshmem_)
#define GSHMEMI_PSHMEM_COLL(T, S, N) GSHMEMI_SHMEM_COLL_P(T, S, N, pshmem_)
GSHMEMI_RMA_TYPES(GSHMEMI_PSHMEM_COLL)
#define GSHMEMI_PSHMEM_REDUCE_OP(T, S, N, OP) GSHMEMI_SHMEM_REDUCE_OP_P(T, S, N, OP, pshmem_)
#define GSHMEMI_PSHMEM_RED(KIND, T, S, N)                                             \
    GSHMEMI_SHMEM_REDUCE_OPS_##KIND(GSHMEMI_PSHMEM_REDUCE_OP, T, S, N)
GSHMEMI_SHMEM_REDUCE_TYPES(GSHMEMI_PSHMEM_RED)
#ifndef __cplusplus
GSHMEMI_SHMEM_REDUCE_TYPES_COMPLEX(GSHMEMI_PSHMEM_RED)
#endif

/* ---- the deprecated names (shmem_dep.h) ---------------------------------- */
#define pstart_pes start_pes
#define p_my_pe _my_pe
#define p_num_pes _num_pes
#define pshmalloc gshmem_malloc
#define pshfree gshmem_free
#define pshmemalign gshmem_align
#define pshrealloc gshmem_realloc
#define GSHMEMI_PSHMEM_DEP_AMO(T, S, N) GSHMEMI_SHMEM_DEP_AMO(T, S, pshmem_)
GSHMEMI_AMO_TYPES(GSHMEMI_PSHMEM_DEP_AMO)
GSHMEMI_SHMEM_DEP_AMO_EXT(float, float, pshmem_)
GSHMEMI_SHMEM_DEP_AMO_EXT(double, double, pshmem_)
#define GSHMEMI_PSHMEM_DEP_WAIT(T, S, N) GSHMEMI_SHMEM_DEP_WAIT_P(T, S, pshmem_)
GSHMEMI_AMO_TYPES(GSHMEMI_PSHMEM_DEP_WAIT)
GSHMEMI_PSHMEM_DEP_WAIT(short, short, int16)
GSHMEMI_PSHMEM_DEP_WAIT(unsigned short, ushort, uint16)
/* The C/C++ long forms of 1.5's deprecated synopsis. */
#define pshmem_wait_until pshmem_long_wait_until
#define pshmem_wait pshmem_long_wait
#define pshmem_clear_cache_inv shmem_clear_cache_inv
#define pshmem_set_cache_inv shmem_set_cache_inv
#define pshmem_clear_cache_line_inv shmem_clear_cache_line_inv
#define pshmem_set_cache_line_inv shmem_set_cache_line_inv
#define pshmem_udcflush shmem_udcflush
#define pshmem_udcflush_line shmem_udcflush_line
/* The active-set collectives (pshmem_sync: the C/C++ active-set call; the
 * team's is pshmem_team_sync). */
#define pshmem_barrier gshmem_barrier_aset
#define pshmem_sync gshmem_sync_aset
#define pshmem_broadcast32 gshmem_broadcast32
#define pshmem_broadcast64 gshmem_broadcast64
#define pshmem_collect32 gshmem_collect32
#define pshmem_collect64 gshmem_collect64
#define pshmem_fcollect32 gshmem_fcollect32
#define pshmem_fcollect64 gshmem_fcollect64
#define pshmem_alltoall32 gshmem_alltoall32
#define pshmem_alltoall64 gshmem_alltoall64
#define pshmem_alltoalls32 gshmem_alltoalls32
#define pshmem_alltoalls64 gshmem_alltoalls64
#define GSHMEMI_PSHMEM_TO_ALL_OP(T, S, N, OP) GSHMEMI_SHMEM_TO_ALL_OP_P(T, S, N, OP, pshmem_)
#define GSHMEMI_PSHMEM_TO_ALL(KIND, T, S, N)                                          \
    GSHMEMI_SHMEM_REDUCE_OPS_##KIND(GSHMEMI_PSHMEM_TO_ALL_OP, T, S, N)
GSHMEMI_SHMEM_TO_ALL_TYPES(GSHMEMI_PSHMEM_TO_ALL)
#ifndef __cplusplus
GSHMEMI_SHMEM_REDUCE_TYPES_COMPLEX(GSHMEMI_PSHMEM_TO_ALL)
#endif

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_PSHMEM_H */
