/* cn_loggp.c: the operations a LogGP(S) fit must reproduce, between 2 ranks.
 *
 * Netgauge's parametrised round trips (Hoefler, Lichei, Rehm: "LogGP in
 * theory and practice", 2009) with every sample kept, measured the way
 * cloudnoise's GOAL executor (cn_goal_exec.c) and most MPI collectives run:
 * MPI_Isend / MPI_Irecv, completion by polling MPI_Testsome, receives posted
 * before their message arrives unless said otherwise. Blocking MPI calls are
 * never used in a timed region: MPICH's blocking waits yield the core
 * (sched_yield) and measure the scheduler, not the transport.
 *
 * Rank 0 ("sender", the initiator) and rank 1 ("receiver"). For each round
 * (--rounds, every size once per round, so a disturbed stretch of time spoils
 * some rounds rather than some sizes) and each size s:
 *
 *   pingpong  PRTT(1,0,s): ping-pong, both receives posted early. Rank 0
 *             records the RTT (CN_KIND_RTT).
 *   exchange  the smallest collective: both ranks MPI_Isend then MPI_Irecv
 *             (the executor's program order) and poll both to completion,
 *             back to back, so each iteration lasts one exchange
 *             (CN_KIND_EXCHANGE, rank 0).
 *   train     PRTT(n,0,s): n MPI_Isend back to back, closed by an s-byte
 *             reply (CN_KIND_TRAIN, param = n).
 *   delayed   PRTT(n,d,s): the same with d = the median PRTT(1,0,s) spun
 *             between the sends (CN_KIND_TRAIN_DELAYED, param = d).
 *   early     the receiver posts its receive, signals the sender, spins
 *             until the message has surely arrived (RTT + 5 us) and times
 *             the polling that completes it: what a posted receive costs
 *             (CN_KIND_RECV_EARLY, rank 1, param = the wait). The sender
 *             times its MPI_Isend call meanwhile (CN_KIND_ISEND_CALL).
 *   late      the receiver spins the same wait without a posted receive,
 *             then times MPI_Irecv plus the polling: the unexpected-message
 *             path (CN_KIND_RECV_LATE, rank 1). The sender times its
 *             MPI_Isend to completion meanwhile (CN_KIND_SEND_DONE, rank 0,
 *             param = the wait): an eager send completes on its own, a
 *             rendezvous send only once the receiver took it.
 *
 * Before each unit (one size of one round) the two ranks time a cache line
 * passed between their cores (cn_core_latency.h; CN_KIND_CORE_LATENCY, rank
 * 0, size_bytes = the unit's size): on a VM the host can move the vCPUs in
 * the middle of a run, and every small-message time moves with it, so
 * measurement/loggp.py keeps the rounds of one machine state.
 *
 * Every duration is taken between two clock reads and so holds the cost of
 * one (cn_timer.h measures it; measurement/loggp.py subtracts it). Every
 * record's stream field holds its round. --rounds is the whole plan's
 * count; --first-round skips the rounds an interrupted run completed. Per
 * unit, --iterations gives the ping-pongs and exchanges of the whole run
 * (spread over the rounds); trains, delayed trains, early and late receives
 * get a quarter of that (at least 3 per round). Samples go to
 * PREFIX.rankN.bin (cn_samples.h), facts to PREFIX.rankN.info (cn_info.h),
 * which also says when each round ended (roundR_end_monotonic_ns).
 * --watch HOST:PID and the lock PREFIX.rankN.lock: see cn_parent.h (checked
 * between units, never inside a timed operation).
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cn_args.h"
#include "cn_core_latency.h"
#include "cn_info.h"
#include "cn_parent.h"
#include "cn_samples.h"
#include "cn_timer.h"

#define TAG_DATA 1
#define TAG_REPLY 2
#define TAG_GO 3
#define MAX_UNITS 4096
#define MAX_TRAIN 64
#define MAX_TRAIN_BUFFER_BYTES (256LL << 20) /* distinct receive buffers up to this */

struct options {
    int64_t sizes[MAX_UNITS], iterations[MAX_UNITS];
    int n_sizes, n_iterations;
    int rounds, first_round, train, warmup;
    const char *prefix;
    const char *watch; /* HOST:PID of the cloudnoise that launched us (cn_parent.h) */
};

struct ctx {
    int rank, peer;
    char *sbuf;
    char *rbufs[MAX_TRAIN];
    int nbufs;
    struct cn_sample_file samples;
};

