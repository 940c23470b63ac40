/* Randomised, data-race-free stress test of the shared memory, checked
 * against a sequential oracle.
 *
 * Every node derives the same schedule from --seed with stateless hashes, so
 * no schedule is ever exchanged: each node knows what every other node
 * writes, and keeps a private copy of what the shared memory must contain.
 * Each round is one of:
 *  (a) barrier-phased writes: nodes write disjoint bytes of the same pages
 *      (often adjacent bytes of one 8-byte word), barrier, everyone checks
 *      the whole array;
 *  (b) lock-protected counters: counters on shared and separate pages, each
 *      with its own lock, incremented at random by every node; barrier,
 *      everyone checks every counter (--small-counters: each counter is a
 *      small allocation of its own, so that with minipages each has its own
 *      protection, and without them they share one page);
 *  (c) producer/consumer chains: a block handed from node to node through
 *      mailboxes guarded by locks; each consumer checks the block and a log
 *      written by every earlier hop of its chain (visibility must be
 *      transitive along the chain of locks);
 *  (d) ownership phases: barrier-separated phases in which each page is
 *      written by one node for a few phases running (homes may migrate to
 *      it), then by another, or by every node; inside a phase a node reads
 *      a page under a lock right after its writer released it (a copy taken
 *      mid-epoch, which a home migration must not leave stale); everyone
 *      checks every page after each phase.
 * Every round ends with a barrier so that the next round's writes cannot
 * race with this round's checks.
 *
 * With --threads T every compute thread of every node is one of the
 * workers (rdsm_threads() of them, numbered by rdsm_thread_id()): "node"
 * below means worker, and the threads of one node write disjoint bytes of
 * the same pages, take the same locks and hand blocks to each other just
 * as nodes do.
 *
 * --seeds FIRST:COUNT runs many seeds in one job.  The shared structures are
 * allocated once and zeroed again between seeds, so each seed starts as it
 * would alone (same layout, zeroed data, fresh oracle) and the shared memory
 * in use does not grow with COUNT.  The first failing seed is reported in
 * the --seed form, so it can be rerun on its own.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/app_util.h"
#include "rdsm.h"

static const char *kUsage = "(--seed S | --seeds FIRST:COUNT) [--rounds R] [--small-counters] [--json FILE]\n"
                            "  randomised data-race-free stress test (R rounds, default 20), checked against\n"
                            "  a sequential oracle; the same seed gives the same schedule.  --seeds runs\n"
                            "  seeds FIRST, FIRST+1, ... (COUNT of them) one after another in one job, each\n"
                            "  from zeroed shared memory, and stops at the first seed that fails.\n"
                            "  --small-counters allocates each lock-protected counter on its own\n"
                            "  (rdsm_malloc_all of 8 bytes): minipages under sc with RDSM_MINIPAGES=on.";

enum {
  ARRAY_PAGES = 16,   /* round (a): up to this many pages are written */
  NCOUNTERS = 12,     /* round (b) */
  COUNTER_PAGES = 4,  /* counter k lives on page k % COUNTER_PAGES */
  MAX_OPS = 48,       /* round (b): increments per node per round, at most */
  MAX_CHAINS = 3,     /* round (c) */
  MAX_HOPS = 8,
  MAX_BLOCK = 3000,   /* bytes handed over per hop, at most */
  MAX_REPORTS = 10,   /* mismatch lines printed per node */
  OWN_PAGES = 24,     /* round (d) */
  OWN_PHASES = 6
};

/* Hash tags keep the streams of the different decisions apart. */
enum { TAG_TYPE = 1, TAG_A = 2, TAG_A_BYTE, TAG_B, TAG_B_OP, TAG_C, TAG_C_HOP, TAG_C_DATA, TAG_C_LOG, TAG_D,
       TAG_D_BYTE };

/* One mailbox per (chain, hop); its block starts at data_off inside the slot
 * and often crosses into the slot's second page. */
typedef struct mailbox {
  uint32_t full, seq, len, data_off;
} mailbox;

/* What each node reports to node 0. */
typedef struct node_report {
  uint64_t errors;
  uint64_t errors_by_round[2]; /* errors so far, posted at the end of each round (slot: the round's parity) */
  int64_t round, index, expected, got;
  char what[48];
} node_report;

