#include "scheduling/slurm_conf.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/error.h"
#include "util/file.h"
#include "util/text.h"

namespace paratune {

const SlurmPartition* SlurmConfig::Partition(const std::string& name) const {
  const SlurmPartition* fallback = nullptr;
  for (const auto& p : partitions) {
    if (p.name == name) return &p;
    if (p.is_default && !fallback) fallback = &p;
  }
  return fallback;
}

const SlurmQos* SlurmConfig::Qos(std::string_view name) const {
  for (const auto& q : qos)
    if (EqualsAsciiNoCase(q.name, name)) return &q;
  return nullptr;
}

int SlurmConfig::MaxTier() const {
  int tier = 1;
  for (const auto& p : partitions) tier = std::max(tier, p.priority_tier);
  return tier;
}

double SlurmTimeSeconds(std::string_view s) {
  if (EqualsAsciiNoCase(s, "UNLIMITED") || EqualsAsciiNoCase(s, "INFINITE")) return INFINITY;
  double days = 0;
  const size_t dash = s.find('-');
  if (dash != std::string_view::npos) {
    if (ParseNumber(s.substr(0, dash), &days) != NumberParse::kOk || days < 0) return NAN;
    s.remove_prefix(dash + 1);
  }
  double v[3] = {0, 0, 0};
  int parts = 0;
  for (size_t from = 0; from <= s.size(); ++parts) {
    if (parts == 3) return NAN;
    const size_t colon = std::min(s.find(':', from), s.size());
    if (ParseNumber(s.substr(from, colon - from), &v[parts]) != NumberParse::kOk || v[parts] < 0) return NAN;
    from = colon + 1;
  }
  // slurm.conf(5), MaxTime: with days the fields are hours[:minutes[:seconds]], without them
  // minutes, minutes:seconds or hours:minutes:seconds.
  if (dash != std::string_view::npos) return days * 86400 + v[0] * 3600 + v[1] * 60 + v[2];
  if (parts == 1) return v[0] * 60;
  if (parts == 2) return v[0] * 60 + v[1];
  return v[0] * 3600 + v[1] * 60 + v[2];
}

namespace {

struct ConfLine {
  const std::string* where;
  int line;
};

[[noreturn]] void Bad(const ConfLine& at, std::string_view key, std::string_view value, std::string_view want) {
  throw InputError(fmt::format("{}:{}: {}={} is not {}", *at.where, at.line, key, Shown(value), want));
}

double Number(const ConfLine& at, std::string_view key, std::string_view value) {
  double v = 0;
  if (ParseNumber(value, &v) != NumberParse::kOk || v < 0) Bad(at, key, value, "a non-negative number");
  return v;
}

// PriorityWeight*: unsigned 32-bit integers (priority_multifactor.html).
double Weight(const ConfLine& at, std::string_view key, std::string_view value) {
  int64_t v = 0;
  if (ParseInteger(value, &v) != NumberParse::kOk || v < 0 || v > 4294967295)
    Bad(at, key, value, "a whole number from 0 to 4294967295");
  return static_cast<double>(v);
}

double Time(const ConfLine& at, std::string_view key, std::string_view value) {
  const double v = SlurmTimeSeconds(value);
  if (std::isnan(v)) Bad(at, key, value, "a Slurm time ([days-]hours:minutes:seconds, minutes, UNLIMITED)");
  return v;
}

bool YesNo(const ConfLine& at, std::string_view key, std::string_view value) {
  if (EqualsAsciiNoCase(value, "YES")) return true;
  if (EqualsAsciiNoCase(value, "NO")) return false;
  Bad(at, key, value, "YES or NO");
}

// The words of a line: KEY=VALUE pairs separated by blanks (a value may be quoted).
std::vector<std::pair<std::string, std::string>> Pairs(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    const size_t key_from = i;
    while (i < line.size() && line[i] != '=' && line[i] != ' ' && line[i] != '\t') ++i;
    std::string key(line.substr(key_from, i - key_from)), value;
    if (i < line.size() && line[i] == '=') {
      ++i;
      if (i < line.size() && line[i] == '"') {
        const size_t close = line.find('"', i + 1);
        value = std::string(line.substr(i + 1, (close == std::string_view::npos ? line.size() : close) - i - 1));
        i = close == std::string_view::npos ? line.size() : close + 1;
      } else {
        const size_t from = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        value = std::string(line.substr(from, i - from));
      }
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

void ReadSchedulerParameters(const ConfLine& at, std::string_view value, SlurmConfig* c) {
  for (size_t from = 0; from <= value.size();) {
    const size_t comma = std::min(value.find(',', from), value.size());
    const std::string_view item = value.substr(from, comma - from);
    from = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key = AsciiLower(item.substr(0, eq));
    const std::string_view v = item.substr(eq + 1);
    double x = 0;
    const auto number = [&] {
      if (ParseNumber(v, &x) != NumberParse::kOk || x < 0)
        Bad(at, "SchedulerParameters " + key, v, "a non-negative number");
      return x;
    };
    if (key == "bf_max_job_test") c->bf_max_job_test = static_cast<int>(std::min(number(), 1e6));
    if (key == "bf_interval") c->bf_interval_s = number();
    if (key == "bf_window") c->bf_window_s = number() * 60;  // minutes
    if (key == "max_switch_wait") c->max_switch_wait_s = number();
    if (key == "default_queue_depth") c->default_queue_depth = static_cast<int>(std::min(number(), 1e6));
  }
}

// PartitionName=NAME ... (slurm.conf(5), PARTITION CONFIGURATION).
void ReadPartition(const ConfLine& at, const std::vector<std::pair<std::string, std::string>>& pairs, SlurmConfig* c,
                   int* exclusive) {
  SlurmPartition p;
  p.name = pairs.front().second;
  bool excl = false;
  for (size_t i = 1; i < pairs.size(); ++i) {
    const std::string key = AsciiLower(pairs[i].first);
    const std::string& v = pairs[i].second;
    if (key == "priorityjobfactor") p.priority_job_factor = Number(at, pairs[i].first, v);
    if (key == "prioritytier") p.priority_tier = static_cast<int>(std::min(Number(at, pairs[i].first, v), 65533.0));
    if (key == "maxtime") p.max_time_s = Time(at, pairs[i].first, v);
    if (key == "default") p.is_default = YesNo(at, pairs[i].first, v);
    if (key == "oversubscribe") excl = EqualsAsciiNoCase(v, "EXCLUSIVE");
  }
  if (EqualsAsciiNoCase(p.name, "DEFAULT")) return;  // defaults for later lines: not followed
  *exclusive += excl ? 1 : 0;
  c->partitions.push_back(std::move(p));
}

template <typename E, size_t N>
E Choice(const ConfLine& at, std::string_view key, std::string_view value,
         const std::pair<const char*, E> (&choices)[N]) {
  std::string known;
  for (const auto& [name, e] : choices) {
    if (EqualsAsciiNoCase(value, name)) return e;
    known += known.empty() ? name : std::string(", ") + name;
  }
  Bad(at, key, value, "one of " + known);
}

void ReadKey(const ConfLine& at, const std::string& key, const std::string& v, SlurmConfig* c) {
  const std::string k = AsciiLower(key);
  if (k == "schedulertype")
    c->scheduler = Choice(
        at, key, v,
        {std::pair{"sched/backfill", SlurmScheduler::kBackfill}, std::pair{"sched/builtin", SlurmScheduler::kBuiltin}});
  else if (k == "prioritytype")
    c->multifactor = Choice(at, key, v, {std::pair{"priority/multifactor", true}, std::pair{"priority/basic", false}});
  else if (k == "priorityweightage")
    c->weight_age = Weight(at, key, v);
  else if (k == "priorityweightfairshare")
    c->weight_fairshare = Weight(at, key, v);
  else if (k == "priorityweightjobsize")
    c->weight_job_size = Weight(at, key, v);
  else if (k == "priorityweightpartition")
    c->weight_partition = Weight(at, key, v);
  else if (k == "priorityweightqos")
    c->weight_qos = Weight(at, key, v);
  else if (k == "prioritymaxage")
    c->max_age_s = Time(at, key, v);
  else if (k == "priorityfavorsmall")
    c->favor_small = YesNo(at, key, v);
  else if (k == "schedulerparameters")
    ReadSchedulerParameters(at, v, c);
  else if (k == "preempttype")
    c->preempt = Choice(at, key, v,
                        {std::pair{"preempt/none", SlurmPreempt::kOff},
                         std::pair{"preempt/partition_prio", SlurmPreempt::kPartitionPrio},
                         std::pair{"preempt/qos", SlurmPreempt::kQos}});
  else if (k == "preemptmode") {
    // "REQUEUE", "CANCEL", "OFF", optionally with ",GANG" or ",WITHIN": the first word decides.
    const std::string first = v.substr(0, v.find(','));
    if (EqualsAsciiNoCase(first, "SUSPEND") || EqualsAsciiNoCase(first, "GANG"))
      throw InputError(fmt::format("{}:{}: PreemptMode={}: suspending jobs is not replayed (REQUEUE, CANCEL or OFF)",
                                   *at.where, at.line, Shown(v)));
    c->preempt_mode =
        Choice(at, key, first,
               {std::pair{"OFF", SlurmPreemptMode::kOff}, std::pair{"REQUEUE", SlurmPreemptMode::kRequeue},
                std::pair{"CANCEL", SlurmPreemptMode::kCancel}});
  } else if (k == "preemptexempttime")
    c->preempt_exempt_time_s = Time(at, key, v);
  else if (k == "topologyplugin")
    c->placement =
        Choice(at, key, v,
               {std::pair{"topology/flat", SlurmPlacement::kFlat}, std::pair{"topology/default", SlurmPlacement::kFlat},
                std::pair{"topology/none", SlurmPlacement::kFlat}, std::pair{"topology/tree", SlurmPlacement::kTree},
                std::pair{"topology/block", SlurmPlacement::kBlock}});
  else if (k == "selecttype")
    c->exclusive_nodes = EqualsAsciiNoCase(v, "select/linear");
}

}  // namespace

SlurmConfig ParseSlurmConf(std::string_view text, const std::string& where) {
  SlurmConfig c;
  c.path = where;
  int exclusive = 0, line_no = 0;
  for (size_t from = 0; from < text.size();) {
    const size_t nl = std::min(text.find('\n', from), text.size());
    std::string_view line = text.substr(from, nl - from);
    from = nl + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = TrimBlanks(line);
    if (line.empty()) continue;
    const ConfLine at{&where, line_no};
    const auto pairs = Pairs(line);
    if (pairs.empty()) continue;
    if (EqualsAsciiNoCase(pairs.front().first, "PartitionName")) {
      ReadPartition(at, pairs, &c, &exclusive);
      continue;
    }
    if (EqualsAsciiNoCase(pairs.front().first, "NodeName") || EqualsAsciiNoCase(pairs.front().first, "Include") ||
        EqualsAsciiNoCase(pairs.front().first, "NodeSet") || EqualsAsciiNoCase(pairs.front().first, "DownNodes"))
      continue;  // the nodes come from --nodes or --topology
    for (const auto& [key, value] : pairs) ReadKey(at, key, value, &c);
  }
  if (!c.partitions.empty() && exclusive == static_cast<int>(c.partitions.size())) c.exclusive_nodes = true;
  return c;
}

std::string ReadSlurmConfText(const std::string& path) {
  RequireRegularFile(path);
  return ReadMaybeGzipFile(path, size_t{64} << 20);
}

SlurmConfig ReadSlurmConf(const std::string& path) { return ParseSlurmConf(ReadSlurmConfText(path), path); }

void ApplySlurmConfig(const SlurmConfig& c, int total_gpus, JobTrace* trace) {
  double max_factor = 0;
  for (const auto& p : c.partitions) max_factor = std::max(max_factor, p.priority_job_factor);
  const int top_tier = c.MaxTier();
  for (Job& j : trace->jobs) {
    const SlurmPartition* part = c.Partition(j.queue);
    if (part && part->priority_tier < top_tier) j.job_class = JobClass::kExperimental;
    if (part && part->priority_tier == top_tier && top_tier > 1) j.job_class = JobClass::kProduction;
    if (part && std::isfinite(part->max_time_s))
      j.time_limit_s = std::isnan(j.time_limit_s) ? part->max_time_s : std::min(j.time_limit_s, part->max_time_s);
    if (!c.multifactor) {
      j.priority = 0;  // priority/basic: submission order
      continue;
    }
    // priority_multifactor.html: Job_priority = W_age x age + W_fairshare x fairshare + W_size x size +
    // W_partition x partition + W_qos x qos, each factor in [0, 1]; age = min(1, eligible wait /
    // PriorityMaxAge). The recorded Priority is the value at the start: its age term is taken out.
    // PriorityMaxAge=0: every job's age factor is 1 at once, the same for all.
    const auto age_factor = [&](double waited_s) {
      return c.max_age_s > 0 ? std::min(1.0, waited_s / c.max_age_s) : 1;
    };
    double fixed = 0;
    if (j.priority > 0) {
      const double waited = std::isnan(j.measured_wait_s) ? 0 : std::max(0.0, j.measured_wait_s);
      fixed = j.priority - c.weight_age * age_factor(waited);
    } else {
      const double size = total_gpus > 0 ? std::min(1.0, static_cast<double>(j.gpus) / total_gpus) : 0;
      fixed = c.weight_job_size * (c.favor_small ? 1 - size : size) +
              (part && max_factor > 0 ? c.weight_partition * part->priority_job_factor / max_factor : 0);
    }
    // While no pending job's age is capped, the order of fixed + W_age (t - eligible) / max_age is
    // that of fixed - W_age eligible / max_age at every t.
    j.priority = c.max_age_s > 0 ? fixed - c.weight_age * j.submit_s / c.max_age_s : fixed;
  }
}

}  // namespace paratune
