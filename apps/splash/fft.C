/* 1-D complex FFT by the six-step method, in the SPLASH-2 macro dialect,
 * shaped like the SPLASH-2 FFT kernel.
 *
 * N = 2^M points are seen as a sqrt(N) x sqrt(N) matrix x (x[r][c] = point
 * r sqrt(N) + c).  With R = sqrt(N) and roots w = exp(-2 pi i / N):
 *   1. trans = transpose(x)
 *   2. FFT of length R of every row of trans
 *   3. trans[r][c] *= w^(r c)                 (the twiddle factors)
 *   4. x = transpose(trans)
 *   5. FFT of every row of x
 *   6. trans = transpose(x)                   (the transform, in natural order)
 * Each process owns a block of contiguous rows of both matrices: steps 2, 3
 * and 5 touch own rows only; a transpose fills the process's own rows of the
 * destination by reading, in square tiles, a column block of every
 * process's rows of the source, starting with the next process's so that the
 * processes do not all read from the same one.  Barriers separate the steps.
 * The same six steps with conjugate roots and a 1/N scale invert the
 * transform (from trans back into x).
 *
 * The master allocates x, trans, the roots of unity of the row FFTs and the
 * N twiddle factors, and initialises all of them before any worker exists.
 * After the workers end it checks the forward transform (a weighted checksum
 * of every row, taken by the row's owner before the inverse overwrites it)
 * against a radix-2 FFT of length N done in private memory, and the inverse
 * against the input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MAIN_ENV

#define MAX_PROCS 64
#define PI 3.14159265358979323846

static const char *usage_text =
    "usage: splash_fft [-pP] [-mM] [-bB] [-t] [-h]\n"
    "  forward and inverse complex FFT of 2^M points by the six-step method\n"
    "  -pP  processes (1..64, default 1; at most 2^(M/2))\n"
    "  -mM  log2 of the number of points, even, 4..26 (default 20); M = 22 takes\n"
    "       a 194 MiB shared region\n"
    "  -bB  side of the square tiles of the transposes (default 16)\n"
    "  -t   check the result (always done)\n"
    "  -h   this help\n";

typedef struct complex_pair {
  double re, im;
} complex_pair;

struct GlobalMemory {
  LOCKDEC(idlock)
  long id;
  BARDEC(bar)
};

struct GlobalMemory *Global;
complex_pair *x;        /* N points, as an R x R matrix */
complex_pair *trans;    /* N points, as an R x R matrix */
complex_pair *umain;    /* R / 2 roots of unity of the row FFTs */
complex_pair *umain2;   /* N twiddle factors w^(r c) */
complex_pair *row_sums; /* R weighted sums of the forward transform's rows */

long P = 1;
long log_points = 20;
long N, R;
long tile = 16;
unsigned long start_time;

#define SPLASH_PROGRAM "splash_fft"
#include "splash_args.h"

/* The weight of column c in a row's checksum: irregular, so that errors in
 * different columns of a row do not cancel. */
static double column_weight(long c) { return 1.0 + (double)((c * 2654435761L) % 1009) / 1009.0; }