typedef struct shared_state {
  uint8_t *array;            /* ARRAY_PAGES pages */
  uint8_t *counter_pages;    /* COUNTER_PAGES pages */
  uint8_t *mailboxes;        /* MAX_CHAINS * MAX_HOPS slots of two pages */
  uint64_t *chain_log;       /* MAX_CHAINS * (MAX_HOPS + 1) */
  uint8_t *owned;            /* OWN_PAGES pages */
  uint64_t *handoff;         /* round (d): the phase whose messenger page is ready */
  volatile uint64_t *small_counter[NCOUNTERS]; /* --small-counters: the counters, else NULL */
  node_report *reports;      /* one per node */
} shared_state;

typedef struct ctx {
  uint64_t seed;
  int me, nodes;
  size_t psz;
  int lock_count;
  shared_state sh;
  uint8_t *oracle;                      /* private copy of the array */
  uint8_t *owned_oracle;                /* private copy of the owned pages */
  uint64_t counter_expected[NCOUNTERS]; /* private copy of the counters */
  uint64_t errors;
  int64_t round;
} ctx;

/* Reports a wrong value.  For mailbox and chain log checks, index is
 * chain * 64 + hop. */
static void mismatch(ctx *c, const char *what, int64_t index, int64_t expected, int64_t got) {
  if (c->errors < MAX_REPORTS)
    fprintf(stderr, "stress mismatch: seed %llu round %lld node %d: %s index %lld expected %lld got %lld\n",
            (unsigned long long)c->seed, (long long)c->round, c->me, what, (long long)index, (long long)expected,
            (long long)got);
  if (c->errors == 0) {
    node_report *r = &c->sh.reports[c->me];
    r->round = c->round;
    r->index = index;
    r->expected = expected;
    r->got = got;
    snprintf(r->what, sizeof r->what, "%s", what);
  }
  c->errors++;
}

static uint64_t h(const ctx *c, uint64_t tag, uint64_t a, uint64_t b) {
  return app_hash4(c->seed, tag, a, b);
}

/* ---- (a) barrier-phased writes ------------------------------------------ */

static void round_bytes(ctx *c) {
  uint64_t r = (uint64_t)c->round;
  uint64_t s = h(c, TAG_A, r, 0);
  size_t pages = 8 + (size_t)(s % 9); /* 8 .. 16 */
  size_t bytes = pages * c->psz;
  /* Density in per mille: sparse, medium or dense. */
  unsigned density;
  switch ((s >> 8) % 3) {
    case 0: density = 1 + (unsigned)((s >> 16) % 30); break;
    case 1: density = 100 + (unsigned)((s >> 16) % 500); break;
    default: density = 900 + (unsigned)((s >> 16) % 101); break;
  }
  /* Who writes a chosen byte: anyone at random, or neighbours interleaved
   * byte by byte (every word then has several writers when nodes > 1), or in
   * short stripes. */
  unsigned writer_mode = (unsigned)((s >> 32) % 3);
  unsigned stripe = 1 + (unsigned)((s >> 40) % 3);

  for (size_t i = 0; i < bytes; ++i) {
    uint64_t x = h(c, TAG_A_BYTE, r, i);
    if (x % 1000 >= density) continue;
    int writer;
    if (writer_mode == 0) writer = (int)((x >> 16) % (uint64_t)c->nodes);
    else if (writer_mode == 1) writer = (int)(i % (size_t)c->nodes);
    else writer = (int)((i / stripe) % (size_t)c->nodes);
    uint8_t v = (uint8_t)(x >> 40);
    c->oracle[i] = v;
    if (writer == c->me) c->sh.array[i] = v;
  }
  rdsm_barrier();
  size_t all = (size_t)ARRAY_PAGES * c->psz;
  for (size_t i = 0; i < all; ++i)
    if (c->sh.array[i] != c->oracle[i]) mismatch(c, "array byte", (int64_t)i, c->oracle[i], c->sh.array[i]);
}

/* ---- (b) lock-protected counters ---------------------------------------- */

static volatile uint64_t *counter(ctx *c, int k) {
  if (c->sh.small_counter[0]) return c->sh.small_counter[k];
  /* Pages k % 4; on each page the counters sit next to each other, so one
   * page (even one cache line) is written under several different locks. */
  return (volatile uint64_t *)(c->sh.counter_pages + (size_t)(k % COUNTER_PAGES) * c->psz +
                               (size_t)(k / COUNTER_PAGES) * sizeof(uint64_t));
}

static int counter_lock(const ctx *c, int k) { return k % c->lock_count; }

