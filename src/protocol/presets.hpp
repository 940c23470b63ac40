// Protocol presets: each names one choice on every protocol axis.
#pragma once
#include <string>
#include <vector>

namespace rdsm {

// How each part of the coherence protocol is carried out.  A preset is one
// line of these; see presets.cpp.
enum class FetchAxis { message, one_sided };   // page fetch: request to home's handler / remote read
enum class HomeClaimAxis { message, cas };     // first-touch home claim: request / remote CAS
enum class DiffAxis { message, one_sided };    // diffs: packed message applied by home / direct writes
enum class LockAxis { manager, atomic };       // locks: manager handler / remote atomics
enum class NoticeAxis { lazy, eager_push };    // write notices: with grants and barriers / pushed at release
enum class BarrierAxis { manager, atomic };    // barrier: manager handler / remote atomics
enum class HomeAxis { fixed, migrate };        // a page's home: where placed / moves to its single writer
enum class PrefetchAxis { off, adaptive };     // on a miss: fetch that page only / also the next ones
// A page written again in the next interval: a write fault tells (fault), or
// it stays writable and a comparison with its twin at release tells (compare).
enum class RewriteAxis { fault, compare };
// A page whose diff is many small runs: written as runs (off), or, when the
// writer holds the page exclusively at its home, as one whole-page write
// (exclusive; one-sided diffs only: whole_page_writes.cpp).
enum class WholeAxis { off, exclusive };
// How the runs of a page's diff travel (one-sided diffs only): each run its
// own remote write, gathered per home (runs, DRAW's way), or, for a page of
// many runs, one byte-masked write of the page that changes exactly the
// runs' bytes (masked: fabric put_masked; a page falsely shared by several
// writers costs one write instead of hundreds).
enum class PiecesAxis { runs, masked };
// A write fault in a stream of writes (the page before it is writable):
// only that page is opened (off), or the valid pages after it too, as many
// as the stream already has, up to 64, each with a twin, so that the
// stream's next pages cost no fault; the release's comparison with the
// twins tells which were written (stream; needs rewrites=compare, whose
// comparison it reuses: write_ahead.cpp).
// dense: stream, and a write fault among writable pages of its aligned
// group of 16 opens the rest of the group (writes scattered densely over a
// region, as a radix sort's permutation makes them).
enum class WriteAheadAxis { off, stream, dense };
// At a lock's acquire: nothing more (off), or the pages its last holder
// wrote while holding it are fetched if invalid and opened writable with
// twins, like pages written ahead (on; needs lock=atomic, which carries the
// holder and its interval with the lock, and rewrites=compare, whose
// comparison finds which were written: lock_ahead.cpp).
enum class LockAheadAxis { off, on };
// How writes are detected: a write-protect fault on the first write of each
// interval (sync), or no fault at all: the uffd backend's scan mode lets
// writes through and a scan at release finds the written pages (scan; every
// cached copy gets its twin when it is fetched, since no fault comes before
// the write; the rewrite, write-ahead and whole-page axes, which exist to
// save write faults or need the home to know when it starts writing, are
// off).  scan needs the uffd backend on Linux 6.7 or newer; elsewhere sync
// runs, with a line saying why.
enum class DetectAxis { sync, scan };
// software: the DSM keeps copies coherent; hardware: every node maps the same
// memory and the machine keeps it coherent (the limit a DSM is measured against).
enum class CoherenceAxis { software, hardware };
// Which engine keeps the copies coherent.  release: home-based lazy release
// consistency (hlrc.hpp), along every axis above.  sequential: one writer
// at a time and sequential consistency for any program (sc.hpp); it has no
// homes, twins, diffs or notices, so of the axes only fetch (how a page's
// contents travel), lock and barrier apply to it.
enum class ConsistencyModel { release, sequential };

struct ProtocolConfig {
  std::string name;
  FetchAxis fetch;
  HomeClaimAxis claim;
  DiffAxis diff;
  LockAxis lock;
  NoticeAxis notices;
  BarrierAxis barrier;
  const char *description;
  CoherenceAxis coherence = CoherenceAxis::software;
  HomeAxis home = HomeAxis::fixed;
  PrefetchAxis prefetch = PrefetchAxis::off;
  RewriteAxis rewrites = RewriteAxis::fault;
  WholeAxis whole = WholeAxis::off;
  PiecesAxis pieces = PiecesAxis::runs;
  WriteAheadAxis write_ahead = WriteAheadAxis::off;
  DetectAxis detect = DetectAxis::sync;
  LockAheadAxis lock_ahead = LockAheadAxis::off;
  ConsistencyModel consistency = ConsistencyModel::release;
};

// The preset used when none is named.
constexpr const char *kDefaultProtocol = "rdsm";
// The axes it takes, when none is named either, on a fabric whose one-sided
// operations between hosts are done by the target's software
// (Fabric::one_sided_in_software: MPI over TCP).  There each one-sided
// operation waits for the target's progress thread as a message waits for
// its handler, so a fetch of six operations costs six wake-ups where a
// request costs one (docs/clusters.md: across two hosts over TCP a read
// fault took 1.1 ms one-sided, 55 us by message; a barrier 3.4 ms, 32 us).
// Homes still migrate and prefetch stays adaptive: those ride on messages.
constexpr const char *kSoftwareOneSidedAxes =
    "fetch=message,claim=message,diff=message,lock=manager,barrier=manager,notices=lazy";
// Every preset, in the order they are listed to users.
const std::vector<ProtocolConfig> &protocol_presets();
// The preset of that name, or nullptr.
const ProtocolConfig *find_protocol(const std::string &name);
// "async, ardmar, ..." for error messages and --help.
std::string protocol_names();
// A protocol as rdsm names it in its output ("sc+fetch=message": a preset,
// then the axes chosen on top of it) taken apart, so that the name a run
// printed can be given back to --protocol or RDSM_PROTOCOL: `preset` gets
// the part before the first '+', and `axes` the name's axes followed by
// `extra_axes` (--axes or RDSM_AXES), which are applied after them and so
// win where both choose one axis.
void split_protocol_name(const std::string &name, const std::string &extra_axes, std::string &preset,
                         std::string &axes);

// Applies axis choices to a preset: "lock=atomic,barrier=atomic" (axes:
// fetch=message|one-sided, claim=message|cas, diff=message|one-sided,
// lock=manager|atomic, notices=lazy|eager, barrier=manager|atomic,
// home=fixed|migrate, prefetch=off|adaptive, rewrites=fault|compare, whole=off|exclusive,
// pieces=runs|masked, writeahead=off|stream, detect=sync|scan,
// lockahead=off|on).  The
// name becomes "preset+axis=value,...".  Returns false and sets `error` on
// an unknown axis or value, or an axis the preset's engine does not have
// (sequential consistency takes fetch, lock and barrier only).
bool apply_axes(ProtocolConfig &cfg, const std::string &spec, std::string &error);
// Every axis and its values, for messages and --help.
const char *axes_help();

// A protocol as a user names it ("preset+axis=value,...", see
// split_protocol_name) with axes given beside it (--axes, RDSM_AXES),
// resolved in one place for the launcher and the runtime: the preset, the
// axes in force (the name's, then the given ones on top) and the
// configuration they make.  On a bad part, which one it is, and `error`
// saying why.
enum class ProtocolChoiceFault { none, preset, name_axes, given_axes };
struct ProtocolChoice {
  std::string preset;
  std::string axes;
  ProtocolConfig config;
};
ProtocolChoiceFault choose_protocol(const std::string &name, const std::string &given_axes, ProtocolChoice &out,
                                    std::string &error);

}  // namespace rdsm
