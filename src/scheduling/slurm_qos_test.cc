// The QOS table reader (slurm_qos.h) on `sacctmgr -P show qos` output as sacctmgr(1) prints it
// (one header line of the format's field names, '|' between fields; -p also ends each line with
// '|'), and on broken tables.
#include <gtest/gtest.h>

#include <cmath>

#include "scheduling/slurm_conf.h"
#include "scheduling/slurm_qos.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// Whether the error message starts with `prefix`.
::testing::AssertionResult Starts(const std::string& message, const std::string& prefix) {
  if (message.rfind(prefix, 0) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' does not start with '" << prefix << "'";
}

TEST(SlurmQos, ReadsTheTableSacctmgrPrints) {
  const std::vector<SlurmQos> q = ParseSlurmQos(
      "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode\n"
      "normal|0|00:00:00|||cluster\n"
      "High|1000|00:00:00|low, Scavenger|01:00:00|off\n"
      "low|0|00:00:00||1-00:00:00|requeue\n"
      "scavenger|0|00:00:00|||cancel\n",
      "qos.txt");
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0].name, "normal");
  EXPECT_TRUE(q[0].preempt.empty());
  EXPECT_FALSE(q[0].mode.has_value());  // cluster: slurm.conf's PreemptMode
  EXPECT_TRUE(std::isnan(q[0].exempt_time_s));
  EXPECT_EQ(q[1].name, "high");
  EXPECT_EQ(q[1].preempt, (std::vector<std::string>{"low", "scavenger"}));
  EXPECT_EQ(q[1].mode, SlurmPreemptMode::kOff);
  EXPECT_DOUBLE_EQ(q[1].exempt_time_s, 3600);
  EXPECT_EQ(q[2].mode, SlurmPreemptMode::kRequeue);
  EXPECT_DOUBLE_EQ(q[2].exempt_time_s, 86400);
  EXPECT_EQ(q[3].mode, SlurmPreemptMode::kCancel);
  SlurmConfig c;
  c.qos = q;
  EXPECT_EQ(c.Qos("HIGH"), &c.qos[1]);
  EXPECT_EQ(c.Qos("gold"), nullptr);
}

TEST(SlurmQos, ReadsTheParsableFormWithTrailingBarsAndOnlyTheColumnsItNeeds) {
  const std::vector<SlurmQos> q = ParseSlurmQos("Name|Preempt|\nnormal||\nhigh|normal|\n", "qos.txt");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[1].preempt, (std::vector<std::string>{"normal"}));
  EXPECT_FALSE(q[1].mode.has_value());
}

// The fuzz target's QOS seed (fuzz/corpus/cluster_file/slurm_qos.txt) reads.
TEST(SlurmQos, FuzzSeedReads) {
  const std::vector<SlurmQos> q =
      ReadSlurmQos(std::string(PARATUNE_SOURCE_DIR) + "/fuzz/corpus/cluster_file/slurm_qos.txt");
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[1].preempt, (std::vector<std::string>{"low", "scavenger"}));
  EXPECT_DOUBLE_EQ(q[2].exempt_time_s, 300);
}

TEST(SlurmQos, BrokenTablesAreOneLineNamingTheLine) {
  EXPECT_TRUE(Starts(InputErrorOf([] { ParseSlurmQos("", "qos.txt"); }), "qos.txt: empty"));
  EXPECT_TRUE(Starts(InputErrorOf([] { ParseSlurmQos("Name|Priority\nnormal|0\n", "qos.txt"); }),
                     "qos.txt:1: not a QOS table"));
  EXPECT_TRUE(
      Starts(InputErrorOf([] { ParseSlurmQos("normal|0||cluster\n", "qos.txt"); }), "qos.txt:1: not a QOS table"));
  EXPECT_TRUE(Starts(InputErrorOf([] { ParseSlurmQos("Name|Preempt\nnormal\n", "qos.txt"); }),
                     "qos.txt:2: 1 fields where the header has 2"));
  EXPECT_TRUE(
      Starts(InputErrorOf([] { ParseSlurmQos("Name|Preempt\n|low\n", "qos.txt"); }), "qos.txt:2: Name is empty"));
  EXPECT_TRUE(Starts(InputErrorOf([] { ParseSlurmQos("Name|Preempt\nlow|\nLOW|\n", "qos.txt"); }),
                     "qos.txt:3: QOS 'low' is named twice"));
  EXPECT_TRUE(Starts(InputErrorOf([] { ParseSlurmQos("Name|Preempt|PreemptMode\nlow||suspend\n", "qos.txt"); }),
                     "qos.txt:2: PreemptMode=suspend of QOS 'low'"));
  EXPECT_TRUE(Starts(InputErrorOf([] { ParseSlurmQos("Name|Preempt|PreemptExemptTime\nlow||soon\n", "qos.txt"); }),
                     "qos.txt:2: PreemptExemptTime=soon of QOS 'low' is not a Slurm time"));
}

}  // namespace
}  // namespace paratune
