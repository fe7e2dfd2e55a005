#include "activity.h"

#include <fmt/core.h>

#include "faultline/report.h"

namespace faultline {

using json = nlohmann::json;

namespace {

json SymbolJson(const std::optional<SymbolRef>& s) { return s ? json(s->ToString()) : json(nullptr); }

std::string At(uint64_t addr, const std::optional<SymbolRef>& sym) {
  return sym ? fmt::format("0x{:08x} <{}>", addr, sym->ToString()) : fmt::format("0x{:08x}", addr);
}

}  // namespace

std::string FormatEventsText(const std::vector<Event>& events) {
  if (events.empty()) return "";
  std::string out = "events:\n";
  for (const Event& e : events) {
    // A coherence event has two sides: the other master, and the CPU's code (first_pc).
    const std::string cpu = "the instruction at " + At(e.first_pc, e.first_pc_symbol) +
                            (e.pc_precise ? "" : " (approximate: start of its translation block)");
    out += fmt::format("  {}\n    {} time{}, first by {}\n", e.message, e.count, e.count == 1 ? "" : "s",
                       e.first_by.empty()    ? cpu
                       : e.first_pc == 0     ? e.first_by
                                             : e.first_by + "; the CPU's side: " + cpu);
  }
  return out;
}

json EventsJson(const std::vector<Event>& events) {
  json out = json::array();
  for (const Event& e : events) {
    out.push_back({{"kind", e.kind}, {"where", e.where}, {"count", e.count}, {"first_address", e.first_address},
                   {"first_pc", e.first_pc}, {"first_pc_symbol", SymbolJson(e.first_pc_symbol)},
                   {"pc_precise", e.pc_precise}, {"message", e.message},
                   {"first_by", e.first_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.first_by)}});
  }
  return out;
}

json RegisterWritesJson(const std::vector<RegisterWrite>& writes) {
  json out = json::array();
  for (const RegisterWrite& w : writes) {
    out.push_back({{"register", w.name}, {"value", w.value}, {"fields", w.fields}, {"count", w.count}});
  }
  return out;
}

// NPU jobs:
//   ETHOS_U55 (ethos-u55) job 1: completed: 4 operations in 1130 NPU cycles (instructions 5012-6142)
//     command stream 0x21100000, 96 bytes
//     read  64 bytes at 0x21000000: op 0 NPU_OP_DMA_START source (BASEP1 + 0x0)
std::string FormatNpuJobsText(const std::vector<NpuJob>& jobs) {
  if (jobs.empty()) return "";
  std::string out = "NPU jobs:\n";
  for (size_t i = 0; i < jobs.size(); ++i) {
    const NpuJob& j = jobs[i];
    out += fmt::format("  {} ({}) job {}: {}: {} operation{} in {} NPU cycles (instructions {}-{})\n", j.npu, j.model,
                       i + 1, j.outcome, j.operations, j.operations == 1 ? "" : "s", j.cycles, j.started, j.ended);
    if (!j.detail.empty()) out += "    " + j.detail + "\n";
    for (const std::string& n : j.notes) out += "    note: " + n + "\n";
    out += fmt::format("    command stream 0x{:08x}, {} bytes\n", j.stream, j.stream_size);
    for (const NpuJob::Transfer& t : j.transfers) {
      if (t.what == "command stream") continue;
      out += fmt::format("    {} {} bytes at 0x{:08x}: {}\n", t.write ? "wrote" : "read ", t.size, t.address, t.what);
    }
    if (j.transfer_count > j.transfers.size()) {
      out += fmt::format("    ... and {} more transfers\n", j.transfer_count - j.transfers.size());
    }
  }
  return out;
}

json NpuJobsJson(const std::vector<NpuJob>& jobs) {
  json out = json::array();
  for (const NpuJob& j : jobs) {
    json transfers = json::array();
    for (const NpuJob::Transfer& t : j.transfers) {
      transfers.push_back({{"what", t.what}, {"address", t.address}, {"size", t.size}, {"write", t.write}});
    }
    out.push_back({{"npu", j.npu}, {"model", j.model}, {"outcome", j.outcome}, {"detail", j.detail},
                   {"started", j.started}, {"ended", j.ended}, {"cycles", j.cycles}, {"stream", j.stream},
                   {"stream_size", j.stream_size}, {"operations", j.operations}, {"notes", j.notes}, {"transfers", transfers},
                   {"transfer_count", j.transfer_count}});
  }
  return out;
}

std::string FormatDmaTransfersText(const std::vector<DmaTransfer>& transfers) {
  if (transfers.empty()) return "";
  std::string out = "DMA transfers:\n";
  for (const DmaTransfer& t : transfers) {
    out += fmt::format("  {} {} {}: {}: {} bytes 0x{:08x}{} -> 0x{:08x} (instructions {}-{})\n", t.dma, t.unit, t.channel,
                       t.outcome, t.bytes, t.source, t.source_region.empty() ? "" : " (" + t.source_region + ")",
                       t.destination, t.started, t.ended);
    if (!t.detail.empty()) out += "    " + t.detail + "\n";
    if (t.read_unwritten) out += "    note: the source still held its reset contents: nothing (the loader, the firmware) wrote it\n";
  }
  return out;
}

json DmaTransfersJson(const std::vector<DmaTransfer>& transfers) {
  json out = json::array();
  for (const DmaTransfer& t : transfers) {
    out.push_back({{"dma", t.dma}, {"channel", t.channel}, {"unit", t.unit}, {"outcome", t.outcome}, {"detail", t.detail},
                   {"started", t.started}, {"ended", t.ended}, {"source", t.source}, {"source_region", t.source_region},
                   {"destination", t.destination}, {"bytes", t.bytes},
                   {"fault_address", t.fault_address ? json(*t.fault_address) : json(nullptr)},
                   {"fault_region", t.fault_region}, {"read_unwritten", t.read_unwritten}});
  }
  return out;
}

}  // namespace faultline
