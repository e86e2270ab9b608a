/* cn_pingpong.c: the ping-pong probe behind every network experiment.
 *
 * Ranks 0..P-1 start ping-pongs with ranks P..2P-1 (P = nranks / 2), so with
 * block placement over two nodes every pair crosses the network. Each timed
 * ping-pong is one sample (RTT, nanoseconds, CLOCK_MONOTONIC_RAW); nothing is
 * averaged here. Modes:
 *
 *   pingpong  one ping-pong per iteration per pair; with --split each pair
 *             carries size/P bytes (concurrent connections, paper Fig. 1);
 *             with more than one pair all pairs start together after a barrier.
 *   bidir     both ends of each pair start a ping-pong at the same time
 *             (stream 0 from the low rank, stream 1 from the high rank; Fig. 3).
 *   loggp     per size: ping-pongs, trains of back-to-back sends closed by a
 *             1-byte ack (send-call durations and train times), receives of
 *             messages that have already arrived (receive-call durations), and
 *             the posting of non-blocking sends (MPI_Isend call durations).
 *
 * A run is a list of units, zipped from --sizes, --intervals (ns to wait
 * after each ping-pong: burstiness) and --iterations (lists of length 1 are
 * repeated). With --duration each unit runs for that many seconds instead of
 * a fixed count, in batches closed by a broadcast of whether to go on (and
 * whether to start a new chunk: rank 0 decides, so every rank's chunk K
 * holds the same iterations). Ping-pong and bidir samples go to compact
 * chunk files PREFIX.rankN.cKKKKKK.cnk (cn_chunks.h), a new chunk after
 * --chunk-samples samples or --chunk-seconds; loggp samples to
 * PREFIX.rankN.bin (cn_samples.h); facts to PREFIX.rankN.info (cn_info.h).
 * --watch HOST:PID and the lock PREFIX.rankN.lock: see cn_parent.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cn_chunks.h"
#include "cn_info.h"
#include "cn_parent.h"
#include "cn_samples.h"
#include "cn_timer.h"

#define TAG_DATA 1
#define TAG_REVERSE 2
#define TAG_ACK 3
#define MAX_UNITS 4096

enum mode { MODE_PINGPONG, MODE_BIDIR, MODE_LOGGP };

struct options {
    enum mode mode;
    int64_t sizes[MAX_UNITS], intervals[MAX_UNITS], iterations[MAX_UNITS];
    int n_sizes, n_intervals, n_iterations;
    int warmup;
    double duration_s;
    int split;
    int train;
    int64_t chunk_samples;
    double chunk_seconds;
    const char *prefix;
    const char *watch;
};

struct ctx {
    int rank, nranks, pairs, pair, peer, initiator;
    char *sbuf, *rbuf;
    struct cn_sample_file samples;  /* loggp */
    struct cn_chunk_stream *chunks; /* pingpong, bidir */
    struct cn_parent_watch watch;
    int64_t seq;                    /* samples recorded in the current unit */
    int64_t unrecorded;             /* iterations since the last parent check (responders) */
};

static void die(const char *msg)
{
    fprintf(stderr, "cloudnoise probe: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int parse_list(const char *text, int64_t *out)
{
    int n = 0;
    const char *p = text;
    while (*p && n < MAX_UNITS) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p)
            die("bad number in a list option");
        out[n++] = v;
        p = (*end == ',') ? end + 1 : end;
        if (*end && *end != ',')
            die("lists are comma separated integers");
    }
    return n;
}

static void parse(int argc, char **argv, struct options *o)
{
    static struct option longopts[] = {
        {"mode", required_argument, 0, 'm'},     {"sizes", required_argument, 0, 's'},
        {"intervals", required_argument, 0, 'i'}, {"iterations", required_argument, 0, 'n'},
        {"warmup", required_argument, 0, 'w'},   {"duration", required_argument, 0, 'd'},
        {"split", no_argument, 0, 'p'},          {"train", required_argument, 0, 't'},
        {"out", required_argument, 0, 'o'},      {"chunk-samples", required_argument, 0, 'C'},
        {"chunk-seconds", required_argument, 0, 'S'}, {"watch", required_argument, 0, 'W'},
        {0, 0, 0, 0}};
    int c;
    memset(o, 0, sizeof *o);
    o->warmup = 10;
    o->train = 16;
    o->chunk_samples = 1 << 20;
    o->chunk_seconds = 60.0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (!strcmp(optarg, "pingpong"))
                o->mode = MODE_PINGPONG;
            else if (!strcmp(optarg, "bidir"))
                o->mode = MODE_BIDIR;
            else if (!strcmp(optarg, "loggp"))
                o->mode = MODE_LOGGP;
            else
                die("unknown --mode");
            break;
        case 's': o->n_sizes = parse_list(optarg, o->sizes); break;
        case 'i': o->n_intervals = parse_list(optarg, o->intervals); break;
        case 'n': o->n_iterations = parse_list(optarg, o->iterations); break;
        case 'w': o->warmup = atoi(optarg); break;
        case 'd': o->duration_s = atof(optarg); break;
        case 'p': o->split = 1; break;
        case 't': o->train = atoi(optarg); break;
        case 'o': o->prefix = optarg; break;
        case 'C': o->chunk_samples = atoll(optarg); break;
        case 'S': o->chunk_seconds = atof(optarg); break;
        case 'W': o->watch = optarg; break;
        default: die("unknown option");
        }
    }
    if (!o->prefix)
        die("--out PREFIX is required");
    if (o->n_sizes == 0)
        die("--sizes is required");
    if (o->n_intervals == 0)
        o->intervals[o->n_intervals++] = 0;
    if (o->n_iterations == 0)
        o->iterations[o->n_iterations++] = 1000;
    if (o->train < 1)
        o->train = 1;
    if (o->chunk_samples < 1)
        o->chunk_samples = 1;
    if (!(o->chunk_seconds > 0))
        o->chunk_seconds = 60.0;
}

