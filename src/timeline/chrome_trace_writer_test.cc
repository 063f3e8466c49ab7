#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <limits>
#include <string>

#include "timeline/chrome_trace.h"

namespace paratune {
namespace {

// Strings come out as nlohmann::json writes them (ensure_ascii off, invalid UTF-8 replaced).
TEST(ChromeTraceWriter, QuotesLikeNlohmannJson) {
  for (const std::string& s :
       {std::string("plain"), std::string("a \"q\" \\ b"), std::string("tab\tnl\ncr\r"), std::string("\x01\x1f\x7f"),
        std::string("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::string(), std::string("\b\f")})
    EXPECT_EQ(JsonQuote(s), nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) << s;
  EXPECT_EQ(JsonQuote("\x01"), "\"\\u0001\"");
  // Invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong, a surrogate):
  // each bad byte becomes U+FFFD.
  EXPECT_EQ(JsonQuote("a\x80"
                      "b"),
            "\"a\xEF\xBF\xBD"
            "b\"");
  EXPECT_EQ(JsonQuote("\xe2\x82"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(ChromeTraceWriter, WritesNamesEventsAndCounters) {
  ChromeTraceWriter w(3, {{"producer", "test"}});
  w.ProcessName(2, "rank \"2\"");
  w.ProcessSortIndex(2, 2);
  w.ThreadName(2, 7, "stream 7");
  w.Complete(2, 7, 12.3456, 0.5, "gemm\n", "gemm",
             {TraceArg::Str("type", "COMPUTATION"), TraceArg::Int("correlation", -1)});
  w.Counter(2, 1.0, "GPU time %",
            {TraceArg::Num("compute", 33.33333, 2), TraceArg::Num("bad", std::numeric_limits<double>::quiet_NaN())});
  EXPECT_EQ(w.events(), 5u);
  const std::string text = w.Finish();
  EXPECT_NE(text.find("\"ts\": 12.346, \"dur\": 0.500"), std::string::npos) << text;  // three decimals
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("displayTimeUnit"), "ms");
  EXPECT_EQ(j.at("otherData").at("producer"), "test");
  const nlohmann::json& ev = j.at("traceEvents");
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].at("args").at("name"), "rank \"2\"");
  EXPECT_EQ(ev[1].at("args").at("sort_index"), 2);
  EXPECT_EQ(ev[2].at("tid"), 7);
  EXPECT_EQ(ev[3].at("ph"), "X");
  EXPECT_EQ(ev[3].at("name"), "gemm\n");
  EXPECT_EQ(ev[3].at("cat"), "gemm");
  EXPECT_EQ(ev[3].at("args").at("correlation"), -1);
  EXPECT_DOUBLE_EQ(ev[3].at("ts").get<double>(), 12.346);
  EXPECT_EQ(ev[4].at("ph"), "C");
  EXPECT_DOUBLE_EQ(ev[4].at("args").at("compute").get<double>(), 33.33);
  EXPECT_TRUE(ev[4].at("args").at("bad").is_null());
}

// A flow arrow as HTA's overlay writes one (hta/common/trace.py Trace.flow_event): both ends share
// the id; the end is bound to its enclosing slice.
TEST(ChromeTraceWriter, WritesFlowEnds) {
  ChromeTraceWriter w(3);
  w.Flow(1, 7, 10.0, 42, /*start=*/true, "critical_path", "critical_path",
         {TraceArg::Int("weight", 15), TraceArg::Str("type", "critical_path_kernel_launch_delay")});
  w.Flow(1, -2, 25.5, 42, /*start=*/false, "critical_path", "critical_path", {});
  const nlohmann::json ev = nlohmann::json::parse(w.Finish()).at("traceEvents");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].at("ph"), "s");
  EXPECT_EQ(ev[0].at("id"), 42);
  EXPECT_EQ(ev[0].at("tid"), 7);
  EXPECT_FALSE(ev[0].contains("bp"));
  EXPECT_EQ(ev[0].at("args").at("weight"), 15);
  EXPECT_EQ(ev[0].at("cat"), "critical_path");
  EXPECT_EQ(ev[1].at("ph"), "f");
  EXPECT_EQ(ev[1].at("id"), 42);
  EXPECT_EQ(ev[1].at("bp"), "e");
  EXPECT_DOUBLE_EQ(ev[1].at("ts").get<double>(), 25.5);
}

// A timeline of two events: shortest round-trip times (1/3 s keeps all its digits), names from
// the phase and micro-batch, args present only where set.
TEST(ChromeTraceWriter, TimelineText) {
  Timeline t;
  t.ranks = 1;
  t.events.push_back({0, Timeline::kComputeStream, Phase::kForward, 3, 1, 0.0, 1.0 / 3.0, ""});
  t.events.push_back({0, Timeline::kCommStream, Phase::kAllReduce, -1, -1, 0.5, 0.25, "grad all-reduce"});
  const nlohmann::json j = ChromeTraceJson(t);
  const nlohmann::json& ev = j.at("traceEvents");
  ASSERT_EQ(ev.size(), 6u);  // process name, sort index, two thread names, two events
  EXPECT_EQ(ev[2].at("args").at("name"), "compute");
  EXPECT_EQ(ev[3].at("args").at("name"), "comm");
  EXPECT_EQ(ev[4].at("name"), "F3");
  EXPECT_EQ(ev[4].at("cat"), "F");
  EXPECT_EQ(ev[4].at("args").at("micro_batch"), 3);
  EXPECT_EQ(ev[4].at("args").at("virtual_stage"), 1);
  EXPECT_DOUBLE_EQ(ev[4].at("dur").get<double>(), 1e6 / 3.0);
  EXPECT_EQ(ev[5].at("name"), "grad all-reduce");
  EXPECT_EQ(ev[5].at("tid"), 1);
  EXPECT_FALSE(ev[5].at("args").contains("micro_batch"));
  EXPECT_DOUBLE_EQ(ev[5].at("ts").get<double>(), 5e5);
}

}  // namespace
}  // namespace paratune
