/* mpp/shmem.h: the header path of the older OpenSHMEM implementations
 * (SGI, Cray, the reference one), which programs such as the OSU
 * micro-benchmarks and Graph500 still include: the same as shmem.h. */
#ifndef GSHMEM_MPP_SHMEM_H
#define GSHMEM_MPP_SHMEM_H

#include "../shmem.h"   /* beside mpp/, whatever the -I (never this file again) */

#endif /* GSHMEM_MPP_SHMEM_H */
