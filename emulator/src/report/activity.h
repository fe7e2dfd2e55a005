// What the run's other actors did, for the text and JSON reports: the events (accesses
// that did not stop the run), the last register writes, and the NPU jobs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faultline/run.h"

namespace faultline {

nlohmann::json EventsJson(const std::vector<Event>& events);
nlohmann::json RegisterWritesJson(const std::vector<RegisterWrite>& writes);
// The report's `NPU jobs:` section ("" for none): each job, how it ended, what it moved.
std::string FormatNpuJobsText(const std::vector<NpuJob>& jobs);
nlohmann::json NpuJobsJson(const std::vector<NpuJob>& jobs);
// The DMA channels' transfers: "DMA transfers:" lines; the JSON's `dma_transfers`.
std::string FormatDmaTransfersText(const std::vector<DmaTransfer>& transfers);
nlohmann::json DmaTransfersJson(const std::vector<DmaTransfer>& transfers);

}  // namespace faultline
