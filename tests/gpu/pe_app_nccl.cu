/* pe_app_nccl: apps/common's NCCL calls against real NCCL on GPUs:
 * all-to-all, all-to-all-v with uneven counts, all-reduce (in place and not)
 * and all-gather, each checked element by element against the values every
 * PE can compute. "probe [N]" exits 77 with the reason when there is no
 * GPU, NCCL cannot be loaded (GSHMEM_NCCL_LIB / LD_LIBRARY_PATH) or there
 * are fewer than N GPUs, so the Criterion driver skips with it. Prints "pe_app_nccl: OK (PE n)". */
#include <vector>

#include "app_nccl.h"
#include "pe_dev.h"

static int me, np;

static float val(int from, int to, size_t i) { return (float)(from * 1000 + to * 100) + (float)(i % 97); }

/* Copies n floats back and compares with want(i). */
template <class F> static void expect(const char *what, const float *d, size_t n, F want)
{
    std::vector<float> h(n);
    CU(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        PE_CHECK(h[i] == want(i), "%s: element %zu is %g, expected %g", what, i, h[i], want(i));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "probe") == 0) {
        char why[512];
        if (!app_nccl_available(why, sizeof why)) {
            printf("SKIP: %s\n", why);
            return 77;
        }
        /* "probe N": NCCL needs a GPU of its own per PE. */
        int want = argc > 2 ? atoi(argv[2]) : 1, have = 0;
        if (cudaGetDeviceCount(&have) == cudaSuccess && have > 0 && have < want) {
            printf("SKIP: NCCL needs one GPU per PE: %d PEs, %d GPU(s)\n", want, have);
            return 77;
        }
        pe_dev_probe(argc, argv);   /* exits */
    }
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    np = gshmem_n_pes();
    app_nccl_t *nc = NULL;
    char why[512];
    PE_CHECK(app_nccl_init(&nc, why, sizeof why) == 0, "app_nccl_init: %s", why);
    cudaStream_t s;
    CU(cudaStreamCreate(&s));

    const size_t per = 1000;   /* floats per PE block */
    float *send, *recv;
    CU(cudaMalloc((void **)&send, per * np * sizeof(float)));
    CU(cudaMalloc((void **)&recv, per * np * sizeof(float)));
    std::vector<float> h(per * np);

    /* all-to-all: block p of send goes to PE p. */
    for (int p = 0; p < np; p++)
        for (size_t i = 0; i < per; i++)
            h[p * per + i] = val(me, p, i);
    CU(cudaMemcpy(send, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemset(recv, 0xff, per * np * sizeof(float)));
    PE_CHECK(app_nccl_alltoall(nc, send, recv, per * sizeof(float), s) == 0, "alltoall");
    CU(cudaStreamSynchronize(s));
    expect("alltoall", recv, per * np, [](size_t i) { return val((int)(i / per), me, i % per); });

    /* all-to-all-v: PE a sends (a + b + 1) * 10 floats to PE b, packed. */
    std::vector<size_t> sb(np), so(np), rb(np), ro(np);
    size_t stot = 0, rtot = 0;
    for (int p = 0; p < np; p++) {
        sb[p] = (size_t)(me + p + 1) * 10 * sizeof(float);
        so[p] = stot;
        stot += sb[p];
        rb[p] = (size_t)(p + me + 1) * 10 * sizeof(float);
        ro[p] = rtot;
        rtot += rb[p];
    }
    for (int p = 0; p < np; p++)
        for (size_t i = 0; i < sb[p] / sizeof(float); i++)
            h[so[p] / sizeof(float) + i] = val(me, p, i);
    CU(cudaMemcpy(send, h.data(), stot, cudaMemcpyHostToDevice));
    PE_CHECK(app_nccl_alltoallv(nc, send, sb.data(), so.data(), recv, rb.data(), ro.data(), s) == 0,
             "alltoallv");
    CU(cudaStreamSynchronize(s));
    for (int p = 0; p < np; p++)
        expect("alltoallv", recv + ro[p] / sizeof(float), rb[p] / sizeof(float),
               [p](size_t i) { return val(p, me, i); });

    /* all-reduce, out of place then in place. */
    for (size_t i = 0; i < per; i++)
        h[i] = val(me, 0, i);
    CU(cudaMemcpy(send, h.data(), per * sizeof(float), cudaMemcpyHostToDevice));
    auto sum = [](size_t i) {
        float t = 0;
        for (int p = 0; p < np; p++)
            t += val(p, 0, i);
        return t;
    };
    PE_CHECK(app_nccl_allreduce_f32(nc, send, recv, per, s) == 0, "allreduce");
    PE_CHECK(app_nccl_allreduce_f32(nc, send, send, per, s) == 0, "allreduce in place");
    CU(cudaStreamSynchronize(s));
    expect("allreduce", recv, per, sum);
    expect("allreduce in place", send, per, sum);

    /* all-gather: block p from PE p. */
    for (size_t i = 0; i < per; i++)
        h[i] = val(me, 7, i);
    CU(cudaMemcpy(send, h.data(), per * sizeof(float), cudaMemcpyHostToDevice));
    PE_CHECK(app_nccl_allgather(nc, send, recv, per * sizeof(float), s) == 0, "allgather");
    CU(cudaStreamSynchronize(s));
    expect("allgather", recv, per * np, [](size_t i) { return val((int)(i / per), 7, i % per); });

    printf("pe_app_nccl: OK (PE %d, NCCL %d)\n", me, app_nccl_version(nc));
    app_nccl_fini(nc);
    CU(cudaFree(send));
    CU(cudaFree(recv));
    CU(cudaStreamDestroy(s));
    gshmem_finalize();
    return 0;
}
