/* The radix-2 FFT kernel shared by the FFT programs (fft, fft3d): complex
 * numbers, roots of unity and an in-place iterative transform on private
 * memory.  Header only, like app_util.h. */
#ifndef RDSM_FFT_KERNEL_H
#define RDSM_FFT_KERNEL_H

#include <math.h>
#include <stdlib.h>

typedef struct cpx {
  double re, im;
} cpx;

static inline cpx cmul(cpx a, cpx b) {
  cpx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}

/* roots[k] = exp(sign * 2 pi i k / len), k < len/2 (len a power of two);
 * sign -1 for the forward transform, +1 for the inverse.  NULL if out of
 * memory. */
static inline cpx *make_roots(long len, double sign) {
  long h = len / 2;
  cpx *r = (cpx *)malloc(sizeof(cpx) * (size_t)(h > 0 ? h : 1));
  if (!r) return NULL;
  for (long k = 0; k < h; ++k) {
    double t = sign * 2.0 * M_PI * (double)k / (double)len;
    r[k].re = cos(t);
    r[k].im = sin(t);
  }
  return r;
}

/* In-place iterative radix-2 FFT of a[0..len) with roots from make_roots(len). */
static inline void fft_radix2(cpx *a, long len, const cpx *roots) {
  for (long i = 1, j = 0; i < len; ++i) { /* bit-reversal permutation */
    long bit = len >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      cpx t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (long half = 1; half < len; half <<= 1) {
    long step = len / (2 * half);
    for (long i = 0; i < len; i += 2 * half) {
      cpx *lo = a + i, *hi = a + i + half;
      for (long k = 0; k < half; ++k) {
        cpx v = cmul(hi[k], roots[k * step]), u = lo[k];
        lo[k].re = u.re + v.re;
        lo[k].im = u.im + v.im;
        hi[k].re = u.re - v.re;
        hi[k].im = u.im - v.im;
      }
    }
  }
}

#endif /* RDSM_FFT_KERNEL_H */
