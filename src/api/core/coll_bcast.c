/* coll_bcast.c: broadcast on any team (gshmemi_coll_broadcast), straight
 * into the members' dest, which OpenSHMEM has ready on every member when
 * any member enters. v below is a member's place counted from the root.
 * - up to bcast_tree_max bytes (coll_alg.h; by the team's size), a
 *   k-nomial tree: v's parent clears v's lowest nonzero base-k digit; a
 *   member waits for its parent's signal, then puts the whole message into
 *   each child's dest (largest subtree first) and signals it. Small
 *   messages take a radix that makes the tree flat on small teams (the
 *   root puts to everyone: no member waits for another to be scheduled
 *   and forward), larger ones a binomial tree (the copies spread over the
 *   members);
 * - above, scatter + allgather over the non-roots: the root puts block i
 *   of source into non-root i's dest (v = i + 1) and signals it; non-root
 *   i, once signalled, puts its block into every other non-root's dest
 *   and signals it, then waits for theirs. Every byte is copied once per
 *   member that receives it, and the root sends each byte once.
 * Nothing waits for a member that only receives, so a member returns once
 * its own dest is complete and its puts are (a quiet): no barrier. */
#include "coll_alg.h"

static int gshmemi_bcast_pe(const gshmemi_team_t *t, int root, size_t v)
{
    return (int)(((size_t)root + v) % (size_t)t->size);
}

static void gshmemi_bcast_tree(gshmemi_coll_t *c, void *dest, const void *source, size_t n,
                               int root, int radix)
{
    gshmemi_team_t *t = c->t;
    size_t size = (size_t)t->size, k = (size_t)radix;
    size_t v = ((size_t)t->my_idx + size - (size_t)root) % size, top = 1;
    const void *from = source;

    if (v == 0) {
        while (top < size)
            top *= k;
    } else {
        while ((v / top) % k == 0)
            top *= k;
        gshmemi_coll_wait(c, gshmemi_bcast_pe(t, root, v - (v / top) % k * top), 1);
        from = dest;
    }
    for (size_t m = top / k; m >= 1; m /= k)
        for (size_t a = 1; a < k && v + a * m < size; a++)
            gshmemi_coll_put_signal(c, dest, from, n, gshmemi_bcast_pe(t, root, v + a * m));
}

/* scatter + allgather's second step: this non-root's block to the other
 * non-roots (none to the root, whose dest is the source) */
typedef struct gshmemi_bcast_block {
    int root;
    void *block;
} gshmemi_bcast_block_t;

static void gshmemi_bcast_sag_at(gshmemi_coll_t *c, void *arg, int j, void **dest,
                                 const void **src)
{
    const gshmemi_bcast_block_t *a = arg;
    (void)c;
    *dest = j == a->root ? NULL : a->block;
    *src = a->block;
}

static void gshmemi_bcast_sag(gshmemi_coll_t *c, void *dest, const void *source, size_t n,
                              int root)
{
    gshmemi_team_t *t = c->t;
    int m = t->size - 1, v = (t->my_idx - root + t->size) % t->size;
    size_t lo, len;

    if (v == 0) {
        for (int i = 0; i < m; i++) {
            gshmemi_coll_split(n, 64, m, i, &lo, &len);
            gshmemi_coll_put_signal(c, (char *)dest + lo, (const char *)source + lo, len,
                                    gshmemi_bcast_pe(t, root, (size_t)i + 1));
        }
        return;
    }
    gshmemi_coll_split(n, 64, m, v - 1, &lo, &len);
    gshmemi_coll_wait(c, root, 1);
    gshmemi_bcast_block_t a = {root, (char *)dest + lo};
    gshmemi_coll_put_signal_each(c, gshmemi_bcast_sag_at, &a, len);
    for (int i = 1; i < m; i++)
        gshmemi_coll_wait(c, gshmemi_bcast_pe(t, root, (size_t)((v - 1 + i) % m + 1)), 1);
}

void gshmemi_coll_broadcast(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                            size_t nbytes, int root, int to_root)
{
    gshmemi_coll_t c;

    if (nbytes == 0 || t->size == 1) {
        if (to_root && nbytes > 0)
            gshmemi_rma_put(call, dest, source, nbytes, gshmemi_g.my_pe, 0);
        return;
    }
    gshmemi_coll_begin(call, t, &c);
    if (nbytes <= gshmemi_coll_tune.bcast_small_max)
        gshmemi_bcast_tree(&c, dest, source, nbytes, root, gshmemi_coll_tune.bcast_small_radix);
    else if (nbytes <= gshmemi_coll_tune.bcast_tree_max[gshmemi_coll_class(t->size)])
        gshmemi_bcast_tree(&c, dest, source, nbytes, root, gshmemi_coll_tune.bcast_tree_radix);
    else
        gshmemi_bcast_sag(&c, dest, source, nbytes, root);
    if (to_root && t->my_idx == root)
        gshmemi_rma_put(call, dest, source, nbytes, gshmemi_g.my_pe, 0);
    gshmemi_quiet_all(call);
}
