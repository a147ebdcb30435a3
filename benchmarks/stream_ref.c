/*
 * stream_ref.c: a plain STREAM-style reference for accelerators.bench's memory kernels.
 *
 * Our own small code (not McCalpin's stream.c), written to the same rules:
 *   - three arrays of N doubles, initialised in parallel (first touch on the threads that use them)
 *     to BabelStream's values a = 0.1, b = 0.2, c = 0.0, scalar s = 0.4;
 *   - kernels in "isolated" order, each timed NTIMES times back to back with a monotonic clock;
 *     the best time after the first (warm-up) call is reported;
 *   - bytes counted as STREAM and BabelStream count them (no write-allocate):
 *       copy  c = a          2 * 8 * N
 *       scale b = s * c      2 * 8 * N
 *       add   c = a + b      3 * 8 * N
 *       triad a = b + s * c  3 * 8 * N
 *       dot   sum(a * b)     2 * 8 * N
 *   - every result is checked against its analytic value; the exit code is 1 on a miscompare.
 *
 * Build:  gcc -O3 -march=native -fopenmp benchmarks/stream_ref.c -o stream_ref -lm
 * Run:    OMP_NUM_THREADS=1 ./stream_ref N NTIMES
 * Output: one line per kernel, "kernel GB/s" (10^9 bytes per second), for scripts.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1L << 25;
    int ntimes = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || ntimes < 2) {
        fprintf(stderr, "usage: %s N NTIMES (N >= 1, NTIMES >= 2)\n", argv[0]);
        return 2;
    }
    double *a = aligned_alloc(64, (size_t)n * sizeof(double) + 64);
    double *b = aligned_alloc(64, (size_t)n * sizeof(double) + 64);
    double *c = aligned_alloc(64, (size_t)n * sizeof(double) + 64);
    if (!a || !b || !c) {
        fprintf(stderr, "allocation of 3 x %ld doubles failed\n", n);
        return 2;
    }
    const double s = 0.4;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.1;
        b[i] = 0.2;
        c[i] = 0.0;
    }
    const char *names[5] = {"copy", "scale", "add", "triad", "dot"};
    const double words[5] = {2, 2, 3, 3, 2};
    double best[5];
    double sum = 0.0;
    for (int kernel = 0; kernel < 5; kernel++) {
        best[kernel] = INFINITY;
        for (int rep = 0; rep < ntimes; rep++) {
            double t = now();
            switch (kernel) {
            case 0:
#pragma omp parallel for schedule(static)
                for (long i = 0; i < n; i++) c[i] = a[i];
                break;
            case 1:
#pragma omp parallel for schedule(static)
                for (long i = 0; i < n; i++) b[i] = s * c[i];
                break;
            case 2:
#pragma omp parallel for schedule(static)
                for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
                break;
            case 3:
#pragma omp parallel for schedule(static)
                for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
                break;
            default:
                sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
                for (long i = 0; i < n; i++) sum += a[i] * b[i];
                break;
            }
            t = now() - t;
            if (rep > 0 && t < best[kernel]) best[kernel] = t;
        }
    }
    /* Analytic values after copy, scale, add, triad (each idempotent in isolated order). */
    double ea = 0.1, eb, ec;
    ec = ea;
    eb = s * ec;
    ec = ea + eb;
    ea = eb + s * ec;
    double err = 0.0;
    for (long i = 0; i < n; i++) {
        err = fmax(err, fabs(a[i] - ea) / ea);
        err = fmax(err, fabs(b[i] - eb) / eb);
        err = fmax(err, fabs(c[i] - ec) / ec);
    }
    double edot = (double)n * ea * eb;
    int ok = err <= 100 * 2.220446049250313e-16 && fabs(sum - edot) / edot <= 1e-8;
    printf("threads %d\nelements %ld\n", omp_get_max_threads(), n);
    for (int kernel = 0; kernel < 5; kernel++)
        printf("%s %.3f\n", names[kernel], words[kernel] * 8.0 * (double)n / best[kernel] / 1e9);
    printf("valid %d\n", ok);
    free(a);
    free(b);
    free(c);
    return ok ? 0 : 1;
}
