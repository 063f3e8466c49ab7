#include "runs/registry.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "runs/registry_schema.h"
#include "runs/sha256.h"
#include "runs/source_reader.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

DbValue DbNumber(double v) { return std::isnan(v) ? DbValue{} : DbValue{v}; }
double NumOr(const DbValue& v) { return IsNull(v) ? kNoFigure : AsDouble(v); }

const char* kRunColumns =
    "name, created_utc, cluster, model, gpu, gpus, layout_json, scenario_json, software, content_hash";

RunRecord RunFromRow(const DbRow& r) {
  RunRecord run;
  run.name = AsText(r[0]);
  run.created_utc = AsText(r[1]);
  run.cluster = AsText(r[2]);
  run.model = AsText(r[3]);
  run.gpu = AsText(r[4]);
  run.gpus = AsInt(r[5]);
  run.layout_json = AsText(r[6]);
  run.scenario_json = AsText(r[7]);
  run.software = AsText(r[8]);
  run.content_hash = AsText(r[9]);
  return run;
}

std::optional<RunRecord> LoadRunRow(Database& db, const std::string& name) {
  const auto rows = db.Query(fmt::format("SELECT {} FROM runs WHERE name = ?", kRunColumns), {name});
  if (rows.empty()) return std::nullopt;
  return RunFromRow(rows[0]);
}

// Fills figures and tags of `runs` (looked up by name), in chunks of IN (...) lists.
void LoadFiguresAndTags(Database& db, std::vector<RunRecord>& runs) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < runs.size(); ++i) index[runs[i].name] = i;
  constexpr size_t kChunk = 500;
  for (size_t start = 0; start < runs.size(); start += kChunk) {
    const size_t end = std::min(runs.size(), start + kChunk);
    std::string in;
    std::vector<DbValue> params;
    for (size_t i = start; i < end; ++i) {
      in += i == start ? "?" : ", ?";
      params.emplace_back(runs[i].name);
    }
    for (const auto& r :
         db.Query("SELECT run, metric, measured, predicted FROM figures WHERE run IN (" + in + ")", params)) {
      const auto m = MetricByName(AsText(r[1]));
      if (!m) continue;  // a metric a newer program wrote
      auto& f = runs[index.at(AsText(r[0]))][*m];
      f.measured = NumOr(r[2]);
      f.predicted = NumOr(r[3]);
    }
    for (const auto& r :
         db.Query("SELECT run, key, value FROM tags WHERE run IN (" + in + ") ORDER BY run, key", params))
      runs[index.at(AsText(r[0]))].tags.emplace_back(AsText(r[1]), AsText(r[2]));
  }
}

void CheckName(const std::string& name) {
  if (name.empty()) throw InputError("runs: a run name must not be empty");
  if (name.find_first_not_of(' ') == std::string::npos) throw InputError("runs: a run name must not be blank");
  if (name.front() == ' ' || name.back() == ' ')
    throw InputError("runs: run name " + Quote(name) + " starts or ends with a space (two runs would look alike)");
  if (name.size() > 200) throw InputError("runs: run name " + Quote(name) + " is longer than 200 characters");
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) throw InputError("runs: run name contains a control character");
}

void CheckTag(const std::string& key, const std::string& value) {
  if (key.empty()) throw InputError("runs: --tag: empty key in '" + key + "=" + value + "' (expected KEY=VALUE)");
  for (unsigned char c : key + value)
    if (c < 0x20 || c == 0x7f) throw InputError("runs: --tag '" + key + "': contains a control character");
}

std::string HashOfSources(std::vector<std::string> shas) {
  std::sort(shas.begin(), shas.end());
  shas.erase(std::unique(shas.begin(), shas.end()), shas.end());
  std::string all;
  for (const auto& s : shas) all += s + "\n";
  return Sha256Hex(all);
}

using Pending = PreparedRecord;

