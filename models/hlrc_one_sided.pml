/*
 * Model of rdsm's one-sided HLRC protocol: the presets genima and rdsm
 * (fetch=one-sided, claim=cas, diff=one-sided, notices=eager, lock and
 * barrier atomic, home=migrate; with -DWHOLE whole=exclusive, with
 * -DREFRESH the refresh of re-read pages).  models/README.md says what is
 * modelled, how it maps to the code, what is abstracted away, and how to
 * run it (models/check.sh runs the configurations the tests use).
 *
 * NN nodes share PP = 2 pages of NN words each.  Word w of a page is
 * written by node w only (false sharing: a page has several writers, no two
 * of them write the same word), and each write stores the writer's next
 * write count, so values only grow.  Every node runs a program of
 * nondeterministic operations -- write a page, read it, release, acquire --
 * then a barrier that may move homes, then more operations, then the job's
 * last barrier (which moves nothing), then it reads both pages.
 *
 * Property (assertion in do_read): a read returns, in every word, a value
 * at least as new as the last write of that word released before the
 * reader's latest acquire (a ghost copy of each writer's words taken at its
 * release), and at least the reader's own last write.  A fetch that waits
 * for versions that never come shows as an invalid end state; the code's
 * own internal checks (its fatal() calls) are assertions.
 *
 * Switches (spin -DNAME[=value] -a hlrc_one_sided.pml):
 *   NN=2|3            nodes (default 3)
 *   B1, B2            operations per node before / after the migrating
 *                     barrier (default 1); B1_n, B2_n for node n alone
 *   OPS1_n, OPS2_n    the operations node n may choose from, a sum of W0,
 *                     W1, R0, R1, REL, ACQ (default ALL)
 *   PLACE0=h, PLACE1=h  the page's home is placed on node h up front
 *                     (Hlrc::place) instead of claimed by the first touch
 *   NO_FINAL_BARRIER  the nodes end after their second operations
 *   NO_FINAL_READS    ... after the last barrier, without reading
 *   REFRESH           an acquire may refresh a copy instead of dropping it
 *                     (copy_refresh.cpp; which pages is left free)
 *   WHOLE             whole-page writes (whole_page_writes.cpp)
 *   BROKEN_MOVE_ORDER move_home stores the version words in node order,
 *                     not the new home's own word last (what the code did
 *                     before: a reader could then retry for ever; see
 *                     models/README.md)
 *   PROBE_AT=n        fails where probe point n is reached (coverage)
 * Deliberately broken orderings:
 *   BROKEN_ORDER        move_home: the new home stores its version words
 *                       before it reads the old home's copy -- caught: a
 *                       reader racing with the move reads a stale copy
 *   BROKEN_FETCH_ORDER  fetch_pages: the page is read before the versions
 *                       -- caught
 *   BROKEN_WHOLE        write_whole: the claim ignores the copy's
 *                       generation -- caught: a whole-page write puts back
 *                       a word older than the home's
 *   BROKEN_FIRST_COPY   fetch_pages: the first copy of a page is added to
 *                       the home's first-copy count after the page is read
 *                       -- caught: the home skips its untracked pages at a
 *                       release, keeps writing one untracked, and the copy
 *                       never learns of those writes
 *   BROKEN_DIFF_ORDER   propagate_diffs_one_sided: the version words are
 *                       written before the diff runs -- not caught, and
 *                       rightly: no reader learns of an interval before its
 *                       writer's flush_all, so nobody reads those versions
 *                       early (models/README.md)
 */

#ifndef NN
#define NN 3
#endif
#define PP 2

/* Programs: node n runs B1_n operations out of the set OPS1_n, the
 * migrating barrier, B2_n operations out of OPS2_n, the last barrier. */
#define W0  1                  /* write page 0 */
#define W1  2                  /* write page 1 */
#define R0  4                  /* read page 0 */
#define R1  8                  /* read page 1 */
#define REL 16                 /* rdsm_release (or an unlock) */
#define ACQ 32                 /* rdsm_acquire (or a lock) */
#define ALL 63
#ifndef B1
#define B1 1
#endif
#ifndef B2
#define B2 1
#endif
#ifndef B1_0
#define B1_0 B1
#endif
#ifndef B1_1
#define B1_1 B1
#endif
#ifndef B1_2
#define B1_2 B1
#endif
#ifndef B2_0
#define B2_0 B2
#endif
#ifndef B2_1
#define B2_1 B2
#endif
#ifndef B2_2
#define B2_2 B2
#endif
#ifndef OPS1_0
#define OPS1_0 ALL
#endif
#ifndef OPS1_1
#define OPS1_1 ALL
#endif
#ifndef OPS1_2
#define OPS1_2 ALL
#endif
#ifndef OPS2_0
#define OPS2_0 ALL
#endif
#ifndef OPS2_1
#define OPS2_1 ALL
#endif
#ifndef OPS2_2
#define OPS2_2 ALL
#endif
#ifndef KMAX
#define KMAX 6                 /* intervals a node may close */
#endif

