// MetricFamily and WritePrometheusText, and ParsePrometheusText: Prometheus's text exposition
// format 0.0.4 written (gauges) and read (samples, for captures of exporters such as NVIDIA's DCGM
// exporter, trace/dcgm_exporter.h). Written
// (prometheus.io/docs/instrumenting/exposition_formats: `# HELP`, `# TYPE`, then one
// `name{label="value",...} value` line per sample, a family's samples together), with the
// format's escaping (backslash, double quote and newline in label values; backslash and newline
// in help) and its value spellings (NaN, +Inf, -Inf). Names are checked against the format's
// grammar, so a bad name is a programming error caught by the tests, not a page a scraper
// refuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paratune {

struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels;  // (name, value), in the order written
  double value = 0;
};

struct MetricFamily {
  std::string name;  // [a-zA-Z_:][a-zA-Z0-9_:]*, with its unit as suffix (`_seconds`, `_bytes`, `_ratio`)
  std::string help;
  std::string type = "gauge";  // gauge, counter, untyped
  std::vector<MetricSample> samples;
};

// The families in order, each with its HELP and TYPE lines. Throws std::logic_error on a name
// outside the grammar or a family written twice.
std::string WritePrometheusText(const std::vector<MetricFamily>& families);

// One sample line of a page: `name{label="value",...} value [timestamp_ms]`.
struct ParsedSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // unescaped values, in the line's order
  double value = 0;                                         // NaN, +Inf, -Inf as the format spells them
  std::optional<int64_t> timestamp_ms;                      // ms since the epoch, when the line has one
  int line = 0;                                             // 1-based
};

// The sample lines of `text`, in order; comment lines (`# HELP`, `# TYPE`, any `#`) and blank
// lines skipped. Throws InputError "WHERE:LINE: what is wrong" on a line outside the grammar (a
// bad name, an unterminated or badly escaped label value, a value that is not a number, a
// timestamp that is not an integer).
std::vector<ParsedSample> ParsePrometheusText(std::string_view text, const std::string& where);

// Whether `name` is a valid metric name (`label`: a valid label name, no colon, not `__`-prefixed).
bool IsPrometheusName(const std::string& name, bool label = false);

}  // namespace paratune
