/* cn_parent.h: a probe never outlives the measurement that started it.
 *
 * A probe's parent is the launcher's proxy (mpiexec/hydra, srun's stepd),
 * not cloudnoise. Three guards, so a killed cloudnoise (even kill -9) leaves
 * no probe spinning and writing:
 *
 *  - PR_SET_PDEATHSIG: the kernel kills the probe when its parent dies;
 *  - the parent pid is compared with the one at start (a reparented probe
 *    lost its parent before the kernel could be asked to watch it);
 *  - with --watch HOST:PID, a probe on HOST checks every 200 ms that the
 *    cloudnoise process PID still exists (cloudnoise itself may die while
 *    the launcher survives; the launcher is asked to follow it, but not
 *    every launcher does).
 *
 * A lock: each rank holds an exclusive flock() on PREFIX.rankN.lock for its
 * whole life, so `measure --resume` can tell by the lock, not by a pid
 * in a JSON file, whether an earlier launch is still running.
 */
#ifndef CN_PARENT_H
#define CN_PARENT_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cn_timer.h"

#define CN_PARENT_CHECK_NS 200000000LL

struct cn_parent_watch {
    pid_t ppid;
    pid_t watch_pid; /* cloudnoise on this host, 0 when not watched */
    int64_t next_ns;
    int lock_fd;
};

/* spec: "HOST:PID" or NULL; lock: a path or NULL. */
static inline void cn_parent_init(struct cn_parent_watch *w, const char *spec, const char *lock)
{
    memset(w, 0, sizeof *w);
    w->lock_fd = -1;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    w->ppid = getppid();
    if (w->ppid == 1) {
        fprintf(stderr, "cloudnoise probe: the launcher is gone; stopping\n");
        exit(6);
    }
    if (spec) {
        const char *colon = strrchr(spec, ':');
        char host[256];
        if (colon && gethostname(host, sizeof host) == 0) {
            host[sizeof host - 1] = '\0';
            if ((size_t)(colon - spec) == strlen(host) && !strncmp(spec, host, strlen(host)))
                w->watch_pid = (pid_t)atol(colon + 1);
        }
    }
    if (lock) {
        w->lock_fd = open(lock, O_RDWR | O_CREAT, 0644);
        if (w->lock_fd >= 0 && flock(w->lock_fd, LOCK_EX | LOCK_NB) != 0) {
            fprintf(stderr, "cloudnoise probe: %s is held by another probe\n", lock);
            exit(6);
        }
    }
    w->next_ns = cn_now_ns() + CN_PARENT_CHECK_NS;
}

static inline void cn_parent_check(struct cn_parent_watch *w, int64_t now_ns)
{
    if (now_ns < w->next_ns)
        return;
    w->next_ns = now_ns + CN_PARENT_CHECK_NS;
    if (getppid() != w->ppid ||
        (w->watch_pid > 0 && kill(w->watch_pid, 0) != 0 && errno == ESRCH)) {
        fprintf(stderr, "cloudnoise probe: cloudnoise is gone; stopping\n");
        _exit(6);
    }
}

#endif
