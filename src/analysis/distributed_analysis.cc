#include "analysis/distributed_analysis.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace paratune {
namespace {

using nlohmann::json;

constexpr int64_t kNoFile = -1;  // an error that is not a file's comes before every file's

// What a process tells the others after reading: its first error (with its file), where its
// ranks came from, and the ProfilerStep numbers they name.
struct ReadReport {
  int64_t error_file = std::numeric_limits<int64_t>::max();
  std::string error;
  std::vector<RankOrigin> origins;
  std::set<int64_t> steps;
};

std::string EncodeReadReport(const ReadReport& r) {
  json j = {{"error_file", r.error_file}, {"error", r.error}, {"steps", r.steps}, {"origins", json::array()}};
  for (const RankOrigin& o : r.origins) j["origins"].push_back({o.rank, o.path, o.file, o.unusable});
  const std::vector<uint8_t> bytes = json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

ReadReport DecodeReadReport(const std::string& bytes) {
  const json j = json::from_msgpack(bytes);
  ReadReport r;
  r.error_file = j.at("error_file").get<int64_t>();
  r.error = j.at("error").get<std::string>();
  r.steps = j.at("steps").get<std::set<int64_t>>();
  for (const json& o : j.at("origins"))
    r.origins.push_back({o[0].get<int>(), o[1].get<std::string>(), o[2].get<size_t>(), o[3].get<std::string>()});
  return r;
}

// The exchange of the read reports: every process throws the same error, or learns every rank's
// origin and every step number.
ReadReport ExchangeReadReports(const ReadReport& mine, ProcessGroup& group) {
  ReadReport all;
  for (const std::string& bytes : group.AllGather(EncodeReadReport(mine))) {
    ReadReport r = DecodeReadReport(bytes);
    if (!r.error.empty() && r.error_file < all.error_file) {
      all.error_file = r.error_file;
      all.error = r.error;
    }
    all.origins.insert(all.origins.end(), r.origins.begin(), r.origins.end());
    all.steps.merge(r.steps);
  }
  if (!all.error.empty()) throw InputError(all.error);
  CheckRankSet(all.origins);
  return all;
}

// Reads this process's share; a failure is reported, not thrown, so that every process reaches
// the exchange.
std::vector<RankTrace> ReadShare(const std::vector<std::string>& inputs, const TraceSetOptions& read,
                                 ProcessGroup& group, ReadReport& report) {
  std::vector<RankTrace> ranks;
  try {
    const std::vector<std::string> files = ExpandTraceInputs(inputs);
    const std::vector<size_t> mine = ShareFiles(files, group.Size())[static_cast<size_t>(group.Index())];
    for (TraceFileRead& f : ReadTraceFiles(files, mine, read)) {
      if (!f.error.empty() && static_cast<int64_t>(f.file) < report.error_file) {
        report.error_file = static_cast<int64_t>(f.file);
        report.error = f.error;
      }
      for (RankTrace& t : f.ranks) {
        report.origins.push_back({t.rank, t.path, f.file, UnusableReason(t, read.allow_partial)});
        report.steps.merge(ProfilerStepNames(t));
        ranks.push_back(std::move(t));
      }
    }
  } catch (const std::exception& e) {
    report.error_file = kNoFile;
    report.error = e.what();
  }
  return ranks;
}

// This process's ranks measured, as the paratune.analyze/1 fields of a partial analysis and the
// communication kernels of each rank.
std::string EncodeParts(std::vector<RankPart> parts, const AnalysisOptions& options, int64_t bytes_read) {
  TraceAnalysis partial;
  partial.options = options;
  partial.bytes_read = bytes_read;
  json comm = json::array();
  for (RankPart& p : parts) {
    json groups = json::array();
    for (const auto& [key, durations] : p.comm.durations_s)
      groups.push_back({static_cast<int>(key.first), key.second, durations, p.comm.steps.at(key),
                        p.comm.on_path.count(key) ? p.comm.on_path.at(key) : std::vector<uint8_t>()});
    comm.push_back({{"total_s", p.comm.total_s}, {"groups", std::move(groups)}});
    partial.ranks.push_back(std::move(p.analysis));
  }
  const std::vector<uint8_t> bytes = json::to_msgpack(json{{"analysis", AnalysisJson(partial)}, {"comm", comm}});
  return std::string(bytes.begin(), bytes.end());
}

// The parts one process sent, and its bytes read.
std::vector<RankPart> DecodeParts(const std::string& bytes, int64_t& bytes_read) {
  const json j = json::from_msgpack(bytes);
  TraceAnalysis partial = AnalysisFromJson(j.at("analysis"), "the analysis of another process");
  bytes_read += partial.bytes_read;
  const json& comm = j.at("comm");
  std::vector<RankPart> parts(partial.ranks.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i].analysis = std::move(partial.ranks[i]);
    parts[i].comm.total_s = comm.at(i).at("total_s").get<double>();
    for (const json& g : comm.at(i).at("groups")) {
      const RankCollectiveTimes::GroupKey key{static_cast<Collective>(g[0].get<int>()), g[1].get<std::string>()};
      parts[i].comm.durations_s[key] = g[2].get<std::vector<double>>();
      parts[i].comm.steps[key] = g[3].get<std::vector<int64_t>>();
      if (!g[4].empty()) parts[i].comm.on_path[key] = g[4].get<std::vector<uint8_t>>();
    }
  }
  return parts;
}

// Measures this process's ranks; a failure travels as an error message in place of the parts.
std::string MeasureShare(const std::vector<RankTrace>& ranks, bool filter, const AnalysisOptions& options) {
  try {
    std::vector<RankPart> parts(ranks.size());
    ParallelFor(ranks.size(), options.threads, [&](size_t i) { parts[i] = AnalyzeRank(ranks[i], filter, options); });
    int64_t bytes_read = 0;
    for (const RankTrace& t : ranks) bytes_read += t.bytes_read;
    return "P" + EncodeParts(std::move(parts), options, bytes_read);
  } catch (const std::exception& e) {
    return std::string("E") + e.what();
  }
}

}  // namespace

