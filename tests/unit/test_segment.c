/* test_segment.c: the writable segments of the program and of named
 * libraries (src/base/heap/segment.c), a heap window that carries them
 * (heap.c), and the heap's base alignment. Each test runs in its own
 * process (Criterion), so sharing this program's segment stays there. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/heap/heap.h"
#include "base/util/log.h"
#include "tests_common.h"

static long seg_bss_word;                         /* bss */
static long seg_data_words[3] = {101, 202, 303};  /* data */

static const gshmemi_seg_t *seg_holding(const gshmemi_seg_t *segs, int n, const void *p)
{
    for (int i = 0; i < n; i++)
        if ((uintptr_t)p >= segs[i].addr && (uintptr_t)p < segs[i].addr + segs[i].size)
            return &segs[i];
    return NULL;
}

Test(segment, finds_the_program)
{
    gshmemi_seg_t segs[GSHMEMI_HEAP_MAX_SEGS];
    int n = 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

    cr_assert_eq(gshmemi_seg_find("", segs, GSHMEMI_HEAP_MAX_SEGS, &n), 0);
    cr_assert_geq(n, 1);
    cr_assert_str_eq(segs[0].name, "the program");
    const gshmemi_seg_t *s = seg_holding(segs, n, &seg_bss_word);
    cr_assert_not_null(s, "no segment holds a static at %p", (void *)&seg_bss_word);
    cr_assert_eq(s, seg_holding(segs, n, &seg_data_words[1]), "data and bss apart");
    cr_assert_eq(s->addr % page, 0);
    cr_assert_eq(s->size % page, 0);
    cr_assert_eq((s->addr - s->link_addr) % page, 0, "load bias not page aligned");
}

/* The window maps the program's segment after the heap: the globals keep
 * their values, their window offset lies past the heap, the window and a
 * second mapping of the memfd (a peer's view) see the same bytes both
 * ways, and a fork()ed child gets private copies. */
Test(segment, heap_window_carries_globals)
{
    gshmemi_seg_t segs[GSHMEMI_HEAP_MAX_SEGS];
    gshmemi_heap_t h;
    int n = 0;
    uint64_t off;

    seg_bss_word = 77;
    cr_assert_eq(gshmemi_seg_find(NULL, segs, GSHMEMI_HEAP_MAX_SEGS, &n), 0);
    cr_assert_eq(gshmemi_heap_create_sym(&h, GSHMEMI_HEAP_HOST, (1u << 20) + 100, segs, n), 0);
    cr_assert_eq(h.n_segs, n);
    cr_assert_eq(h.heap_size, (1u << 20) + 100);
    cr_assert_eq(seg_bss_word, 77, "bss value lost");
    cr_assert_eq(seg_data_words[2], 303, "data value lost");
    cr_assert(gshmemi_heap_offset(&h, &seg_data_words[1], sizeof(long), &off));
    cr_assert_geq(off, h.heap_size);
    cr_assert_leq(off + sizeof(long), h.size);
    long *alias = (long *)(void *)((char *)h.base + off);
    cr_assert_eq(*alias, 202);
    *alias = 2020;
    cr_assert_eq(seg_data_words[1], 2020, "a write through the window is not seen");
    long *peer = mmap(NULL, h.size, PROT_READ | PROT_WRITE, MAP_SHARED, h.fd, 0);
    cr_assert_neq(peer, MAP_FAILED);
    seg_data_words[1] = 4040;
    cr_assert_eq(*(long *)(void *)((char *)peer + off), 4040, "the peer's view differs");
    munmap(peer, h.size);
    cr_assert_not(gshmemi_heap_offset(&h, &n, sizeof n, &off), "a stack address passed");

    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        seg_bss_word = -1;
        _exit(*(long *)(void *)((char *)h.base + h.segs[0].off) == 0 ? 3 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
    cr_assert_eq(seg_bss_word, 77, "the child's write reached the parent");
    /* destroy gives the heap's pages back; the segments keep theirs */
    memset(h.base, 1, h.heap_size);
    int fd = dup(h.fd);
    size_t seg_bytes = h.size - h.segs[0].off;
    gshmemi_heap_destroy(&h);
    cr_assert_eq(seg_data_words[1], 4040, "the globals went with the heap");
    struct stat fst;
    cr_assert_eq(fstat(fd, &fst), 0);
    cr_assert_leq((size_t)fst.st_blocks * 512, seg_bytes, "the heap's pages stay: %lld bytes "
                  "of the memfd in use, the segments have %zu", (long long)fst.st_blocks * 512,
                  seg_bytes);
    close(fd);
    seg_data_words[0] = 1;   /* still writable memory */
}

/* A loaded library by its file name (the Criterion library this program
 * links); libc and a name that is not loaded are refused, naming them. */
Test(segment, named_libraries)
{
    gshmemi_seg_t segs[GSHMEMI_HEAP_MAX_SEGS];
    Dl_info info;
    int n = 0;

    cr_assert(dladdr((void *)&criterion_internal_test_setup, &info) && info.dli_fname);
    const char *base = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
                                                     : info.dli_fname;
    cr_assert_eq(gshmemi_seg_find(base, segs, GSHMEMI_HEAP_MAX_SEGS, &n), 0, "%s", base);
    cr_assert_geq(n, 2);
    cr_assert_str_eq(segs[n - 1].name, base);

    test_cap_t cap;
    test_cap_start(&cap);
    int rc1 = gshmemi_seg_find("libc.so.6", segs, GSHMEMI_HEAP_MAX_SEGS, &n);
    int rc2 = gshmemi_seg_find("libnope.so.9", segs, GSHMEMI_HEAP_MAX_SEGS, &n);
    char *out = test_cap_end(&cap);
    cr_assert_eq(rc1, GSHMEM_ERR_CONFIG);
    cr_assert_eq(rc2, GSHMEM_ERR_CONFIG);
    cr_assert(strstr(out, "libc.so.6, whose data cannot be made symmetric"), "%s", out);
    cr_assert(strstr(out, "'libnope.so.9', which is not loaded"), "%s", out);
    free(out);
}

/* A heap's base is aligned to its size rounded up to a power of two, so
 * that gshmem_align can honour alignments past the page size. */
Test(heap, host_base_aligned)
{
    gshmemi_heap_t h;

    cr_assert_eq(gshmemi_heap_create(&h, GSHMEMI_HEAP_HOST, (3u << 20) + 100), 0);
    cr_assert_eq(h.align, 4u << 20);
    cr_assert_eq((uintptr_t)h.base % h.align, 0, "base %p", h.base);
    gshmemi_heap_destroy(&h);
}
