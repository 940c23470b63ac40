// Merging the timeline trace: the nodes' part files become one file of
// Chrome trace-event JSON (loads in Perfetto and chrome://tracing).  Node r
// is process r; times are in microseconds from the first event of the job.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <unistd.h>
#include <vector>

#include "stats/trace.hpp"
#include "stats/trace_format.hpp"

namespace rdsm::trace {

namespace {

struct Thread {
  int rank, tid;
  std::string name;
  std::vector<Event> events;
};

struct Parts {
  std::vector<std::string> files;
  std::vector<Thread> threads;
  uint64_t dropped = 0;
  bool ops_recorded = false;  // a node's fabric counted its one-sided operations
};

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::vector<std::string> part_files(const std::string &path) {
  std::vector<std::string> out;
  std::string dir = dir_of(path), prefix = part_prefix(path);
  std::string base = prefix.substr(prefix.rfind('/') == std::string::npos ? 0 : prefix.rfind('/') + 1);
  DIR *d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, base.size(), base) == 0 && name.size() > base.size() &&
        name.find_first_not_of("0123456789", base.size()) == std::string::npos)
      out.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Reads every section of one part file; false when it is cut short or not
// a part file (what was read before stays).
bool read_part(const std::string &file, Parts &parts) {
  FILE *f = fopen(file.c_str(), "rb");
  if (!f) return false;
  bool ok = true;
  PartHeader h;
  while (fread(&h, sizeof h, 1, f) == 1) {
    if (h.magic != kPartMagic || h.slots > kMaxSlots) {
      ok = false;
      break;
    }
    parts.dropped += h.dropped;
    if (h.flags & kPartOpsRecorded) parts.ops_recorded = true;
    for (uint32_t i = 0; ok && i < h.slots; ++i) {
      PartSlot ps;
      if (fread(&ps, sizeof ps, 1, f) != 1 || ps.events > kSlotEvents) {
        ok = false;
        break;
      }
      ps.name[sizeof ps.name - 1] = 0;
      Thread t{h.rank, ps.tid, ps.name, std::vector<Event>(ps.events)};
      if (ps.events && fread(t.events.data(), sizeof(Event), ps.events, f) != ps.events) ok = false;
      parts.threads.push_back(std::move(t));
    }
    if (!ok) break;
  }
  fclose(f);
  return ok;
}

const char *kind_name(uint8_t k) {
  static const char *const names[] = {"read fault", "write fault", "fetch",   "release", "acquire",           "lock",
                                      "barrier wait", "barrier protocol", "handler", "send", "statistics reset",
                                      "statistics read", "ops", "unlock"};
  static_assert(sizeof names / sizeof *names == (size_t)Kind::count);
  return k < (uint8_t)Kind::count ? names[k] : "unknown";
}

const char *kind_category(uint8_t k) {
  switch ((Kind)k) {
    case Kind::read_fault:
    case Kind::write_fault: return "fault";
    case Kind::fetch:
    case Kind::ops: return "data";
    case Kind::handler:
    case Kind::send: return "message";
    default: return "sync";
  }
}

void write_args(FILE *o, const Event &e) {
  switch ((Kind)e.kind) {
    case Kind::read_fault:
    case Kind::write_fault: fprintf(o, "{\"page\":%u}", e.a); break;
    case Kind::fetch: fprintf(o, "{\"page\":%u,\"home\":%u,\"pages\":%llu}", e.a, e.b, (unsigned long long)e.c); break;
    case Kind::release: fprintf(o, "{\"diffs\":%u,\"diff_bytes\":%llu}", e.a, (unsigned long long)e.c); break;
    case Kind::lock: fprintf(o, "{\"lock\":%u,\"acquired\":%s}", e.a, e.flags ? "true" : "false"); break;
    case Kind::unlock: fprintf(o, "{\"lock\":%u}", e.a); break;
    case Kind::handler: fprintf(o, "{\"type\":%u,\"from\":%u,\"bytes\":%u}", e.flags, e.b, e.a); break;
    case Kind::send: fprintf(o, "{\"type\":%u,\"to\":%u,\"bytes\":%u}", e.flags, e.b, e.a); break;
    case Kind::ops: {
      static const char *const cls[] = {"atomic", "get", "put", "batch"};
      fprintf(o, "{\"op\":\"%s\",\"to\":%u,\"count\":%u,\"bytes\":%llu}", e.flags < 4 ? cls[e.flags] : "?", e.b,
              e.a, (unsigned long long)e.c);
      break;
    }
    default: fputs("{}", o);
  }
}

bool write_json(FILE *o, const Parts &parts) {
  uint64_t base = UINT64_MAX;
  for (const Thread &t : parts.threads)
    for (const Event &e : t.events) base = std::min(base, e.t0);
  std::map<int, bool> ranks;
  for (const Thread &t : parts.threads) ranks[t.rank] = true;
  // "operations": whether the one-sided operations were recorded ("ops"
  // records): without them rdsm sim charges each event as a whole.
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"rdsm\",\"lost_events\":", o);
  fprintf(o, "%llu,\"operations\":\"%s\"},\n\"traceEvents\":[\n", (unsigned long long)parts.dropped,
          parts.ops_recorded ? "recorded" : "not recorded");
  bool first = true;
  auto sep = [&] {
    if (!first) fputs(",\n", o);
    first = false;
  };
  for (const auto &r : ranks) {
    sep();
    fprintf(o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"node %d\"}}", r.first, r.first);
    fprintf(o, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", r.first,
            r.first);
  }
  for (const Thread &t : parts.threads) {
    sep();
    fprintf(o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", t.rank,
            t.tid, t.name.c_str());
    for (const Event &e : t.events) {
      double ts = (double)(e.t0 - base) / 1000.0;
      sep();
      bool instant = e.kind == (uint8_t)Kind::send || e.kind == (uint8_t)Kind::stats_reset ||
                     e.kind == (uint8_t)Kind::stats_read || e.kind == (uint8_t)Kind::ops;
      fprintf(o, "{\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,", kind_name(e.kind),
              kind_category(e.kind), t.rank, t.tid, ts);
      if (instant)
        fprintf(o, "\"ph\":\"i\",\"s\":\"%s\",",
                e.kind == (uint8_t)Kind::send || e.kind == (uint8_t)Kind::ops ? "t" : "p");
      else
        fprintf(o, "\"ph\":\"X\",\"dur\":%.3f,", (double)e.dur / 1000.0);
      fputs("\"args\":", o);
      write_args(o, e);
      fputc('}', o);
      // The arrow of a message: from its send to the handler that took it.
      if (e.kind == (uint8_t)Kind::send || e.kind == (uint8_t)Kind::handler)
        fprintf(o, ",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"%s\",%s\"id\":\"0x%llx\",\"pid\":%d,"
                   "\"tid\":%d,\"ts\":%.3f}",
                e.kind == (uint8_t)Kind::send ? "s" : "f", e.kind == (uint8_t)Kind::send ? "" : "\"bp\":\"e\",",
                (unsigned long long)e.c, t.rank, t.tid, ts);
    }
  }
  fputs("\n]}\n", o);
  return !ferror(o);
}
}  // namespace

void remove_parts(const std::string &path) {
  for (const std::string &f : part_files(path)) unlink(f.c_str());
}

bool merge_parts(const std::string &path) {
  Parts parts;
  parts.files = part_files(path);
  if (parts.files.empty()) return true;
  for (const std::string &f : parts.files)
    if (!read_part(f, parts))
      fprintf(stderr, "rdsm: warning: the timeline trace part %s is cut short; what it holds so far is kept\n",
              f.c_str());
  std::string tmp = path + ".tmp";
  FILE *o = fopen(tmp.c_str(), "w");
  bool ok = o && write_json(o, parts);
  if (o && fclose(o) != 0) ok = false;
  if (ok && rename(tmp.c_str(), path.c_str()) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "rdsm: error: cannot write the timeline trace %s: %s\n", path.c_str(), strerror(errno));
    unlink(tmp.c_str());
  }
  remove_parts(path);
  return ok;
}

}  // namespace rdsm::trace
