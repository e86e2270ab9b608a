/* cn_goal_exec.c: run a GOAL schedule on real MPI ranks, repetition by repetition.
 *
 * `cloudnoise validate` converts any schedule (a GOAL file, a generated
 * collective, an application) into a flat op table and launches this program
 * on as many ranks as the schedule has. Each rank executes its own ops with
 * LogGOPSim's semantics:
 *
 *   - an op starts once every op it `requires` has completed and every op it
 *     `irequires` has started;
 *   - send -> MPI_Isend, recv -> MPI_Irecv (peer -1 = MPI_ANY_SOURCE, tag
 *     -1 = MPI_ANY_TAG), calc -> busy-wait for its duration;
 *   - ops that become ready together start in program order (the order
 *     MPI posts receives in; the simulator's `--ready-order program`).
 *
 * A progress loop starts every ready op, tests the outstanding requests with
 * MPI_Testsome, marks completions, and repeats until every op completed.
 * Schedule messages travel on a duplicate of MPI_COMM_WORLD, so the
 * executor's own synchronisation can never match them.
 *
 * Timing. Before the first repetition (and every --resync repetitions) rank
 * 0 estimates each rank's clock offset from min-RTT ping-pongs, except for
 * ranks that share rank 0's clock: on the same booted kernel (same host
 * name and boot id) CLOCK_MONOTONIC_RAW is one clock, so their offset is 0
 * exactly, where the ping-pong estimate is off by half the asymmetry of its
 * round trip (+-100-200 ns on shared memory: as much as a small message
 * takes, and it adds to the runtime of every repetition). For each
 * repetition rank 0 picks a start time slightly in the future, broadcasts it,
 * and every rank spins until that instant in its own (offset-corrected)
 * clock, then runs. A rank records its start (the clock read that ended its
 * wait) and the completion of its last op, in rank 0's clock. Python
 * (validation/executor.py) makes the repetition's runtime the latest end minus
 * the earliest start, less the cost of one clock read (a duration between two
 * reads holds one): what the simulator reports as its max host end time (all
 * ranks start at 0 there).
 *
 * With --period-us P the repetitions of a block (between resynchronisations)
 * start at one broadcast start plus k * P us, with no collective in between:
 * how long the ranks wait without messages before a repetition changes what
 * its first message costs (on a shared VM a 16 B exchange took ~1 us after
 * 4-8 us of waiting, 2-4 us after 200 us: bench/bench_first_exchange.py).
 * A repetition that overran the period starts late, and says so (param).
 *
 * With --gap-us G the repetitions are paced: each block after the first runs
 * at a period of the 90th percentile of the previous block's runtimes (the
 * latest rank end after the common start, all ranks' maximum by one
 * allreduce at the block boundary) plus G, so the ranks wait about G before a
 * repetition, as a loop of back-to-back collectives would, instead of the
 * start margin (~60 us). With warm-up repetitions, the first measured
 * repetition starts a block, so the warm-up (its second half: the first
 * touches the buffers) sets the first measured pace;
 * rank 0's info file has the period of every block (period_repN_ns).
 *
 * Op table (text, written by cloudnoise.validation.optable):
 *
 *   cloudnoise-optable 1
 *   ranks P
 *   max_bytes B
 *   rank R ops N deps D
 *   s BYTES PEER TAG        (N op lines, in program order; kind s, r or c;
 *   r BYTES PEER TAG         for c, BYTES is the duration in ns and PEER,
 *   c NS -1 -1               TAG are -1)
 *   d A B K                 (D lines: op A waits for op B; K 0 = requires,
 *                            1 = irequires; ops numbered from 0)
 *
 * Output: PREFIX.rankN.info (cn_info.h) and PREFIX.rankN.bin (cn_samples.h),
 * one record per measured repetition: kind CN_KIND_GOAL_REP, size_bytes =
 * repetition, param = how late this rank started (ns after the common
 * start), stream = rank, t_ns = the common start (rank 0's clock), value_ns =
 * this rank's end after the common start.
 *
 * Machine state. At every resynchronisation and after the last repetition
 * the host's first two ranks time a cache line passed between their cores
 * (cn_core_latency.h): record kind CN_KIND_CORE_LATENCY on rank 0,
 * size_bytes = the measured repetition that follows (reps at the end). A VM's
 * host can move its vCPUs and change this several times over, and every
 * small message with it; validate compares it with the profile's. Ranks 0
 * and 1 then time 64 polled 1 B MPI ping-pongs (CN_KIND_PINGPONG_REF, the
 * median one-way time): on a shared host the transport slows 2-4x for
 * seconds at a time with the cores where they were, and validate compares
 * this with the model's one-way 1 B time.
 *
 * With --yield (for more ranks than cores) a rank waiting for messages or for
 * the start calls sched_yield() between polls, so ranks sharing a core take
 * turns quickly instead of in whole scheduler time slices; calcs still spin.
 *
 * Testing hook: with CLOUDNOISE_INJECT_CRASH=RANK in the environment, that
 * rank aborts (SIGABRT) in the first measured repetition.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cn_core_latency.h"
#include "cn_info.h"
#include "cn_samples.h"
#include "cn_timer.h"

#define TAG_SYNC 7
#define SYNC_ROUNDS 25
#define CLOCK_ID_LEN 320

enum { OP_SEND = 0, OP_RECV = 1, OP_CALC = 2 };

struct op {
    int kind;
    int64_t amount; /* bytes, or ns for calc */
    int peer, tag;
};