#define INVALID  0             /* Hlrc::PageState */
#define READONLY 1
#define WRITABLE 2
#define NOHOME   255           /* home_[p] < 0 */
#define NOWRITER 255           /* kNoWriter */
#define MANY     254           /* kManyWriters */
#define MOVE_BUDGET 8          /* kMoveBudget */
#define NOGEN    255           /* page_word::kNoGen */

/* ---- what the nodes share (fabric segments) ----------------------------- */
byte mem[NN * PP * NN];        /* data_seg_: node n's copy of page p, word w */
byte ver[NN * PP * NN];        /* version_seg_: node n's versions of page p, writer w */
byte dir[PP];                  /* dir_seg_ word of page p (at node p % NN): home + 1 */
/* copies_seg_: the home's word of page p at node n (page_word.hpp), one
 * array per field; one remote atomic changes the word in one step */
byte cop[NN * PP];             /* copies */
byte fcs[NN];                  /* the word after the pages': first copies counted at node n */
#ifdef WHOLE
byte wrs[NN * PP];             /* writers */
bit  whl[NN * PP];             /* whole */
bit  hmf[NN * PP];             /* home */
byte gen[NN * PP];             /* gen */
#endif
/* notice rings (notice_propagation.cpp), as one log: interval k of writer
 * w names page p (bit p) or names it as maybe written (bit PP + p) */
byte nlog[NN * (KMAX + 1)];
byte pub[NN];                  /* intervals of writer w pushed so far */
/* atomic barrier: arrivals and the clocks in their slots */
byte arrived[2];
byte bvc[2 * NN];
/* ghost: the value of word w of page p at writer w's latest release */
byte rel[PP * NN];
/* ghost: the directory word of page p has been moved by a migration */
bit moved[PP];

#define MEM(n, p, w) mem[((n) * PP + (p)) * NN + (w)]
#define VER(n, p, w) ver[((n) * PP + (p)) * NN + (w)]
#define COP(n, p)    cop[(n) * PP + (p)]
#define WORD(n, p)   ((n) * PP + (p))
#define NLOG(w, k)   nlog[(w) * (KMAX + 1) + (k)]
#define RELV(p, w)   rel[(p) * NN + (w)]
#define BVC(b, w)    bvc[(b) * NN + (w)]

/* f_.get of a page / of a page's version words (one operation each) */
#define GET_PAGE(dst, src, p) for (i : 0 .. NN - 1) { MEM(dst, p, i) = MEM(src, p, i) }; i = 0
#define GET_VERSIONS(n, p)    for (i : 0 .. NN - 1) { have[i] = VER(n, p, i) }; i = 0
/* versions_cover(have, required(p)) */
#define COVERED(p) ok = 1; \
  for (i : 0 .. NN - 1) { if :: have[i] < req[(p) * NN + i] -> ok = 0 :: else -> skip fi }; i = 0
#define CLEAR_HAVE for (i : 0 .. NN - 1) { have[i] = 0 }; i = 0
/* The diff runs of page p: the words that differ from the twin. */
#define PUT_RUNS(n, p) \
  for (i : 0 .. NN - 1) { if :: MEM(me, p, i) != twin[(p) * NN + i] -> MEM(n, p, i) = MEM(me, p, i) :: else -> skip fi }; i = 0
/* Coverage: with -DPROBE_AT=n the check fails where probe point n is
 * reached, which shows that a configuration reaches it (models/README.md). */
#ifdef PROBE_AT
#define PROBE(n) assert((n) != PROBE_AT)
#else
#define PROBE(n) skip
#endif

/* Trace output (printed when a counterexample is replayed, spin -t). */
#if NN == 2
#define FMT "[%d %d]"
#define VEC(a, base) a[base], a[(base) + 1]
#else
#define FMT "[%d %d %d]"
#define VEC(a, base) a[base], a[(base) + 1], a[(base) + 2]
#endif
#define PV(a, base) printf(FMT, VEC(a, base))
#define PGV(a, n, p) PV(a, ((n) * PP + (p)) * NN)

#if NN == 2
#define VERSIONS_CHANGED(n, p) (VER(n, p, 0) != have[0] || VER(n, p, 1) != have[1])
#else
#define VERSIONS_CHANGED(n, p) (VER(n, p, 0) != have[0] || VER(n, p, 1) != have[1] || VER(n, p, 2) != have[2])
#endif

/* ======================================================================= */
/* whole axis (whole_page_writes.cpp); nothing without WHOLE                */

#ifdef WHOLE
#define RUNS(p) !(wdone & (1 << (p)))   /* not written whole */
#define QUIET(n, p) (wrs[WORD(n, p)] == 0 && !whl[WORD(n, p)] && !hmf[WORD(n, p)])
/* Hlrc::home_starts_writing for the pages in mask hs: fetch_or kHome, then
 * wait while a whole-page write is in progress. */
