/* jacobi2d.c: a small real MPI application for `cloudnoise trace`.
 *
 * A 2-D Jacobi relaxation of Laplace's equation on a grid split over a
 * Cartesian process grid (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift):
 * every iteration exchanges the four halo edges with MPI_Irecv / MPI_Isend /
 * MPI_Waitall (MPI_PROC_NULL at the domain's boundary), sweeps the local
 * block, and every K iterations computes the global residual with
 * MPI_Allreduce. Weak scaling: each rank owns NX x NY points whatever the
 * number of ranks.
 *
 *   mpicc -O2 -o jacobi2d jacobi2d.c
 *   mpiexec -n 4 ./jacobi2d [NX NY ITERATIONS K]      (default 256 256 100 10)
 *
 * Prints the final residual and the time from the first iteration to the
 * last on rank 0.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(u, i, j) (u)[(size_t)(i) * (size_t)(ny + 2) + (size_t)(j)]

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nx = argc > 1 ? atoi(argv[1]) : 256;
    int ny = argc > 2 ? atoi(argv[2]) : 256;
    int iterations = argc > 3 ? atoi(argv[3]) : 100;
    int every = argc > 4 ? atoi(argv[4]) : 10;
    if (nx < 1 || ny < 1 || iterations < 1 || every < 1) {
        fprintf(stderr, "usage: jacobi2d [NX NY ITERATIONS K], all positive\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    int size, dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    int rank, coords[2];
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    int north, south, west, east;
    MPI_Cart_shift(grid, 0, 1, &north, &south);
    MPI_Cart_shift(grid, 1, 1, &west, &east);

    size_t points = (size_t)(nx + 2) * (size_t)(ny + 2);
    double *u = calloc(points, sizeof *u), *v = calloc(points, sizeof *v);
    double *sendw = malloc((size_t)nx * sizeof *sendw), *sende = malloc((size_t)nx * sizeof *sende);
    double *recvw = malloc((size_t)nx * sizeof *recvw), *recve = malloc((size_t)nx * sizeof *recve);
    if (!u || !v || !sendw || !sende || !recvw || !recve) {
        fprintf(stderr, "jacobi2d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* boundary condition: the top edge of the global domain is held at 1 */
    if (coords[0] == 0)
        for (int j = 0; j < ny + 2; j++)
            AT(u, 0, j) = AT(v, 0, j) = 1.0;

    double residual = 0.0, t_start = MPI_Wtime();
    for (int it = 1; it <= iterations; it++) {
        MPI_Request req[8];
        /* rows are contiguous; columns are packed */
        for (int i = 0; i < nx; i++) {
            sendw[i] = AT(u, i + 1, 1);
            sende[i] = AT(u, i + 1, ny);
        }
        MPI_Irecv(&AT(u, 0, 1), ny, MPI_DOUBLE, north, 0, grid, &req[0]);
        MPI_Irecv(&AT(u, nx + 1, 1), ny, MPI_DOUBLE, south, 1, grid, &req[1]);
        MPI_Irecv(recvw, nx, MPI_DOUBLE, west, 2, grid, &req[2]);
        MPI_Irecv(recve, nx, MPI_DOUBLE, east, 3, grid, &req[3]);
        MPI_Isend(&AT(u, 1, 1), ny, MPI_DOUBLE, north, 1, grid, &req[4]);
        MPI_Isend(&AT(u, nx, 1), ny, MPI_DOUBLE, south, 0, grid, &req[5]);
        MPI_Isend(sendw, nx, MPI_DOUBLE, west, 3, grid, &req[6]);
        MPI_Isend(sende, nx, MPI_DOUBLE, east, 2, grid, &req[7]);
        MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
        if (west != MPI_PROC_NULL)
            for (int i = 0; i < nx; i++)
                AT(u, i + 1, 0) = recvw[i];
        if (east != MPI_PROC_NULL)
            for (int i = 0; i < nx; i++)
                AT(u, i + 1, ny + 1) = recve[i];

        double local = 0.0;
        for (int i = 1; i <= nx; i++)
            for (int j = 1; j <= ny; j++) {
                double x = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1));
                double d = x - AT(u, i, j);
                local += d * d;
                AT(v, i, j) = x;
            }
        double *t = u;
        u = v;
        v = t;
        if (it % every == 0) {
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
            residual = sqrt(residual);
        }
    }
    double elapsed = MPI_Wtime() - t_start;
    if (rank == 0)
        printf("jacobi2d: %d ranks (%d x %d), %d x %d points each, %d iterations: residual %.6e, %.3f s\n",
               size, dims[0], dims[1], nx, ny, iterations, residual, elapsed);
    free(u);
    free(v);
    free(sendw);
    free(sende);
    free(recvw);
    free(recve);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