struct rank_table {
    int nops;
    struct op *ops;
    int *req_count, *ireq_count;    /* initial dependency counts */
    int *done_first, *done_succ;    /* CSR: ops released by completion */
    int *start_first, *start_succ;  /* CSR: ops released by start */
};

struct options {
    const char *table, *prefix;
    long reps, warmup, resync;
    double margin_us;
    double period_us; /* > 0: a block's repetitions start this far apart, from one broadcast */
    double gap_us;    /* > 0: paced: each block's period = p90 of the last block's runtimes + gap */
    int yield; /* oversubscribed cores: give the core away while waiting */
};

struct state {
    int *req_left, *ireq_left;
    int *ready, ready_head, ready_tail; /* FIFO of ops ready to start */
    MPI_Request *reqs;
    int *req_op;           /* op behind reqs[i] */
    int *req_buf;          /* receive buffer slot of reqs[i], -1 for sends */
    int nactive, completed;
    int *indices;
    char **rbufs;          /* receive buffer pool */
    int *free_bufs, nfree, nbufs, cap_bufs;
    int64_t rbuf_bytes;
    char *sbuf;
    int64_t last_end;
};

static void die(const char *msg)
{
    fprintf(stderr, "cloudnoise probe: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void parse(int argc, char **argv, struct options *o)
{
    static struct option longopts[] = {
        {"table", required_argument, 0, 't'},  {"out", required_argument, 0, 'o'},
        {"reps", required_argument, 0, 'n'},   {"warmup", required_argument, 0, 'w'},
        {"resync", required_argument, 0, 's'}, {"margin-us", required_argument, 0, 'm'},
        {"yield", no_argument, 0, 'y'},        {"period-us", required_argument, 0, 'p'},
        {"gap-us", required_argument, 0, 'g'}, {0, 0, 0, 0}};
    int c;
    memset(o, 0, sizeof *o);
    o->reps = 1000;
    o->warmup = 10;
    o->resync = 100;
    o->margin_us = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 't': o->table = optarg; break;
        case 'o': o->prefix = optarg; break;
        case 'n': o->reps = atol(optarg); break;
        case 'w': o->warmup = atol(optarg); break;
        case 's': o->resync = atol(optarg); break;
        case 'm': o->margin_us = atof(optarg); break;
        case 'p': o->period_us = atof(optarg); break;
        case 'g': o->gap_us = atof(optarg); break;
        case 'y': o->yield = 1; break;
        default: die("unknown option");
        }
    }
    if (!o->table || !o->prefix)
        die("--table FILE and --out PREFIX are required");
    if (o->reps < 1 || o->warmup < 0)
        die("--reps must be at least 1 and --warmup at least 0");
    if (o->resync < 1)
        o->resync = 1;
    if (!(o->period_us >= 0 && o->period_us <= 1e6))
        die("--period-us must be between 0 and 1000000");
    if (!(o->gap_us >= 0 && o->gap_us <= 1e6))
        die("--gap-us must be between 0 and 1000000");
}