// The run's fields that the record's flags give (--model, --cluster-name, ...) over what its files say.
void ApplyGivenMeta(const Pending& p, RunRecord& run) {
  if (!p.meta.software.empty()) run.software = p.meta.software;
  if (p.model_given) run.model = p.meta.model;
  if (p.cluster_given)
    run.cluster = p.meta.cluster;
  else if (run.cluster.empty())
    run.cluster = DefaultClusterLabel(run.gpu, run.gpus);
  if (!p.meta.scenario_json.empty()) run.scenario_json = p.meta.scenario_json;
  if (!p.meta.layout_json.empty()) run.layout_json = p.meta.layout_json;
  if (!p.meta.gpu.empty()) run.gpu = p.meta.gpu;
  if (p.meta.gpus > 0) run.gpus = p.meta.gpus;
}

// Stores one newly recorded file of run `run`: its source row, figures, findings, series and
// policy figures.
void InsertSourceRows(Database& db, const std::string& run, const ReadSource& s, const std::string& now) {
  const RunRecord& part = s.part;
  db.Exec("INSERT INTO run_sources (run, sha256, file_schema, path, recorded_utc) VALUES (?, ?, ?, ?, ?)",
          {run, s.sha256, s.kind, part.sources.empty() ? std::string() : part.sources[0].path, now});
  for (size_t i = 0; i < kMetricCount; ++i) {
    const Figure& f = part.figures[i];
    if (!HasFigure(f.measured) && !HasFigure(f.predicted)) continue;
    db.Exec(
        "INSERT INTO figures (run, metric, measured, predicted) VALUES (?, ?, ?, ?) ON CONFLICT (run, metric) DO "
        "UPDATE "
        "SET measured = COALESCE(excluded.measured, figures.measured), "
        "predicted = COALESCE(excluded.predicted, figures.predicted)",
        {run, std::string(kMetrics[i].name), DbNumber(f.measured), DbNumber(f.predicted)});
  }
  for (size_t i = 0; i < part.findings.size(); ++i) {
    const auto& fd = part.findings[i];
    db.Exec(
        "INSERT INTO findings (run, source, seq, rule, severity, loss_fraction, title) VALUES (?, ?, ?, ?, ?, ?, ?)",
        {run, s.sha256, static_cast<int64_t>(i), fd.rule, fd.severity, fd.loss_fraction, fd.title});
  }
  for (const auto& se : part.series)
    for (size_t i = 0; i < se.y.size(); ++i)
      db.Exec("INSERT INTO series (run, source, kind, seq, x, y) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
              {run, s.sha256, se.kind, static_cast<int64_t>(i), se.x[i], se.y[i]});
  for (const auto& pol : part.policies)
    for (const auto& [metric, value] : pol.figures)
      db.Exec(
          "INSERT INTO policy_figures (run, policy, metric, value) VALUES (?, ?, ?, ?) ON CONFLICT (run, policy, "
          "metric) "
          "DO UPDATE SET value = excluded.value",
          {run, pol.policy, metric, DbNumber(value)});
}

