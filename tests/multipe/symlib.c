/* symlib.c: libpe_symlib.so, a shared library with global and static
 * variables, for GSHMEM_SYMMETRIC_LIBS (pe_api_symdata lib). */
long symlib_counter;                  /* bss global */
long symlib_init[2] = {5, 6};         /* data global */
static long symlib_hidden[4];         /* bss static, reached through a function */

long *symlib_static(void)
{
    return symlib_hidden;
}
