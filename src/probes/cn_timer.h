/* cn_timer.h: the probes' clock.
 *
 * Every probe timestamps with cn_now_ns(): CLOCK_MONOTONIC_RAW in
 * nanoseconds. It is monotonic, unaffected by NTP slewing, and on Linux with
 * a TSC clocksource it is served from the vDSO, so one read costs tens of
 * nanoseconds. cn_timer_describe() measures what the issue asks to report:
 * the clock's resolution (the smallest nonzero step between two reads) and
 * the cost of one read (the per-sample overhead).
 */
#ifndef CN_TIMER_H
#define CN_TIMER_H

#include <stdint.h>
#include <time.h>

#define CN_TIMER_NAME "CLOCK_MONOTONIC_RAW"

static inline int64_t cn_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + (int64_t)ts.tv_nsec;
}

static inline int64_t cn_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + (int64_t)ts.tv_nsec;
}

/* What the clock can resolve and what reading it costs. */
struct cn_timer_info {
    double resolution_ns;   /* smallest observed nonzero step between reads */
    double getres_ns;       /* what clock_getres() claims */
    double overhead_ns;     /* cost of one cn_now_ns() call (fastest batch mean) */
};

static inline struct cn_timer_info cn_timer_describe(void)
{
    struct cn_timer_info info;
    struct timespec res;
    int64_t step = INT64_MAX;
    int64_t prev, t0, t1;
    const int reads = 1000000;
    int i;

    clock_getres(CLOCK_MONOTONIC_RAW, &res);
    info.getres_ns = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;

    prev = cn_now_ns();
    for (i = 0; i < 100000; i++) {
        int64_t now = cn_now_ns();
        if (now > prev && now - prev < step)
            step = now - prev;
        prev = now;
    }
    info.resolution_ns = (double)step;

    /* The cost of one read: the fastest of 200 batches' means, so that a
     * batch the scheduler interrupted does not count (probes subtract this
     * from timed durations: a duration between two reads holds one read). */
    info.overhead_ns = 1e30;
    for (i = 0; i < 200; i++) {
        int k;
        double mean;
        t0 = cn_now_ns();
        for (k = 0; k < reads / 200; k++)
            (void)cn_now_ns();
        t1 = cn_now_ns();
        mean = (double)(t1 - t0) / (reads / 200 + 1);
        if (mean < info.overhead_ns)
            info.overhead_ns = mean;
    }
    return info;
}

/* Busy-wait until the clock reaches `deadline_ns`: sleeping would let the
 * core idle and add wake-up latency to the next message. */
static inline void cn_spin_until(int64_t deadline_ns)
{
    while (cn_now_ns() < deadline_ns) {
    }
}

#endif
