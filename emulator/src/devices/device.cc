#include "device.h"

#include "timer.h"
#include "uart.h"

namespace faultline {

std::unique_ptr<Device> MakeDevice(const Peripheral& peripheral) {
  if (peripheral.uart) return std::make_unique<UartPort>(peripheral);
  if (peripheral.timer) return std::make_unique<TimerPort>(peripheral);
  return nullptr;
}

}  // namespace faultline
