/* pe_stream_c: gshmemx.h from a C program (compiled by the C compiler,
 * linked with libgshmem and cudart): that it compiles and links is the
 * first check. Under gshmemrun (GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p):
 *   (no argument)  ring puts on a stream: every PE puts a pattern into the
 *                  right PE's buffer (putmem_on_stream), quiet + barrier on
 *                  the stream, then checks what the left PE sent; prints
 *                  "pe_stream_c: OK (PE n)".
 *   no_init | bad_pe | bad_addr | bad_cmp | bad_sig_op | host_heap
 *                  one misuse each; the run must end with the host API's
 *                  message naming the value (test_stream.c checks it).
 *   legacy_self    (P2P off, 2 PEs) PE 0's legacy default stream waits for
 *                  a signal PE 1 sends over the queue path while PE 0's
 *                  host puts to and gets from its own heap: those copies
 *                  must neither wait for that stream nor hold back the
 *                  CUDA calls that apply PE 1's signal (a synchronous copy
 *                  on the legacy stream did both: a hang); prints
 *                  "pe_stream_c legacy_self: OK (PE n)".
 *   queue_src      (P2P off: the peer on the queue path) a 64-byte put
 *                  from cudaMalloc'd memory, which travels in its entry
 *                  (delivered: checked), then a 65-byte one, which must
 *                  end the run naming the source.
 *   probe          exit 0 with a CUDA device, 77 with "SKIP: ..." without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "gshmemx.h"
#include "pe_check.h"

#define CU(call)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        PE_CHECK(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));        \
    } while (0)

#define N 4099

static unsigned char pat(int pe, int i)
{
    return (unsigned char)(pe * 53 + i * 7 + (i >> 9));
}

static int legacy_self(void)
{
    int me = gshmem_my_pe();
    uint64_t *sig = gshmem_calloc(1, sizeof(uint64_t));
    unsigned char *mine = gshmem_calloc(1, 64), *from1 = gshmem_calloc(1, 64);
    unsigned char want[64], got[64];
    PE_CHECK(sig != NULL && mine != NULL && from1 != NULL, "gshmem_calloc failed");
    for (int i = 0; i < 64; i++)
        want[i] = pat(me, i);
    gshmem_barrier_all();
    if (me == 0) {
        gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_GE, 1, 0);   /* legacy stream */
        gshmem_putmem(mine, want, 64, 0);   /* self, while that stream waits */
        gshmem_getmem(got, mine, 64, 0);
        for (int i = 0; i < 64; i++)
            PE_CHECK(got[i] == want[i], "self put/get: byte %d is %u, want %u", i, got[i],
                     want[i]);
        CU(cudaStreamSynchronize(0));       /* PE 1's signal came */
        gshmem_getmem(got, from1, 64, 0);
        for (int i = 0; i < 64; i++)
            PE_CHECK(got[i] == pat(1, i), "from PE 1: byte %d is %u, want %u", i, got[i],
                     pat(1, i));
    } else if (me == 1) {
        usleep(300000);   /* PE 0 is in its self copies by now */
        gshmem_putmem_signal(from1, want, 64, sig, 1, GSHMEM_SIGNAL_SET, 0);
        gshmem_quiet();
    }
    gshmem_barrier_all();
    gshmem_free(from1);
    gshmem_free(mine);
    gshmem_free(sig);
    printf("pe_stream_c legacy_self: OK (PE %d)\n", me);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}

static int misuse(const char *mode, cudaStream_t st)
{
    uint64_t *sig = gshmem_calloc(1, sizeof(uint64_t));
    unsigned char *buf = gshmem_calloc(1, 128), *dev = NULL;
    PE_CHECK(sig != NULL && buf != NULL, "gshmem_calloc failed");
    CU(cudaMalloc((void **)&dev, 128));
    if (strcmp(mode, "queue_src") == 0) {
        int peer = 1 - gshmem_my_pe();
        unsigned char want[64], got[64];
        for (int i = 0; i < 64; i++)
            want[i] = pat(gshmem_my_pe(), i);
        CU(cudaMemcpy(dev, want, 64, cudaMemcpyHostToDevice));
        gshmemx_putmem_on_stream(buf, dev, 64, peer, st);
        gshmemx_quiet_on_stream(st);
        gshmemx_barrier_all_on_stream(st);
        CU(cudaStreamSynchronize(st));
        CU(cudaMemcpy(got, buf, 64, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 64; i++)
            PE_CHECK(got[i] == pat(peer, i), "64-byte put from PE %d: byte %d is %u, want %u",
                     peer, i, got[i], pat(peer, i));
        printf("pe_stream_c queue_src: 64-byte put from cudaMalloc'd memory delivered\n");
        fflush(stdout);
        gshmemx_putmem_on_stream(buf, dev, 65, peer, st);
    } else if (strcmp(mode, "bad_pe") == 0)
        gshmemx_putmem_on_stream(buf, dev, 8, gshmem_n_pes(), st);
    else if (strcmp(mode, "bad_addr") == 0)
        gshmemx_putmem_on_stream(dev, buf, 8, 0, st);
    else if (strcmp(mode, "bad_cmp") == 0)
        gshmemx_signal_wait_until_on_stream(sig, 99, 1, st);
    else if (strcmp(mode, "bad_sig_op") == 0)
        gshmemx_putmem_signal_on_stream(buf, dev, 8, sig, 1, 7, 0, st);
    else
        PE_CHECK(0, "unknown mode %s", mode);
    printf("pe_stream_c %s: the misuse was not reported\n", mode);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "probe") == 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess || n == 0) {
            printf("SKIP: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 CUDA devices");
            return 77;
        }
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "no_init") == 0) {
        gshmemx_quiet_on_stream(0);
        printf("pe_stream_c no_init: the misuse was not reported\n");
        return 1;
    }
    PE_CHECK_INIT();
    if (argc > 1 && strcmp(argv[1], "host_heap") == 0) {   /* before any CUDA call */
        gshmemx_barrier_all_on_stream(0);
        printf("pe_stream_c host_heap: the misuse was not reported\n");
        return 1;
    }
    cudaStream_t st;
    CU(cudaStreamCreate(&st));
    if (argc > 1 && strcmp(argv[1], "legacy_self") == 0)
        return legacy_self();
    if (argc > 1)
        return misuse(argv[1], st);

    int me = gshmem_my_pe(), n = gshmem_n_pes(), left = (me + n - 1) % n;
    unsigned char *dst = gshmem_calloc(1, N), *src = NULL, host[N];
    PE_CHECK(dst != NULL, "gshmem_calloc(%d) failed", N);
    CU(cudaMalloc((void **)&src, N));
    for (int i = 0; i < N; i++)
        host[i] = pat(me, i);
    CU(cudaMemcpyAsync(src, host, N, cudaMemcpyHostToDevice, st));
    gshmem_barrier_all();
    gshmemx_putmem_on_stream(dst, src, N, (me + 1) % n, st);
    gshmemx_quiet_on_stream(st);
    gshmemx_barrier_all_on_stream(st);
    CU(cudaMemcpyAsync(host, dst, N, cudaMemcpyDeviceToHost, st));
    CU(cudaStreamSynchronize(st));
    for (int i = 0; i < N; i++)
        PE_CHECK(host[i] == pat(left, i), "byte %d is %u, want %u from PE %d", i, host[i],
                 pat(left, i), left);
    gshmem_barrier_all();
    CU(cudaFree(src));
    gshmem_free(dst);
    CU(cudaStreamDestroy(st));
    printf("pe_stream_c: OK (PE %d of %d)\n", me, n);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}