static void round_counters(ctx *c) {
  uint64_t r = (uint64_t)c->round;
  for (int q = 0; q < c->nodes; ++q) {
    int ops = (int)(h(c, TAG_B, r, (uint64_t)q) % (MAX_OPS + 1));
    for (int op = 0; op < ops; ++op) {
      uint64_t x = h(c, TAG_B_OP, r, (uint64_t)q * 1000003u + (uint64_t)op);
      int k = (int)(x % NCOUNTERS);
      uint64_t delta = 1 + (x >> 16) % 7;
      c->counter_expected[k] += delta;
      if (q != c->me) continue;
      rdsm_lock(counter_lock(c, k));
      *counter(c, k) += delta;
      rdsm_unlock(counter_lock(c, k));
    }
  }
  rdsm_barrier();
  for (int k = 0; k < NCOUNTERS; ++k) {
    uint64_t got = *counter(c, k);
    if (got != c->counter_expected[k]) mismatch(c, "counter", k, (int64_t)c->counter_expected[k], (int64_t)got);
  }
}

/* ---- (c) producer/consumer chains --------------------------------------- */

typedef struct chain_plan {
  int nchains;
  int hops[MAX_CHAINS];
  int node[MAX_CHAINS][MAX_HOPS + 1]; /* position h of chain k runs on node[k][h] */
} chain_plan;

static chain_plan plan_chains(const ctx *c) {
  chain_plan p;
  uint64_t r = (uint64_t)c->round;
  uint64_t s = h(c, TAG_C, r, 0);
  p.nchains = 1 + (int)(s % MAX_CHAINS);
  for (int k = 0; k < p.nchains; ++k) {
    uint64_t x = h(c, TAG_C, r, 1 + (uint64_t)k);
    p.hops[k] = 1 + (int)(x % MAX_HOPS);
    int prev = (int)((x >> 8) % (uint64_t)c->nodes);
    p.node[k][0] = prev;
    for (int pos = 1; pos <= p.hops[k]; ++pos) {
      /* Mostly hand over to another node; sometimes to oneself. */
      uint64_t y = h(c, TAG_C_HOP, r, (uint64_t)k * 64 + (uint64_t)pos);
      int next = (int)(y % (uint64_t)c->nodes);
      if (next == prev && c->nodes > 1 && (y >> 32) % 4 != 0) next = (next + 1) % c->nodes;
      p.node[k][pos] = prev = next;
    }
  }
  return p;
}

static mailbox *mailbox_at(const ctx *c, int k, int hop) {
  return (mailbox *)(c->sh.mailboxes + (size_t)(k * MAX_HOPS + hop) * 2 * c->psz);
}

static int mailbox_lock(const ctx *c, int k, int hop) { return (NCOUNTERS + k * MAX_HOPS + hop) % c->lock_count; }

static uint32_t block_len(const ctx *c, int k, int hop) {
  return 1 + (uint32_t)(h(c, TAG_C_DATA, (uint64_t)c->round, (uint64_t)k * 64 + (uint64_t)hop) % MAX_BLOCK);
}

static uint32_t block_off(const ctx *c, int k, int hop, uint32_t len) {
  uint64_t x = h(c, TAG_C_DATA, (uint64_t)c->round, (uint64_t)k * 64 + (uint64_t)hop) >> 20;
  uint32_t lo = (uint32_t)sizeof(mailbox), hi = (uint32_t)(2 * c->psz) - len;
  return lo + (uint32_t)(x % (hi - lo + 1));
}

static uint8_t block_byte(const ctx *c, int k, int hop, uint32_t j) {
  uint64_t x = h(c, TAG_C_DATA, (uint64_t)c->round * 4096 + j / 8, (uint64_t)k * 64 + (uint64_t)hop + 1);
  return (uint8_t)(x >> (8 * (j % 8)));
}

static uint64_t log_value(const ctx *c, int k, int hop) {
  return h(c, TAG_C_LOG, (uint64_t)c->round, (uint64_t)k * 64 + (uint64_t)hop) | 1; /* never 0 */
}

static uint32_t hop_seq(const ctx *c, int hop) { return (uint32_t)(c->round * 256 + hop + 1); }

static volatile uint64_t *log_at(const ctx *c, int k, int hop) { return &c->sh.chain_log[k * (MAX_HOPS + 1) + hop]; }

/* Position `pos` of chain k on this node: take the block of hop pos-1, then
 * hand on the block of hop pos.  Returns 0 if it gave up waiting. */