inline home_starts(hs) {
  for (q2 : 0 .. PP - 1) {
    if
    :: (hs & (1 << q2)) && !hwriting[q2] ->
       d_step { hwriting[q2] = 1; hmf[WORD(me, q2)] = 1 };
       (!whl[WORD(me, q2)])
    :: else -> skip
    fi
  };
  q2 = 0; hs = 0
}
/* Hlrc::home_stops_writing for the pages in mask m: fetch_add(kGen - kHome)
 * for those no longer writable here. */
inline home_stops(m) {
  for (q2 : 0 .. PP - 1) {
    if
    :: (m & (1 << q2)) && hwriting[q2] && !(home[q2] == me && st[q2] == WRITABLE) ->
       d_step { hwriting[q2] = 0; hmf[WORD(me, q2)] = 0; gen[WORD(me, q2)]++ }
    :: else -> skip
    fi
  };
  q2 = 0
}
#define HOME_WORD_QUIET(n, p) && wrs[WORD(n, p)] == 0 && !hmf[WORD(n, p)]
#else
#define HOME_WORD_QUIET(n, p)
#define RUNS(p) 1
inline home_starts(hs) { hs = 0 }
inline home_stops(m) { skip }
#endif

/* ======================================================================= */
/* faults (hlrc.cpp, home_directory.cpp, page_fetch.cpp)                    */

/* Hlrc::home_of / claim_home: remote CAS on the directory word, 0 -> self+1;
 * a failed CAS returns the home. */
inline home_of(pg) {
  if
  :: home[pg] == NOHOME ->
     d_step {
       assert(!moved[pg]);   /* a moved page is never claimed or looked up */
       if
       :: dir[pg] == 0 -> dir[pg] = me + 1
       :: else -> PROBE(10)   /* another node claimed it first */
       fi;
       home[pg] = dir[pg] - 1;
       printf("node %d: page %d: directory CAS 0 -> %d: home is node %d\n", me, pg, me + 1, home[pg])
     }
  :: else -> skip
  fi;
  h = home[pg]
}

/* Hlrc::fetch_pages, one-sided, a demanded page, no prefetch: count the
 * copy at the home, read the home's version words until they cover what
 * this node's notices require, then (acquire fence) read the page. */
inline fetch(pg, hm) {
  if
  :: !copied[pg] ->
     d_step {   /* fetch_add on the home's word: counted before the page is read */
#ifdef WHOLE
       if   /* note_copy_base */
       :: QUIET(hm, pg) -> cgen[pg] = gen[WORD(hm, pg)]
       :: else -> cgen[pg] = NOGEN
       fi;
#endif
       first = (COP(hm, pg) == 0);
       COP(hm, pg)++; copied[pg] = 1;
       printf("node %d: page %d: counted at home %d (copies %d)\n", me, pg, hm, COP(hm, pg))
     };
#ifndef BROKEN_FIRST_COPY
     if   /* count_first_copy: after the page's word, before the page is read */
     :: first -> d_step { fcs[hm]++; first = 0 }
     :: else -> skip
     fi
#endif
  :: else ->
#ifdef WHOLE
     cgen[pg] = NOGEN
#else
     skip
#endif
  fi;
#ifdef BROKEN_FETCH_ORDER
  d_step { GET_PAGE(me, hm, pg) };
#endif
  d_step {
    GET_VERSIONS(hm, pg); COVERED(pg);
    printf("node %d: page %d: versions at node %d ", me, pg, hm); PV(have, 0); printf(", required "); PV(req, pg * NN); printf("\n")
  };
  do
  :: ok -> break
  :: else ->   /* retried; re-reading unchanged words changes nothing */
     d_step {
       VERSIONS_CHANGED(hm, pg); GET_VERSIONS(hm, pg); COVERED(pg); PROBE(1);
       printf("node %d: page %d: versions at node %d ", me, pg, hm); PV(have, 0); printf(", required "); PV(req, pg * NN); printf("\n")
     }
  od;
  ok = 0;
#ifndef BROKEN_FETCH_ORDER
  d_step {
    GET_PAGE(me, hm, pg); CLEAR_HAVE;
    printf("node %d: page %d: read from node %d: ", me, pg, hm); PGV(mem, me, pg); printf("\n")
  };
#ifdef BROKEN_FIRST_COPY
  if
  :: first -> d_step { fcs[hm]++; first = 0 }
  :: else -> skip
  fi
#endif
#else
  d_step { CLEAR_HAVE }
#endif
}