/* Reads this rank's part of the op table; checks the rank count. */
static void load_table(const char *path, int rank, int nranks, struct rank_table *t,
                       int64_t *max_bytes)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    int version = 0, ranks = -1, r, n, d, i, found = 0;
    long long maxb = -1;
    if (!fp)
        die("cannot open the op table");
    if (!fgets(line, sizeof line, fp) || sscanf(line, "cloudnoise-optable %d", &version) != 1 ||
        version != 1)
        die("the op table is not a cloudnoise-optable 1 file");
    if (!fgets(line, sizeof line, fp) || sscanf(line, "ranks %d", &ranks) != 1)
        die("the op table has no ranks line");
    if (ranks != nranks) {
        fprintf(stderr, "cloudnoise probe: the schedule has %d ranks but %d were launched\n", ranks,
                nranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!fgets(line, sizeof line, fp) || sscanf(line, "max_bytes %lld", &maxb) != 1 || maxb < 0)
        die("the op table has no max_bytes line");
    *max_bytes = maxb;
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "rank %d ops %d deps %d", &r, &n, &d) != 3)
            continue;
        if (r != rank)
            continue;
        found = 1;
        t->nops = n;
        t->ops = xcalloc((size_t)n, sizeof *t->ops);
        t->req_count = xcalloc((size_t)n, sizeof(int));
        t->ireq_count = xcalloc((size_t)n, sizeof(int));
        t->done_first = xcalloc((size_t)n + 1, sizeof(int));
        t->start_first = xcalloc((size_t)n + 1, sizeof(int));
        for (i = 0; i < n; i++) {
            char kind;
            long long amount;
            int peer, tag;
            if (!fgets(line, sizeof line, fp) ||
                sscanf(line, " %c %lld %d %d", &kind, &amount, &peer, &tag) != 4)
                die("truncated or malformed op line in the op table");
            t->ops[i].kind = kind == 's' ? OP_SEND : kind == 'r' ? OP_RECV : OP_CALC;
            if (kind != 's' && kind != 'r' && kind != 'c')
                die("unknown op kind in the op table");
            t->ops[i].amount = amount;
            t->ops[i].peer = peer;
            t->ops[i].tag = tag;
        }
        {
            int *a = xcalloc((size_t)d, sizeof(int)), *b = xcalloc((size_t)d, sizeof(int));
            int *k = xcalloc((size_t)d, sizeof(int)), *fill_d, *fill_s;
            for (i = 0; i < d; i++) {
                if (!fgets(line, sizeof line, fp) ||
                    sscanf(line, " d %d %d %d", &a[i], &b[i], &k[i]) != 3 || a[i] < 0 ||
                    a[i] >= n || b[i] < 0 || b[i] >= n)
                    die("truncated or malformed dependency line in the op table");
                if (k[i] == 0) {
                    t->req_count[a[i]]++;
                    t->done_first[b[i] + 1]++;
                } else {
                    t->ireq_count[a[i]]++;
                    t->start_first[b[i] + 1]++;
                }
            }
            for (i = 0; i < n; i++) {
                t->done_first[i + 1] += t->done_first[i];
                t->start_first[i + 1] += t->start_first[i];
            }
            t->done_succ = xcalloc((size_t)t->done_first[n], sizeof(int));
            t->start_succ = xcalloc((size_t)t->start_first[n], sizeof(int));
            fill_d = xcalloc((size_t)n, sizeof(int));
            fill_s = xcalloc((size_t)n, sizeof(int));
            for (i = 0; i < d; i++) {
                if (k[i] == 0)
                    t->done_succ[t->done_first[b[i]] + fill_d[b[i]]++] = a[i];
                else
                    t->start_succ[t->start_first[b[i]] + fill_s[b[i]]++] = a[i];
            }
            free(a);
            free(b);
            free(k);
            free(fill_d);
            free(fill_s);
        }
        break;
    }
    fclose(fp);
    if (!found)
        die("the op table has no section for this rank");
}