static int chain_position(ctx *c, const chain_plan *p, int k, int pos) {
  if (pos > 0) {
    int hop = pos - 1, L = mailbox_lock(c, k, hop);
    mailbox *mb = mailbox_at(c, k, hop);
    double t0 = rdsm_wtime();
    for (;;) {
      rdsm_lock(L);
      if (mb->full) break; /* still holding L */
      rdsm_unlock(L);
      if (rdsm_wtime() - t0 > 30.0) {
        mismatch(c, "chain wait timeout", k * 64 + hop, 1, 0);
        return 0;
      }
      sched_yield(); /* let the producer run when nodes share a core */
    }
    uint32_t len = block_len(c, k, hop);
    if (mb->seq != hop_seq(c, hop)) mismatch(c, "mailbox seq", k * 64 + hop, hop_seq(c, hop), mb->seq);
    if (mb->len != len) mismatch(c, "mailbox len", k * 64 + hop, len, mb->len);
    if (mb->data_off != block_off(c, k, hop, len))
      mismatch(c, "mailbox offset", k * 64 + hop, block_off(c, k, hop, len), mb->data_off);
    const uint8_t *data = (const uint8_t *)mb + block_off(c, k, hop, len);
    char what[48];
    snprintf(what, sizeof what, "chain %d hop %d byte", k, hop);
    for (uint32_t j = 0; j < len; ++j)
      if (data[j] != block_byte(c, k, hop, j)) mismatch(c, what, (int64_t)j, block_byte(c, k, hop, j), data[j]);
    /* Every earlier hop's log entry was written before a release that
     * happens-before this acquire, through the chain of locks. */
    for (int e = 0; e <= hop; ++e)
      if (*log_at(c, k, e) != log_value(c, k, e))
        mismatch(c, "chain log", k * 64 + e, (int64_t)log_value(c, k, e), (int64_t)*log_at(c, k, e));
    mb->full = 0;
    rdsm_unlock(L);
  }
  if (pos < p->hops[k]) {
    int hop = pos, L = mailbox_lock(c, k, hop);
    mailbox *mb = mailbox_at(c, k, hop);
    /* Outside the critical section on purpose: ordered by the lock below. */
    *log_at(c, k, hop) = log_value(c, k, hop);
    uint32_t len = block_len(c, k, hop), off = block_off(c, k, hop, len);
    rdsm_lock(L);
    if (mb->full) mismatch(c, "mailbox already full", k * 64 + hop, 0, mb->full);
    uint8_t *data = (uint8_t *)mb + off;
    for (uint32_t j = 0; j < len; ++j) data[j] = block_byte(c, k, hop, j);
    mb->seq = hop_seq(c, hop);
    mb->len = len;
    mb->data_off = off;
    mb->full = 1;
    rdsm_unlock(L);
  }
  return 1;
}

static void round_chains(ctx *c) {
  chain_plan p = plan_chains(c);
  /* Positions are taken in (hop, chain) order on every node.  Position
   * (h, k) waits only for (h - 1, k), which comes earlier in that order on
   * whichever node has it, so no node can wait on a node that waits on it. */
  int gave_up = 0;
  for (int pos = 0; pos <= MAX_HOPS && !gave_up; ++pos)
    for (int k = 0; k < p.nchains && !gave_up; ++k)
      if (pos <= p.hops[k] && p.node[k][pos] == c->me) gave_up = !chain_position(c, &p, k, pos);
  rdsm_barrier();
  /* After the barrier every hand-over is complete everywhere. */
  for (int k = 0; k < p.nchains; ++k)
    for (int hop = 0; hop < p.hops[k]; ++hop) {
      if (mailbox_at(c, k, hop)->full) mismatch(c, "mailbox left full", k * 64 + hop, 0, 1);
      if (*log_at(c, k, hop) != log_value(c, k, hop))
        mismatch(c, "chain log after barrier", k * 64 + hop, (int64_t)log_value(c, k, hop), (int64_t)*log_at(c, k, hop));
    }
}

/* ---- (d) ownership phases ------------------------------------------------ */

/* Who writes page q in phase ph: one node for a run of 1..3 phases, else
 * (one page in five) every node, byte by byte.  Returns -1 for "every". */
static int page_owner(const ctx *c, int q, int ph) {
  uint64_t r = (uint64_t)c->round;
  int run = 1 + (int)(h(c, TAG_D, r, (uint64_t)q) % 3);
  uint64_t x = h(c, TAG_D, r * 64 + (uint64_t)(ph / run) + 1, (uint64_t)q);
  if (x % 5 == 0) return -1;
  return (int)((x >> 8) % (uint64_t)c->nodes);
}

