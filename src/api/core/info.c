/* info.c: gshmemx_info, the text of gshmem-info and `python3 -m
 * gshmem.info`: version, build options, bootstraps, the transports and
 * what each finds on this machine (their ops' describe: ofi, libfabric's
 * version and providers), and every GSHMEM_* setting (config_table.h), as
 * lines or as one JSON object. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "shmem.h"
#include "base/util/config.h"
#include "transports/transport.h"

#ifndef GSHMEM_VERSION_STRING
#define GSHMEM_VERSION_STRING "unknown"
#endif
#ifndef GSHMEM_BUILD_TYPE
#define GSHMEM_BUILD_TYPE ""
#endif
#ifndef GSHMEM_CUDA_ARCHS
#define GSHMEM_CUDA_ARCHS ""
#endif

/* HIP: the device API is compile-checked with hipcc (GSHMEM_ENABLE_HIP);
 * the library itself runs on CUDA or the host only. */
#ifndef GSHMEM_HIP_ARCHS
#define GSHMEM_HIP_ARCHS ""
#endif
#ifdef GSHMEM_HAVE_CUDA
#define INFO_CUDA 1
#else
#define INFO_CUDA 0
#endif
#ifdef GSHMEM_HAVE_MPI
#define INFO_MPI 1
#else
#define INFO_MPI 0
#endif
#ifdef GSHMEM_HAVE_PMIX
#define INFO_PMIX 1
#else
#define INFO_PMIX 0
#endif
#ifdef GSHMEM_SANITIZED
#define INFO_SAN 1
#else
#define INFO_SAN 0
#endif

static const char *const info_bootstraps[] = {
    "local",
#if INFO_MPI
    "mpi",
#endif
#if INFO_PMIX
    "pmix",
#endif
    "uid", "self",
};

/* The built-in transports and what each describes. */
#define INFO_MAX_TP 8
typedef struct info_tp {
    const char *name;
    char version[64], found[1024];
} info_tp_t;

static size_t info_tp_read(info_tp_t *tp)
{
    size_t n = 0;
    for (const char *name; n < INFO_MAX_TP && (name = gshmemi_transport_name(n)) != NULL; n++) {
        tp[n].name = name;
        gshmemi_transport_lookup(name)->describe(tp[n].version, sizeof tp[n].version,
                                                 tp[n].found, sizeof tp[n].found);
    }
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void info_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A comma list ("a, b") as a JSON array of strings. */
static void info_json_list(FILE *f, const char *list)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    fputc('[', f);
    int first = 1;
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        fputs(first ? "" : ", ", f);
        info_json_str(f, t);
        first = 0;
    }
    fputc(']', f);
}

static void info_json_names(FILE *f, const char *const *names, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        info_json_str(f, names[i]);
    }
    fputc(']', f);
}