static char *alloc_buffer(int64_t bytes)
{
    char *p = NULL;
    if (posix_memalign((void **)&p, 4096, (size_t)(bytes > 0 ? bytes : 1)))
        die("cannot allocate a message buffer");
    memset(p, 0, (size_t)(bytes > 0 ? bytes : 1)); /* first-touch faults stay out of timings */
    return p;
}

static int take_rbuf(struct state *s)
{
    if (s->nfree > 0)
        return s->free_bufs[--s->nfree];
    if (s->nbufs == s->cap_bufs) {
        s->cap_bufs = s->cap_bufs ? 2 * s->cap_bufs : 8;
        s->rbufs = realloc(s->rbufs, sizeof(char *) * (size_t)s->cap_bufs);
        s->free_bufs = realloc(s->free_bufs, sizeof(int) * (size_t)s->cap_bufs);
        if (!s->rbufs || !s->free_bufs)
            die("out of memory");
    }
    s->rbufs[s->nbufs] = alloc_buffer(s->rbuf_bytes);
    return s->nbufs++;
}

static void push_ready(struct state *s, int op) { s->ready[s->ready_tail++] = op; }

static void op_done(const struct rank_table *t, struct state *s, int op)
{
    int j;
    s->completed++;
    for (j = t->done_first[op]; j < t->done_first[op + 1]; j++) {
        int succ = t->done_succ[j];
        if (--s->req_left[succ] == 0 && s->ireq_left[succ] == 0)
            push_ready(s, succ);
    }
}

static void op_started(const struct rank_table *t, struct state *s, int op)
{
    int j;
    for (j = t->start_first[op]; j < t->start_first[op + 1]; j++) {
        int succ = t->start_succ[j];
        if (--s->ireq_left[succ] == 0 && s->req_left[succ] == 0)
            push_ready(s, succ);
    }
}

/* Runs every op of this rank once, from `begin`; returns when all completed.
 * The clock is read only where the result is needed (after a calc, and when
 * the last op completed): on a VM one read costs 50-120 ns, and a read
 * between a completion and the op it releases would delay that op. */
static void run_schedule(const struct rank_table *t, struct state *s, MPI_Comm comm, int yield,
                         int64_t begin)
{
    int i;
    s->ready_head = s->ready_tail = 0;
    s->nactive = 0;
    s->completed = 0;
    s->last_end = begin;
    for (i = 0; i < t->nops; i++) {
        s->req_left[i] = t->req_count[i];
        s->ireq_left[i] = t->ireq_count[i];
        if (s->req_left[i] == 0 && s->ireq_left[i] == 0)
            push_ready(s, i);
    }
    while (s->completed < t->nops) {
        while (s->ready_head < s->ready_tail) {
            int op = s->ready[s->ready_head++];
            const struct op *o = &t->ops[op];
            if (o->kind == OP_CALC) {
                int64_t deadline, now;
                op_started(t, s, op);
                deadline = cn_now_ns() + o->amount;
                while ((now = cn_now_ns()) < deadline) {
                }
                op_done(t, s, op);
                s->last_end = now;
                continue;
            }
            if (o->kind == OP_SEND) {
                MPI_Isend(s->sbuf, (int)o->amount, MPI_BYTE, o->peer, o->tag, comm,
                          &s->reqs[s->nactive]);
                s->req_buf[s->nactive] = -1;
            } else {
                int slot = take_rbuf(s);
                MPI_Irecv(s->rbufs[slot], (int)o->amount, MPI_BYTE,
                          o->peer < 0 ? MPI_ANY_SOURCE : o->peer,
                          o->tag < 0 ? MPI_ANY_TAG : o->tag, comm, &s->reqs[s->nactive]);
                s->req_buf[s->nactive] = slot;
            }
            s->req_op[s->nactive++] = op;
            op_started(t, s, op);
        }
        if (s->nactive > 0) {
            int outcount = 0, k, w;
            MPI_Testsome(s->nactive, s->reqs, &outcount, s->indices, MPI_STATUSES_IGNORE);
            if (outcount == MPI_UNDEFINED || outcount == 0) {
                if (yield)
                    sched_yield();
                continue;
            }
            for (k = 0; k < outcount; k++) {
                int idx = s->indices[k];
                if (s->req_buf[idx] >= 0)
                    s->free_bufs[s->nfree++] = s->req_buf[idx];
                op_done(t, s, s->req_op[idx]);
                s->req_op[idx] = -1;
            }
            if (s->completed == t->nops)
                s->last_end = cn_now_ns();
            /* compact the outstanding requests, keeping their posting order */
            for (k = 0, w = 0; k < s->nactive; k++) {
                if (s->req_op[k] < 0)
                    continue;
                s->reqs[w] = s->reqs[k];
                s->req_op[w] = s->req_op[k];
                s->req_buf[w] = s->req_buf[k];
                w++;
            }
            s->nactive = w;
        } else if (s->ready_head == s->ready_tail && s->completed < t->nops) {
            die("the schedule cannot complete on this rank (a dependency cycle)");
        }
    }
}