static void round_owners(ctx *c) {
  uint64_t r = (uint64_t)c->round;
  size_t psz = c->psz;
  for (int ph = 0; ph < OWN_PHASES; ++ph) {
    uint64_t ph_tag = r * 64 + (uint64_t)ph;
    for (int q = 0; q < OWN_PAGES; ++q) {
      int owner = page_owner(c, q, ph);
      uint64_t s = h(c, TAG_D_BYTE, ph_tag, (uint64_t)q);
      unsigned density = 50 + (unsigned)(s % 951); /* per mille */
      for (size_t i = 0; i < psz; ++i) {
        uint64_t x = h(c, TAG_D_BYTE, ph_tag * 4096 + (uint64_t)q, i);
        if (x % 1000 >= density) continue;
        int writer = owner >= 0 ? owner : (int)(i % (size_t)c->nodes);
        uint8_t v = (uint8_t)(x >> 24);
        c->owned_oracle[(size_t)q * psz + i] = v;
        if (writer == c->me) c->sh.owned[(size_t)q * psz + i] = v;
      }
    }
    /* The messenger: a page with a single owner is announced under a lock
     * to one other node, which reads it before the barrier. */
    int m = (int)(h(c, TAG_D, ph_tag, 7) % OWN_PAGES), owner = page_owner(c, m, ph);
    int L = (NCOUNTERS + MAX_CHAINS * MAX_HOPS) % c->lock_count;
    if (owner >= 0 && c->nodes > 1) {
      int reader = (owner + 1 + (int)(h(c, TAG_D, ph_tag, 8) % (uint64_t)(c->nodes - 1))) % c->nodes;
      if (c->me == owner) {
        rdsm_lock(L);
        *c->sh.handoff = ph_tag + 1;
        rdsm_unlock(L);
      } else if (c->me == reader) {
        double t0 = rdsm_wtime();
        for (;;) {
          rdsm_lock(L);
          int ready = *c->sh.handoff == ph_tag + 1;
          if (ready) {
            const uint8_t *got = c->sh.owned + (size_t)m * psz, *want = c->owned_oracle + (size_t)m * psz;
            for (size_t i = 0; i < psz; ++i)
              if (got[i] != want[i]) mismatch(c, "messenger page byte", (int64_t)((size_t)m * psz + i), want[i], got[i]);
          }
          rdsm_unlock(L);
          if (ready) break;
          if (rdsm_wtime() - t0 > 30.0) {
            mismatch(c, "messenger wait timeout", m, 1, 0);
            break;
          }
          sched_yield();
        }
      }
    }
    rdsm_barrier();
    for (size_t i = 0; i < (size_t)OWN_PAGES * psz; ++i)
      if (c->sh.owned[i] != c->owned_oracle[i]) mismatch(c, "owned page byte", (int64_t)i, c->owned_oracle[i], c->sh.owned[i]);
    rdsm_barrier(); /* the checks end before the next phase's writes */
  }
}

/* ---- driver ------------------------------------------------------------- */

/* Rounds come in groups of four holding each kind once, in an order drawn
 * from the seed, so every kind runs even in short runs. */
