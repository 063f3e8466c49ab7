#include "util/prometheus_text.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

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
