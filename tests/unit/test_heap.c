/* test_heap.c: the host-memory symmetric heap (memfd, shared mapping),
 * copy/memset, and the CUDA kind's refusal where it cannot be had. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/heap/heap.h"
#include "base/util/log.h"

Test(heap, host_create_shared)
{
    const size_t size = (3u << 20) + 100;   /* not a page multiple on purpose */
    gshmemi_heap_t h;
    long page = sysconf(_SC_PAGESIZE);

    cr_assert_eq(gshmemi_heap_create(&h, GSHMEMI_HEAP_HOST, size), 0);
    cr_assert_eq(h.kind, GSHMEMI_HEAP_HOST);
    cr_assert_eq(h.size, size);
    cr_assert_not_null(h.base);
    cr_assert_eq((uintptr_t)h.base % (uintptr_t)page, 0, "base %p not page aligned", h.base);
    cr_assert_geq(h.fd, 0);
    cr_assert_neq(fcntl(h.fd, F_GETFD), -1, "fd %d not valid", h.fd);
    cr_assert(fcntl(h.fd, F_GETFD) & FD_CLOEXEC, "fd not close-on-exec");
    cr_assert_eq(h.cuda_device, -1);
    cr_assert_not_null(h.alloc);
    cr_assert_eq(gshmemi_alloc_free_bytes(h.alloc), size);

    unsigned char *p = h.base;
    for (size_t i = 0; i < size; i += 4093)
        cr_assert_eq(p[i], 0, "heap not zeroed at %zu", i);
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)(i * 7 + 3);

    /* the fd maps the same pages a second time (what a peer PE does) */
    unsigned char *q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, h.fd, 0);
    cr_assert_neq(q, MAP_FAILED);
    cr_assert_neq(q, p);
    for (size_t i = 0; i < size; i++)
        if (q[i] != (unsigned char)(i * 7 + 3))
            cr_assert_fail("second mapping differs at %zu", i);
    q[size - 1] = 0xab;
    q[12345] = 0xcd;
    cr_assert_eq(p[size - 1], 0xab);
    cr_assert_eq(p[12345], 0xcd);
    munmap(q, size);

    cr_assert(gshmemi_heap_contains(&h, p, size));
    cr_assert(gshmemi_heap_contains(&h, p + size, 0));
    cr_assert_not(gshmemi_heap_contains(&h, p + 1, size));
    cr_assert_not(gshmemi_heap_contains(&h, p - 1, 1));

    int fd = h.fd;
    gshmemi_heap_destroy(&h);
    cr_assert_null(h.base);
    cr_assert_eq(h.fd, -1);
    cr_assert_eq(fcntl(fd, F_GETFD), -1, "fd left open");
}

Test(heap, copy_and_memset_host)
{
    gshmemi_heap_t h;
    char src[64], back[64];

    cr_assert_eq(gshmemi_heap_create(&h, GSHMEMI_HEAP_HOST, 1 << 16), 0);
    for (int i = 0; i < 64; i++)
        src[i] = (char)i;
    char *dst = (char *)h.base + 100;
    cr_assert_eq(gshmemi_heap_copy_nb(&h, dst, src, sizeof(src)), 0);
    cr_assert_arr_eq(dst, src, sizeof(src));
    cr_assert_eq(gshmemi_heap_memset(&h, dst + 8, 0x5a, 16), 0);
    cr_assert_eq(gshmemi_heap_copy_nb(&h, back, dst, sizeof(back)), 0);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(back[i], (i >= 8 && i < 24) ? 0x5a : i, "byte %d", i);
    cr_assert_eq(gshmemi_heap_copy_nb(&h, back, dst, 0), 0);
    gshmemi_heap_destroy(&h);
}

Test(heap, allocator_inside)
{
    gshmemi_heap_t h;
    size_t off;

    cr_assert_eq(gshmemi_heap_create(&h, GSHMEMI_HEAP_HOST, 1 << 20), 0);
    cr_assert_eq(gshmemi_alloc_get(h.alloc, 1000, 256, &off), 0);
    cr_assert_eq(off, 0);
    cr_assert_eq(gshmemi_alloc_get(h.alloc, 1000, 256, &off), 0);
    cr_assert_eq(off, 1024);
    memset((char *)h.base + off, 1, 1000);
    gshmemi_heap_destroy(&h);
}

Test(heap, bad_requests)
{
    gshmemi_heap_t h = {.base = (void *)0x1};

    gshmemi_log_level = GSHMEMI_LOG_NONE;
    cr_assert_eq(gshmemi_heap_create(&h, GSHMEMI_HEAP_HOST, 0), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_heap_create(&h, (gshmemi_heap_kind_t)7, 4096), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(h.base, (void *)0x1, "heap written on failure");
    cr_assert_eq(gshmemi_heap_kind_available(GSHMEMI_HEAP_HOST), 1);
}

/* Where no CUDA heap can be had (not built in, or no GPU), asking for one
 * fails with NO_DEVICE and says why. */
Test(heap, cuda_unavailable_reported)
{
    gshmemi_heap_t h = {.base = (void *)0x1};
    char *buf = NULL;
    size_t len = 0;
    int saved = dup(2);
    FILE *f = tmpfile();

    if (gshmemi_heap_kind_available(GSHMEMI_HEAP_CUDA))
        cr_skip_test("a CUDA device is available here");
    dup2(fileno(f), 2);
    int rc = gshmemi_heap_create(&h, GSHMEMI_HEAP_CUDA, 1 << 20);
    dup2(saved, 2);
    cr_assert_eq(rc, GSHMEM_ERR_NO_DEVICE);
    cr_assert_eq(h.base, (void *)0x1);
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    rewind(f);
    buf = calloc(1, len + 1);
    cr_assert_eq(fread(buf, 1, len, f), len);
#ifdef GSHMEM_HAVE_CUDA
    cr_assert_not_null(strstr(buf, "no CUDA device"), "%s", buf);
#else
    cr_assert_not_null(strstr(buf, "gshmem was built without CUDA"), "%s", buf);
#endif
    free(buf);
    fclose(f);
}