static int round_kind(const ctx *c, int64_t round) {
  int order[4] = {0, 1, 2, 3};
  uint64_t x = h(c, TAG_TYPE, (uint64_t)(round / 4), 0);
  for (int i = 3; i > 0; --i) { /* Fisher-Yates, driven by the hash */
    int j = (int)(x % (uint64_t)(i + 1));
    x /= (uint64_t)(i + 1);
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  return order[round % 4];
}

/* Collective: every node allocates the same shared structures.  Homes are
 * spread over the nodes, so every node is home to some of the data the
 * others write. */
static void alloc_shared(ctx *c, int small_counters) {
  if (small_counters)
    for (int k = 0; k < NCOUNTERS; ++k)
      c->sh.small_counter[k] = (volatile uint64_t *)rdsm_malloc_all(sizeof(uint64_t), RDSM_PLACE_DEFAULT);
  c->sh.array = (uint8_t *)rdsm_malloc_all((size_t)ARRAY_PAGES * c->psz, RDSM_PLACE_CYCLIC);
  c->sh.counter_pages = (uint8_t *)rdsm_malloc_all((size_t)COUNTER_PAGES * c->psz, RDSM_PLACE_CYCLIC);
  c->sh.mailboxes = (uint8_t *)rdsm_malloc_all((size_t)MAX_CHAINS * MAX_HOPS * 2 * c->psz, RDSM_PLACE_CYCLIC);
  c->sh.chain_log = (uint64_t *)rdsm_malloc_all(sizeof(uint64_t) * MAX_CHAINS * (MAX_HOPS + 1), RDSM_PLACE_DEFAULT);
  c->sh.reports = (node_report *)rdsm_malloc_all(sizeof(node_report) * (size_t)c->nodes, RDSM_PLACE_DEFAULT);
  /* First touch: the pages' homes are wherever their first writer is. */
  c->sh.owned = (uint8_t *)rdsm_malloc_all((size_t)OWN_PAGES * c->psz, RDSM_PLACE_FIRST_TOUCH);
  c->sh.handoff = (uint64_t *)rdsm_malloc_all(sizeof(uint64_t), RDSM_PLACE_DEFAULT);
}

/* Node `me` zeroes pages me, me + nodes, ... of a page-aligned range. */
static void zero_my_pages(const ctx *c, uint8_t *base, size_t pages) {
  for (size_t p = (size_t)c->me; p < pages; p += (size_t)c->nodes) memset(base + p * c->psz, 0, c->psz);
}

/* Collective: brings the shared structures back to the zeroed state of a
 * fresh allocation, so one allocation serves any number of seeds and the
 * shared memory in use stays the same.  Each byte is zeroed by exactly one
 * node, between two barriers: the first orders the zeroing after every
 * node's last look at the previous seed's data (its reports included), the
 * second orders it before the next seed's first access. */
static void rezero_shared(ctx *c) {
  rdsm_barrier();
  zero_my_pages(c, c->sh.array, ARRAY_PAGES);
  zero_my_pages(c, c->sh.counter_pages, COUNTER_PAGES);
  if (c->sh.small_counter[0])
    for (int k = c->me; k < NCOUNTERS; k += c->nodes) *c->sh.small_counter[k] = 0;
  zero_my_pages(c, c->sh.mailboxes, (size_t)MAX_CHAINS * MAX_HOPS * 2);
  zero_my_pages(c, c->sh.owned, OWN_PAGES);
  if (c->me == 0) memset(c->sh.chain_log, 0, sizeof(uint64_t) * MAX_CHAINS * (MAX_HOPS + 1));
  if (c->me == 0) *c->sh.handoff = 0;
  memset(&c->sh.reports[c->me], 0, sizeof(node_report));
  rdsm_barrier();
}

/* This node's private state for a new seed: the oracle of fresh, zeroed
 * shared memory. */
static void reset_private(ctx *c, uint64_t seed) {
  c->seed = seed;
  c->errors = 0;
  c->round = 0;
  memset(c->oracle, 0, (size_t)ARRAY_PAGES * c->psz);
  memset(c->owned_oracle, 0, (size_t)OWN_PAGES * c->psz);
  memset(c->counter_expected, 0, sizeof c->counter_expected);
}

/* Runs the rounds of the current seed; counts the rounds of each kind.
 * The seed ends at the first round in which any node found a mismatch: on
 * data a broken protocol has corrupted, the rounds after it can crawl for
 * minutes (chain waits that time out, counters that never settle) and say
 * nothing more.  Each node posts its count before the barrier that ends the
 * round and reads everyone's after it, so all nodes stop at the same round.
 * The counts alternate between two slots: a node writes the slot of this
 * round's parity again only after the next round's barrier, which every
 * reader of this round's posts reaches after reading them. */
static void run_rounds(ctx *c, long long rounds, int kinds[4]) {
  for (c->round = 0; c->round < rounds; ++c->round) {
    int kind = round_kind(c, c->round);
    kinds[kind]++;
    if (kind == 0) round_bytes(c);
    else if (kind == 1) round_counters(c);
    else if (kind == 2) round_chains(c);
    else round_owners(c);
    int slot = (int)(c->round & 1);
    c->sh.reports[c->me].errors_by_round[slot] = c->errors;
    rdsm_barrier(); /* this round's checks end before the next round's writes */
    uint64_t anywhere = 0;
    for (int q = 0; q < c->nodes; ++q) anywhere += c->sh.reports[q].errors_by_round[slot];
    if (anywhere) break;
  }
}

/* All nodes' mismatches for the current seed.  Every node has stored its
 * count in its report, followed by a barrier. */
static uint64_t total_errors(const ctx *c) {
  uint64_t total = 0;
  for (int q = 0; q < c->nodes; ++q) total += c->sh.reports[q].errors;
  return total;
}

/* Node 0: the FAIL line of the current seed, from every node's report. */
static void print_fail(const ctx *c) {
  uint64_t total = 0;
  int first = -1;
  for (int q = 0; q < c->nodes; ++q) {
    total += c->sh.reports[q].errors;
    /* the earliest round first: later mismatches may only be echoes */
    if (c->sh.reports[q].errors && (first < 0 || c->sh.reports[q].round < c->sh.reports[first].round)) first = q;
  }
  if (first >= 0) {
    const node_report *r = &c->sh.reports[first];
    printf("FAIL stress: seed %llu: %llu mismatches; first on node %d round %lld: %s index %lld expected %lld "
           "got %lld\n",
           (unsigned long long)c->seed, (unsigned long long)total, first, (long long)r->round, r->what,
           (long long)r->index, (long long)r->expected, (long long)r->got);
  } else {
    printf("FAIL stress: seed %llu: a node reported failure\n", (unsigned long long)c->seed);
  }
}

/* Parses FIRST:COUNT, COUNT >= 1, with FIRST + COUNT - 1 representable. */
static int parse_seed_range(const char *s, uint64_t *first, uint64_t *count) {
  const char *colon = strchr(s, ':');
  if (!colon || (size_t)(colon - s) >= 32) return -1;
  char head[32];
  memcpy(head, s, (size_t)(colon - s));
  head[colon - s] = '\0';
  long long n;
  if (app_parse_u64(head, first) || app_parse_i64(colon + 1, 1, 1000000000, &n)) return -1;
  *count = (uint64_t)n;
  if (*first > UINT64_MAX - (*count - 1)) return -1;
  return 0;
}

/* What the node's thread 0 hands every compute thread of the node, and
 * what each gives back (slot: its number within the node). */
typedef struct thread_result {
  uint64_t errors, done, total, seed;
  int kinds[4];
  double elapsed;
} thread_result;

typedef struct job {
  shared_state sh;
  uint64_t first_seed, seed_count;
  int have_seeds;
  long long rounds;
  thread_result *results; /* one per thread of the node */
} job;

/* This worker's identity and the job's shape, the rest zeroed. */
static ctx worker_ctx(void) {
  ctx c;
  memset(&c, 0, sizeof c);
  c.me = rdsm_thread_id();
  c.nodes = rdsm_threads();
  c.psz = rdsm_page_size();
  c.lock_count = rdsm_lock_count();
  return c;
}

/* Every compute thread of every node runs the seeds as one worker of
 * rdsm_threads(), with its own oracle. */
static void run_worker(void *arg) {
  job *j = (job *)arg;
  ctx c = worker_ctx();
  c.sh = j->sh;
  c.oracle = (uint8_t *)calloc((size_t)ARRAY_PAGES, c.psz); /* shared memory starts zeroed too */
  c.owned_oracle = (uint8_t *)calloc((size_t)OWN_PAGES, c.psz);
  if (!c.oracle || !c.owned_oracle) {
    fprintf(stderr, "stress: out of memory\n");
    exit(1);
  }
  /* Seed after seed on the same shared structures, re-zeroed in between;
   * the first failing seed ends the run, on every worker alike: all of them
   * read the same reports after the same barrier. */
  thread_result *r = &j->results[c.me % rdsm_node_threads()];
  memset(r, 0, sizeof *r);
  rdsm_barrier();
  double t0 = rdsm_wtime();
  for (;;) {
    reset_private(&c, j->first_seed + r->done);
    run_rounds(&c, j->rounds, r->kinds);
    c.sh.reports[c.me].errors = c.errors;
    ++r->done;
    if (!j->have_seeds) break; /* one seed: the verdict below is all the exchange needed */
    rdsm_barrier();
    r->total = total_errors(&c);
    if (r->total != 0 || r->done == j->seed_count) break;
    rezero_shared(&c);
  }
  r->elapsed = rdsm_wtime() - t0;
  r->errors = c.errors;
  r->seed = c.seed;
  rdsm_barrier(); /* every worker's report is posted before node 0's thread 0 reads them */
  free(c.oracle);
  free(c.owned_oracle);
}

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const char *prog = argc > 0 ? argv[0] : "stress";
  uint64_t seed = 0, first_seed = 0, seed_count = 0;
  int have_seed = 0, have_seeds = 0;
  long long rounds = 20;
  const char *json = NULL;
  int small_counters = 0;
  app_args args = app_args_start(argc, argv, "stress", kUsage);
  args.flags = "--small-counters";
  while (app_args_next(&args)) {
    if (app_arg_flag(&args, "--small-counters", &small_counters)) continue;
    if (app_arg_u64(&args, "--seed", "seed", &seed)) {
      have_seed = 1;
      continue;
    }
    if (!strcmp(args.opt, "--seeds")) {
      if (parse_seed_range(args.val, &first_seed, &seed_count))
        app_arg_error(&args, "--seeds: '%s' is not FIRST:COUNT (unsigned FIRST, COUNT >= 1)", args.val);
      have_seeds = 1;
      continue;
    }
    if (app_arg_int(&args, "--rounds", 0, 1000000, "round count", &rounds)) continue;
    if (app_arg_string(&args, "--json", &json)) continue;
    app_arg_unknown(&args);
  }
  if (have_seed && have_seeds) app_usage_exit(prog, kUsage, "--seed and --seeds are mutually exclusive");
  if (!have_seed && !have_seeds) app_usage_exit(prog, kUsage, "--seed or --seeds is required");
  if (have_seed) {
    first_seed = seed;
    seed_count = 1;
  }

  /* Node 0's thread 0 reads the reports and prints the verdict. */
  ctx c = worker_ctx();
  if (c.lock_count < 1) {
    if (c.me == 0) printf("FAIL stress: rdsm_lock_count() is %d\n", c.lock_count);
    rdsm_finalize();
    return 1;
  }

  app_verdict verdict = app_verdict_create();
  alloc_shared(&c, small_counters);
  job j;
  memset(&j, 0, sizeof j);
  j.sh = c.sh;
  j.first_seed = first_seed;
  j.seed_count = seed_count;
  j.have_seeds = have_seeds;
  j.rounds = rounds;
  j.results = (thread_result *)calloc((size_t)rdsm_node_threads(), sizeof(thread_result));
  if (!j.results) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  rdsm_run_threads(run_worker, &j);

  /* The node's threads together: mismatches summed, thread 0's account of
   * the seeds (every worker stopped at the same seed and round). */
  int kinds[4];
  memcpy(kinds, j.results[0].kinds, sizeof kinds);
  uint64_t done = j.results[0].done, total = j.results[0].total;
  double elapsed = j.results[0].elapsed;
  c.seed = j.results[0].seed;
  for (int t = 0; t < rdsm_node_threads(); ++t) c.errors += j.results[t].errors;

  int all_ok = app_verdict_gather(verdict, c.errors == 0);
  int pass = 0;
  if (c.me == 0) {
    char shape[64];
    if (rdsm_node_threads() > 1)
      snprintf(shape, sizeof shape, "%d nodes x %d threads", rdsm_nodes(), rdsm_node_threads());
    else
      snprintf(shape, sizeof shape, "%d nodes", rdsm_nodes());
    pass = all_ok;
    if (!have_seeds) total = total_errors(&c);
    if (!pass) {
      print_fail(&c);
      fflush(stdout);
      if (have_seeds && done > 1)
        fprintf(stderr, "stress: seeds %llu..%llu passed before it; rerun it alone with --seed %llu\n",
                (unsigned long long)first_seed, (unsigned long long)(c.seed - 1), (unsigned long long)c.seed);
    } else if (have_seeds) {
      printf("PASS stress: seeds %llu..%llu (%llu seeds, %lld rounds each), %s, %.3f s\n",
             (unsigned long long)first_seed, (unsigned long long)(first_seed + seed_count - 1),
             (unsigned long long)seed_count, rounds, shape, elapsed);
    } else {
      printf("PASS stress: seed %llu, %lld rounds (writes %d, counters %d, chains %d, owners %d), %s, %.3f s\n",
             (unsigned long long)seed, rounds, kinds[0], kinds[1], kinds[2], kinds[3], shape, elapsed);
    }
    fflush(stdout);
    FILE *f = app_json_begin(prog, json, "stress", pass);
    if (f) {
      if (have_seeds) {
        /* round counts and mismatches are summed over the seeds run */
        fprintf(f, ", \"seeds_first\": %llu, \"seeds_count\": %llu, \"seeds_run\": %llu, \"failed_seed\": ",
                (unsigned long long)first_seed, (unsigned long long)seed_count, (unsigned long long)done);
        if (pass) fprintf(f, "null");
        else fprintf(f, "%llu", (unsigned long long)c.seed);
      } else {
        fprintf(f, ", \"seed\": %llu", (unsigned long long)seed);
      }
      fprintf(f,
              ", \"rounds\": %lld, \"rounds_writes\": %d, \"rounds_counters\": %d, \"rounds_chains\": %d, "
              "\"rounds_owners\": %d, \"mismatches\": %llu, \"seconds\": %.9f",
              rounds, kinds[0], kinds[1], kinds[2], kinds[3], (unsigned long long)total, elapsed);
      app_json_end(f, NULL);
    }
  }
  int status = app_verdict_publish(verdict, pass);
  free(j.results);
  rdsm_finalize();
  return status;
}
