// devices/device.h: the peripheral models behind the memory map share one interface, which
// the map dispatches to (issue 40: the room the interrupt controllers, DMA and the NPU will
// join). What it promises: a model per `model:`, and attention asked only by an access that
// may move an output or the next event.
#include "devices/device.h"

#include <gtest/gtest.h>

#include "board_yaml.h"
#include "devices/timer.h"
#include "devices/uart.h"
#include "faultline/board.h"

namespace faultline {
namespace {

size_t Reg(const Peripheral& p, const std::string& name) {
  for (size_t r = 0; r < p.registers.size(); ++r) {
    if (p.registers[r].name == name) return r;
  }
  ADD_FAILURE() << "no register " << name;
  return 0;
}

std::vector<uint32_t> ResetValues(const Peripheral& p) {
  std::vector<uint32_t> v;
  for (const Register& r : p.registers) v.push_back(r.reset);
  return v;
}

TEST(Device, EachModelIsADeviceAndAPlainRegisterBlockIsNot) {
  const Board b = ParseBoard(BoardWith("  - {name: U, model: cmsdk-apb-uart, base: 0x40000000, source: test}\n"
                                       "  - {name: T, model: cmsdk-apb-timer, base: 0x40001000, source: test}\n"
                                       "  - {name: P, base: 0x40002000, registers: [{name: CR, offset: 0}]}\n"),
                             "t.yaml");
  EXPECT_NE(dynamic_cast<UartPort*>(MakeDevice(b.peripherals[0]).get()), nullptr);
  EXPECT_NE(dynamic_cast<TimerPort*>(MakeDevice(b.peripherals[1]).get()), nullptr);
  EXPECT_EQ(MakeDevice(b.peripherals[2]), nullptr);
}

// A CMSDK UART's receiver: a byte due arrives at AdvanceTo; reading DATA takes it (a
// change of state: attention), reading STATE again changes nothing (no attention); a
// write never asks (the map compares the lines around it).
TEST(Device, AUartAsksForAttentionOnlyForAReadThatChangedIt) {
  const Board b =
      ParseBoard(BoardWith("  - {name: U, model: cmsdk-apb-uart, base: 0x40000000, irq: {rx: 1}, source: test}\n"), "t.yaml");
  const Peripheral& p = b.peripherals[0];
  std::unique_ptr<Device> d = MakeDevice(p);
  auto& uart = dynamic_cast<UartPort&>(*d);
  std::vector<uint32_t> v = ResetValues(p);
  d->Write(Reg(p, "CTRL"), 0x3 | 0x8, v, 0);  // TX, RX and the RX interrupt on
  EXPECT_FALSE(d->TakeAttention());
  uart.GiveInput("A");
  EXPECT_EQ(d->NextEventAt(v, 10), 10u) << "a byte is due now";
  d->AdvanceTo(10, v);
  (void)d->TakeAttention();
  EXPECT_TRUE(d->Output("rx", v));
  EXPECT_EQ(d->Read(Reg(p, "DATA"), v, 10), uint32_t('A'));
  EXPECT_TRUE(d->TakeAttention()) << "the byte was taken";
  (void)d->Read(Reg(p, "STATE"), v, 10);
  EXPECT_FALSE(d->TakeAttention()) << "a status poll changes nothing";
  EXPECT_EQ(d->NextEventAt(v, 11), UINT64_MAX);
}

// A CMSDK timer: a write moves its schedule (attention), the schedule is computed from
// the instruction clock, and its one output follows the interrupt status.
TEST(Device, ATimerWriteAsksForAttentionAndItsNextEventIsComputed) {
  const Board b = ParseBoard(BoardWith("  - {name: T, model: cmsdk-apb-timer, base: 0x40000000, irq: 8, source: test}\n"),
                             "t.yaml");
  const Peripheral& p = b.peripherals[0];
  std::unique_ptr<Device> d = MakeDevice(p);
  std::vector<uint32_t> v = ResetValues(p);
  d->Write(Reg(p, "RELOAD"), 99, v, 0);
  d->Write(Reg(p, "VALUE"), 100, v, 0);
  d->Write(Reg(p, "CTRL"), 0x9, v, 0);  // enable, interrupt enable
  EXPECT_TRUE(d->TakeAttention());
  EXPECT_FALSE(d->TakeAttention()) << "asked once";
  EXPECT_EQ(d->NextEventAt(v, 0), 100u) << "the 1 -> 0 step of a count of 100";
  EXPECT_FALSE(d->Output("", v));
  d->AdvanceTo(99, v);
  EXPECT_FALSE(d->Output("", v)) << "not yet";
  d->AdvanceTo(100, v);
  EXPECT_TRUE(d->Output("", v));
  (void)d->Read(Reg(p, "VALUE"), v, 100);
  EXPECT_FALSE(d->TakeAttention()) << "a read does not move the schedule";
}

}  // namespace
}  // namespace faultline
