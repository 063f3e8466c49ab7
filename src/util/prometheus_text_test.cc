#include "util/prometheus_text.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "util/error.h"

namespace paratune {
namespace {

// The exposition format's own example shapes (prometheus.io/docs/instrumenting/exposition_formats,
// "Text format example"): HELP and TYPE before the samples, label values escaped, NaN and +Inf spelled so.
TEST(PrometheusText, WritesFamiliesWithEscapedLabelsAndSpecialValues) {
  const std::vector<MetricFamily> f = {
      {"paratune_run_mfu_ratio",
       "Model FLOPs utilisation.\nA fraction",
       "gauge",
       {{{{"run", "a\"b\\c\nd"}, {"side", "measured"}}, 0.4}, {{{"run", "x"}, {"side", "predicted"}}, NAN}}},
      {"paratune_runs", "Runs in the registry.", "gauge", {{{}, 3}, {{{"k", "v"}}, INFINITY}}},
  };
  EXPECT_EQ(WritePrometheusText(f),
            "# HELP paratune_run_mfu_ratio Model FLOPs utilisation.\\nA fraction\n"
            "# TYPE paratune_run_mfu_ratio gauge\n"
            "paratune_run_mfu_ratio{run=\"a\\\"b\\\\c\\nd\",side=\"measured\"} 0.4\n"
            "paratune_run_mfu_ratio{run=\"x\",side=\"predicted\"} NaN\n"
            "# HELP paratune_runs Runs in the registry.\n"
            "# TYPE paratune_runs gauge\n"
            "paratune_runs 3\n"
            "paratune_runs{k=\"v\"} +Inf\n");
}

TEST(PrometheusText, NamesFollowTheGrammar) {
  EXPECT_TRUE(IsPrometheusName("a:b_c9"));
  EXPECT_FALSE(IsPrometheusName("9a"));
  EXPECT_FALSE(IsPrometheusName("a-b"));
  EXPECT_FALSE(IsPrometheusName("a:b", true));
  EXPECT_FALSE(IsPrometheusName("__name", true));
  EXPECT_THROW(WritePrometheusText({{"bad-name", "", "gauge", {}}}), std::logic_error);
  EXPECT_THROW(WritePrometheusText({{"a", "", "gauge", {}}, {"a", "", "gauge", {}}}), std::logic_error);
  EXPECT_THROW(WritePrometheusText({{"a", "", "gauge", {{{{"bad label", "v"}}, 1}}}}), std::logic_error);
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// What WritePrometheusText writes reads back, and the format's other forms: timestamps, a
// trailing comma, escapes, comments, special values.
TEST(PrometheusText, ReadsWhatItWritesAndTheFormatsOtherForms) {
  const std::string page =
      WritePrometheusText({{"m_ratio", "help", "gauge", {{{{"run", "a\"b\\c\nd"}}, 0.25}, {{{"run", "x"}}, NAN}}}});
  const auto back = ParsePrometheusText(page + "\n# a comment\nother_total{a=\"1\",} -Inf 1714564800123\n", "p.txt");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].name, "m_ratio");
  EXPECT_EQ(back[0].labels, (std::vector<std::pair<std::string, std::string>>{{"run", "a\"b\\c\nd"}}));
  EXPECT_EQ(back[0].value, 0.25);
  EXPECT_EQ(back[0].line, 3);
  EXPECT_FALSE(back[0].timestamp_ms);
  EXPECT_TRUE(std::isnan(back[1].value));
  EXPECT_EQ(back[2].name, "other_total");
  EXPECT_EQ(back[2].value, -INFINITY);
  EXPECT_EQ(back[2].timestamp_ms, 1714564800123);
  EXPECT_EQ(back[2].line, 7);
}

TEST(PrometheusText, BrokenLinesNameTheFileLineAndWhat) {
  auto error = [](const std::string& text) {
    try {
      ParsePrometheusText(text, "p.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("# HELP a b\n9a 1\n"), "p.txt:2: '9a' is not a metric name");
  EXPECT_EQ(error("a{b=\"1} 2\n"), "p.txt:1: label b: value without its closing quote");
  EXPECT_EQ(error("a{b=1} 2\n"), "p.txt:1: label b without =\"value\"");
  EXPECT_EQ(error("a{b=\"\\x\"} 2\n"), "p.txt:1: label b: escape '\\x' is not \\\\, \\\" or \\n");
  EXPECT_EQ(error("a{b=\"1\" c=\"2\"} 2\n"), "p.txt:1: labels not separated by ',' or closed by '}'");
  EXPECT_EQ(error("a{b:c=\"1\"} 2\n"), "p.txt:1: 'b:c' is not a label name");
  EXPECT_EQ(error("a twelve\n"), "p.txt:1: value 'twelve' is not a number");
  EXPECT_EQ(error("a 1e999\n"), "p.txt:1: value '1e999' is not a number");
  EXPECT_EQ(error("a 1 12.5\n"), "p.txt:1: timestamp '12.5' is not an integer (ms since the epoch)");
  EXPECT_EQ(error("a 1 2 3\n"), "p.txt:1: text after the timestamp");
  EXPECT_EQ(error("a\n"), "p.txt:1: expected a blank before the value");
  EXPECT_EQ(error(std::string("a 1\0", 4) + "\n"), "p.txt:1: NUL byte: not a Prometheus text page");
}

}  // namespace
}  // namespace paratune