/* The value of GSHMEM_<name> in this process's environment, NULL if unset. */
static const char *info_env(const char *name)
{
    char var[128];
    snprintf(var, sizeof var, "GSHMEM_%s", name);
    const char *v = getenv(var);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

static void info_json(FILE *f, const info_tp_t *tp, size_t ntp)
{
    fprintf(f, "{\n  \"name\": \"gshmem\",\n  \"version\": ");
    info_json_str(f, GSHMEM_VERSION_STRING);
    fprintf(f, ",\n  \"openshmem\": \"%d.%d\",\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    fprintf(f, "  \"build\": {\"type\": ");
    info_json_str(f, GSHMEM_BUILD_TYPE);
    fprintf(f, ", \"cuda\": %s, \"cuda_archs\": ", INFO_CUDA ? "true" : "false");
    info_json_list(f, INFO_CUDA ? GSHMEM_CUDA_ARCHS : "");
    fprintf(f, ", \"hip_compile_checked\": ");
    info_json_list(f, GSHMEM_HIP_ARCHS);
    fprintf(f, ", \"mpi\": %s, \"pmix\": %s, \"sanitized\": %s},\n", INFO_MPI ? "true" : "false",
            INFO_PMIX ? "true" : "false", INFO_SAN ? "true" : "false");
    fprintf(f, "  \"bootstraps\": ");
    info_json_names(f, info_bootstraps, sizeof info_bootstraps / sizeof info_bootstraps[0]);
    fprintf(f, ",\n  \"transports\": [");
    for (size_t i = 0; i < ntp; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        info_json_str(f, tp[i].name);
        fprintf(f, ", \"version\": ");
        info_json_str(f, tp[i].version);
        fprintf(f, ", \"found\": ");
        info_json_list(f, tp[i].found);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"settings\": [");
    for (size_t i = 0; i < gshmemi_config_n_descs; i++) {
        const gshmemi_config_desc_t *d = &gshmemi_config_descs[i];
        const char *v = info_env(d->name);
        fprintf(f, "%s\n    {\"name\": \"GSHMEM_%s\", \"type\": \"%s\", \"default\": ",
                i ? "," : "", d->name, d->type);
        info_json_str(f, d->dflt);
        fprintf(f, ", \"value\": ");
        if (v != NULL)
            info_json_str(f, v);
        else
            fputs("null", f);
        fprintf(f, ", \"help\": ");
        info_json_str(f, d->help);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
}

static void info_text(FILE *f, const info_tp_t *tp, size_t ntp, int all)
{
    fprintf(f, "gshmem %s (OpenSHMEM %d.%d)\n", GSHMEM_VERSION_STRING, SHMEM_MAJOR_VERSION,
            SHMEM_MINOR_VERSION);
    fprintf(f, "  build:       %s; CUDA %s%s%s%s; HIP %s%s; MPI %s; PMIx %s%s\n", GSHMEM_BUILD_TYPE,
            INFO_CUDA ? "yes" : "no", INFO_CUDA ? " (archs " : "", INFO_CUDA ? GSHMEM_CUDA_ARCHS : "",
            INFO_CUDA ? ")" : "",
            GSHMEM_HIP_ARCHS[0] ? "device API compile-checked for " : "no", GSHMEM_HIP_ARCHS,
            INFO_MPI ? "yes" : "no", INFO_PMIX ? "yes" : "no", INFO_SAN ? "; ASan+UBSan" : "");
    fprintf(f, "  bootstraps: ");
    for (size_t i = 0; i < sizeof info_bootstraps / sizeof info_bootstraps[0]; i++)
        fprintf(f, " %s", info_bootstraps[i]);
    fprintf(f, "\n  transports: ");
    for (size_t i = 0; i < ntp; i++)
        fprintf(f, " %s", tp[i].name);
    fputc('\n', f);
    for (size_t i = 0; i < ntp; i++) {
        char label[32];
        snprintf(label, sizeof label, "%s:", tp[i].name);
        if (tp[i].version[0] || tp[i].found[0])
            fprintf(f, "  %-12s %s at run time; found here: %s\n", label, tp[i].version,
                    tp[i].found[0] ? tp[i].found : "nothing");
    }
    fprintf(f, "settings (value in this environment, or the default%s):\n",
            all ? "; type; meaning" : "; --all adds what each means");
    for (size_t i = 0; i < gshmemi_config_n_descs; i++) {
        const gshmemi_config_desc_t *d = &gshmemi_config_descs[i];
        const char *v = info_env(d->name);
        char name[64];
        snprintf(name, sizeof name, "GSHMEM_%s", d->name);
        const char *dflt = d->dflt[0] ? d->dflt : "\"\"";
        if (v != NULL)
            fprintf(f, "  %-30s %-14s (set; default %s)\n", name, v, dflt);
        else
            fprintf(f, "  %-30s %s\n", name, dflt);
        if (all)
            fprintf(f, "      %s: %s\n", d->type, d->help);
    }
}

char *gshmemx_info(int flags)
{
    if (flags & ~(GSHMEMX_INFO_ALL | GSHMEMX_INFO_JSON))
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    info_tp_t tp[INFO_MAX_TP];
    size_t ntp = info_tp_read(tp);
    if (flags & GSHMEMX_INFO_JSON)
        info_json(f, tp, ntp);
    else
        info_text(f, tp, ntp, flags & GSHMEMX_INFO_ALL);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void gshmemx_info_free(char *text)
{
    free(text);
}
