/* config.h: every GSHMEM_* setting, declared once in config_table.h, parsed
 * once at init. Sizes accept K/M/G/T suffixes (powers of 1024); booleans
 * accept 0/1/on/off/yes/no/true/false and nothing else; an unknown
 * GSHMEM_* variable draws a warning; GSHMEM_INFO=1 prints the table with
 * current values. */
#ifndef GSHMEMI_CONFIG_H
#define GSHMEMI_CONFIG_H

#include <stddef.h>
#include <stdio.h>

typedef struct gshmemi_config {
#define GSHMEMI_CFG_FIELD_size(name, field) size_t field;
#define GSHMEMI_CFG_FIELD_bool(name, field) int field;
#define GSHMEMI_CFG_FIELD_int(name, field) long field;
#define GSHMEMI_CFG_FIELD_string(name, field) char field[256];
#define GSHMEMI_CFG(type, name, field, dflt, help) GSHMEMI_CFG_FIELD_##type(name, field)
#include "config_table.h"
#undef GSHMEMI_CFG
} gshmemi_config_t;

/* Fill *cfg from the defaults, then from the environment. On an invalid
 * value: logs the variable, the value and what is accepted, returns
 * GSHMEM_ERR_CONFIG, and leaves *cfg unspecified. */
int gshmemi_config_load(gshmemi_config_t *cfg);
/* The bound of a wait that nobody else can end (a kernel's wait, a thread
 * join, init's descriptor exchange): GSHMEM_TIMEOUT when set, else 60 s. */
#define GSHMEMI_CFG_BOUNDED_WAIT_S 60
static inline long gshmemi_config_bounded_wait_s(const gshmemi_config_t *cfg)
{
    return cfg != NULL && cfg->timeout > 0 ? cfg->timeout : GSHMEMI_CFG_BOUNDED_WAIT_S;
}
/* The machine's physical memory in bytes (0: unknown). */
size_t gshmemi_config_phys_bytes(void);
/* A host heap of GSHMEM_SYMMETRIC_SIZE bytes must fit in phys bytes of
 * memory (0: unknown, not checked): a larger one would be accepted by the
 * kernel (memory is committed as it is touched) and fail later. 0, or
 * GSHMEM_ERR_CONFIG logged naming the variable, its value and the limit. */
int gshmemi_config_check_host_heap(const gshmemi_config_t *cfg, size_t phys);
/* Print every setting: name, current value, default, help. */
void gshmemi_config_print(const gshmemi_config_t *cfg, FILE *out);

/* The table itself, for listings (gshmem-info): name after GSHMEM_, type
 * (size, bool, int or string), default and help, in table order. */
typedef struct gshmemi_config_desc {
    const char *name, *type, *dflt, *help;
} gshmemi_config_desc_t;
extern const gshmemi_config_desc_t gshmemi_config_descs[];
extern const size_t gshmemi_config_n_descs;

/* Parsers, exposed for tests. Return 0 or GSHMEM_ERR_CONFIG. */
int gshmemi_parse_size(const char *s, size_t *out_p);
int gshmemi_parse_bool(const char *s, int *out_p);
int gshmemi_parse_int(const char *s, long *out_p);

#endif /* GSHMEMI_CONFIG_H */
