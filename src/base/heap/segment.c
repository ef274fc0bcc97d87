/* segment.c: the writable segments (data+bss) of the main program, and of
 * the libraries the user names, as symmetric memory (OpenSHMEM: global and
 * static variables are symmetric data objects).
 *
 * Finding them: dl_iterate_phdr, each writable PT_LOAD of the object, less
 * its RELRO part (PT_GNU_RELRO: glibc makes [page_down(start),
 * page_down(end)) read-only after relocation; the page holding a RELRO end
 * that is not page aligned stays writable and is shared with the rest).
 * The range shared is whole pages, from there to the page end of the
 * segment's memory (bss included); nothing outside the object's own
 * mapping is touched.
 *
 * Sharing one: its pages' present contents are copied into the heap's
 * memfd (at the segment's window offset, through the window), then the
 * memfd is mapped over the segment MAP_SHARED | MAP_FIXED: the program
 * sees the same bytes at the same addresses, and peers reach them through
 * the window like the heap. All-zero pages are not copied (untouched bss
 * costs nothing). The copy reads every byte of the segment, ASan's global
 * redzones included: it is not instrumented, and uses volatile accesses so
 * that the compiler cannot turn it into an (intercepted) memcpy.
 *
 * fork(): a child would share the parent's globals through the memfd; a
 * pthread_atfork handler gives the child private copies of every segment
 * ever shared (mremap of a private copy over it, before the child runs). */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "heap.h"
#include "base/util/log.h"

#define SEG_SUBSYS GSHMEMI_SUBSYS_HEAP

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEG_NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef SEG_NO_ASAN
#if defined(__SANITIZE_ADDRESS__)
#define SEG_NO_ASAN __attribute__((no_sanitize_address))
#else
#define SEG_NO_ASAN
#endif
#endif

/* Libraries that may never be named: their data is written by other
 * threads (malloc arenas, the loader's lists) or is gshmem's own state. */
static const char *const seg_refused[] = {"libc.so", "ld-linux", "libgshmem.so"};

/* ---- finding the segments -------------------------------------------- */

typedef struct seg_find {
    const char *libs;          /* comma list, or "" */
    gshmemi_seg_t *segs;
    int max, n, n_objs;
    int rc;
    unsigned char found[GSHMEMI_HEAP_MAX_SEGS];   /* per name of libs: seen */
} seg_find_t;

static const char *seg_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* Index of the name in libs that path's file name equals, or -1. */
static int seg_lib_index(const char *libs, const char *path)
{
    const char *base = seg_basename(path), *p = libs;
    size_t blen = strlen(base);

    for (int i = 0; *p != '\0'; i++) {
        size_t len = strcspn(p, ",");
        if (len > 0 && len == blen && strncmp(p, base, len) == 0)
            return i;
        p += len;
        if (*p == ',')
            p++;
    }
    return -1;
}

/* The writable pages of one object's PT_LOAD ph, less RELRO; 0 if none. */
static int seg_range(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, uintptr_t *lo_p,
                     uintptr_t *hi_p)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *r = &info->dlpi_phdr[i];
        uintptr_t rlo = info->dlpi_addr + r->p_vaddr, rhi = rlo + r->p_memsz;
        if (r->p_type == PT_GNU_RELRO && rlo < hi && rhi > lo)
            lo = rhi;   /* RELRO opens the segment: share what follows it */
    }
    lo &= ~(page - 1);
    hi = (hi + page - 1) & ~(page - 1);
    if (lo >= hi)
        return 0;
    *lo_p = lo;
    *hi_p = hi;
    return 1;
}

static int seg_add(seg_find_t *f, const struct dl_phdr_info *info, const char *name)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo, hi;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || !seg_range(info, ph, &lo, &hi))
            continue;
        if (f->n == f->max) {
            GSHMEMI_ERROR(SEG_SUBSYS, "more than %d writable segments to share (at %s)",
                          f->max, name);
            return GSHMEM_ERR_CONFIG;
        }
        gshmemi_seg_t *s = &f->segs[f->n++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", name);
        s->addr = lo;
        s->size = hi - lo;
        s->link_addr = (uint64_t)(lo - info->dlpi_addr);
    }
    return GSHMEM_SUCCESS;
}

static int seg_refuse(const char *path)
{
    const char *base = seg_basename(path);

    for (size_t i = 0; i < sizeof seg_refused / sizeof seg_refused[0]; i++)
        if (strncmp(base, seg_refused[i], strlen(seg_refused[i])) == 0)
            return 1;
    return 0;
}