// Adds `p` to the store; inside a transaction.
RecordResult AddRun(Database& db, const Pending& p, const std::string& now) {
  RecordResult res;
  res.name = p.name;
  std::optional<RunRecord> existing = LoadRunRow(db, p.name);
  std::set<std::string> held;
  if (existing)
    for (const auto& r : db.Query("SELECT sha256 FROM run_sources WHERE run = ?", {p.name})) held.insert(AsText(r[0]));
  res.created = !existing;
  RunRecord run = existing ? *existing : RunRecord{};
  run.name = p.name;
  if (!existing) run.created_utc = now;
  std::vector<const ReadSource*> fresh;
  for (const auto& s : p.sources) {
    if (held.count(s.sha256)) {
      ++res.files_unchanged;
      continue;
    }
    held.insert(s.sha256);
    fresh.push_back(&s);
    ++res.files_added;
    RunRecord meta = s.part;
    meta.sources.clear(), meta.findings.clear(), meta.series.clear(), meta.policies.clear();
    meta.figures = {};
    meta.cluster.clear();
    meta.name.clear(), meta.created_utc.clear(), meta.content_hash.clear();
    MergeInto(run, meta);
  }
  ApplyGivenMeta(p, run);
  run.content_hash = HashOfSources(std::vector<std::string>(held.begin(), held.end()));

  const std::vector<DbValue> values = {run.name, run.created_utc, run.cluster,       run.model,    run.gpu,
                                       run.gpus, run.layout_json, run.scenario_json, run.software, run.content_hash};
  if (!existing) {
    db.Exec(fmt::format("INSERT INTO runs ({}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", kRunColumns), values);
  } else {
    db.Exec(
        "UPDATE runs SET cluster = ?, model = ?, gpu = ?, gpus = ?, layout_json = ?, scenario_json = ?, software = ?, "
        "content_hash = ? WHERE name = ?",
        {run.cluster, run.model, run.gpu, run.gpus, run.layout_json, run.scenario_json, run.software, run.content_hash,
         run.name});
  }
  for (const ReadSource* s : fresh) InsertSourceRows(db, run.name, *s, now);
  for (const auto& [k, v] : p.tags)
    db.Exec(
        "INSERT INTO tags (run, key, value) VALUES (?, ?, ?) ON CONFLICT (run, key) DO UPDATE SET value = "
        "excluded.value",
        {run.name, k, v});
  if (p.baseline)
    db.Exec(
        "INSERT INTO baselines (scope, run, set_utc) VALUES (?, ?, ?) ON CONFLICT (scope) DO UPDATE SET run = "
        "excluded.run, "
        "set_utc = excluded.set_utc",
        {BaselineScopeOf(run), run.name, now});
  return res;
}

std::string GlobToLike(const std::string& glob) {
  std::string out;
  for (char c : glob) {
    if (c == '*')
      out += '%';
    else if (c == '?')
      out += '_';
    else if (c == '%' || c == '_' || c == '\\')
      out += '\\', out += c;
    else
      out += c;
  }
  return out;
}

std::string CsvCell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string CsvNumber(double v) { return HasFigure(v) ? fmt::format("{}", v) : std::string(); }

}  // namespace

std::string UtcNowStamp() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

std::unique_ptr<Database> OpenRegistry(const std::string& location, StoreAccess access) {
  auto db = OpenDatabase(location, access);
  ApplyMigrations(*db, RegistryMigrations());
  return db;
}

std::string BaselineScopeOf(const RunRecord& r) { return "cluster=" + r.cluster + " model=" + r.model; }

namespace {

// A measured step time beyond this factor of the predicted one (either way) is a different run,
// not a model error: the cost model's error on published runs is tens of percent
// (docs/validation.md), never 3x.
constexpr double kStepTimeMismatchFactor = 3.0;

// Lines saying where the files of one record disagree on the run they describe.
std::vector<std::string> MismatchWarnings(const std::vector<ReadSource>& sources) {
  std::vector<std::string> out;
  for (size_t i = 0; i < sources.size(); ++i)
    for (size_t j = i + 1; j < sources.size(); ++j) {
      const RunRecord& a = sources[i].part;
      const RunRecord& b = sources[j].part;
      const auto path = [](const ReadSource& r) {
        return r.part.sources.empty() ? r.kind : r.part.sources.front().path;
      };
      const std::string pair = path(sources[i]) + " and " + path(sources[j]);
      if (!a.model.empty() && !b.model.empty() && a.model != b.model)
        out.push_back(fmt::format("{}: model '{}' beside '{}'; these may be different runs", pair, a.model, b.model));
      if (a.gpus > 0 && b.gpus > 0 && a.gpus != b.gpus)
        out.push_back(fmt::format("{}: {} GPUs beside {}; these may be different runs", pair, a.gpus, b.gpus));
      for (const auto& [m, p] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
        const double measured = (*m)[Metric::kStepTime].measured, predicted = (*p)[Metric::kStepTime].predicted;
        if (HasFigure(measured) && HasFigure(predicted) && measured > 0 && predicted > 0 &&
            std::max(measured / predicted, predicted / measured) > kStepTimeMismatchFactor)
          out.push_back(
              fmt::format("{}: measured step time {:.3g} s beside a predicted {:.3g} s ({:+.0f}%); these may be "
                          "different runs",
                          pair, measured, predicted, 100 * (predicted / measured - 1)));
      }
    }
  return out;
}

}  // namespace

