/* rdsm for SPLASH-2 and Splash-3 programs: the functions behind the m4
 * macros of splash/c.m4.rdsm (MAIN_INITENV, CREATE, LOCK, BARRIER, ...).
 *
 * A SPLASH program is a fork-join program: it starts as one process, the
 * master, and CREATE makes workers, processes forked from the master (see
 * the "SPLASH programs" section of the README).  Synchronisation objects
 * must live in shared memory (from G_MALLOC), where every process sees them;
 * they are identified by their address, so any number of them may be
 * declared inside shared structures and initialised again.
 *
 * Memory model: lazy release consistency.  Unlocking, arriving at a
 * barrier, SETPAUSE, signalling and RELEASE_FENCE are releases; locking,
 * leaving a barrier, WAITPAUSE, returning from a wait and ACQUIRE_FENCE are
 * acquires.  A worker's end is a release, WAIT_FOR_END an acquire.
 *
 * Include guard only, no definitions: MAIN_ENV and EXTERN_ENV may both
 * appear in one file. */
#ifndef RDSM_SPLASH_H
#define RDSM_SPLASH_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rdsm.h"
#include "rdsm_splash_types.h"

#ifndef PAGE_SIZE
#define PAGE_SIZE 4096
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The synchronisation objects (rdsm_splash_lock_t, ...) are in
 * rdsm_splash_types.h. */

/* Program structure */
void rdsm_splash_init(size_t shared_bytes);        /* MAIN_INITENV; 0: no estimate */
void rdsm_splash_end(void);                        /* MAIN_END (then exit(0)) */
void rdsm_splash_create(void (*fn)(void));         /* CREATE(fn) */
void rdsm_splash_create_n(void (*fn)(void), long processes); /* CREATE(fn, P) */
void rdsm_splash_wait_for_end(long workers);       /* WAIT_FOR_END(n) */

/* Shared memory: any process, any time, also before MAIN_INITENV (the
 * first call then makes this process the master, as MAIN_INITENV with no
 * estimate would); page aligned from one page up. */
void *rdsm_splash_malloc(size_t bytes);            /* G_MALLOC, NU_MALLOC */

/* Locks */
void rdsm_splash_lock_init(rdsm_splash_lock_t *l);
void rdsm_splash_alock_init(rdsm_splash_lock_t *locks, long count);
void rdsm_splash_lock(rdsm_splash_lock_t *l);
void rdsm_splash_unlock(rdsm_splash_lock_t *l);

/* Barriers: `processes` must be the same at every arrival, at most the
 * number of processes in the job. */
void rdsm_splash_barrier_init(rdsm_splash_barrier_t *b);
void rdsm_splash_barrier(rdsm_splash_barrier_t *b, long processes);

/* Pause: a counting semaphore.  set adds one, wait takes one (waiting for
 * it), clear sets the count to zero. */
void rdsm_splash_pause_init(rdsm_splash_pause_t *p);
void rdsm_splash_pause_set(rdsm_splash_pause_t *p);
void rdsm_splash_pause_wait(rdsm_splash_pause_t *p);
void rdsm_splash_pause_clear(rdsm_splash_pause_t *p);

/* Condition variables (Mesa semantics: recheck the condition after a wait). */
void rdsm_splash_condvar_init(rdsm_splash_condvar_t *cv);
void rdsm_splash_condvar_wait(rdsm_splash_condvar_t *cv, rdsm_splash_lock_t *l);
void rdsm_splash_condvar_signal(rdsm_splash_condvar_t *cv);
void rdsm_splash_condvar_broadcast(rdsm_splash_condvar_t *cv);

/* Self-scheduling subscripts (GETSUB): the next of 0..max, or -1 when they
 * are all handed out; once `processes` callers got -1 it starts again. */
void rdsm_splash_getsub_init(rdsm_splash_getsub_t *gs);
long rdsm_splash_getsub(rdsm_splash_getsub_t *gs, long max, long processes);

/* Fences, time, region of interest */
void rdsm_splash_release_fence(void);
void rdsm_splash_acquire_fence(void);
void rdsm_splash_full_fence(void);
unsigned long rdsm_splash_clock(void);             /* microseconds, monotonic */
void rdsm_splash_roi_begin(void);
void rdsm_splash_roi_end(void);
double rdsm_splash_roi_seconds(void);              /* last ROI_BEGIN .. ROI_END of this process */

#ifdef __cplusplus
}
#endif

#endif /* RDSM_SPLASH_H */