/* Hlrc::resolve_fault (no prefetch), with make_writable */
inline resolve_fault(pg, wr) {
  home_of(pg);
  if
  :: h != me && st[pg] == INVALID -> fetch(pg, h)
  :: else -> skip
  fi;
  if
  :: h == me ->
     d_step {   /* copied_at_home(page) (and of the home pages after it) */
       if
       :: COP(me, pg) == 0 ->
          /* nobody has a copy: written untracked, with the home pages
             after it that nobody copied either */
          st[pg] = WRITABLE; untracked[pg] = 1; hs = 1 << pg;
          if
          :: pg == 0 && home[1] == me && st[1] != WRITABLE && COP(me, 1) == 0 ->
             st[1] = WRITABLE; untracked[1] = 1; hs = 3
          :: else -> skip
          fi
       :: else ->
          if
          :: wr -> st[pg] = WRITABLE; written[pg] = 1; hs = 1 << pg   /* make_writable: no twin at the home */
          :: else ->
             st[pg] = READONLY;
             if
             :: pg == 0 && home[1] == me && st[1] == INVALID -> st[1] = READONLY
             :: else -> skip
             fi
          fi
       fi
     };
     home_starts(hs)
  :: else ->
     d_step {
       if
       :: wr ->   /* make_writable: twin */
          for (i : 0 .. NN - 1) { twin[pg * NN + i] = MEM(me, pg, i) }; i = 0;
          hastwin[pg] = 1; st[pg] = WRITABLE; written[pg] = 1
       :: else -> st[pg] = READONLY
       fi
     }
  fi
}

/* The application writes its word of page pg. */
inline do_write(pg) {
  if
  :: st[pg] != WRITABLE -> resolve_fault(pg, 1)
  :: else -> skip
  fi;
  d_step {
    h = 0; wseq++; MEM(me, pg, me) = wseq; lastw[pg] = wseq; must[pg * NN + me] = wseq;
    printf("node %d: writes page %d: word %d = %d\n", me, pg, me, wseq)
  }
}

/* The application reads page pg: the property. */
inline do_read(pg) {
  if
  :: st[pg] == INVALID -> resolve_fault(pg, 0)
  :: else -> skip
  fi;
  d_step {
    h = 0;
    printf("node %d: reads page %d: ", me, pg); PGV(mem, me, pg); printf(", at least "); PV(must, pg * NN); printf("\n");
    for (i : 0 .. NN - 1) { assert(MEM(me, pg, i) >= must[pg * NN + i]) };
    i = 0
  }
}

/* ======================================================================= */
/* diff axis, one-sided (diff_propagation.cpp, whole_page_writes.cpp)      */

#ifdef WHOLE
/* Hlrc::write_whole: claim the word by CAS, from quiet at the copy's
 * generation to whole + one writer; write the page; release the word
 * adding a generation.  (The code's retries differ only in the copy count.) */
inline write_whole(hm, pg) {
  d_step {
    if
#ifndef BROKEN_WHOLE
    :: QUIET(hm, pg) && gen[WORD(hm, pg)] == cgen[pg] ->
#else
    :: QUIET(hm, pg) ->   /* broken: the copy's generation is not compared */
#endif
       whl[WORD(hm, pg)] = 1; wrs[WORD(hm, pg)]++; wdone = wdone | (1 << pg)
    :: else -> cgen[pg] = NOGEN; PROBE(3)
    fi
  };
  if
  :: wdone & (1 << pg) ->
     d_step {   /* put of the whole page */
       GET_PAGE(hm, me, pg);
       printf("node %d: page %d: claimed at node %d, written whole: ", me, pg, hm); PGV(mem, hm, pg); printf("\n");
       PROBE(2)
     };
     d_step {
       whl[WORD(hm, pg)] = 0; wrs[WORD(hm, pg)]--; gen[WORD(hm, pg)]++;
       cgen[pg] = gen[WORD(hm, pg)]
     }
  :: else -> skip
  fi
}
#endif

/* Hlrc::propagate_diffs_one_sided(pages in dset, interval iv): per home in
 * ascending order, the runs of its pages go into the home's copy (one
 * putv), then -- after flush(home) -- their version words (one putv). */
