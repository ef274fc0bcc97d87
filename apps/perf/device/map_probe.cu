/* map_probe.cu: how the way a peer GPU's memory is mapped changes what SM
 * stores to it cost (issue 16: gshmem's heap, a cudaMalloc block opened by
 * the peer with cudaIpcOpenMemHandle, against NVSHMEM's cuMem heap). One
 * process drives GPU 0; the destination lives on GPU 1, mapped four ways:
 *   peer    cudaMalloc on GPU 1 in this process, peer access enabled
 *   vmm     cuMemCreate on GPU 1 in this process, cuMemMap + cuMemSetAccess
 *   ipc     cudaMalloc in a child process on GPU 1, cudaIpcOpenMemHandle here
 *   vmm-fd  cuMemCreate in the child, exported as a POSIX fd (SCM_RIGHTS),
 *           cuMemImportFromShareableHandle + cuMemMap here (NVSHMEM's way)
 * and for each: one thread's 8-byte store + fence.sc.sys (us), one block of
 * 1024 threads storing 4 MiB (GB/s), the whole GPU storing 64 MiB (GB/s),
 * each checked first (the bytes read back from GPU 1). Then the first two
 * columns on the ipc mapping with source and destination at offsets of
 * 64 B to 512 B from a 2 MiB boundary. No gshmem in it. What it found
 * (docs/results/device-perf-2026-11-26-s10): the mapping makes no
 * difference to a block's stores; a destination only 64-byte aligned
 * costs them 7 % (gshmem_malloc now aligns CUDA heap blocks to 256).
 *
 *   gshmem-perf-dev-map-probe [-r REPS] [-n SAMPLES]
 */
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#define MP_BYTES ((size_t)64 << 20)

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "map-probe: %s: %s (line %d)\n", #x, cudaGetErrorString(e_),     \
                    __LINE__);                                                               \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