/* Waits for one request; with `yield`, gives the core away between tests
 * (MPICH's blocking calls poll without yielding). */
static void wait_request(MPI_Request *req, int yield)
{
    int done = 0;
    if (!yield) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
        return;
    }
    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        sched_yield();
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Where a block of repetitions starts (a resynchronisation and a broadcast
 * start). Paced runs (--gap-us) also start one at the first measured
 * repetition, so that the warm-up repetitions set the period the measured
 * ones run at. */
static int block_starts(const struct options *o, long rep)
{
    if (o->gap_us > 0 && o->warmup > 0) {
        if (rep < o->warmup)
            return rep == 0;
        return (rep - o->warmup) % o->resync == 0;
    }
    return rep % o->resync == 0;
}

/* The pace of the next block: the 90th percentile of the last block's
 * runtimes (latest rank end after the common start, from every rank) plus
 * the gap. One rare slow repetition then delays only the repetition after it
 * (which starts late and says so) instead of spacing out every repetition,
 * and the ranks wait about the gap, not a margin, before each repetition. */
static int64_t next_period_ns(int64_t *runtimes, long n, double gap_us, int yield)
{
    MPI_Request req;
    long k;
    MPI_Iallreduce(MPI_IN_PLACE, runtimes, (int)n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &req);
    wait_request(&req, yield);
    qsort(runtimes, (size_t)n, sizeof *runtimes, cmp_i64);
    k = (9 * n + 9) / 10 - 1; /* ceil(0.9 n) - 1 */
    return (runtimes[k] > 0 ? runtimes[k] : 0) + (int64_t)(gap_us * 1000.0);
}

/* Completes every request by polling MPI_Testsome (never a blocking wait:
 * MPICH's yields the core), giving the core away between polls with --yield. */
static void poll_requests(MPI_Request *req, int n, int yield)
{
    int left = n, done = 0, idx[2];
    while (left > 0) {
        MPI_Testsome(n, req, &done, idx, MPI_STATUSES_IGNORE);
        if (done == MPI_UNDEFINED)
            return;
        left -= done;
        if (yield && left > 0)
            sched_yield();
    }
}

/* The machine's state as MPI sees it: PING_TRIPS polled 1 B ping-pongs
 * between ranks 0 and 1 (MPI_Isend/MPI_Irecv completed by polling, receives
 * posted early, as measure loggp times them); returns the median one-way
 * time on rank 0, -1 elsewhere. Both ranks 0 and 1 must call it. */