static void parse(int argc, char **argv, struct options *o)
{
    static struct option longopts[] = {
        {"sizes", required_argument, 0, 's'},  {"iterations", required_argument, 0, 'n'},
        {"rounds", required_argument, 0, 'r'}, {"train", required_argument, 0, 't'},
        {"warmup", required_argument, 0, 'w'}, {"out", required_argument, 0, 'o'},
        {"first-round", required_argument, 0, 'f'}, {"watch", required_argument, 0, 'W'}, {0, 0, 0, 0}};
    int c;
    memset(o, 0, sizeof *o);
    o->rounds = 5;
    o->train = 8;
    o->warmup = 2;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 's': o->n_sizes = cn_parse_list(optarg, o->sizes, MAX_UNITS); break;
        case 'n': o->n_iterations = cn_parse_list(optarg, o->iterations, MAX_UNITS); break;
        case 'r': o->rounds = atoi(optarg); break;
        case 't': o->train = atoi(optarg); break;
        case 'w': o->warmup = atoi(optarg); break;
        case 'o': o->prefix = optarg; break;
        case 'f': o->first_round = atoi(optarg); break;
        case 'W': o->watch = optarg; break;
        default: cn_die("unknown option");
        }
    }
    if (!o->prefix)
        cn_die("--out PREFIX is required");
    if (o->n_sizes == 0)
        cn_die("--sizes is required");
    if (o->n_iterations == 0)
        o->iterations[o->n_iterations++] = 1000;
    if (o->n_iterations != 1 && o->n_iterations != o->n_sizes)
        cn_die("--iterations takes one count or one per size");
    if (o->rounds < 1 || o->first_round < 0 || o->first_round >= o->rounds || o->train < 2 ||
        o->train > MAX_TRAIN || o->warmup < 0)
        cn_die("--rounds must be at least 1, --first-round 0 to rounds - 1, --train 2 to 64, --warmup "
            "at least 0");
}

/* Polls until every request completed, as the executor's progress loop does. */
static void poll_all(MPI_Request *reqs, int n)
{
    int left = n, out = 0, idx[MAX_TRAIN + 2];
    while (left > 0) {
        MPI_Testsome(n, reqs, &out, idx, MPI_STATUSES_IGNORE);
        if (out != MPI_UNDEFINED)
            left -= out;
        else
            left = 0;
    }
}

static void poll_one(MPI_Request *req) { poll_all(req, 1); }

static void recv_post(struct ctx *c, int buf, int bytes, int tag, MPI_Request *req)
{
    MPI_Irecv(c->rbufs[buf % c->nbufs], bytes, MPI_CHAR, c->peer, tag, MPI_COMM_WORLD, req);
}

