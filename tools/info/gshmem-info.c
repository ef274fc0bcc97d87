/* gshmem-info: prints what this gshmem was built with, what it finds on
 * this machine (libfabric's providers) and every GSHMEM_* setting, like
 * oshmem_info and nvshmem-info. No job, no gshmem_init. */
#include <stdio.h>
#include <string.h>

#include "gshmem.h"

static int usage(FILE *f, int status)
{
    fprintf(f, "usage: gshmem-info [--all] [--json]\n"
               "  --all   also each setting's type and meaning\n"
               "  --json  everything as one JSON object\n");
    return status;
}

int main(int argc, char **argv)
{
    int flags = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--all") == 0 || strcmp(argv[i], "-a") == 0)
            flags |= GSHMEMX_INFO_ALL;
        else if (strcmp(argv[i], "--json") == 0)
            flags |= GSHMEMX_INFO_JSON;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout, 0);
        else {
            fprintf(stderr, "gshmem-info: unknown argument '%s'\n", argv[i]);
            return usage(stderr, 2);
        }
    }
    char *text = gshmemx_info(flags);
    if (text == NULL) {
        fprintf(stderr, "gshmem-info: out of memory\n");
        return 1;
    }
    fputs(text, stdout);
    gshmemx_info_free(text);
    return fflush(stdout) == 0 ? 0 : 1;
}
