// arm/event_log.h: what the core's accesses did that did not stop the run, as an object of
// its own (issue 40 item 3): one event per kind and place with its count and first access,
// the last value per register, the polls of undeclared registers.
#include "arm/event_log.h"

#include <gtest/gtest.h>

namespace faultline::arm {
namespace {

TEST(EventLog, EachKindAtEachPlaceIsLoggedOnceWithItsFirstAccessAndCounted) {
  EventLog log;
  EXPECT_FALSE(log.Count("disabled-region-read", "bank")) << "nothing logged yet";
  log.Record({.kind = "disabled-region-read", .where = "bank", .first_address = 0x60000010, .first_pc = 0x100,
              .message = "first"});
  log.Record({.kind = "disabled-region-read", .where = "bank", .first_address = 0x60000020, .first_pc = 0x200,
              .message = "second"});
  log.Record({.kind = "disabled-region-write", .where = "bank", .first_address = 0x60000030});
  EXPECT_TRUE(log.Count("disabled-region-read", "bank"));
  ASSERT_EQ(log.events().size(), 2u);
  EXPECT_EQ(log.events()[0].count, 3u);
  EXPECT_EQ(log.events()[0].first_address, 0x60000010u) << "the first access is the one kept";
  EXPECT_EQ(log.events()[0].first_pc, 0x100u);
  EXPECT_EQ(log.events()[0].message, "first");
  EXPECT_EQ(log.events()[1].count, 1u);
}

TEST(EventLog, ARegisterKeepsItsLastValueAndHowOftenItWasWritten) {
  EventLog log;
  log.RegisterWritten("RCC.MEMENR", 0x10, "AXISRAM5EN=1");
  log.RegisterWritten("PWR.CR", 1, "BANKEN=1");
  log.RegisterWritten("RCC.MEMENR", 0x30, "AXISRAM5EN=1 AXISRAM6EN=1");
  ASSERT_EQ(log.register_writes().size(), 2u);
  EXPECT_EQ(log.register_writes()[0].value, 0x30u);
  EXPECT_EQ(log.register_writes()[0].fields, "AXISRAM5EN=1 AXISRAM6EN=1");
  EXPECT_EQ(log.register_writes()[0].count, 2u);
}

// A poll: the same word read again and again, the gap between the latest two reads kept.
TEST(EventLog, UnmodelledReadsNameThePollAndItsPeriod) {
  EventLog log;
  log.UnmodelledReadAt(0x40021000, 3, 100, 0x800, false);
  log.UnmodelledReadAt(0x40021000, 3, 112, 0x804, true);
  log.UnmodelledReadAt(0x40021000, 3, 124, 0x804, true);
  const EventLog::UnmodelledRead& u = log.unmodelled_reads().at(0x40021000);
  EXPECT_EQ(u.count, 3u);
  EXPECT_EQ(u.gap, 12u);
  EXPECT_EQ(u.last_time, 124u);
  EXPECT_EQ(u.pc, 0x804u);
  EXPECT_TRUE(u.pc_precise);
  EXPECT_EQ(u.peripheral, 3u);
}

}  // namespace
}  // namespace faultline::arm
