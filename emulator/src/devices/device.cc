#include "device.h"

#include <algorithm>
#include <cassert>

#include "bus_port.h"
#include "ethos_u/ethos_u.h"
#include "dma330.h"
#include "nxp_edma.h"
#include "stm32_dma.h"
#include "stm32_gpdma.h"
#include "clint.h"
#include "plic.h"
#include "timer.h"
#include "uart.h"

namespace faultline {

std::string ToString(BusResp resp) {
  switch (resp) {
    case BusResp::kOkay: return "OKAY";
    case BusResp::kSlvErr: return "SLVERR";
    case BusResp::kDecErr: return "DECERR";
  }
  return "?";
}

size_t RegisterIndex(const std::vector<Register>& layout, const std::string& name) {
  auto it = std::find_if(layout.begin(), layout.end(), [&](const Register& r) { return r.name == name; });
  assert(it != layout.end());
  return size_t(it - layout.begin());
}

std::unique_ptr<Device> MakeDevice(const Peripheral& peripheral, std::unique_ptr<BusPort> port) {
  if (peripheral.npu) return std::make_unique<ethos_u::EthosU>(peripheral, std::move(port));
  if (peripheral.dma && peripheral.dma->model == DmaModel::kStm32Dma) {
    return std::make_unique<Stm32Dma>(peripheral, std::move(port));
  }
  if (peripheral.dma && peripheral.dma->model == DmaModel::kPl330) {
    return std::make_unique<Dma330>(peripheral, std::move(port));
  }
  if (peripheral.dma && peripheral.dma->model == DmaModel::kNxpEdma4) {
    return std::make_unique<NxpEdma>(peripheral, std::move(port));
  }
  if (peripheral.dma) return std::make_unique<Stm32Gpdma>(peripheral, std::move(port));
  if (peripheral.uart) return std::make_unique<UartPort>(peripheral);
  if (peripheral.timer && *peripheral.timer == TimerModel::kRiscvClint) return std::make_unique<Clint>(peripheral);
  if (peripheral.timer) return std::make_unique<TimerPort>(peripheral);
  if (peripheral.intc) return std::make_unique<Plic>(peripheral);
  return nullptr;
}

}  // namespace faultline