#define CKD(x)                                                                               \
    do {                                                                                     \
        CUresult r_ = (x);                                                                   \
        if (r_ != CUDA_SUCCESS) {                                                            \
            const char *s_ = "?";                                                            \
            cuGetErrorString(r_, &s_);                                                       \
            fprintf(stderr, "map-probe: %s: %s (line %d)\n", #x, s_, __LINE__);              \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

__global__ void store_lat(uint64_t *dst, const uint64_t *src, int reps)
{
    for (int i = 0; i < reps; i++) {
        *(volatile uint64_t *)dst = src[0] + (uint64_t)i;
        __threadfence_system();
    }
}

__global__ void store_bw(int4 *dst, const int4 *src, size_t nw, int reps)
{
    size_t per = (nw + gridDim.x - 1) / gridDim.x, lo = per * blockIdx.x;
    size_t hi = lo + per < nw ? lo + per : nw;
    for (int r = 0; r < reps; r++) {
        for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
            dst[i] = src[i];
        __syncthreads();
    }
}

static float time_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* Median over n samples of f's time in ms. */
template <typename F> static double median_ms(int n, F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> v;
    for (int i = -2; i < n; i++) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        double t = time_ms(a, b);
        if (i >= 0)
            v.push_back(t);
    }
    std::sort(v.begin(), v.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return v[v.size() / 2];
}

static void check(const char *name, void *dst, const void *src, size_t n)
{
    std::vector<char> a(n), b(n);
    CK(cudaMemcpy(a.data(), dst, n, cudaMemcpyDefault));
    CK(cudaMemcpy(b.data(), src, n, cudaMemcpyDefault));
    if (memcmp(a.data(), b.data(), n) != 0) {
        fprintf(stderr, "map-probe: %s: the destination differs from the source\n", name);
        exit(1);
    }
}

/* One row: the store latency (us) and one block's 4 MiB (GB/s) from src to
 * dst; with grid, the whole GPU's 64 MiB too (GB/s; the row's buffers are
 * checked first), else that column empty (offsets into the buffers). */
static void probe(const char *name, void *dst, const void *src, int reps, int samples, bool grid)
{
    const size_t blk = (size_t)4 << 20;
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (grid) {
        CK(cudaMemset(dst, 0, MP_BYTES));
        store_bw<<<sms, 1024>>>((int4 *)dst, (const int4 *)src, MP_BYTES / 16, 1);
        CK(cudaDeviceSynchronize());
        check(name, dst, src, MP_BYTES);
    }
    double lat = median_ms(samples, [&] {
        store_lat<<<1, 1>>>((uint64_t *)dst, (const uint64_t *)src, reps);
    }) * 1e3 / reps;
    double one = median_ms(samples, [&] {
        store_bw<<<1, 1024>>>((int4 *)dst, (const int4 *)src, blk / 16, 16);
    });
    printf("%s,%.3f,%.2f,", name, lat, 16.0 * blk / one / 1e6);
    if (grid)
        printf("%.1f", 4.0 * MP_BYTES / median_ms(samples, [&] {
            store_bw<<<sms, 1024>>>((int4 *)dst, (const int4 *)src, MP_BYTES / 16, 4);
        }) / 1e6);
    printf("\n");
    fflush(stdout);
}

static CUmemAllocationProp vmm_prop(int dev, CUmemAllocationHandleType h)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev;
    p.requestedHandleTypes = h;
    return p;
}

static size_t vmm_size(const CUmemAllocationProp *p)
{
    size_t g;
    CKD(cuMemGetAllocationGranularity(&g, p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    return (MP_BYTES + g - 1) / g * g;
}

static void *vmm_map(CUmemGenericAllocationHandle h, size_t size)
{
    CUdeviceptr va;
    CKD(cuMemAddressReserve(&va, size, 0, 0, 0));
    CKD(cuMemMap(va, size, 0, h, 0));
    CUmemAccessDesc acc[2];
    for (int d = 0; d < 2; d++) {
        acc[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        acc[d].location.id = d;
        acc[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    CKD(cuMemSetAccess(va, size, acc, 2));
    return (void *)va;
}

/* One byte over sock with room for one fd beside it (SCM_RIGHTS). */
struct fd_msg {
    char byte[1], ctl[CMSG_SPACE(sizeof(int))];
    struct iovec io;
    struct msghdr m;
};

static void fd_msg_init(struct fd_msg *f)
{
    memset(f, 0, sizeof *f);
    f->io.iov_base = f->byte;
    f->io.iov_len = 1;
    f->m.msg_iov = &f->io;
    f->m.msg_iovlen = 1;
    f->m.msg_control = f->ctl;
    f->m.msg_controllen = sizeof f->ctl;
}

/* The child: GPU 1's memory, handed to the parent over sock (an IPC handle,
 * then an fd of a cuMem allocation); lives until the parent is done. */
static void child(int sock)
{
    void *p;
    cudaIpcMemHandle_t ipc;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&p, MP_BYTES));
    CK(cudaIpcGetMemHandle(&ipc, p));
    if (write(sock, &ipc, sizeof ipc) != (ssize_t)sizeof ipc)
        exit(1);
    CUmemAllocationProp prop = vmm_prop(1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    size_t size = vmm_size(&prop);
    CUmemGenericAllocationHandle h;
    CKD(cuMemCreate(&h, size, &prop, 0));
    int fd;
    CKD(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    struct fd_msg f;
    fd_msg_init(&f);
    struct cmsghdr *c = CMSG_FIRSTHDR(&f.m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(sock, &f.m, 0) != 1)
        exit(1);
    (void)!read(sock, f.byte, 1);   /* the parent is done */
    exit(0);
}

static int recv_fd(int sock)
{
    struct fd_msg f;
    fd_msg_init(&f);
    if (recvmsg(sock, &f.m, 0) != 1 || CMSG_FIRSTHDR(&f.m) == NULL)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&f.m)), sizeof fd);
    return fd;
}

int main(int argc, char **argv)
{
    int reps = 2000, samples = 15, opt;
    while ((opt = getopt(argc, argv, "r:n:")) != -1)
        if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'n')
            samples = atoi(optarg);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 1;
    pid_t pid = fork();   /* before any CUDA call here */
    if (pid == 0) {
        close(sv[0]);
        child(sv[1]);
    }
    close(sv[1]);
    int n;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        printf("map-probe: skipped: %d GPU(s), 2 needed\n", n);
        return 0;
    }
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    void *src;
    CK(cudaMalloc(&src, MP_BYTES));
    std::vector<unsigned> h(MP_BYTES / 4);
    for (size_t i = 0; i < h.size(); i++)
        h[i] = (unsigned)(i * 2654435761u);
    CK(cudaMemcpy(src, h.data(), MP_BYTES, cudaMemcpyHostToDevice));
    printf("mapping,store+fence(us),one block 4 MiB(GB/s),grid 64 MiB(GB/s)\n");

    void *peer;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&peer, MP_BYTES));
    CK(cudaSetDevice(0));
    probe("peer", peer, src, reps, samples, true);

    CUmemAllocationProp prop = vmm_prop(1, CU_MEM_HANDLE_TYPE_NONE);
    size_t vsize = vmm_size(&prop);
    CUmemGenericAllocationHandle vh;
    CKD(cuMemCreate(&vh, vsize, &prop, 0));
    probe("vmm", vmm_map(vh, vsize), src, reps, samples, true);

    cudaIpcMemHandle_t ipc;
    if (read(sv[0], &ipc, sizeof ipc) != (ssize_t)sizeof ipc)
        return 1;
    void *ip;
    CK(cudaIpcOpenMemHandle(&ip, ipc, cudaIpcMemLazyEnablePeerAccess));
    probe("ipc", ip, src, reps, samples, true);

    int fd = recv_fd(sv[0]);
    if (fd < 0) {
        fprintf(stderr, "map-probe: no fd from the child process\n");
        return 1;
    }
    CUmemGenericAllocationHandle fh;
    CKD(cuMemImportFromShareableHandle(&fh, (void *)(uintptr_t)fd,
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUmemAllocationProp fprop = vmm_prop(1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    probe("vmm-fd", vmm_map(fh, vmm_size(&fprop)), src, reps, samples, true);

    /* the first again: drift between the first and the last */
    probe("peer", peer, src, reps, samples, true);
    /* where in the buffers: the same offset from a 2 MiB boundary for
     * source and destination (a heap allocation after gshmem's reserved
     * areas was only 64-byte aligned), then the destination alone */
    const size_t offs[] = {0, 0x40, 0x80, 0x100, 0x200, 0x109940};
    for (int both = 1; both >= 0; both--)
        for (size_t o : offs) {
            char nm[64];
            snprintf(nm, sizeof nm, "ipc src+%zx dst+%zx", both ? o : 0, o);
            probe(nm, (char *)ip + o, (const char *)src + (both ? o : 0), reps, samples, false);
        }
    (void)!write(sv[0], "x", 1);
    waitpid(pid, NULL, 0);
    return 0;
}