std::vector<std::vector<size_t>> ShareFiles(const std::vector<std::string>& files, int processes) {
  std::vector<std::pair<uintmax_t, size_t>> by_size;
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    const uintmax_t n = std::filesystem::file_size(files[i], ec);
    by_size.emplace_back(ec ? 0 : n, i);
  }
  std::stable_sort(by_size.begin(), by_size.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::vector<size_t>> share(static_cast<size_t>(std::max(1, processes)));
  std::vector<uintmax_t> load(share.size(), 0);
  for (const auto& [size, i] : by_size) {
    const size_t p = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    share[p].push_back(i);
    load[p] += size;
  }
  for (auto& s : share) std::sort(s.begin(), s.end());
  return share;
}

TraceAnalysis AnalyzeTracesAcross(const std::vector<std::string>& inputs, const TraceSetOptions& read,
                                  const AnalysisOptions& options, ProcessGroup& group) {
  ReadReport mine;
  std::vector<RankTrace> ranks = ReadShare(inputs, read, group, mine);
  const ReadReport all = ExchangeReadReports(mine, group);
  const std::string measured = MeasureShare(ranks, FilterLastStep(all.steps, options), options);
  std::vector<RankTrace>().swap(ranks);  // the events are done with before every rank's parts arrive

  std::vector<RankPart> parts;
  int64_t bytes_read = 0;
  std::string error;
  for (const std::string& bytes : group.AllGather(measured)) {
    if (bytes.empty() || bytes[0] == 'E') {
      if (error.empty()) error = bytes.empty() ? "a process sent nothing" : bytes.substr(1);
      continue;
    }
    for (RankPart& p : DecodeParts(bytes.substr(1), bytes_read)) parts.push_back(std::move(p));
  }
  if (!error.empty()) throw InputError(error);
  std::stable_sort(parts.begin(), parts.end(),
                   [](const RankPart& a, const RankPart& b) { return a.analysis.rank < b.analysis.rank; });
  TraceAnalysis a = CombineRanks(std::move(parts), options);
  a.bytes_read = bytes_read;
  return a;
}

}  // namespace paratune