inline propagate(dset, iv) {
  for (dh : 0 .. NN - 1) {
    if
    :: ((dset & 1) && home[0] == dh) || ((dset & 2) && home[1] == dh) ->
#ifdef WHOLE
       for (dq : 0 .. PP - 1) {
         if
         :: (dset & (1 << dq)) && home[dq] == dh ->
            if   /* a page of many runs tries to go whole; this one may or not */
            :: cgen[dq] != NOGEN -> write_whole(dh, dq)
            :: true -> skip
            fi;
            if
            :: !(wdone & (1 << dq)) ->
               d_step {   /* register_runs: fetch_add kWriter */
                 heldw = heldw | (1 << dq);
                 if
                 :: QUIET(dh, dq) -> heldgen[dq] = gen[WORD(dh, dq)]
                 :: else -> heldgen[dq] = NOGEN
                 fi;
                 if
                 :: whl[WORD(dh, dq)] -> repeat = repeat | (1 << dq); PROBE(4)
                 :: else -> skip
                 fi;
                 wrs[WORD(dh, dq)]++;
                 printf("node %d: page %d: registered as a runs writer at node %d (whole %d)\n", me, dq, dh, whl[WORD(dh, dq)])
               }
            :: else -> skip
            fi
         :: else -> skip
         fi
       };
       dq = 0;
#endif
#ifdef BROKEN_DIFF_ORDER
       d_step {
         for (dq : 0 .. PP - 1) {
           if
           :: (dset & (1 << dq)) && home[dq] == dh ->
              VER(dh, dq, me) = iv;
              printf("node %d: page %d: version %d written at node %d\n", me, dq, iv, dh)
           :: else -> skip
           fi
         };
         dq = 0
       };
#endif
       d_step {   /* putv of the runs */
         for (dq : 0 .. PP - 1) {
           if
           :: (dset & (1 << dq)) && home[dq] == dh && RUNS(dq) ->
              PUT_RUNS(dh, dq);
              printf("node %d: page %d: diff runs written at node %d: ", me, dq, dh); PGV(mem, dh, dq); printf("\n")
           :: else -> skip
           fi
         };
         dq = 0
       };
       /* flush(home): the runs are visible before the versions */
#ifdef WHOLE
       /* rewrite_covered_runs: once `whole` is clear, the runs again */
       for (dq : 0 .. PP - 1) {
         if
         :: repeat & (1 << dq) -> (!whl[WORD(dh, dq)])
         :: else -> skip
         fi
       };
       dq = 0;
       if
       :: repeat ->
          d_step {
            for (dq : 0 .. PP - 1) {
              if
              :: repeat & (1 << dq) -> PUT_RUNS(dh, dq)
              :: else -> skip
              fi
            };
            dq = 0; repeat = 0
          }
       :: else -> skip
       fi;
#endif
#ifndef BROKEN_DIFF_ORDER
       d_step {   /* putv of the version words */
         for (dq : 0 .. PP - 1) {
           if
           :: (dset & (1 << dq)) && home[dq] == dh ->
              VER(dh, dq, me) = iv;
              printf("node %d: page %d: version %d written at node %d\n", me, dq, iv, dh)
           :: else -> skip
           fi
         };
         dq = 0
       };
#endif
#ifdef WHOLE
       /* end_runs_writes: fetch_add(kGen - kWriter); the copy is the home's
          copy again only if nobody else changed that meanwhile */
       for (dq : 0 .. PP - 1) {
         if
         :: heldw & (1 << dq) ->
            d_step {
              if
              :: heldgen[dq] != NOGEN && heldgen[dq] == cgen[dq] && wrs[WORD(dh, dq)] == 1 &&
                 !whl[WORD(dh, dq)] && !hmf[WORD(dh, dq)] && gen[WORD(dh, dq)] == heldgen[dq] ->
                 cgen[dq] = gen[WORD(dh, dq)] + 1; PROBE(5)
              :: else -> cgen[dq] = NOGEN
              fi;
              wrs[WORD(dh, dq)]--; gen[WORD(dh, dq)]++;
              heldgen[dq] = 0
            }
         :: else -> skip
         fi
       };
       dq = 0; heldw = 0; wdone = 0;
#endif
       skip
    :: else -> skip
    fi
  };
  dh = 0;
  d_step {   /* free_twin */
    for (dq : 0 .. PP - 1) {
      if
      :: dset & (1 << dq) -> hastwin[dq] = 0; for (i : 0 .. NN - 1) { twin[dq * NN + i] = 0 }
      :: else -> skip
      fi
    };
    i = 0; dq = 0; dh = 0
  }
}

/* ======================================================================= */
/* intervals and notices (close_interval, notice_propagation.cpp)           */

/* publish_interval + notices_.add_own; the ghost records what this node
 * has written up to its release. */
inline publish() {
  d_step {
    assert(id <= KMAX);
    NLOG(me, id) = ents; pub[me] = id; vc[me] = id;
    printf("node %d: publishes interval %d: pages written (mask) %d, maybe written %d\n", me, id, ents & 3, ents >> PP);
    for (q : 0 .. PP - 1) { RELV(q, me) = lastw[q] };
    q = 0; ents = 0
  }
}