PreparedRecord PrepareRecord(const std::vector<std::string>& files, const RecordOptions& options) {
  if (files.empty()) throw InputError("runs record: no files given");
  PreparedRecord p;
  std::vector<std::string> shas;
  for (const auto& f : files) {
    p.sources.push_back(ReadRunSourceFile(f));
    shas.push_back(p.sources.back().sha256);
  }
  p.name = options.name.empty() ? "run-" + HashOfSources(shas).substr(0, 12) : options.name;
  CheckName(p.name);
  for (const auto& [k, v] : options.tags) CheckTag(k, v);
  p.tags = options.tags;
  p.meta.software = options.software;
  p.meta.cluster = options.cluster;
  p.meta.model = options.model;
  p.cluster_given = !options.cluster.empty();
  p.model_given = !options.model.empty();
  p.baseline = options.baseline;
  p.observer = options.observer;
  p.warnings = MismatchWarnings(p.sources);
  return p;
}

RecordResult CommitRecord(Database& db, const PreparedRecord& p) {
  RecordResult result;
  db.Transaction([&] {
    if (p.observer) p.observer("begin");
    result = AddRun(db, p, UtcNowStamp());
  });
  if (p.observer) p.observer("commit");
  return result;
}

RecordResult Record(Database& db, const std::vector<std::string>& files, const RecordOptions& options) {
  return CommitRecord(db, PrepareRecord(files, options));
}

std::vector<RecordResult> RecordRuns(Database& db, const std::vector<RunRecord>& runs) {
  std::vector<Pending> pending;
  pending.reserve(runs.size());
  for (const auto& r : runs) {
    CheckName(r.name);
    for (const auto& [k, v] : r.tags) CheckTag(k, v);
    Pending p;
    p.name = r.name;
    // The record's content, canonically: what makes it the same record when recorded again.
    nlohmann::json content = {{"cluster", r.cluster},  {"model", r.model},        {"gpu", r.gpu},
                              {"gpus", r.gpus},        {"layout", r.layout_json}, {"scenario", r.scenario_json},
                              {"software", r.software}};
    for (size_t i = 0; i < kMetricCount; ++i) {
      if (HasFigure(r.figures[i].measured)) content["measured"][kMetrics[i].name] = r.figures[i].measured;
      if (HasFigure(r.figures[i].predicted)) content["predicted"][kMetrics[i].name] = r.figures[i].predicted;
    }
    for (const auto& [k, v] : r.tags) content["tags"][k] = v;
    ReadSource s;
    s.kind = "record";
    s.sha256 = Sha256Hex(content.dump());
    s.part = r;
    s.part.sources = {{s.sha256, "record", "", ""}};
    s.part.tags.clear();
    p.sources.push_back(std::move(s));
    p.meta.cluster = r.cluster;
    p.meta.model = r.model;
    p.meta.gpu = r.gpu;
    p.meta.gpus = r.gpus;
    p.meta.layout_json = r.layout_json;
    p.meta.scenario_json = r.scenario_json;
    p.meta.software = r.software;
    p.cluster_given = !r.cluster.empty();
    p.model_given = !r.model.empty();
    p.tags = r.tags;
    pending.push_back(std::move(p));
  }
  std::vector<RecordResult> results;
  db.Transaction([&] {
    results.clear();
    const std::string now = UtcNowStamp();
    for (const auto& p : pending) results.push_back(AddRun(db, p, now));
  });
  return results;
}

RecordResult RecordRun(Database& db, const RunRecord& run) { return RecordRuns(db, {run}).at(0); }

std::vector<RunRecord> RunsOfCluster(Database& db, const std::string& cluster) {
  std::vector<RunRecord> runs;
  for (const auto& r : db.Query(
           fmt::format("SELECT {} FROM runs WHERE cluster = ? ORDER BY created_utc, name", kRunColumns), {cluster}))
    runs.push_back(RunFromRow(r));
  LoadFiguresAndTags(db, runs);
  return runs;
}