#define PING_TRIPS 64
#define PING_WARM 4
#define PING_TAG 32000
static int64_t pingpong_ref_ns(int rank, int nranks, int yield)
{
    int64_t rtt[PING_TRIPS];
    char out = 'p', in = 0;
    int i, peer = 1 - rank;
    MPI_Request req[2];
    if (nranks < 2 || rank > 1)
        return -1;
    for (i = -PING_WARM; i < PING_TRIPS; i++) {
        int64_t t0;
        MPI_Irecv(&in, 1, MPI_CHAR, peer, PING_TAG, MPI_COMM_WORLD, &req[1]);
        t0 = cn_now_ns();
        if (rank == 0) {
            MPI_Isend(&out, 1, MPI_CHAR, peer, PING_TAG, MPI_COMM_WORLD, &req[0]);
            poll_requests(req, 2, yield);
            if (i >= 0)
                rtt[i] = cn_now_ns() - t0;
        } else {
            poll_requests(&req[1], 1, yield);
            MPI_Isend(&out, 1, MPI_CHAR, peer, PING_TAG, MPI_COMM_WORLD, &req[0]);
            poll_requests(&req[0], 1, yield);
        }
    }
    if (rank != 0)
        return -1;
    qsort(rtt, PING_TRIPS, sizeof rtt[0], cmp_i64);
    return rtt[PING_TRIPS / 2] / 2;
}

/* An identity of this rank's CLOCK_MONOTONIC_RAW: host name and boot id
 * (empty boot id where the kernel does not say: never shared then). */
static void clock_identity(char *out, size_t len)
{
    char host[256] = "unknown", boot[64] = "";
    FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (fp) {
        if (!fgets(boot, sizeof boot, fp))
            boot[0] = '\0';
        fclose(fp);
    }
    boot[strcspn(boot, "\r\n")] = '\0';
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    snprintf(out, len, "%s|%s", host, boot);
}

/* shared[r] = 1 where rank r reads the same clock as rank 0 (rank 0 only). */
static void find_shared_clocks(int rank, int nranks, int *shared)
{
    char mine[CLOCK_ID_LEN], root[CLOCK_ID_LEN];
    int same;
    memset(mine, 0, sizeof mine);
    clock_identity(mine, sizeof mine);
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, CLOCK_ID_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    same = strchr(mine, '|')[1] != '\0' && strcmp(mine, root) == 0;
    MPI_Gather(&same, 1, MPI_INT, shared, 1, MPI_INT, 0, MPI_COMM_WORLD);
    (void)rank;
    (void)nranks;
}

/* Offsets of every rank's clock relative to rank 0 (local = rank0 + offset),
 * from the ping-pong with the smallest round trip; 0 for ranks sharing rank
 * 0's clock. Rank 0 gets all of them; every rank gets its own. Returns the
 * largest min-RTT seen (rank 0). */