/* Hlrc::close_interval (rewrites=fault: nothing is kept) */
inline close_interval() {
  if
  :: (untracked[0] || untracked[1]) && fcs[me] == fseen -> skip   /* no first copy since: nothing to scan */
  :: (untracked[0] || untracked[1]) && fcs[me] != fseen ->
     d_step {   /* the seq_cst fence, the first-copy count, then the copy words of untracked home pages */
       fseen = fcs[me];
       for (q : 0 .. PP - 1) {
         if
         :: untracked[q] && COP(me, q) > 0 ->   /* tracked from now on, named as maybe written */
            untracked[q] = 0;
            if
            :: !written[q] -> maybe[q] = 1; written[q] = 1; PROBE(7)
            :: else -> skip
            fi
         :: else -> skip
         fi
       };
       q = 0
     }
  :: else -> skip
  fi;
  if
  :: written[0] || written[1] ->
     d_step {
       id = vc[me] + 1;
       for (q : 0 .. PP - 1) {
         if
         :: written[q] && st[q] == WRITABLE -> st[q] = READONLY   /* protect first */
         :: else -> skip
         fi;
         if
         :: written[q] -> ents = ents | (1 << q)
         :: else -> skip
         fi
       };
       q = 0
     };
     home_stops(ents);
     d_step {
       for (q : 0 .. PP - 1) {
         if
         :: written[q] ->
            written[q] = 0;
            if
            :: home[q] == me ->   /* the home's own writes */
               VER(me, q, me) = id;
               printf("node %d: page %d: own version %d (home)\n", me, q, id)
            :: else ->
               if
               :: hastwin[q] -> dirty = dirty | (1 << q)
               :: else -> skip
               fi
            fi;
            if
            :: maybe[q] -> maybe[q] = 0; ents = (ents & ~(1 << q)) | (1 << (PP + q))
            :: else -> skip
            fi
         :: else -> skip
         fi
       };
       q = 0
     };
     propagate(dirty, id);
     publish();
     d_step { dirty = 0; id = 0 }
  :: else ->
     /* nothing to notice (at most untracked home writes): released all the same */
     d_step { for (q : 0 .. PP - 1) { RELV(q, me) = lastw[q] }; q = 0 }
  fi
}

#ifdef REFRESH
/* refresh_copies, one page: read it anew if its home's versions already
 * cover what is required (fetch_pages, demand = false), else drop it. */
inline refresh_copy(pg) {
  d_step {
    h = home[pg];
    if
    :: !copied[pg] -> COP(h, pg)++; copied[pg] = 1
    :: else -> skip
    fi;
#ifdef WHOLE
    cgen[pg] = NOGEN
#endif
  };
  d_step { GET_VERSIONS(h, pg); COVERED(pg); CLEAR_HAVE };
  if
  :: ok -> d_step { GET_PAGE(me, h, pg); ok = 0; h = 0; PROBE(9) }
  :: else -> d_step { COP(h, pg)--; copied[pg] = 0; st[pg] = INVALID; h = 0 }
  fi
}
#endif

/* apply_pushed_notices: drain_notices (each writer's ring as far as it is
 * pushed), then apply_notices: the copies named are dropped and counted out
 * at their homes, the open interval's writes to them go home at once. */
inline acquire() {
  for (w : 0 .. NN - 1) {
    if
    :: w != me ->
       d_step {
         k = vc[w];
         do
         :: k < pub[w] ->
            k++;
            for (q : 0 .. PP - 1) {
              if
              :: NLOG(w, k) & ((1 << q) | (1 << (PP + q))) ->
                 if
                 :: req[q * NN + w] < k -> req[q * NN + w] = k
                 :: else -> skip
                 fi;
                 fresh = fresh | (1 << q)
              :: else -> skip
              fi
            }
         :: else -> break
         od;
         if
         :: vc[w] < k -> printf("node %d: learns intervals %d..%d of node %d\n", me, vc[w] + 1, k, w)
         :: else -> skip
         fi;
         vc[w] = k; k = 0;
         for (q : 0 .. PP - 1) { must[q * NN + w] = RELV(q, w) };
         q = 0
       }
    :: else -> skip
    fi
  };
  w = 0;
#ifdef REFRESH
  for (q : 0 .. PP - 1) {   /* refresh_instead: the history is left free */
    if
    :: (fresh & (1 << q)) && home[q] != me && st[q] == READONLY && !hastwin[q] ->
       if
       :: refr = refr | (1 << q)
       :: skip
       fi
    :: else -> skip
    fi
  };
  q = 0;
#endif
  d_step {
    for (q : 0 .. PP - 1) {
      if
      :: (fresh & (1 << q)) && home[q] != me && st[q] != INVALID && !(refr & (1 << q)) ->
         if
         :: hastwin[q] -> ownw = ownw | (1 << q)
         :: else -> skip
         fi;
         if
         :: copied[q] -> uncount = uncount | (1 << q); copied[q] = 0
         :: else -> skip
         fi;
         st[q] = INVALID
      :: else -> skip
      fi
    };
    q = 0; fresh = 0
  };
  if
  :: uncount ->
     d_step {   /* uncount_copy: fetch_add -1 on the home's word */
       for (q : 0 .. PP - 1) {
         if
         :: uncount & (1 << q) -> COP(home[q], q)--
         :: else -> skip
         fi
       };
       q = 0; uncount = 0
     }
  :: else -> skip
  fi;
  if
  :: ownw != 0 ->
     /* the open interval's writes to dropped pages go home now, tagged with
        the open interval, which still names them */
     id = vc[me] + 1;
     PROBE(8);
     propagate(ownw, id);
     d_step { ownw = 0; id = 0 }
  :: else -> skip
  fi;
#ifdef REFRESH
  for (q : 0 .. PP - 1) {
    if
    :: refr & (1 << q) -> refresh_copy(q)
    :: else -> skip
    fi
  };
  q = 0; refr = 0
#endif
}

