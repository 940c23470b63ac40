/* rdsm — software distributed shared memory.
 *
 * A program is started as N processes ("nodes") by `rdsm run -n N prog args`.
 * Every node calls rdsm_init() first and rdsm_finalize() last.  Memory from
 * rdsm_malloc*() is one shared range at the same address in every node, kept
 * coherent page by page under release consistency: data-race-free programs
 * (those that order conflicting accesses with rdsm locks, barriers or
 * acquire/release) see sequentially consistent results.
 *
 * Every call checks its use; misuse (a call before rdsm_init, a bad lock id,
 * a size of 0 ...) ends the job with a message naming the call.
 */
#ifndef RDSM_H
#define RDSM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- life cycle ------------------------------------------------------- */

/* Joins the job.  argc/argv may be NULL; rdsm takes no arguments from them
 * today, so they are left unchanged.  Started without the launcher, the
 * program runs as a job of one node. */
void rdsm_init(int *argc, char ***argv);
/* Ends with a barrier: all writes of every node are complete and visible
 * at their homes; statistics are written for the launcher. */
void rdsm_finalize(void);
int rdsm_initialized(void);

int rdsm_rank(void);   /* 0 .. rdsm_nodes()-1 */
int rdsm_nodes(void);

/* ---- compute threads of a node ------------------------------------------
 * `rdsm run -n N --threads T` (or RDSM_THREADS=T) gives each node T compute
 * threads that share the node's copy of the shared memory; coherence between
 * nodes stays per node.  A node runs one thread (its thread 0, the one that
 * called rdsm_init) except inside rdsm_run_threads, which runs fn(arg) on
 * all T threads of the node, the caller as its thread 0, and returns once
 * every one has returned.  Call it the same number of times on every node.
 * Inside it, rdsm_barrier() is a barrier of all N x T threads, and locks are
 * held by threads (a thread unlocks what it locked).  Collective calls
 * (rdsm_malloc_all, rdsm_finalize) are made outside it.  Private globals of
 * the program are shared by the threads of a node: keep per-thread state
 * in the function's locals (or thread-local variables).  With T = 1 fn runs
 * on the caller alone, at no cost. */
void rdsm_run_threads(void (*fn)(void *arg), void *arg);
int rdsm_node_threads(void); /* T */
int rdsm_threads(void);      /* N x T: every compute thread of the job */
/* The caller's global thread id, 0 .. rdsm_threads()-1, node-major: the
 * threads of node 0 first.  Thread 0 of node r (outside rdsm_run_threads)
 * is r x T. */
int rdsm_thread_id(void);

/* ---- shared memory ---------------------------------------------------- */

/* Where the home copy of each page of an allocation lives. */
typedef enum rdsm_placement {
  RDSM_PLACE_DEFAULT = 0,     /* the job's default (--placement, first touch unless set) */
  RDSM_PLACE_FIRST_TOUCH = 1, /* the first node to touch a page becomes its home */
  RDSM_PLACE_BLOCK = 2,       /* pages split into nodes() contiguous blocks */
  RDSM_PLACE_CYCLIC = 3,      /* page i homed at node i mod nodes() */
  RDSM_PLACE_LOCAL = 4        /* every page homed at the calling node */
} rdsm_placement;

/* Any node, any time: returns memory every node can address (zeroed).
 * Allocations of a page or more are page aligned; smaller ones are 16-byte
 * aligned.  Other nodes learn the pointer through shared memory, published
 * roots or a message of the program's own, after synchronising. */
void *rdsm_malloc(size_t size);
void *rdsm_malloc_placed(size_t size, rdsm_placement placement);
/* rdsm_malloc, except under --protocol sc with RDSM_MINIPAGES=explicit
 * (or on, or adaptive): there a block smaller than a page gets a minipage
 * of its own, a virtual page of its own over the shared physical page, so
 * that nodes writing different such blocks do not take the page from each
 * other (false sharing).  Elsewhere (RDSM_MINIPAGES=off, the other
 * protocols) it is rdsm_malloc.  Owned by the first node to touch it. */
void *rdsm_malloc_minipage(size_t size);
/* Collective: every node calls it with the same arguments and gets the
 * same pointer. */
void *rdsm_malloc_all(size_t size, rdsm_placement placement);
/* Returns 1 if p points into the shared region. */
int rdsm_is_shared(const void *p);

/* Root pointers: slot 0 .. RDSM_ROOT_SLOTS-1.  A published pointer is seen
 * by rdsm_root() on any node after a synchronisation that orders the two
 * (a barrier, or a lock released after publishing and acquired before
 * reading). */