static void send_post(struct ctx *c, int bytes, int tag, MPI_Request *req)
{
    MPI_Isend(c->sbuf, bytes, MPI_CHAR, c->peer, tag, MPI_COMM_WORLD, req);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* PRTT(1,0,s), warm-up first; returns the median RTT on both ranks. */
static int64_t pingpong(struct ctx *c, int bytes, int64_t reps, int warm, int round)
{
    int64_t i, total = warm + reps, *rtt = malloc(sizeof(int64_t) * (size_t)(reps > 0 ? reps : 1));
    int64_t median = 0;
    MPI_Request req[2];
    if (!rtt)
        cn_die("out of memory");
    if (c->rank == 0) {
        for (i = 0; i < total; i++) {
            int64_t t0, t1;
            recv_post(c, 0, bytes, TAG_DATA, &req[1]);
            t0 = cn_now_ns();
            send_post(c, bytes, TAG_DATA, &req[0]);
            poll_all(req, 2);
            t1 = cn_now_ns();
            if (i >= warm) {
                rtt[i - warm] = t1 - t0;
                cn_samples_add(&c->samples, CN_KIND_RTT, bytes, 0, round, t0, t1 - t0);
            }
        }
        qsort(rtt, (size_t)reps, sizeof *rtt, cmp_i64);
        median = reps > 0 ? rtt[reps / 2] : 0;
    } else {
        /* the next ping's receive is posted as soon as this pong is, long
         * before the ping can come back */
        recv_post(c, 0, bytes, TAG_DATA, &req[1]);
        for (i = 0; i < total; i++) {
            poll_one(&req[1]);
            send_post(c, bytes, TAG_DATA, &req[0]);
            if (i + 1 < total)
                recv_post(c, 0, bytes, TAG_DATA, &req[1]);
            poll_one(&req[0]);
        }
    }
    free(rtt);
    MPI_Bcast(&median, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return median;
}

/* Back-to-back exchanges: each rank sends, then receives, and polls both. */
static void exchange(struct ctx *c, int bytes, int64_t reps, int warm, int round)
{
    int64_t i;
    MPI_Request req[2];
    for (i = 0; i < warm + reps; i++) {
        int64_t t0 = cn_now_ns();
        send_post(c, bytes, TAG_DATA, &req[0]);
        recv_post(c, 0, bytes, TAG_DATA, &req[1]);
        poll_all(req, 2);
        if (c->rank == 0 && i >= warm)
            cn_samples_add(&c->samples, CN_KIND_EXCHANGE, bytes, 0, round, t0, cn_now_ns() - t0);
    }
}

/* PRTT(n,d,s): n sends (d ns apart) closed by an s-byte reply; the receiver's
 * n receives are posted before the train starts. d = 0: PRTT(n,0,s). */
static void train(struct ctx *c, int bytes, int n, int64_t delay, int64_t reps, int warm,
                  int round)
{
    int64_t i;
    int k;
    MPI_Request req[MAX_TRAIN + 1];
    if (c->rank == 0) {
        for (i = 0; i < warm + reps; i++) {
            int64_t t0;
            recv_post(c, 0, bytes, TAG_REPLY, &req[n]);
            t0 = cn_now_ns();
            for (k = 0; k < n; k++) {
                send_post(c, bytes, TAG_DATA, &req[k]);
                if (delay > 0 && k + 1 < n)
                    cn_spin_until(cn_now_ns() + delay);
            }
            poll_all(req, n + 1);
            if (i >= warm)
                cn_samples_add(&c->samples, delay > 0 ? CN_KIND_TRAIN_DELAYED : CN_KIND_TRAIN,
                               bytes, delay > 0 ? delay : n, round, t0, cn_now_ns() - t0);
        }
    } else {
        for (k = 0; k < n; k++)
            recv_post(c, k, bytes, TAG_DATA, &req[k]);
        for (i = 0; i < warm + reps; i++) {
            poll_all(req, n);
            if (i + 1 < warm + reps)
                for (k = 0; k < n; k++)
                    recv_post(c, k, bytes, TAG_DATA, &req[k]);
            send_post(c, bytes, TAG_REPLY, &req[n]);
            poll_one(&req[n]);
        }
    }
}

/* Receives of a message that has arrived: posted before it came (early) or
 * only after (late). The receiver signals the sender, spins `wait` ns with
 * no MPI call (the message arrives meanwhile), then is timed. */
static void arrived(struct ctx *c, int bytes, int late, int64_t wait, int64_t reps, int warm,
                    int round)
{
    int64_t i;
    char go = 1;
    MPI_Request data, sig;
    for (i = 0; i < warm + reps; i++) {
        if (c->rank == 1) {
            int64_t t0;
            if (!late)
                recv_post(c, 0, bytes, TAG_DATA, &data);
            MPI_Isend(&go, 1, MPI_CHAR, c->peer, TAG_GO, MPI_COMM_WORLD, &sig);
            poll_one(&sig);
            cn_spin_until(cn_now_ns() + wait);
            t0 = cn_now_ns();
            if (late)
                recv_post(c, 0, bytes, TAG_DATA, &data);
            poll_one(&data);
            if (i >= warm)
                cn_samples_add(&c->samples, late ? CN_KIND_RECV_LATE : CN_KIND_RECV_EARLY, bytes,
                               wait, round, t0, cn_now_ns() - t0);
        } else {
            int64_t t0, t1;
            char got;
            MPI_Irecv(&got, 1, MPI_CHAR, c->peer, TAG_GO, MPI_COMM_WORLD, &sig);
            poll_one(&sig);
            t0 = cn_now_ns();
            send_post(c, bytes, TAG_DATA, &data);
            t1 = cn_now_ns();
            poll_one(&data);
            if (i >= warm && late)
                cn_samples_add(&c->samples, CN_KIND_SEND_DONE, bytes, wait, round, t0,
                               cn_now_ns() - t0);
            else if (i >= warm) /* the posting of a send that nothing else is timing */
                cn_samples_add(&c->samples, CN_KIND_ISEND_CALL, bytes, 0, round, t0, t1 - t0);
        }
    }
}

static void run_unit(struct ctx *c, const struct options *o, int64_t size, int64_t iterations,
                     int round)
{
    int bytes = (int)size, warm = o->warmup;
    int64_t per_round = (iterations + o->rounds - 1) / o->rounds, few;
    int64_t rtt, wait;
    if (per_round < 3)
        per_round = 3;
    few = per_round / 4 > 3 ? per_round / 4 : 3;
    rtt = pingpong(c, bytes, per_round, warm, round);
    /* long enough for the message (or its rendezvous request) to have arrived */
    wait = rtt + 5000;
    exchange(c, bytes, per_round, warm > 0 ? warm : 1, round);
    train(c, bytes, o->train, 0, few, warm > 0 ? 1 : 0, round);
    train(c, bytes, o->train, rtt, few, 0, round);
    arrived(c, bytes, 0, wait, few, warm > 0 ? 1 : 0, round);
    arrived(c, bytes, 1, wait, few, warm > 0 ? 1 : 0, round);
}

int main(int argc, char **argv)
{
    struct options *o = malloc(sizeof *o);
    struct ctx *c = malloc(sizeof *c);
    struct cn_timer_info timer;
    struct cn_parent_watch watch;
    struct cn_core_probe core;
    int64_t max_size = 1;
    int nranks, u, r, k;
    char path[4096];
    FILE *info;

    MPI_Init(&argc, &argv);
    if (!o || !c)
        cn_die("out of memory");
    parse(argc, argv, o);
    memset(c, 0, sizeof *c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    snprintf(path, sizeof path, "%s.rank%d.lock", o->prefix, c->rank);
    cn_parent_init(&watch, o->watch, path);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2)
        cn_die("loggp runs on exactly 2 ranks");
    c->peer = 1 - c->rank;
    for (u = 0; u < o->n_sizes; u++) {
        if (o->sizes[u] < 1 || o->sizes[u] > (1 << 30))
            cn_die("message sizes must be 1 byte to 1 GiB");
        if (o->sizes[u] > max_size)
            max_size = o->sizes[u];
    }
    /* page-aligned, touched buffers: first-touch page faults stay out of samples */
    c->nbufs = o->train;
    if ((int64_t)c->nbufs * max_size > MAX_TRAIN_BUFFER_BYTES)
        c->nbufs = (int)(MAX_TRAIN_BUFFER_BYTES / max_size) > 1 ? (int)(MAX_TRAIN_BUFFER_BYTES / max_size) : 1;
    if (posix_memalign((void **)&c->sbuf, 4096, (size_t)max_size))
        cn_die("cannot allocate message buffers");
    memset(c->sbuf, 'a', (size_t)max_size);
    for (k = 0; k < c->nbufs; k++) {
        if (posix_memalign((void **)&c->rbufs[k], 4096, (size_t)max_size))
            cn_die("cannot allocate message buffers");
        memset(c->rbufs[k], 0, (size_t)max_size);
    }

    timer = cn_timer_describe();
    info = cn_info_open(o->prefix, c->rank, nranks, &timer);
    if (!info)
        cn_die("cannot write the info file (is the campaign directory writable?)");
    fprintf(info, "train=%d\nrounds=%d\nreceive_buffers=%d\n", o->train, o->rounds, c->nbufs);
    fflush(info);
    snprintf(path, sizeof path, "%s.rank%d.bin", o->prefix, c->rank);
    if (cn_samples_open(&c->samples, path))
        cn_die("cannot open the sample file");

    if (cn_core_probe_open(&core, MPI_COMM_WORLD, 0) != 0)
        cn_die("cannot open the shared-memory window of the core-latency probe");
    MPI_Barrier(MPI_COMM_WORLD);
    for (r = o->first_round; r < o->rounds; r++) {
        for (u = 0; u < o->n_sizes; u++) {
            int64_t its = o->n_iterations == 1 ? o->iterations[0] : o->iterations[u];
            int64_t core_ns = cn_core_probe_ns(&core);
            if (core_ns >= 0)
                cn_samples_add(&c->samples, CN_KIND_CORE_LATENCY, o->sizes[u], 0, r, cn_now_ns(), core_ns);
            run_unit(c, o, o->sizes[u], its, r);
            cn_samples_flush(&c->samples);
            /* between units, never inside a timed operation: a unit lasts well under a second */
            cn_parent_check(&watch, cn_now_ns());
            MPI_Barrier(MPI_COMM_WORLD);
        }
        fprintf(info, "round%d_end_monotonic_ns=%lld\n", r, (long long)cn_now_ns());
        fflush(info);
    }
    cn_core_probe_close(&core);
    cn_samples_close(&c->samples);
    fprintf(info, "end_monotonic_ns=%lld\ncomplete=1\n", (long long)cn_now_ns());
    fclose(info);
    free(c->sbuf);
    for (k = 0; k < c->nbufs; k++)
        free(c->rbufs[k]);
    free(c);
    free(o);
    MPI_Finalize();
    return 0;
}