/* ======================================================================= */
/* home axis (home_migration.cpp)                                           */

/* version(pg, x).store(target[x]): one store each, x = 0, 1, ... */
inline store_version(pg, x) {
  d_step {
    VER(me, pg, x) = target[x];
    printf("node %d: page %d: new home stores version[%d] = %d\n", me, pg, x, target[x])
  }
}
inline store_versions(pg) {
#ifndef BROKEN_MOVE_ORDER
  for (i : 0 .. NN - 1) {
    if
    :: i != me -> store_version(pg, i)
    :: else -> skip
    fi
  };
  i = 0;
  store_version(pg, me)
#else
  for (i : 0 .. NN - 1) { store_version(pg, i) };
  i = 0
#endif
}

/* Hlrc::move_home(pg, to) */
inline move_home(pg, to) {
  ho = home[pg];
  if
  :: ho != to ->
     if
     :: ho == NOHOME -> printf("node %d: page %d: learns that its home is node %d (the page moves there)\n", me, pg, to)
     :: else -> printf("node %d: page %d: home moves from node %d to node %d\n", me, pg, ho, to)
     fi;
     PROBE(6);
     d_step {
       if   /* uncount_copy: at the old home, where it was counted */
       :: copied[pg] -> COP(ho, pg)--; copied[pg] = 0
       :: else -> skip
       fi;
       home[pg] = to
     };
     if
     :: to == me ->
        assert(ho != NOHOME && !hastwin[pg]);
#ifdef BROKEN_ORDER
        store_versions(pg);
#endif
        /* the old home's copy holds every write up to the barrier */
        d_step {
          GET_PAGE(me, ho, pg);
          printf("node %d: page %d: new home reads the old home's (%d) copy: ", me, pg, ho); PGV(mem, me, pg); printf("\n")
        };
#ifdef WHOLE
        d_step { gen[WORD(me, pg)]++ };   /* a copy counted here before has no base */
#endif
#ifndef BROKEN_ORDER
        store_versions(pg);
#endif
        d_step {   /* the directory word, by CAS from the old home */
          assert(dir[pg] == ho + 1); dir[pg] = me + 1; moved[pg] = 1;
          printf("node %d: page %d: directory CAS %d -> %d\n", me, pg, ho + 1, me + 1)
        };
        d_step {
          if
          :: COP(me, pg) == 0 ->   /* nobody counted a copy here yet: untracked */
             st[pg] = WRITABLE; untracked[pg] = 1; hs = 1 << pg
          :: else -> st[pg] = READONLY
          fi
        };
        home_starts(hs)
     :: else ->
        d_step {
          if
          :: ho == me -> untracked[pg] = 0
          :: else -> skip
          fi;
          written[pg] = 0;
          st[pg] = INVALID
        };
        if
        :: ho == me -> home_stops(1 << pg)
        :: else -> skip
        fi
     fi
  :: else -> skip
  fi;
  ho = 0
}

/* Hlrc::migrate_homes(lastbar, target): the single writer of each page in
 * the epoch, from the notices every node knows alike. */
inline epoch_writers() {
    for (w : 0 .. NN - 1) {
      k = lastbar[w];
      do
      :: k < target[w] ->
         k++;
         for (q : 0 .. PP - 1) {
           if
           :: NLOG(w, k) & (1 << q) ->   /* maybe-written entries do not count */
              if
              :: ew[q] == NOWRITER -> ew[q] = w
              :: ew[q] != w -> ew[q] = MANY
              :: else -> skip
              fi
           :: else -> skip
           fi
         }
      :: else -> break
      od
    };
    w = 0; k = 0; q = 0
}

inline migrate_homes() {
  for (q : 0 .. PP - 1) {
    if
    :: ew[q] != NOWRITER ->
       d_step {
         mw = ew[q]; lw = lastwriter[q];
         ew[q] = NOWRITER; lastwriter[q] = mw;
         ok = 1;
         if
         :: mw == MANY || (lw != NOWRITER && lw != mw) -> ok = 0
         :: else -> skip
         fi;
         if
         :: ok && moves[q] != 0 && home[q] == mw -> ok = 0
         :: else -> skip
         fi;
         if
         :: ok && moves[q] >= MOVE_BUDGET -> ok = 0
         :: else -> skip
         fi;
         if
         :: ok -> moves[q]++
         :: else -> skip
         fi;
         lw = 0
       };
       if
       :: ok -> ok = 0; move_home(q, mw)
       :: else -> skip
       fi;
       mw = 0
    :: else -> skip
    fi
  };
  q = 0
}

