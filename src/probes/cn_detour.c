/* cn_detour.c: the selfish detour OS-noise probe.
 *
 * A tight loop reads the clock; an iteration that took longer than
 * 9 x t_min (t_min: the fastest iteration seen while calibrating) means the
 * process was not running its own code: the OS (interrupts, daemons,
 * hypervisor) took the core. Every such detour is kept as (start, duration)
 * until --detours were seen or --duration seconds passed. Every rank runs the
 * loop on its own (one per core when launched with one rank per core); MPI is
 * only used to start and stop the ranks together.
 *
 * Hidden options for tests: --inject-period-us P --inject-duration-us D arm an
 * interval timer whose SIGALRM handler busy-waits D microseconds every P
 * microseconds, a known noise the probe must recover.
 *
 * Samples (kind CN_KIND_DETOUR, start and duration) go to compact chunk
 * files PREFIX.rankN.cKKKKKK.cnk (cn_chunks.h), a new chunk after
 * --chunk-samples detours or --chunk-seconds; t_min and the threshold to
 * PREFIX.rankN.info. --watch HOST:PID and the lock PREFIX.rankN.lock: see
 * cn_parent.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "cn_chunks.h"
#include "cn_info.h"
#include "cn_parent.h"
#include "cn_samples.h"
#include "cn_timer.h"

#define THRESHOLD_FACTOR 9

static volatile int64_t inject_ns;

static void inject_handler(int sig)
{
    (void)sig;
    cn_spin_until(cn_now_ns() + inject_ns);
}

static void die(const char *msg)
{
    fprintf(stderr, "cloudnoise probe: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The fastest loop iteration over a calibration of `iterations` reads. */
static int64_t calibrate_tmin(long iterations)
{
    int64_t best = INT64_MAX, prev = cn_now_ns();
    long i;
    for (i = 0; i < iterations; i++) {
        int64_t now = cn_now_ns();
        if (now - prev < best && now > prev)
            best = now - prev;
        prev = now;
    }
    return best == INT64_MAX ? 1 : best;
}

int main(int argc, char **argv)
{
    static struct option longopts[] = {
        {"out", required_argument, 0, 'o'},
        {"detours", required_argument, 0, 'n'},
        {"duration", required_argument, 0, 'd'},
        {"calibrate", required_argument, 0, 'c'},
        {"inject-period-us", required_argument, 0, 'P'},
        {"inject-duration-us", required_argument, 0, 'D'},
        {"chunk-samples", required_argument, 0, 'C'},
        {"chunk-seconds", required_argument, 0, 'S'},
        {"watch", required_argument, 0, 'W'},
        {0, 0, 0, 0}};
    const char *prefix = NULL, *watch_spec = NULL;
    long long chunk_samples = 1 << 20;
    double chunk_seconds = 60.0;
    struct cn_parent_watch watch;
    long max_detours = 100000, calibrate = 2000000, count = 0;
    double duration_s = 10.0, period_us = 0, inj_us = 0;
    int rank, nranks, ch;
    int64_t tmin, threshold, begin, end, prev, chunk_ns;
    unsigned spins = 0;
    struct cn_timer_info timer;
    struct cn_chunk_stream *sf = malloc(sizeof *sf);
    char path[4096];
    FILE *info;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': prefix = optarg; break;
        case 'n': max_detours = atol(optarg); break;
        case 'd': duration_s = atof(optarg); break;
        case 'c': calibrate = atol(optarg); break;
        case 'P': period_us = atof(optarg); break;
        case 'D': inj_us = atof(optarg); break;
        case 'C': chunk_samples = atoll(optarg); break;
        case 'S': chunk_seconds = atof(optarg); break;
        case 'W': watch_spec = optarg; break;
        default: die("unknown option");
        }
    }
    if (!prefix || !sf)
        die("--out PREFIX is required");
    if (max_detours <= 0)
        max_detours = -1; /* no limit: run for the duration */
    if (chunk_samples < 1)
        chunk_samples = 1;
    if (!(chunk_seconds > 0))
        chunk_seconds = 60.0;
    chunk_ns = (int64_t)(chunk_seconds * 1e9);
    snprintf(path, sizeof path, "%s.rank%d.lock", prefix, rank);
    cn_parent_init(&watch, watch_spec, path);

    timer = cn_timer_describe();
    tmin = calibrate_tmin(calibrate);
    threshold = THRESHOLD_FACTOR * tmin;
    info = cn_info_open(prefix, rank, nranks, &timer);
    if (!info)
        die("cannot write the info file (is the campaign directory writable?)");
    fprintf(info, "t_min_ns=%lld\nthreshold_ns=%lld\nthreshold_factor=%d\n", (long long)tmin,
            (long long)threshold, THRESHOLD_FACTOR);
    fflush(info);
    cn_chunk_init(sf, prefix, rank);

    if (period_us > 0 && inj_us > 0) {
        struct sigaction sa;
        struct itimerval it;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = inject_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        inject_ns = (int64_t)(inj_us * 1000.0);
        it.it_interval.tv_sec = (time_t)(period_us / 1e6);
        it.it_interval.tv_usec = (suseconds_t)((int64_t)period_us % 1000000);
        it.it_value = it.it_interval;
        setitimer(ITIMER_REAL, &it, NULL);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    begin = cn_now_ns();
    end = duration_s > 0 ? begin + (int64_t)(duration_s * 1e9) : INT64_MAX;
    prev = begin;
    fprintf(info, "begin_monotonic_ns=%lld\n", (long long)begin);
    fflush(info);
    for (;;) {
        int64_t now = cn_now_ns();
        if (now - prev > threshold) {
            cn_chunk_add(sf, CN_KIND_DETOUR, 0, 0, rank, count, prev, now - prev);
            if (++count == max_detours)
                break;
            now = cn_now_ns(); /* recording is not a detour */
        }
        if (++spins == 65536) { /* a few ms: housekeeping, then time again */
            spins = 0;
            cn_parent_check(&watch, now);
            cn_chunk_tick(sf, now);
            if (sf->chunk_samples >= chunk_samples || now - sf->chunk_begin_ns >= chunk_ns)
                cn_chunk_rotate(sf);
            now = cn_now_ns();
        }
        if (now >= end)
            break;
        prev = now;
    }
    if (period_us > 0 && inj_us > 0) {
        struct itimerval off;
        memset(&off, 0, sizeof off);
        setitimer(ITIMER_REAL, &off, NULL);
    }
    cn_chunk_close(sf);
    fprintf(info, "end_monotonic_ns=%lld\ndetours=%ld\ncomplete=1\n", (long long)cn_now_ns(),
            count);
    fclose(info);
    free(sf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