static int64_t unit_value(const int64_t *list, int n, int i) { return n == 1 ? list[0] : list[i]; }

/* Wait `ns` after a ping-pong: short gaps spin (sleeping would add wake-up
 * latency), long ones sleep so an idle sender looks idle to the network. */
static void pause_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    if (ns < 200000) {
        cn_spin_until(cn_now_ns() + ns);
    } else {
        struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
        nanosleep(&ts, NULL);
    }
}

/* One ping-pong of `bytes` on this rank's pair; returns the RTT on the
 * initiator (and its start in *t0), -1 on the responder. */
static int64_t pingpong_once(struct ctx *c, int bytes, int64_t *t0)
{
    if (c->initiator) {
        int64_t start = cn_now_ns();
        MPI_Send(c->sbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(c->rbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *t0 = start;
        return cn_now_ns() - start;
    }
    MPI_Recv(c->rbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(c->sbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD);
    return -1;
}

/* Both ends start a ping-pong at once; each rank times the one it started.
 * Its own ping uses TAG_DATA, the peer's ping TAG_REVERSE; pongs reuse the
 * ping's tag in the other direction. */
static int64_t bidir_once(struct ctx *c, int bytes, int64_t *t0)
{
    MPI_Request req[3];
    char *peer_ping = c->rbuf, *own_pong = c->rbuf + bytes;
    int my_tag = c->initiator ? TAG_DATA : TAG_REVERSE;
    int peer_tag = c->initiator ? TAG_REVERSE : TAG_DATA;
    int64_t start = cn_now_ns();
    MPI_Irecv(peer_ping, bytes, MPI_CHAR, c->peer, peer_tag, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(own_pong, bytes, MPI_CHAR, c->peer, my_tag + 10, MPI_COMM_WORLD, &req[1]);
    MPI_Send(c->sbuf, bytes, MPI_CHAR, c->peer, my_tag, MPI_COMM_WORLD);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Isend(c->sbuf, bytes, MPI_CHAR, c->peer, peer_tag + 10, MPI_COMM_WORLD, &req[2]);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    *t0 = start;
    start = cn_now_ns() - start;
    MPI_Wait(&req[2], MPI_STATUS_IGNORE);
    return start;
}

static void one_sample(struct ctx *c, const struct options *o, int bytes, int64_t total_size,
                       int64_t interval, int record)
{
    int64_t t0 = 0, rtt;
    if (c->pairs > 1)
        MPI_Barrier(MPI_COMM_WORLD);
    if (o->mode == MODE_BIDIR) {
        rtt = bidir_once(c, bytes, &t0);
    } else {
        rtt = pingpong_once(c, bytes, &t0);
    }
    if (rtt >= 0) {
        if (record) {
            int64_t stream = o->mode == MODE_BIDIR ? c->pair * 2 + (c->initiator ? 0 : 1) : c->pair;
            cn_chunk_add(c->chunks, CN_KIND_RTT, total_size, interval, stream, c->seq++, t0, rtt);
        }
        cn_parent_check(&c->watch, t0);
    } else if (++c->unrecorded >= 256) {
        c->unrecorded = 0;
        cn_parent_check(&c->watch, cn_now_ns());
    }
    if (c->initiator)
        pause_ns(interval);
}

/* Ping-pongs for one unit: a fixed count, or batches until the duration ends. */
static void run_unit(struct ctx *c, const struct options *o, int64_t size, int64_t interval,
                     int64_t iterations)
{
    int bytes = (int)(o->split ? size / c->pairs : size);
    int64_t i;
    if (bytes < 1)
        bytes = 1;
    c->seq = 0;
    for (i = 0; i < o->warmup; i++)
        one_sample(c, o, bytes, size, interval, 0);
    if (o->duration_s <= 0) {
        /* every recording rank records one sample per iteration, so rotating
         * by count keeps the ranks' chunks in step */
        for (i = 0; i < iterations; i++) {
            one_sample(c, o, bytes, size, interval, 1);
            if (c->chunks->chunk_samples >= o->chunk_samples)
                cn_chunk_rotate(c->chunks);
        }
        return;
    }
    {
        int64_t begin = cn_now_ns(), end = begin + (int64_t)(o->duration_s * 1e9);
        int64_t chunk_ns = (int64_t)(o->chunk_seconds * 1e9);
        int64_t msg[3] = {1, 8, 0}; /* go on?, batch length, start a new chunk? */
        while (msg[0]) {
            int64_t batch_start = cn_now_ns();
            for (i = 0; i < msg[1]; i++)
                one_sample(c, o, bytes, size, interval, 1);
            if (c->rank == 0) {
                int64_t now = cn_now_ns(), took = now - batch_start;
                msg[2] = c->chunks->chunk_samples >= o->chunk_samples ||
                         now - c->chunks->chunk_begin_ns >= chunk_ns;
                msg[0] = now < end;
                /* aim for ~50 ms batches so the end is overshot by little */
                msg[1] = took > 0 ? (msg[1] * 50000000LL) / took : msg[1] * 2;
                if (msg[1] < 1)
                    msg[1] = 1;
                if (msg[1] > 1000000)
                    msg[1] = 1000000;
                if (end - now < 50000000LL && msg[1] > 1)
                    msg[1] = msg[1] * (end - now > 0 ? end - now : 0) / 50000000LL + 1;
            }
            MPI_Bcast(msg, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
            if (msg[2])
                cn_chunk_rotate(c->chunks);
            cn_chunk_tick(c->chunks, cn_now_ns());
        }
    }
}

/* LogGP measurements for one size between the two ranks. */
static void run_loggp_unit(struct ctx *c, const struct options *o, int64_t size, int64_t iterations)
{
    int bytes = (int)size, n = o->train, k;
    int64_t i, rtt_sum = 0, rtt_mean = 0, reps = iterations / 4 > 10 ? iterations / 4 : 10;
    int64_t *call = malloc(sizeof(int64_t) * (size_t)n);
    if (!call)
        die("out of memory");
    /* 1. ping-pong RTT */
    for (i = 0; i < o->warmup + iterations; i++) {
        int64_t t0 = 0, rtt = pingpong_once(c, bytes, &t0);
        if (c->initiator && i >= o->warmup) {
            cn_samples_add(&c->samples, CN_KIND_RTT, size, 0, 0, t0, rtt);
            rtt_sum += rtt;
        }
    }
    if (c->initiator)
        rtt_mean = rtt_sum / (iterations > 0 ? iterations : 1);
    MPI_Bcast(&rtt_mean, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);

    /* 2. trains of n back-to-back sends closed by a 1-byte ack */
    for (i = 0; i < 2 + reps; i++) {
        if (c->initiator) {
            int64_t t0 = cn_now_ns();
            for (k = 0; k < n; k++) {
                int64_t s0 = cn_now_ns();
                MPI_Send(c->sbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD);
                call[k] = cn_now_ns() - s0;
            }
            MPI_Recv(c->rbuf, 1, MPI_CHAR, c->peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= 2) {
                int64_t train = cn_now_ns() - t0;
                cn_samples_add(&c->samples, CN_KIND_TRAIN, size, n, 0, t0, train);
                for (k = 0; k < n; k++)
                    cn_samples_add(&c->samples, CN_KIND_SEND_CALL, size, n, 0, t0, call[k]);
            }
        } else {
            for (k = 0; k < n; k++)
                MPI_Recv(c->rbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, 1, MPI_CHAR, c->peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }

    /* 3. receives of a message that has already arrived: the receiver waits
     * twice the mean RTT plus 5 us before calling MPI_Recv */
    for (i = 0; i < 2 + reps; i++) {
        if (c->initiator) {
            MPI_Send(c->sbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(c->rbuf, 1, MPI_CHAR, c->peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            int64_t t0;
            cn_spin_until(cn_now_ns() + 2 * rtt_mean + 5000);
            t0 = cn_now_ns();
            MPI_Recv(c->rbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= 2)
                cn_samples_add(&c->samples, CN_KIND_RECV_CALL, size, 0, 0, t0, cn_now_ns() - t0);
            MPI_Send(c->sbuf, 1, MPI_CHAR, c->peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }

    /* 4. posting a send: the duration of the MPI_Isend call alone. Above the
     * eager limit this is what the sender's CPU pays per message (a
     * rendezvous send only announces the message; the data moves while the
     * receiver takes it), where the blocking MPI_Send of section 2 also
     * waits for the transfer. */
    for (i = 0; i < 2 + reps; i++) {
        if (c->initiator) {
            MPI_Request req;
            int64_t t0;
            MPI_Recv(c->rbuf, 1, MPI_CHAR, c->peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t0 = cn_now_ns();
            MPI_Isend(c->sbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD, &req);
            if (i >= 2)
                cn_samples_add(&c->samples, CN_KIND_ISEND_CALL, size, 0, 0, t0, cn_now_ns() - t0);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Request req;
            /* the receive is posted before the sender starts */
            MPI_Irecv(c->rbuf, bytes, MPI_CHAR, c->peer, TAG_DATA, MPI_COMM_WORLD, &req);
            MPI_Send(c->sbuf, 1, MPI_CHAR, c->peer, TAG_ACK, MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    free(call);
}

int main(int argc, char **argv)
{
    struct options *o = malloc(sizeof *o);
    struct ctx *c = malloc(sizeof *c);
    struct cn_timer_info timer;
    int64_t max_size = 1;
    int units, u;
    char path[4096];
    FILE *info;

    MPI_Init(&argc, &argv);
    if (!o || !c)
        die("out of memory");
    parse(argc, argv, o);
    memset(c, 0, sizeof *c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    snprintf(path, sizeof path, "%s.rank%d.lock", o->prefix, c->rank);
    cn_parent_init(&c->watch, o->watch, path);
    MPI_Comm_size(MPI_COMM_WORLD, &c->nranks);
    if (c->nranks < 2 || c->nranks % 2 != 0)
        die("ping-pong needs an even number of ranks, at least 2");
    if (o->mode == MODE_LOGGP && c->nranks != 2)
        die("loggp runs on exactly 2 ranks");
    c->pairs = c->nranks / 2;
    c->initiator = c->rank < c->pairs;
    c->pair = c->initiator ? c->rank : c->rank - c->pairs;
    c->peer = c->initiator ? c->rank + c->pairs : c->rank - c->pairs;

    units = o->n_sizes;
    if (o->n_intervals > units)
        units = o->n_intervals;
    if (o->n_iterations > units)
        units = o->n_iterations;
    for (u = 0; u < o->n_sizes; u++)
        if (o->sizes[u] > max_size)
            max_size = o->sizes[u];
    if (max_size > 1 << 30)
        die("message sizes above 1 GiB are not supported");
    /* page-aligned, touched buffers: first-touch page faults stay out of samples */
    if (posix_memalign((void **)&c->sbuf, 4096, (size_t)max_size) ||
        posix_memalign((void **)&c->rbuf, 4096, (size_t)max_size * 2))
        die("cannot allocate message buffers");
    memset(c->sbuf, 'a', (size_t)max_size);
    memset(c->rbuf, 0, (size_t)max_size * 2);

    timer = cn_timer_describe();
    info = cn_info_open(o->prefix, c->rank, c->nranks, &timer);
    if (!info)
        die("cannot write the info file (is the campaign directory writable?)");
    fprintf(info, "pairs=%d\npair=%d\ninitiator=%d\npeer=%d\n", c->pairs, c->pair, c->initiator,
            c->peer);
    fflush(info);
    fprintf(info, "chunk_samples=%lld\n", (long long)o->chunk_samples);
    fflush(info);
    if (o->mode == MODE_LOGGP) {
        snprintf(path, sizeof path, "%s.rank%d.bin", o->prefix, c->rank);
        if (cn_samples_open(&c->samples, path))
            die("cannot open the sample file");
    } else {
        c->chunks = malloc(sizeof *c->chunks);
        if (!c->chunks)
            die("out of memory");
        cn_chunk_init(c->chunks, o->prefix, c->rank);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    for (u = 0; u < units; u++) {
        int64_t size = unit_value(o->sizes, o->n_sizes, u);
        int64_t interval = unit_value(o->intervals, o->n_intervals, u);
        int64_t iterations = unit_value(o->iterations, o->n_iterations, u);
        if (size < 1 || size > max_size)
            die("message sizes must be at least 1 byte");
        if (o->mode == MODE_LOGGP)
            run_loggp_unit(c, o, size, iterations);
        else
            run_unit(c, o, size, interval, iterations);
        if (c->chunks)
            cn_chunk_flush(c->chunks);
        else
            cn_samples_flush(&c->samples);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (c->chunks) {
        cn_chunk_close(c->chunks);
        free(c->chunks);
    } else {
        cn_samples_close(&c->samples);
    }
    fprintf(info, "end_monotonic_ns=%lld\ncomplete=1\n", (long long)cn_now_ns());
    fclose(info);
    free(c->sbuf);
    free(c->rbuf);
    free(c);
    free(o);
    MPI_Finalize();
    return 0;
}
