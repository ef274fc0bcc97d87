/* cublas_ref.h: cuBLAS as a reference line only (TFLOP/s beside gshmem's
 * own GEMM), loaded at run time with dlopen so that the benchmark builds and
 * runs where libcublas is missing (the line then reads "n/a").
 * Row-major C[M,N] = A[M,K] B[K,N] is the column-major product
 * C^T = B^T A^T: cublasGemmEx(N, N, m = N, n = M, k = K, B, ldb = N, A,
 * lda = K, C, ldc = N), fp16 in and out, fp32 compute. */
#ifndef GSHMEM_APPS_STAGE_CUBLAS_REF_H
#define GSHMEM_APPS_STAGE_CUBLAS_REF_H

#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>

typedef struct cublas_ref {
    void *lib;
    cublasHandle_t h;
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    /* cublasGemmEx is overloaded in C++: name the C form's type */
    cublasStatus_t (*gemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                           const void *, const void *, cudaDataType, int, const void *,
                           cudaDataType, int, const void *, void *, cudaDataType, int,
                           cublasComputeType_t, cublasGemmAlgo_t);
} cublas_ref_t;

/* Returns 0 with a handle bound to stream, or -1 (reason printed). */
static inline int cublas_ref_open(cublas_ref_t *c, cudaStream_t stream)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    c->lib = NULL;
    for (unsigned i = 0; i < sizeof names / sizeof names[0] && c->lib == NULL; i++)
        c->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (c->lib == NULL) {
        fprintf(stderr, "cublas reference: no libcublas on the library path (%s)\n", dlerror());
        return -1;
    }
    c->create = (decltype(c->create))dlsym(c->lib, "cublasCreate_v2");
    c->destroy = (decltype(c->destroy))dlsym(c->lib, "cublasDestroy_v2");
    c->set_stream = (decltype(c->set_stream))dlsym(c->lib, "cublasSetStream_v2");
    c->gemm = (decltype(c->gemm))dlsym(c->lib, "cublasGemmEx");
    if (!c->create || !c->destroy || !c->set_stream || !c->gemm ||
        c->create(&c->h) != CUBLAS_STATUS_SUCCESS ||
        c->set_stream(c->h, stream) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublas reference: libcublas found but could not be used\n");
        dlclose(c->lib);
        c->lib = NULL;
        return -1;
    }
    return 0;
}

static inline int cublas_ref_gemm(cublas_ref_t *c, const __half *A, const __half *B, __half *C,
                                  int M, int N, int K)
{
    const float one = 1.f, zero = 0.f;
    return c->gemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16F, N, A,
                   CUDA_R_16F, K, &zero, C, CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

static inline void cublas_ref_close(cublas_ref_t *c)
{
    if (c->lib != NULL) {
        c->destroy(c->h);
        dlclose(c->lib);
        c->lib = NULL;
    }
}

#endif /* GSHMEM_APPS_STAGE_CUBLAS_REF_H */