std::vector<std::pair<std::string, int64_t>> Clusters(Database& db) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& r : db.Query("SELECT cluster, COUNT(*) FROM runs GROUP BY cluster ORDER BY cluster"))
    out.emplace_back(AsText(r[0]), AsInt(r[1]));
  return out;
}

void ParseListFilter(const std::string& text, ListFilter& f) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw InputError("runs list: --filter '" + text + "': expected KEY=VALUE");
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  if (key == "model")
    f.model = value;
  else if (key == "cluster")
    f.cluster = value;
  else if (key == "gpu")
    f.gpu = value;
  else if (key == "name")
    f.name_glob = value;
  else if (key == "since") {
    const bool date_like =
        value.size() >= 10 && std::isdigit(static_cast<unsigned char>(value[0])) && value[4] == '-' && value[7] == '-';
    if (!date_like)
      throw InputError("runs list: --filter since='" + value + "': expected a UTC date YYYY-MM-DD[THH:MM:SS]");
    f.since = value;
  } else if (key == "tag" || key.rfind("tag.", 0) == 0) {
    std::string k, v;
    if (key == "tag") {
      const size_t e2 = value.find('=');
      if (e2 == std::string::npos) throw InputError("runs list: --filter '" + text + "': expected tag=KEY=VALUE");
      k = value.substr(0, e2), v = value.substr(e2 + 1);
    } else {
      k = key.substr(4), v = value;
    }
    if (k.empty()) throw InputError("runs list: --filter '" + text + "': empty tag key");
    f.tags.emplace_back(k, v);
  } else {
    throw InputError("runs list: --filter '" + text + "': unknown key '" + key +
                     "' (expected model, cluster, gpu, tag, since or name)");
  }
}

namespace {

// The WHERE clause of `filter` (empty when it matches every run) with its parameters appended.
std::string ListWhere(const ListFilter& filter, std::vector<DbValue>& params) {
  std::string where;
  auto add = [&](const std::string& clause, DbValue v) {
    where += (where.empty() ? " WHERE " : " AND ") + clause;
    params.push_back(std::move(v));
  };
  if (!filter.model.empty()) add("model = ?", filter.model);
  if (!filter.cluster.empty()) add("cluster = ?", filter.cluster);
  if (!filter.gpu.empty()) add("gpu = ?", filter.gpu);
  if (!filter.since.empty()) add("created_utc >= ?", filter.since);
  if (!filter.name_glob.empty()) add("name LIKE ? ESCAPE '\\'", GlobToLike(filter.name_glob));
  for (const auto& [k, v] : filter.tags) {
    add("EXISTS (SELECT 1 FROM tags t WHERE t.run = runs.name AND t.key = ? AND t.value = ?)", k);
    params.emplace_back(v);
  }
  return where;
}

}  // namespace

std::vector<RunRecord> List(Database& db, const ListFilter& filter) {
  std::vector<DbValue> params;
  const std::string where = ListWhere(filter, params);
  params.emplace_back(static_cast<int64_t>(std::max(0, filter.limit)));
  std::vector<RunRecord> runs;
  for (const auto& r :
       db.Query(fmt::format("SELECT {} FROM runs{} ORDER BY created_utc DESC, name DESC LIMIT ?", kRunColumns, where),
                params))
    runs.push_back(RunFromRow(r));
  LoadFiguresAndTags(db, runs);
  return runs;
}

int64_t CountRuns(Database& db, const ListFilter& filter) {
  std::vector<DbValue> params;
  const std::string where = ListWhere(filter, params);
  const auto rows = db.Query("SELECT COUNT(*) FROM runs" + where, params);
  return rows.empty() || rows[0].empty() ? 0 : AsInt(rows[0][0]);
}

