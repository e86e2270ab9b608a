/* polling.c: a polling loop, the way HPC Challenge's RandomAccess and many
 * task-based codes wait for messages, for the recorder's tests and bench.
 *
 *   mpicc -O2 -o polling polling.c
 *   mpiexec -n 2 ./polling ITERATIONS WORK_US
 *
 * Ranks are paired (0 with 1, 2 with 3, ...). Each iteration the odd rank
 * computes WORK_US microseconds and sends 8 bytes with MPI_Isend, polling
 * the send with MPI_Test; the even rank posts MPI_Irecv and polls it with
 * MPI_Test, MPI_Testany (over the receive and an inactive request) and
 * MPI_Iprobe (a tag nobody sends) until it completes. At the end the even
 * rank cancels a wildcard receive nobody matches (MPI_Cancel, MPI_Wait,
 * MPI_Test_cancelled) and the odd rank sends one message with MPI_Isend and
 * MPI_Request_free. Every rank prints how many unsuccessful polls it made:
 * "rank R: polls test T testany A iprobe P cancelled C".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void work(double us)
{
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < us) {
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n EVEN polling ITERATIONS WORK_US\n");
        MPI_Finalize();
        return 2;
    }
    int iterations = atoi(argv[1]);
    double work_us = atof(argv[2]);
    int peer = rank ^ 1;
    long tests = 0, testanys = 0, iprobes = 0;
    int cancelled = -1;
    double value = rank;
    for (int i = 0; i < iterations; i++) {
        MPI_Request req;
        int done = 0;
        if (rank % 2) {
            work(work_us);
            MPI_Isend(&value, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req);
            for (;;) {
                MPI_Test(&req, &done, MPI_STATUS_IGNORE);
                if (done)
                    break;
                tests++;
            }
        } else {
            MPI_Request both[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            MPI_Irecv(&value, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &both[0]);
            for (;;) {
                int index, found;
                MPI_Test(&both[0], &done, MPI_STATUS_IGNORE);
                if (done)
                    break;
                tests++;
                MPI_Testany(2, both, &index, &done, MPI_STATUS_IGNORE);
                if (done && index != MPI_UNDEFINED)
                    break;
                testanys++;
                MPI_Iprobe(peer, 99, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
                iprobes++;
            }
        }
    }
    if (rank % 2 == 0) {  /* nothing is in flight: the cancel succeeds */
        MPI_Request req;
        MPI_Status status;
        double spare;
        MPI_Irecv(&spare, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &status);
        MPI_Test_cancelled(&status, &cancelled);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2) {
        MPI_Request req;
        MPI_Isend(&value, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
    } else {
        MPI_Recv(&value, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: polls test %ld testany %ld iprobe %ld cancelled %d\n", rank, tests, testanys, iprobes,
           cancelled);
    MPI_Finalize();
    return 0;
}