static double input_value(long i, int imaginary) {
  unsigned long long v = ((unsigned long long)i * 2 + (unsigned long long)imaginary + 1) * 0x9E3779B97F4A7C15ull;
  v ^= v >> 30;
  v *= 0xBF58476D1CE4E5B9ull;
  v ^= v >> 27;
  return (double)(v >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* ---- the steps ------------------------------------------------------------ */

/* In-place radix-2 FFT of one row of R points; conjugate roots if inverse. */
static void row_fft(complex_pair *row, int inverse) {
  long i, j, k, len, start;
  for (i = 1, j = 0; i < R; i++) {
    long bit = R >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      complex_pair t = row[i];
      row[i] = row[j];
      row[j] = t;
    }
  }
  for (len = 2; len <= R; len <<= 1) {
    long half = len >> 1, stride = R / len;
    for (k = 0; k < half; k++) {
      double wr = umain[k * stride].re, wi = inverse ? -umain[k * stride].im : umain[k * stride].im;
      for (start = k; start < R; start += len) {
        complex_pair *a = row + start, *b = a + half;
        double tr = b->re * wr - b->im * wi, ti = b->re * wi + b->im * wr;
        b->re = a->re - tr;
        b->im = a->im - ti;
        a->re += tr;
        a->im += ti;
      }
    }
  }
}

static void twiddle_row(complex_pair *row, long r, int inverse) {
  const complex_pair *w = umain2 + r * R;
  long c;
  for (c = 0; c < R; c++) {
    double wr = w[c].re, wi = inverse ? -w[c].im : w[c].im;
    double re = row[c].re * wr - row[c].im * wi;
    row[c].im = row[c].re * wi + row[c].im * wr;
    row[c].re = re;
  }
}

/* dst[r][c] = scale * src[c][r] for the own rows r of dst, reading every
 * process's rows of src tile by tile, from the next process's on. */
static void transpose(const complex_pair *src, complex_pair *dst, long id, double scale) {
  long lo = id * R / P, hi = (id + 1) * R / P, k;
  for (k = 1; k <= P; k++) {
    long q = (id + k) % P, qlo = q * R / P, qhi = (q + 1) * R / P, rb, cb, r, c;
    for (rb = lo; rb < hi; rb += tile)
      for (cb = qlo; cb < qhi; cb += tile) {
        long rend = rb + tile < hi ? rb + tile : hi, cend = cb + tile < qhi ? cb + tile : qhi;
        for (r = rb; r < rend; r++) {
          complex_pair *out = dst + r * R;
          for (c = cb; c < cend; c++) {
            out[c].re = scale * src[c * R + r].re;
            out[c].im = scale * src[c * R + r].im;
          }
        }
      }
  }
}

static void six_step(complex_pair *a, complex_pair *b, long id, int inverse) {
  long lo = id * R / P, hi = (id + 1) * R / P, r;
  transpose(a, b, id, 1.0);
  BARRIER(Global->bar, P)
  for (r = lo; r < hi; r++) {
    row_fft(b + r * R, inverse);
    twiddle_row(b + r * R, r, inverse);
  }
  BARRIER(Global->bar, P)
  transpose(b, a, id, 1.0);
  BARRIER(Global->bar, P)
  for (r = lo; r < hi; r++) row_fft(a + r * R, inverse);
  BARRIER(Global->bar, P)
  transpose(a, b, id, inverse ? 1.0 / (double)N : 1.0);
  BARRIER(Global->bar, P)
}

/* ---- the parallel part ---------------------------------------------------- */

void SlaveStart(void) {
  long id, pid, r, c;

  LOCK(Global->idlock)
  id = Global->id;
  Global->id++;
  UNLOCK(Global->idlock)

  BARRIER(Global->bar, P)
  GET_PID(pid)
  if (pid == 0) CLOCK(start_time)

  six_step(x, trans, id, 0);
  for (r = id * R / P; r < (id + 1) * R / P; r++) {
    complex_pair s = {0.0, 0.0};
    for (c = 0; c < R; c++) {
      s.re += column_weight(c) * trans[r * R + c].re;
      s.im += column_weight(c) * trans[r * R + c].im;
    }
    row_sums[r] = s;
  }
  six_step(trans, x, id, 1);
}

/* ---- the sequential reference --------------------------------------------- */

/* Radix-2 FFT of all N points in private memory; roots[k] = w^k, k < N/2. */
static void reference_fft(complex_pair *v, const complex_pair *roots, int inverse) {
  long i, j, k, len, start;
  for (i = 1, j = 0; i < N; i++) {
    long bit = N >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      complex_pair t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
  }
  for (len = 2; len <= N; len <<= 1) {
    long half = len >> 1, stride = N / len;
    for (start = 0; start < N; start += len)
      for (k = 0; k < half; k++) {
        double wr = roots[k * stride].re, wi = inverse ? -roots[k * stride].im : roots[k * stride].im;
        complex_pair *a = v + start + k, *b = a + half;
        double tr = b->re * wr - b->im * wi, ti = b->re * wi + b->im * wr;
        b->re = a->re - tr;
        b->im = a->im - ti;
        a->re += tr;
        a->im += ti;
      }
  }
  if (inverse)
    for (i = 0; i < N; i++) {
      v[i].re /= (double)N;
      v[i].im /= (double)N;
    }
}

int main(int argc, char **argv) {
  int c;
  long i, r, cc;
  unsigned long create_time, end_time, seq_start, seq_end;

  const char *const options = "p:m:b:th";
  opterr = 0;
  while ((c = getopt(argc, argv, options)) != -1) {
    switch (c) {
      case 'p': P = parse_long("-p", optarg, 1, MAX_PROCS); break;
      case 'm': log_points = parse_long("-m", optarg, 4, 26); break;
      case 'b': tile = parse_long("-b", optarg, 1, 4096); break;
      case 't': break;
      case 'h': printf("%s", usage_text); exit(0);
      default: bad_option(options);
    }
  }
  if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
  if (log_points % 2) {
    char what[96];
    snprintf(what, sizeof what, "-m %ld: the number of points must be an even power of two", log_points);
    usage_error("%s", what);
  }
  N = 1L << log_points;
  R = 1L << (log_points / 2);
  if (P > R) {
    char what[96];
    snprintf(what, sizeof what, "-p %ld: more processes than the %ld rows of the matrix", P, R);
    usage_error("%s", what);
  }

  /* x, trans and the twiddles, the row roots and sums, slack. */
  MAIN_INITENV(, 3 * (size_t)N * sizeof(complex_pair) + 2 * (size_t)R * sizeof(complex_pair) + (2u << 20))

  Global = (struct GlobalMemory *)G_MALLOC(sizeof(struct GlobalMemory));
  Global->id = 0;
  LOCKINIT(Global->idlock)
  BARINIT(Global->bar)
  x = (complex_pair *)G_MALLOC((size_t)N * sizeof(complex_pair));
  trans = (complex_pair *)G_MALLOC((size_t)N * sizeof(complex_pair));
  umain = (complex_pair *)G_MALLOC((size_t)R / 2 * sizeof(complex_pair));
  umain2 = (complex_pair *)G_MALLOC((size_t)N * sizeof(complex_pair));
  row_sums = (complex_pair *)G_MALLOC((size_t)R * sizeof(complex_pair));

  for (i = 0; i < N; i++) {
    x[i].re = input_value(i, 0);
    x[i].im = input_value(i, 1);
    trans[i].re = trans[i].im = 0.0;
  }
  for (i = 0; i < R / 2; i++) {
    umain[i].re = cos(2.0 * PI * (double)i / (double)R);
    umain[i].im = -sin(2.0 * PI * (double)i / (double)R);
  }
  for (r = 0; r < R; r++)
    for (cc = 0; cc < R; cc++) {
      /* r c < N: reduce the angle exactly before the trigonometry. */
      double angle = 2.0 * PI * (double)((r * cc) % N) / (double)N;
      umain2[r * R + cc].re = cos(angle);
      umain2[r * R + cc].im = -sin(angle);
    }
  for (r = 0; r < R; r++) row_sums[r].re = row_sums[r].im = 0.0;

  CLOCK(create_time) /* the job forms at the first CREATE: its start is counted from here */
  for (i = 1; i < P; i++) CREATE(SlaveStart)
  SlaveStart();
  WAIT_FOR_END(P - 1)
  CLOCK(end_time)

  {
    complex_pair *v = (complex_pair *)malloc((size_t)N * sizeof(complex_pair));
    complex_pair *roots = (complex_pair *)malloc((size_t)N / 2 * sizeof(complex_pair));
    double worst_sum = 0.0, worst_inverse = 0.0, worst_roundtrip = 0.0, checksum = 0.0;
    const char *what = NULL;
    if (!v || !roots) {
      printf("FAIL splash_fft: cannot allocate the sequential reference\n");
      exit(1);
    }
    for (i = 0; i < N / 2; i++) {
      roots[i].re = cos(2.0 * PI * (double)i / (double)N);
      roots[i].im = -sin(2.0 * PI * (double)i / (double)N);
    }
    for (i = 0; i < N; i++) {
      v[i].re = input_value(i, 0);
      v[i].im = input_value(i, 1);
    }
    CLOCK(seq_start)
    reference_fft(v, roots, 0);
    CLOCK(seq_end)
    {
      /* The comparison needs the forward transform; the copy is not timed. */
      complex_pair *forward = (complex_pair *)malloc((size_t)N * sizeof(complex_pair));
      unsigned long inverse_start, inverse_end;
      if (!forward) {
        printf("FAIL splash_fft: cannot allocate the sequential reference\n");
        exit(1);
      }
      memcpy(forward, v, (size_t)N * sizeof(complex_pair));
      CLOCK(inverse_start)
      reference_fft(v, roots, 1);
      CLOCK(inverse_end)
      seq_end += inverse_end - inverse_start;
      for (r = 0; r < R; r++) {
        double sre = 0.0, sim = 0.0, scale = 1e-300, d;
        for (cc = 0; cc < R; cc++) {
          const complex_pair *f = forward + r * R + cc;
          sre += column_weight(cc) * f->re;
          sim += column_weight(cc) * f->im;
          scale += column_weight(cc) * (fabs(f->re) + fabs(f->im));
        }
        d = (fabs(row_sums[r].re - sre) + fabs(row_sums[r].im - sim)) / scale;
        if (d > worst_sum) worst_sum = d;
        checksum += row_sums[r].re + row_sums[r].im;
      }
      free(forward);
    }
    for (i = 0; i < N; i++) {
      double d = fabs(x[i].re - input_value(i, 0)) + fabs(x[i].im - input_value(i, 1));
      double e = fabs(v[i].re - input_value(i, 0)) + fabs(v[i].im - input_value(i, 1));
      if (d > worst_inverse) worst_inverse = d;
      if (e > worst_roundtrip) worst_roundtrip = e;
    }
    if (!(worst_sum < 1e-10)) what = "the forward transform differs from the sequential FFT";
    else if (!(worst_inverse < 1e-10)) what = "the inverse transform does not give back the input";
    else if (!(worst_roundtrip < 1e-10)) what = "the sequential FFT does not invert (the reference is wrong)";
    if (what)
      printf("FAIL splash_fft: %s (row sums %.3g, inverse %.3g, reference %.3g; M %ld, %ld processes)\n", what,
             worst_sum, worst_inverse, worst_roundtrip, log_points, P);
    else
      printf("PASS splash_fft: M %ld (%ld points, %ld x %ld), %ld processes, checksum %.12g, forward error %.3g, "
             "inverse error %.3g\n",
             log_points, N, R, R, P, checksum, worst_sum, worst_inverse);
    print_times(start_time, create_time, end_time, seq_start, seq_end);
    fflush(stdout);
    if (what) exit(1);
    free(v);
    free(roots);
  }
  MAIN_END
}
