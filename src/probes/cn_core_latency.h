/* cn_core_latency.h: how far apart, right now, the cores of two ranks on one host are.
 *
 * Why. On a virtual machine the host decides where the guest's vCPUs run, and
 * it moves them. On the 2-vCPU AMD EPYC VM cloudnoise is developed on, one
 * cache line passed between the two ranks' cores takes ~57 ns one way in one
 * placement and ~250 ns in another; an MPI ping-pong over shared memory
 * follows it (~200 ns vs ~480 ns one way), and the state can change within
 * seconds, in the middle of a run. A LogGP profile measured in one state
 * cannot predict a run in the other. This probe measures the state cheaply
 * (well under a millisecond), so that measurements and validations say which
 * state they ran in and can be compared only where the states agree.
 *
 * What. The lowest two ranks of each host (MPI_COMM_TYPE_SHARED) pass a
 * counter back and forth through a shared-memory window, outside MPI's own
 * transport: 9 batches of 64 round trips; the result is the median batch's
 * one-way time (round trip / 2), in ns, on the first of the two ranks. No
 * MPI call is made inside the timed loop.
 *
 * Use. cn_core_probe_open() is collective over the communicator given (all
 * ranks); cn_core_probe_ns() must be called at the same program point by
 * both ranks of the pair (any other rank returns -1 at once); it returns -1
 * on a rank that is not the first of a pair or where a host has one rank.
 */
#ifndef CN_CORE_LATENCY_H
#define CN_CORE_LATENCY_H

#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "cn_timer.h"

#define CN_CORE_BATCHES 9
#define CN_CORE_TRIPS 64
#define CN_CORE_LINE 128 /* bytes between the two flags: never one cache line */

struct cn_core_probe {
    MPI_Comm local;
    MPI_Win win;
    int64_t *flags;  /* [0]: written by the first rank, [CN_CORE_LINE / 8]: by the second */
    int role;        /* 0: first of the pair, 1: second, -1: not in a pair */
    int64_t seq;     /* the last value passed; grows over every call */
    int yield;       /* more ranks than cores: give the core away while waiting */
};

static inline int cn_core_probe_open(struct cn_core_probe *p, MPI_Comm comm, int yield)
{
    int lrank = 0, lsize = 1, disp = 1;
    MPI_Aint bytes = 0;
    void *mine = NULL;
    p->role = -1;
    p->seq = 0;
    p->yield = yield;
    p->flags = NULL;
    p->local = MPI_COMM_NULL;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &p->local) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(p->local, &lrank);
    MPI_Comm_size(p->local, &lsize);
    /* only the first rank of the host holds memory: both flags live in it */
    if (MPI_Win_allocate_shared(lrank == 0 ? 2 * CN_CORE_LINE : 0, 1, MPI_INFO_NULL, p->local, &mine,
                                &p->win) != MPI_SUCCESS)
        return -1;
    if (MPI_Win_shared_query(p->win, 0, &bytes, &disp, &mine) != MPI_SUCCESS || bytes < 2 * CN_CORE_LINE)
        return -1;
    p->flags = (int64_t *)mine;
    if (lrank == 0) {
        __atomic_store_n(&p->flags[0], 0, __ATOMIC_RELEASE);
        __atomic_store_n(&p->flags[CN_CORE_LINE / 8], 0, __ATOMIC_RELEASE);
    }
    MPI_Barrier(p->local);
    if (lsize >= 2 && lrank < 2)
        p->role = lrank;
    return 0;
}

static inline void cn_core_wait(const struct cn_core_probe *p, const int64_t *flag, int64_t value)
{
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != value)
        if (p->yield)
            sched_yield();
}

static int cn_core_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* One measurement: the one-way time in ns on the first rank of the pair, -1 elsewhere. */
static inline int64_t cn_core_probe_ns(struct cn_core_probe *p)
{
    int64_t batch[CN_CORE_BATCHES];
    int64_t *mine, *theirs;
    int b, i;
    if (p->role < 0 || !p->flags)
        return -1;
    mine = p->role == 0 ? &p->flags[0] : &p->flags[CN_CORE_LINE / 8];
    theirs = p->role == 0 ? &p->flags[CN_CORE_LINE / 8] : &p->flags[0];
    /* one untimed round trip: both ranks are in the loop before timing starts */
    for (b = -1; b < CN_CORE_BATCHES; b++) {
        int trips = b < 0 ? 1 : CN_CORE_TRIPS;
        int64_t t0 = cn_now_ns();
        for (i = 0; i < trips; i++) {
            int64_t v = ++p->seq;
            if (p->role == 0) {
                __atomic_store_n(mine, v, __ATOMIC_RELEASE);
                cn_core_wait(p, theirs, v);
            } else {
                cn_core_wait(p, theirs, v);
                __atomic_store_n(mine, v, __ATOMIC_RELEASE);
            }
        }
        if (b >= 0)
            batch[b] = cn_now_ns() - t0;
    }
    if (p->role != 0)
        return -1;
    qsort(batch, CN_CORE_BATCHES, sizeof batch[0], cn_core_cmp);
    return (batch[CN_CORE_BATCHES / 2] + CN_CORE_TRIPS) / (2 * CN_CORE_TRIPS);
}

static inline void cn_core_probe_close(struct cn_core_probe *p)
{
    if (p->flags)
        MPI_Win_free(&p->win);
    if (p->local != MPI_COMM_NULL)
        MPI_Comm_free(&p->local);
    p->flags = NULL;
    p->role = -1;
}

#endif