RunRecord Show(Database& db, const std::string& name) {
  std::optional<RunRecord> row = LoadRunRow(db, name);
  if (!row) throw InputError("runs: no run named '" + name + "' in " + db.Where());
  std::vector<RunRecord> one = {std::move(*row)};
  LoadFiguresAndTags(db, one);
  RunRecord run = std::move(one[0]);
  for (const auto& r :
       db.Query("SELECT sha256, file_schema, path, recorded_utc FROM run_sources WHERE run = ? ORDER BY "
                "recorded_utc, path, sha256",
                {name}))
    run.sources.push_back({AsText(r[0]), AsText(r[1]), AsText(r[2]), AsText(r[3])});
  for (const auto& r :
       db.Query("SELECT rule, severity, loss_fraction, title FROM findings WHERE run = ? ORDER BY source, seq", {name}))
    run.findings.push_back({AsText(r[0]), AsText(r[1]), AsText(r[3]), AsDouble(r[2])});
  for (const auto& r :
       db.Query("SELECT source, kind, x, y FROM series WHERE run = ? ORDER BY source, kind, seq", {name})) {
    if (run.series.empty() || run.series.back().source != AsText(r[0]) || run.series.back().kind != AsText(r[1]))
      run.series.push_back({AsText(r[1]), AsText(r[0]), {}, {}});
    run.series.back().x.push_back(AsDouble(r[2]));
    run.series.back().y.push_back(AsDouble(r[3]));
  }
  for (const auto& r :
       db.Query("SELECT policy, metric, value FROM policy_figures WHERE run = ? ORDER BY policy", {name})) {
    if (run.policies.empty() || run.policies.back().policy != AsText(r[0])) run.policies.push_back({AsText(r[0]), {}});
    run.policies.back().figures.emplace_back(AsText(r[1]), AsDouble(r[2]));
  }
  // Policy figures in kPolicyMetrics order, whatever order the store returned them in.
  for (auto& p : run.policies) {
    auto rank = [](const std::string& m) {
      for (size_t i = 0; i < kPolicyMetrics.size(); ++i)
        if (m == kPolicyMetrics[i].name) return i;
      return kPolicyMetrics.size();
    };
    std::stable_sort(p.figures.begin(), p.figures.end(),
                     [&](const auto& x, const auto& y) { return rank(x.first) < rank(y.first); });
  }
  return run;
}

Comparison CompareRecords(const RunRecord& a, const RunRecord& b) {
  Comparison c;
  c.a = a, c.b = b;
  for (const auto& info : kMetrics) {
    const Figure &fa = a[info.id], &fb = b[info.id];
    FigureDiff d;
    d.metric = info.id;
    if (HasFigure(fa.measured) && HasFigure(fb.measured)) {
      d.measured = true, d.a = fa.measured, d.b = fb.measured;
    } else if (HasFigure(fa.predicted) && HasFigure(fb.predicted)) {
      d.a = fa.predicted, d.b = fb.predicted;
    } else {
      d.measured = HasFigure(fa.measured) || HasFigure(fb.measured);
      d.a = d.measured ? fa.measured : fa.predicted;
      d.b = d.measured ? fb.measured : fb.predicted;
      if (!HasFigure(d.a) && !HasFigure(d.b)) continue;
    }
    d.abs_diff = d.b - d.a;  // NaN when either is missing
    d.rel_diff = HasFigure(d.abs_diff) && d.a != 0 ? d.abs_diff / d.a : kNoFigure;
    c.figures.push_back(d);
  }
  // The breakdown: measured when both runs have a measured step time, else predicted.
  const Figure &sa = a[Metric::kStepTime], &sb = b[Metric::kStepTime];
  const bool measured = HasFigure(sa.measured) && HasFigure(sb.measured);
  const bool predicted = HasFigure(sa.predicted) && HasFigure(sb.predicted);
  if (!measured && !predicted) return c;
  c.terms_measured = measured;
  auto side = [&](const Figure& f) { return measured ? f.measured : f.predicted; };
  c.step_delta_s = side(sb) - side(sa);
  for (const auto& info : kMetrics) {
    if (!info.step_term) continue;
    const double va = side(a[info.id]), vb = side(b[info.id]);
    if (!HasFigure(va) && !HasFigure(vb)) continue;
    // A term one run lacks counts as 0 there (an analysis has no TP/DP split, an estimate no
    // data loader).
    const double delta = (HasFigure(vb) ? vb : 0.0) - (HasFigure(va) ? va : 0.0);
    if (delta == 0) continue;
    c.terms.push_back({info.id, delta, c.step_delta_s != 0 ? delta / c.step_delta_s : kNoFigure});
  }
  std::stable_sort(c.terms.begin(), c.terms.end(),
                   [](const TermMove& x, const TermMove& y) { return std::fabs(x.delta_s) > std::fabs(y.delta_s); });
  return c;
}

