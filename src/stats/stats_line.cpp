#include "stats/stats_line.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/options.hpp"

namespace rdsm {
namespace {

// FNV-1a: enough to tell a line mixed with other output from a whole one.
uint64_t checksum(const char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
  return h;
}

void append_hex(std::string &out, const void *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  const unsigned char *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool parse_hex(const std::string &text, std::vector<unsigned char> *out) {
  if (text.size() % 2) return false;
  out->resize(text.size() / 2);
  for (size_t i = 0; i < out->size(); ++i) {
    int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = (unsigned char)(hi << 4 | lo);
  }
  return true;
}

bool parse_u64(const std::string &text, int base, uint64_t *out) {
  if (text.empty()) return false;
  char *end = nullptr;
  unsigned long long v = strtoull(text.c_str(), &end, base);
  if (*end) return false;
  *out = v;
  return true;
}

// The value of "name=value" among the blank-separated fields, or false.
bool field(const std::vector<std::string> &fields, const char *name, std::string *value) {
  const size_t len = strlen(name);
  for (const std::string &f : fields)
    if (f.size() > len && f.compare(0, len, name) == 0 && f[len] == '=') {
      *value = f.substr(len + 1);
      return true;
    }
  return false;
}

}  // namespace

std::string encode_stats_line(const NodeStatsLine &n) {
  std::string line = kStatsLinePrefix;
  line += "rank=" + std::to_string(n.rank) + " pid=" + std::to_string(n.pid) + " host=" + n.host +
          " memory=" + n.memory + " protocol=" + n.protocol + " region=" + std::to_string(n.region_bytes) +
          " threads=" + std::to_string(n.threads.size()) + " data=";
  append_hex(line, &n.stats, sizeof n.stats);
  if (!n.threads.empty()) append_hex(line, n.threads.data(), n.threads.size() * sizeof n.threads[0]);
  char sum[40];
  snprintf(sum, sizeof sum, " sum=%016" PRIx64 "\n", checksum(line.data(), line.size()));
  return line + sum;
}

bool decode_stats_line(const std::string &line, NodeStatsLine *out, std::string *error) {
  const size_t prefix = strlen(kStatsLinePrefix);
  const size_t sum_at = line.rfind(" sum=");
  uint64_t sum = 0;
  if (line.compare(0, prefix, kStatsLinePrefix) != 0 || sum_at == std::string::npos ||
      !parse_u64(line.substr(sum_at + 5), 16, &sum) || sum != checksum(line.data(), sum_at)) {
    *error = "the line is incomplete or mixed with other output (its checksum does not match)";
    return false;
  }
  std::vector<std::string> fields;
  for (size_t at = prefix; at < sum_at;) {
    size_t blank = line.find(' ', at);
    if (blank == std::string::npos || blank > sum_at) blank = sum_at;
    fields.push_back(line.substr(at, blank - at));
    at = blank + 1;
  }
  std::string rank, pid, region, threads, data;
  uint64_t r = 0, p = 0, rb = 0, t = 0;
  std::vector<unsigned char> bytes;
  if (!field(fields, "rank", &rank) || !field(fields, "pid", &pid) || !field(fields, "host", &out->host) ||
      !field(fields, "region", &region) || !field(fields, "threads", &threads) || !field(fields, "data", &data) ||
      !parse_u64(rank, 10, &r) || !parse_u64(pid, 10, &p) || !parse_u64(region, 10, &rb) ||
      !parse_u64(threads, 10, &t) || !parse_hex(data, &bytes)) {
    *error = "a field is missing or malformed";
    return false;
  }
  if (!field(fields, "memory", &out->memory)) out->memory.clear();
  if (!field(fields, "protocol", &out->protocol)) out->protocol.clear();
  if (t > (uint64_t)kMaxNodeThreads || bytes.size() != sizeof(rdsm_stats) + t * sizeof(ThreadStatsRow)) {
    *error = "its figures are laid out differently (" + std::to_string(bytes.size()) +
             " bytes); is the program linked with another version of rdsm than this launcher?";
    return false;
  }
  out->rank = (int)r;
  out->pid = (int)p;
  out->region_bytes = rb;
  memcpy(&out->stats, bytes.data(), sizeof out->stats);
  out->threads.resize(t);
  if (t) memcpy(out->threads.data(), bytes.data() + sizeof out->stats, t * sizeof(ThreadStatsRow));
  return true;
}

}  // namespace rdsm
