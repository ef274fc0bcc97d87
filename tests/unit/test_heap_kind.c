/* test_heap_kind.c: the GSHMEM_HEAP rule (gshmemi_heap_kind_choose,
 * src/api/core/init.c) case by case, on the CPU: the build, the GPUs a PE
 * sees and the setting give the heap's kind and the reason GSHMEM_INFO
 * prints. The rule on a real GPU machine: the heap_auto tests
 * (test_heap_auto.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gshmem_types.h"
#include "api/core/core.h"
#include "base/util/log.h"

typedef struct kind_case {
    const char *setting;
    int built_with_cuda, n_gpus;
    const char *gpu_err;
    gshmemi_heap_kind_t want;
    const char *why;
} kind_case_t;

static void expect_kind(const kind_case_t *c)
{
    gshmemi_heap_kind_t kind = (gshmemi_heap_kind_t)-1;
    char why[160] = "(unset)";
    int rc = gshmemi_heap_kind_choose(c->setting, c->built_with_cuda, c->n_gpus, c->gpu_err,
                                      &kind, why, sizeof why);

    cr_expect_eq(rc, GSHMEM_SUCCESS, "GSHMEM_HEAP=%s, CUDA build %d, %d GPUs: status %d",
                 c->setting, c->built_with_cuda, c->n_gpus, rc);
    cr_expect_eq(kind, c->want, "GSHMEM_HEAP=%s, CUDA build %d, %d GPUs: kind %d, want %d",
                 c->setting, c->built_with_cuda, c->n_gpus, (int)kind, (int)c->want);
    cr_expect_str_eq(why, c->why, "GSHMEM_HEAP=%s, CUDA build %d, %d GPUs", c->setting,
                     c->built_with_cuda, c->n_gpus);
}

/* auto: a CUDA heap exactly when built with CUDA and a GPU is visible. */
Test(heap_kind, auto_rule)
{
    static const kind_case_t cases[] = {
        {"auto", 1, 2, NULL, GSHMEMI_HEAP_CUDA, "auto: built with CUDA and 2 GPUs visible -> cuda"},
        {"auto", 1, 1, NULL, GSHMEMI_HEAP_CUDA, "auto: built with CUDA and 1 GPU visible -> cuda"},
        {"AUTO", 1, 8, NULL, GSHMEMI_HEAP_CUDA, "auto: built with CUDA and 8 GPUs visible -> cuda"},
        {"auto", 1, 0, NULL, GSHMEMI_HEAP_HOST, "auto: no GPU visible -> host"},
        {"auto", 1, 0, "no CUDA-capable device is detected", GSHMEMI_HEAP_HOST,
         "auto: no GPU visible (cudaGetDeviceCount: no CUDA-capable device is detected) -> host"},
        {"auto", 1, -1, NULL, GSHMEMI_HEAP_HOST, "auto: no GPU visible -> host"},
        {"auto", 0, 0, NULL, GSHMEMI_HEAP_HOST, "auto: built without CUDA -> host"},
        /* a GPU count without CUDA cannot happen; the build decides */
        {"auto", 0, 4, NULL, GSHMEMI_HEAP_HOST, "auto: built without CUDA -> host"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_kind(&cases[i]);
}

/* host and cuda are taken as set, in any case, whatever the build and the
 * GPUs (a CUDA heap that cannot be had fails later, naming why:
 * test_heap.c). */
Test(heap_kind, explicit_settings)
{
    static const char *const settings[] = {"host", "Host", "cuda", "CUDA"};
    static const char *const gpu_errs[] = {NULL, "no CUDA-capable device is detected"};
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        char why[64];
        snprintf(why, sizeof why, "GSHMEM_HEAP=%s", settings[i]);
        for (int built = 0; built <= 1; built++)
            for (int n_gpus = 0; n_gpus <= 2; n_gpus++) {
                kind_case_t c = {settings[i], built, n_gpus, gpu_errs[n_gpus == 0],
                                 i < 2 ? GSHMEMI_HEAP_HOST : GSHMEMI_HEAP_CUDA, why};
                expect_kind(&c);
            }
    }
}

/* Anything else is a configuration error, and nothing is written. */
Test(heap_kind, invalid_setting)
{
    static const char *const bad[] = {"gpu", "", "autox", "host,cuda"};
    gshmemi_log_level = GSHMEMI_LOG_NONE;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gshmemi_heap_kind_t kind = (gshmemi_heap_kind_t)7;
        char why[32] = "untouched";
        cr_expect_eq(gshmemi_heap_kind_choose(bad[i], 1, 2, NULL, &kind, why, sizeof why),
                     GSHMEM_ERR_CONFIG, "GSHMEM_HEAP=\"%s\" accepted", bad[i]);
        cr_expect_eq((int)kind, 7, "GSHMEM_HEAP=\"%s\": kind written", bad[i]);
        cr_expect_str_eq(why, "untouched", "GSHMEM_HEAP=\"%s\": reason written", bad[i]);
    }
}

/* A short buffer gets a truncated, terminated reason. */
Test(heap_kind, reason_truncated)
{
    gshmemi_heap_kind_t kind;
    char why[12];
    memset(why, 'x', sizeof why);
    cr_assert_eq(gshmemi_heap_kind_choose("auto", 1, 2, NULL, &kind, why, sizeof why), 0);
    cr_expect_eq(kind, GSHMEMI_HEAP_CUDA);
    cr_expect_str_eq(why, "auto: built");
}