#define RDSM_ROOT_SLOTS 64
void rdsm_publish_root(int slot, void *p);
void *rdsm_root(int slot);

/* ---- synchronisation -------------------------------------------------- */

/* Locks are numbered 0 .. rdsm_lock_count()-1; they need no creation. */
int rdsm_lock_count(void);
/* Between the threads of a node a lock is handed over without any remote
 * operation while threads of the node wait for it (a bounded number of
 * times in a row, so that other nodes are not starved). */
void rdsm_lock(int lock_id);
/* rdsm_lock without waiting: returns 1 with the lock taken, exactly as
 * rdsm_lock would (the writes its previous holders released are visible),
 * if no node holds the lock or waits for it; returns 0, changing nothing,
 * if one does.  It may ask the lock's manager node, but never waits for
 * the lock itself.  A lock this node holds is an error, as for rdsm_lock. */
int rdsm_trylock(int lock_id);
void rdsm_unlock(int lock_id);

void rdsm_barrier(void);

/* Explicit consistency points outside locks and barriers.
 * rdsm_release(): this node's writes so far reach their homes, and become
 *   visible to every later rdsm_acquire() (or lock, barrier) of any node.
 * rdsm_acquire(): sees every write made visible by a release that completed
 *   before this call started.
 * rdsm_unlock() and rdsm_barrier() begin with a release, so writes before
 * them count as released for rdsm_acquire() too; rdsm_lock() and
 * rdsm_barrier() end with an acquire (of what the lock's previous holders,
 * or every node, released). */
void rdsm_release(void);
void rdsm_acquire(void);

/* ---- information ------------------------------------------------------ */

const char *rdsm_protocol_name(void);
size_t rdsm_page_size(void);
double rdsm_wtime(void); /* seconds, monotonic, microsecond resolution or better */

/* Per-node statistics (this node).  Times in seconds. */
typedef struct rdsm_stats {
  double total, compute, data_wait, lock_wait, barrier_wait, barrier_protocol, handler;
  /* handler time split by what the handlers did: serving pages and homes,
   * applying diffs, and synchronisation (locks, barriers, notices) */
  double handler_page, handler_diff, handler_sync;
  uint64_t read_faults, write_faults, pages_fetched, twins, diffs, diff_bytes;
  uint64_t messages_sent, message_bytes, one_sided_ops, invalidations, lock_acquires, barriers;
  /* diff_ops: remote writes (or messages) that carried diffs; migrations:
   * pages whose home moved to this node; prefetched pages fetched ahead of a
   * miss, of which used were later accessed and wasted were invalidated or
   * dropped untouched; refreshed: copies read anew at an acquire instead of
   * invalidated (pages this node re-reads after every invalidation);
   * written_ahead: pages opened for writing ahead of a stream of write
   * faults, of which unwritten were closed at the release unwritten;
   * diffs_claimed: diffs written while holding the home's page alone (whole
   * pages, and byte-masked writes blended in place) */
  uint64_t diff_ops, migrations, prefetched, prefetch_used, prefetch_wasted, refreshed;
  uint64_t written_ahead, written_ahead_unused, diffs_claimed;
  /* The emu fabric's charges (zero under any other fabric), seconds:
   * emu_host_overhead, the host overhead this node's threads spun;
   * emu_occupancy, emu_bandwidth and emu_latency, the NI occupancy (packets
   * x occupancy), bytes / bandwidth and wire latency of the transfers this
   * node started (the reply of its gets and atomics included);
   * emu_ni_wait, the time those transfers queued for a busy NI;
   * emu_interrupt, the interrupt cost its message handlers paid;
   * emu_waited, the time its threads and handlers busy-waited in the emu
   * fabric: the part of the charges not hidden behind other work. */
  double emu_host_overhead, emu_occupancy, emu_bandwidth, emu_latency, emu_ni_wait, emu_interrupt, emu_waited;
  /* diffs_withheld: diffs a barrier's release held back for a home move
   * expected to make this node the page's home (home=migrate), of which
   * withheld_unmoved were sent after all, the page staying where it was */
  uint64_t diffs_withheld, withheld_unmoved;
} rdsm_stats;
void rdsm_get_stats(rdsm_stats *out);
/* Zeroes this node's counters and restarts its clocks (for timing phases). */
void rdsm_reset_stats(void);

#ifdef __cplusplus
}
#endif
#endif /* RDSM_H */