/* ======================================================================= */
/* Hlrc::barrier_impl with the atomic barrier                               */

inline barrier(b, migrate) {
  close_interval();
  d_step { BVC(b, me) = vc[me]; arrived[b]++; printf("node %d: arrives at barrier %d\n", me, b) };
  d_step {
    arrived[b] == NN;
    printf("node %d: leaves barrier %d\n", me, b);
    for (w : 0 .. NN - 1) { target[w] = BVC(b, w) }; w = 0;
    if   /* migrate_homes, first half: who wrote what in the epoch (those
            notices are all pushed, and never change) */
    :: migrate -> epoch_writers()
    :: else -> skip
    fi;
    if   /* after the moves of the barrier before: copies are counted (and,
            with whole-page writes, changes announced) at the home alone */
    :: !migrate ->
       for (w : 0 .. NN - 1) {
         for (q : 0 .. PP - 1) {
           assert(dir[q] == w + 1 || (COP(w, q) == 0 HOME_WORD_QUIET(w, q)))
         }
       };
       w = 0; q = 0
    :: else -> skip
    fi
  };
  acquire();   /* catch_up(target): the pushed notices, up to target at least */
  d_step { for (w : 0 .. NN - 1) { assert(w == me || vc[w] >= target[w]) }; w = 0 };
  if
  :: migrate -> migrate_homes()
  :: else -> skip
  fi;
  d_step { for (w : 0 .. NN - 1) { lastbar[w] = target[w]; target[w] = 0 }; w = 0 }
}

/* ======================================================================= */

inline operations(n, ops) {
  budget = n;
  do
  :: budget > 0 && (ops & W0) -> budget--; do_write(0)
  :: budget > 0 && (ops & W1) -> budget--; do_write(1)
  :: budget > 0 && (ops & R0) -> budget--; do_read(0)
  :: budget > 0 && (ops & R1) -> budget--; do_read(1)
  :: budget > 0 && (ops & REL) -> budget--; close_interval()
  :: budget > 0 && (ops & ACQ) -> budget--; acquire()
  :: budget == 0 -> break
  od;
  budget = 0
}

proctype Node(byte me; byte b1; byte ops1; byte b2; byte ops2) {
  /* page table */
  byte st[PP];          /* state_ */
  byte home[PP];        /* home_ */
  bit hastwin[PP];      /* has_twin_ */
  byte twin[PP * NN];
  bit written[PP];      /* written_ */
  bit maybe[PP];        /* maybe_written_ */
  bit untracked[PP];    /* untracked_ */
  byte fseen;           /* first_copies_seen_ */
  bit first;            /* scratch of fetch: this copy was the page's first */
  bit copied[PP];       /* copied_ */
  byte req[PP * NN];    /* required_ */
  byte vc[NN];          /* notices_.vc() */
  /* home migration */
  byte lastwriter[PP];  /* last_writer_ */
  byte ew[PP];          /* epoch_writer_ */
  byte moves[PP];       /* moves_ */
  byte lastbar[NN];     /* last_barrier_vc_ */
  byte target[NN];
#ifdef WHOLE
  byte cgen[PP];        /* copy_gen_ */
  bit hwriting[PP];     /* home_writing_ */
  byte heldgen[PP];     /* held_: the generation registering answered, if quiet */
  byte heldw, repeat, wdone, q2;
#endif
  /* ghost */
  byte must[PP * NN];   /* what a read must see */
  byte lastw[PP];       /* this node's last write of each page */
  byte wseq;
  /* scratch */
  byte have[NN];
  byte i, k, q, w, h, ok, id, ho, mw, lw, dh, dq, hs;
  byte dirty, ents, fresh, ownw, refr, uncount, budget;

  d_step {
    for (q : 0 .. PP - 1) {
      home[q] = NOHOME; lastwriter[q] = NOWRITER; ew[q] = NOWRITER;
#ifdef WHOLE
      cgen[q] = NOGEN;
#endif
    };
    q = 0
  };
  operations(b1, ops1);
  barrier(0, 1);
  operations(b2, ops2);
#ifndef NO_FINAL_BARRIER
  barrier(1, 0);       /* finish(): the job's last barrier moves nothing */
#ifndef NO_FINAL_READS
  do_read(0);
  do_read(1);
#endif
#endif
}

init {
  byte n;
  atomic {
#ifdef PLACE0
    dir[0] = PLACE0 + 1;   /* Hlrc::place: page 0's home chosen up front */
#endif
#ifdef PLACE1
    dir[1] = PLACE1 + 1;
#endif
    run Node(0, B1_0, OPS1_0, B2_0, OPS2_0);
    run Node(1, B1_1, OPS1_1, B2_1, OPS2_1);
#if NN == 3
    run Node(2, B1_2, OPS1_2, B2_2, OPS2_2);
#endif
  }
}