static int64_t sync_clocks(int rank, int nranks, const int *shared, int64_t *my_offset,
                           int64_t *offsets)
{
    int r, k;
    int64_t worst_rtt = 0;
    if (rank == 0) {
        offsets[0] = 0;
        for (r = 1; r < nranks; r++) {
            int64_t best_rtt = INT64_MAX, best_off = 0;
            for (k = 0; k < SYNC_ROUNDS; k++) {
                int64_t t0 = cn_now_ns(), remote, t1;
                MPI_Send(&t0, 1, MPI_INT64_T, r, TAG_SYNC, MPI_COMM_WORLD);
                MPI_Recv(&remote, 1, MPI_INT64_T, r, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t1 = cn_now_ns();
                if (t1 - t0 < best_rtt) {
                    best_rtt = t1 - t0;
                    best_off = remote - (t0 + (t1 - t0) / 2);
                }
            }
            offsets[r] = shared[r] ? 0 : best_off;
            if (best_rtt > worst_rtt)
                worst_rtt = best_rtt;
        }
    } else {
        for (k = 0; k < SYNC_ROUNDS; k++) {
            int64_t dummy, now;
            MPI_Recv(&dummy, 1, MPI_INT64_T, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            now = cn_now_ns();
            MPI_Send(&now, 1, MPI_INT64_T, 0, TAG_SYNC, MPI_COMM_WORLD);
        }
    }
    MPI_Scatter(offsets, 1, MPI_INT64_T, my_offset, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(&worst_rtt, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return worst_rtt;
}

int main(int argc, char **argv)
{
    struct options o;
    struct rank_table t;
    struct state s;
    struct cn_timer_info timer;
    struct cn_sample_file samples;
    struct cn_core_probe core;
    MPI_Comm comm;
    int rank, nranks, i, flag = 0, crash_rank = -1;
    int64_t max_bytes = 0, offset = 0, rtt = 0, *offsets, margin_ns, block_start = 0, period_ns;
    int64_t *block_runtimes; /* paced runs: this block's runtimes so far, this rank's view */
    long block_first = 0, block_len;
    int *shared;
    int64_t max_tag = -1;
    void *tag_ub_ptr = NULL;
    long rep, total;
    char path[4096];
    FILE *info;
    const char *crash = getenv("CLOUDNOISE_INJECT_CRASH");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    parse(argc, argv, &o);
    if (crash && *crash)
        crash_rank = atoi(crash);
    memset(&t, 0, sizeof t);
    memset(&s, 0, sizeof s);
    load_table(o.table, rank, nranks, &t, &max_bytes);
    if (max_bytes > INT32_MAX)
        die("messages above 2 GiB - 1 byte are not supported");

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub_ptr, &flag);
    for (i = 0; i < t.nops; i++)
        if (t.ops[i].kind != OP_CALC && t.ops[i].tag > max_tag)
            max_tag = t.ops[i].tag;
    if (flag && tag_ub_ptr && max_tag > *(int *)tag_ub_ptr) {
        fprintf(stderr, "cloudnoise probe: the schedule uses %lld distinct tags, above this MPI's "
                        "MPI_TAG_UB (%d)\n", (long long)max_tag + 1, *(int *)tag_ub_ptr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (i = 0; i < t.nops; i++)
        if (t.ops[i].kind != OP_CALC && (t.ops[i].peer >= nranks || t.ops[i].peer < -1 ||
                                          (t.ops[i].kind == OP_SEND && t.ops[i].peer < 0)))
            die("an op of the table names a peer outside the launched ranks");

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    s.sbuf = alloc_buffer(max_bytes);
    memset(s.sbuf, 'a', (size_t)(max_bytes > 0 ? max_bytes : 1));
    s.rbuf_bytes = max_bytes;
    s.req_left = xcalloc((size_t)t.nops, sizeof(int));
    s.ireq_left = xcalloc((size_t)t.nops, sizeof(int));
    s.ready = xcalloc((size_t)t.nops, sizeof(int));
    s.reqs = xcalloc((size_t)t.nops, sizeof(MPI_Request));
    s.req_op = xcalloc((size_t)t.nops, sizeof(int));
    s.req_buf = xcalloc((size_t)t.nops, sizeof(int));
    s.indices = xcalloc((size_t)t.nops, sizeof(int));
    offsets = xcalloc((size_t)nranks, sizeof(int64_t));
    shared = xcalloc((size_t)nranks, sizeof(int));
    find_shared_clocks(rank, nranks, shared);
    if (cn_core_probe_open(&core, MPI_COMM_WORLD, o.yield) != 0)
        die("cannot open the shared-memory window of the core-latency probe");

    timer = cn_timer_describe();
    info = cn_info_open(o.prefix, rank, nranks, &timer);
    if (!info)
        die("cannot write the info file (is the output directory writable?)");
    fprintf(info, "ops=%d\nmax_bytes=%lld\nreps=%ld\nwarmup=%ld\n", t.nops, (long long)max_bytes,
            o.reps, o.warmup);
    if (rank == 0)
        for (i = 0; i < nranks; i++)
            fprintf(info, "clock_shared_rank%d=%d\n", i, shared[i]);
    fflush(info);
    snprintf(path, sizeof path, "%s.rank%d.bin", o.prefix, rank);
    if (cn_samples_open(&samples, path))
        die("cannot open the sample file");

    total = o.warmup + o.reps;
    margin_ns = 0;
    period_ns = (int64_t)(o.period_us * 1000.0);
    block_runtimes = xcalloc((size_t)(o.resync > o.warmup ? o.resync : o.warmup), sizeof(int64_t));
    for (rep = 0; rep < total; rep++) {
        int64_t start0 = 0, start_local, begin, end;
        int new_block = block_starts(&o, rep);
        if (new_block && o.gap_us > 0 && rep > 0) {
            /* the warm-up's first half touches the receive buffers for the first time
             * (a 1 MiB broadcast took ms there): its second half sets the first pace */
            long n = rep - block_first, skip = (block_first == 0 && rep == o.warmup) ? n / 2 : 0;
            period_ns = next_period_ns(block_runtimes + skip, n - skip, o.gap_us, o.yield);
            if (rank == 0) {
                fprintf(info, "period_rep%ld_ns=%lld\n", rep, (long long)period_ns);
                fflush(info);
            }
        }
        if (new_block) {
            int64_t core_ns = cn_core_probe_ns(&core), ping_ns = pingpong_ref_ns(rank, nranks, o.yield);
            if (core_ns >= 0)
                cn_samples_add(&samples, CN_KIND_CORE_LATENCY, rep - o.warmup, 0, 0, cn_now_ns(), core_ns);
            if (ping_ns >= 0)
                cn_samples_add(&samples, CN_KIND_PINGPONG_REF, rep - o.warmup, 0, 0, cn_now_ns(), ping_ns);
            rtt = sync_clocks(rank, nranks, shared, &offset, offsets);
            /* far enough ahead that the broadcast reaches every rank first */
            margin_ns = o.margin_us > 0 ? (int64_t)(o.margin_us * 1000.0) : 20000 + 8 * rtt * nranks;
            if (rank == 0)
                for (i = 0; i < nranks; i++)
                    fprintf(info, "offset_rank%d_rep%ld_ns=%lld\n", i, rep, (long long)offsets[i]);
            if (rank == 0) {
                fprintf(info, "sync_rtt_rep%ld_ns=%lld\n", rep, (long long)rtt);
                fflush(info);
            }
        }
        block_len = rep - block_first;
        if (!new_block && (period_ns > 0 || o.gap_us > 0)) {
            /* within a block: the next slot of the block's schedule, no collective (a paced
             * first block without --period-us spaces its repetitions by the start margin) */
            start0 = block_start + block_len * (period_ns > 0 ? period_ns : margin_ns);
        } else {
            MPI_Request req;
            MPI_Ibarrier(MPI_COMM_WORLD, &req);
            wait_request(&req, o.yield);
            if (rank == 0)
                start0 = cn_now_ns() + margin_ns;
            MPI_Ibcast(&start0, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &req);
            wait_request(&req, o.yield);
            block_start = start0;
            block_first = rep;
            block_len = 0;
        }
        start_local = start0 + offset;
        /* the read that ends the wait is the start: no read of its own */
        if (o.yield)
            while ((begin = cn_now_ns()) < start_local)
                sched_yield();
        else
            while ((begin = cn_now_ns()) < start_local) {
            }
        if (rank == crash_rank && rep == o.warmup)
            abort();
        run_schedule(&t, &s, comm, o.yield, begin);
        end = s.last_end;
        block_runtimes[block_len] = end - start_local;
        if (rep >= o.warmup)
            cn_samples_add(&samples, CN_KIND_GOAL_REP, rep - o.warmup, begin - start_local, rank,
                           start0, end - start_local);
    }
    {
        int64_t core_ns = cn_core_probe_ns(&core), ping_ns = pingpong_ref_ns(rank, nranks, o.yield);
        if (core_ns >= 0)
            cn_samples_add(&samples, CN_KIND_CORE_LATENCY, o.reps, 0, 0, cn_now_ns(), core_ns);
        if (ping_ns >= 0)
            cn_samples_add(&samples, CN_KIND_PINGPONG_REF, o.reps, 0, 0, cn_now_ns(), ping_ns);
    }
    free(block_runtimes);
    cn_core_probe_close(&core);
    cn_samples_close(&samples);
    fprintf(info, "receive_buffers=%d\nend_monotonic_ns=%lld\ncomplete=1\n", s.nbufs,
            (long long)cn_now_ns());
    fclose(info);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