Comparison Compare(Database& db, const std::string& a, const std::string& b) {
  return CompareRecords(Show(db, a), Show(db, b));
}

Comparison CompareWithBaseline(Database& db, const std::string& name) {
  RunRecord run = Show(db, name);
  const std::string scope = BaselineScopeOf(run);
  const auto rows = db.Query("SELECT run FROM baselines WHERE scope = ?", {scope});
  if (rows.empty())
    throw InputError("runs compare: no baseline for '" + scope +
                     "' (set one: runs baseline set NAME, or compare two runs)");
  const std::string base = AsText(rows[0][0]);
  if (base == name)
    throw InputError("runs compare: '" + name + "' is itself the baseline of '" + scope + "'; name a second run");
  Comparison c = CompareRecords(Show(db, base), run);
  c.baseline_scope = scope;
  return c;
}

std::string SetBaseline(Database& db, const std::string& name, const std::string& scope) {
  std::string s;
  db.Transaction([&] {
    std::optional<RunRecord> run = LoadRunRow(db, name);
    if (!run) throw InputError("runs baseline set: no run named '" + name + "' in " + db.Where());
    s = scope.empty() ? BaselineScopeOf(*run) : scope;
    db.Exec(
        "INSERT INTO baselines (scope, run, set_utc) VALUES (?, ?, ?) ON CONFLICT (scope) DO UPDATE SET run = "
        "excluded.run, "
        "set_utc = excluded.set_utc",
        {s, name, UtcNowStamp()});
  });
  return s;
}

std::vector<Baseline> Baselines(Database& db) {
  std::vector<Baseline> out;
  for (const auto& r : db.Query("SELECT scope, run, set_utc FROM baselines ORDER BY scope"))
    out.push_back({AsText(r[0]), AsText(r[1]), AsText(r[2])});
  return out;
}

std::vector<std::string> ExportCsvHeader() {
  std::vector<std::string> h = {"name", "created_utc", "cluster", "model", "gpu", "gpus", "software"};
  for (const auto& m : kMetrics) {
    h.push_back(std::string("measured_") + m.name);
    h.push_back(std::string("predicted_") + m.name);
  }
  return h;
}

std::string ExportCsv(Database& db) {
  std::vector<RunRecord> runs;
  std::map<std::string, size_t> index;
  for (const auto& r : db.Query(fmt::format("SELECT {} FROM runs ORDER BY created_utc, name", kRunColumns))) {
    index[AsText(r[0])] = runs.size();
    runs.push_back(RunFromRow(r));
  }
  for (const auto& r : db.Query("SELECT run, metric, measured, predicted FROM figures")) {
    const auto m = MetricByName(AsText(r[1]));
    const auto it = index.find(AsText(r[0]));
    if (!m || it == index.end()) continue;
    runs[it->second][*m] = {NumOr(r[2]), NumOr(r[3])};
  }
  std::string out;
  const auto header = ExportCsvHeader();
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  for (const auto& r : runs) {
    out += CsvCell(r.name) + "," + CsvCell(r.created_utc) + "," + CsvCell(r.cluster) + "," + CsvCell(r.model) + "," +
           CsvCell(r.gpu) + "," + std::to_string(r.gpus) + "," + CsvCell(r.software);
    for (const auto& f : r.figures) out += "," + CsvNumber(f.measured) + "," + CsvNumber(f.predicted);
    out += "\n";
  }
  return out;
}

}  // namespace paratune
