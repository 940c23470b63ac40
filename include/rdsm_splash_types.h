/* rdsm for SPLASH programs: the types of the synchronisation objects the
 * declaration macros of splash/c.m4.rdsm declare (LOCKDEC, ALOCKDEC, BARDEC,
 * PAUSEDEC, CONDVARDEC, GSDEC).
 *
 * The macro file puts `#include "rdsm_splash_types.h"` at the top of every
 * file m4 turns out, so a declaration macro compiles anywhere: in a header
 * included before MAIN_ENV/EXTERN_ENV, in a structure, at file scope.  This
 * header therefore includes nothing (a program's own feature-test macros
 * must still come before the first system header) and uses only built-in
 * types.  rdsm_splash.h declares the functions behind the macros. */
#ifndef RDSM_SPLASH_TYPES_H
#define RDSM_SPLASH_TYPES_H

/* The objects' contents are the runtime's; their identity is their address. */
typedef struct rdsm_splash_lock { unsigned long long reserved; } rdsm_splash_lock_t;
typedef struct rdsm_splash_barrier { long long arrived; unsigned long long generation; } rdsm_splash_barrier_t;
typedef struct rdsm_splash_pause { long long count; } rdsm_splash_pause_t;
typedef struct rdsm_splash_condvar {
  long long waiters;
  long long wakeups;
  unsigned long long generation;
} rdsm_splash_condvar_t;
typedef struct rdsm_splash_getsub { long long next; long long exhausted; } rdsm_splash_getsub_t;

#endif /* RDSM_SPLASH_TYPES_H */