static int seg_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    seg_find_t *f = arg;
    int first = f->n_objs++ == 0, k, n0 = f->n;

    (void)size;
    if (first) {   /* the main program comes first */
        f->rc = seg_add(f, info, "the program");
        return f->rc;
    }
    if (info->dlpi_name == NULL || (k = seg_lib_index(f->libs, info->dlpi_name)) < 0 ||
        k >= GSHMEMI_HEAP_MAX_SEGS || f->found[k])
        return 0;
    f->found[k] = 1;
    if (seg_refuse(info->dlpi_name)) {
        GSHMEMI_ERROR(SEG_SUBSYS, "GSHMEM_SYMMETRIC_LIBS names %s, whose data cannot be made "
                      "symmetric (other threads or gshmem itself write it)", info->dlpi_name);
        f->rc = GSHMEM_ERR_CONFIG;
        return 1;
    }
    f->rc = seg_add(f, info, seg_basename(info->dlpi_name));
    if (f->rc == 0 && f->n == n0) {
        GSHMEMI_ERROR(SEG_SUBSYS, "GSHMEM_SYMMETRIC_LIBS names %s, which has no writable "
                      "segment", info->dlpi_name);
        f->rc = GSHMEM_ERR_CONFIG;
    }
    return f->rc != 0;
}

/* The first name of libs that no loaded object matched, into name. */
static int seg_missing(const seg_find_t *f, char *name, size_t cap)
{
    const char *p = f->libs;

    for (int i = 0; *p != '\0'; i++) {
        size_t len = strcspn(p, ",");
        if (len > 0 && (i >= GSHMEMI_HEAP_MAX_SEGS || !f->found[i])) {
            snprintf(name, cap, "%.*s", (int)len, p);
            return 1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

int gshmemi_seg_find(const char *libs, gshmemi_seg_t *segs, int max, int *n_p)
{
    seg_find_t f = {.libs = libs != NULL ? libs : "", .segs = segs, .max = max};
    char name[128];

    dl_iterate_phdr(seg_visit, &f);
    if (f.rc != 0)
        return f.rc;
    if (seg_missing(&f, name, sizeof name)) {
        GSHMEMI_ERROR(SEG_SUBSYS, "GSHMEM_SYMMETRIC_LIBS names '%s', which is not loaded "
                      "(expected a file name such as libfoo.so.1, as ldd shows it)", name);
        return GSHMEM_ERR_CONFIG;
    }
    for (int i = 0; i < f.n; i++)
        GSHMEMI_DEBUG(SEG_SUBSYS, "writable segment of %s: [0x%zx, +%zu)", segs[i].name,
                      (size_t)segs[i].addr, segs[i].size);
    *n_p = f.n;
    return GSHMEM_SUCCESS;
}

/* ---- sharing ----------------------------------------------------------- */

/* Copies n bytes (a multiple of 8, both 8-byte aligned), skipping pages
 * that are all zero when skip_zero (the destination is zeroed memory). */
SEG_NO_ASAN static void seg_copy(void *dst, const void *src, size_t n, size_t page,
                                 int skip_zero)
{
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;
    size_t words = page / sizeof(uint64_t);

    for (size_t at = 0; at < n / sizeof(uint64_t); at += words) {
        size_t k = 0;
        if (skip_zero)
            while (k < words && s[at + k] == 0)
                k++;
        for (; k < words; k++)
            d[at + k] = s[at + k];
    }
}

/* Every segment ever shared, for the fork handler. */
static struct { uintptr_t addr; size_t size; } seg_shared[GSHMEMI_HEAP_MAX_SEGS];
static int seg_n_shared;
static pthread_once_t seg_atfork_once = PTHREAD_ONCE_INIT;

/* In a fork()ed child (one thread): each shared segment becomes a private
 * copy again, so parent and child no longer see each other's globals. */
static void seg_atfork_child(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    for (int i = 0; i < seg_n_shared; i++) {
        void *addr = (void *)seg_shared[i].addr;
        size_t n = seg_shared[i].size;
        void *tmp = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (tmp == MAP_FAILED)
            continue;   /* left shared: nothing better to do in a child */
        seg_copy(tmp, addr, n, page, 1);
        if (mremap(tmp, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, addr) == MAP_FAILED)
            munmap(tmp, n);
    }
}

static void seg_atfork_register(void)
{
    pthread_atfork(NULL, NULL, seg_atfork_child);
}

static void seg_remember(const gshmemi_seg_t *seg)
{
    for (int i = 0; i < seg_n_shared; i++)
        if (seg_shared[i].addr == seg->addr && seg_shared[i].size == seg->size)
            return;
    if (seg_n_shared < GSHMEMI_HEAP_MAX_SEGS) {
        seg_shared[seg_n_shared].addr = seg->addr;
        seg_shared[seg_n_shared].size = seg->size;
        seg_n_shared++;
    }
}

int gshmemi_seg_share(const gshmemi_seg_t *seg, int fd, void *alias)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *addr = (void *)seg->addr;

    pthread_once(&seg_atfork_once, seg_atfork_register);
    /* from here to the mmap, nothing may write the segment */
    seg_copy(alias, addr, seg->size, page, 1);
    if (mmap(addr, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
             (off_t)seg->off) == MAP_FAILED) {
        GSHMEMI_ERROR(SEG_SUBSYS, "mapping the heap memfd over the writable segment of %s "
                      "[%p, +%zu) failed: %s", seg->name, addr, seg->size, strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    seg_remember(seg);
    GSHMEMI_DEBUG(SEG_SUBSYS, "writable segment of %s [%p, +%zu) is symmetric (window offset "
                  "%zu)", seg->name, addr, seg->size, seg->off);
    return GSHMEM_SUCCESS;
}
