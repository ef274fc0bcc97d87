/* rmtree.c: remove a private directory and what transports left in it
 * (sockets, files). Shared by the bootstraps and gshmemrun. Does not follow
 * symbolic links and does not cross into other file systems. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>

int gshmemi_rmtree(const char *path);

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        return remove(p) == 0 || errno == ENOENT ? 0 : -1;
    return remove(p) == 0 || errno == ENOENT ? 0 : -1;
}

/* 0, or -1 with errno set. A path that does not exist is not an error. */
int gshmemi_rmtree(const char *path)
{
    if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
        return errno == ENOENT ? 0 : -1;
    return 0;
}
