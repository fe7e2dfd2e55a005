#include "ethos_u.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "job.h"

namespace faultline::ethos_u {

namespace {

// PMEVTYPERn.EV_TYPE values counted (ethosu55_interface.h enum pmu_event): CYCLE and
// NPU_ACTIVE, which a job is for all of its cycles. Other events count nothing here.
constexpr uint32_t kEventCycle = 17, kEventNpuActive = 35;

}  // namespace

EthosU::EthosU(const Peripheral& peripheral, std::unique_ptr<BusPort> port)
    : name_(peripheral.name), npu_(*peripheral.npu), layout_(peripheral.registers), port_(std::move(port)) {
  status_ = Index("STATUS");
  cmd_ = Index("CMD");
  reset_ = Index("RESET");
  qbase_ = Index("QBASE");
  qbase_hi_ = Index("QBASE_HI");
  qread_ = Index("QREAD");
  qsize_ = Index("QSIZE");
  prot_ = Index("PROT");
  pmcr_ = Index("PMCR");
  pmcntenset_ = Index("PMCNTENSET");
  pmcntenclr_ = Index("PMCNTENCLR");
  pmovsset_ = Index("PMOVSSET");
  pmovsclr_ = Index("PMOVSCLR");
  pmintset_ = Index("PMINTSET");
  pmintclr_ = Index("PMINTCLR");
  pmccntr_ = Index("PMCCNTR");
  pmccntr_hi_ = Index("PMCCNTR_HI");
  for (int n = 0; n < 8; ++n) {
    basep_[size_t(n)] = Index(fmt::format("BASEP{}", n));
    basep_hi_[size_t(n)] = Index(fmt::format("BASEP{}_HI", n));
  }
  for (int n = 0; n < 4; ++n) {
    pmevcntr_[size_t(n)] = Index(fmt::format("PMEVCNTR{}", n));
    pmevtyper_[size_t(n)] = Index(fmt::format("PMEVTYPER{}", n));
  }
  shram_.assign(size_t(NpuShramKiB(npu_)) * 1024, 0);
  // Read-only to the CPU: the identification, the status and the queue's read offset.
  read_only_.assign(layout_.size(), false);
  for (const char* r : {"ID", "STATUS", "CONFIG", "PROT", "QREAD"}) read_only_[Index(r)] = true;
  // The interrupt line: STATUS.irq_raised or pmu_irq_raised. Asked at every peripheral
  // write of the board (the map compares the lines before and after), so kept as a mask.
  std::vector<uint32_t> probe(layout_.size(), 0);
  SetField(probe, status_, "irq_raised", 1);
  SetField(probe, status_, "pmu_irq_raised", 1);
  irq_mask_ = probe[status_];
}

size_t EthosU::Index(const std::string& name) const {
  auto it = std::find_if(layout_.begin(), layout_.end(), [&](const Register& r) { return r.name == name; });
  assert(it != layout_.end());
  return size_t(it - layout_.begin());
}

uint32_t EthosU::Field(const std::vector<uint32_t>& values, size_t reg, const char* field) const {
  for (const RegisterField& f : layout_[reg].fields) {
    if (f.name == field) return (values[reg] & f.mask()) >> f.lsb;
  }
  assert(false);
  return 0;
}

void EthosU::SetField(std::vector<uint32_t>& values, size_t reg, const char* field, uint32_t v) const {
  for (const RegisterField& f : layout_[reg].fields) {
    if (f.name == field) values[reg] = (values[reg] & ~f.mask()) | ((v << f.lsb) & f.mask());
  }
}

uint64_t EthosU::Basep(const std::vector<uint32_t>& values, int n) const {
  return uint64_t(values[basep_[size_t(n)]]) | uint64_t(values[basep_hi_[size_t(n)]]) << 32;
}

uint32_t EthosU::Read(size_t reg, std::vector<uint32_t>& values, uint64_t) { return values[reg]; }

void EthosU::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  if (read_only_[reg]) return;
  if (reg == reset_) return SoftReset(values, value);
  const auto mirror = [&](size_t set, size_t clr, bool setting) {
    values[set] = setting ? values[set] | value : values[set] & ~value;
    values[clr] = values[set];
  };
  if (reg == pmcntenset_ || reg == pmcntenclr_) return mirror(pmcntenset_, pmcntenclr_, reg == pmcntenset_);
  if (reg == pmovsset_ || reg == pmovsclr_) return mirror(pmovsset_, pmovsclr_, reg == pmovsset_);
  if (reg == pmintset_ || reg == pmintclr_) return mirror(pmintset_, pmintclr_, reg == pmintset_);
  if (reg == pmcr_) {
    if (value & 2) {
      for (size_t c : pmevcntr_) values[c] = 0;
    }
    if (value & 4) values[pmccntr_] = values[pmccntr_hi_] = 0;
    values[reg] = value & ~6u;  // the reset bits are actions
    return;
  }
  values[reg] = value;
  if ((reg == qbase_ || reg == qbase_hi_ || reg == qsize_) && !running_) SetField(values, status_, "cmd_end_reached", 0);
  if (reg != cmd_) return;
  // CMD: clear_irq drops the interrupt, clear_irq_history the history bits, and
  // transition_to_running_state starts the command stream at QBASE.
  if (value & 2) {
    SetField(values, status_, "irq_raised", 0);
    SetField(values, status_, "pmu_irq_raised", 0);
    attention_ = true;
  }
  values[status_] &= ~(value & 0xFFFF0000u);
  if ((value & 1) && !running_) Start(values, now);
}

// RESET (ethosu_device_u55_u65.c ethosu_dev_soft_reset): every register back to its reset
// value, the job in flight abandoned, and the security and privilege level the write
// asks for taken (PROT), which the driver checks; the reset is over at once (STATUS
// .reset_status reads 0 when the driver polls it).
void EthosU::SoftReset(std::vector<uint32_t>& values, uint32_t reset) {
  if (running_) {
    jobs_.back().outcome = "reset";
    jobs_.back().detail = "a soft reset (RESET written) ended it before it completed";
    running_.reset();
  }
  for (size_t r = 0; r < layout_.size(); ++r) values[r] = layout_[r].reset;
  values[prot_] = reset & 3;
  attention_ = true;
}

void EthosU::Start(std::vector<uint32_t>& values, uint64_t now) {
  NpuJob job;
  job.npu = name_;
  job.model = ToString(npu_.model);
  job.started = job.ended = now;
  job.stream = uint64_t(values[qbase_]) | uint64_t(values[qbase_hi_]) << 32;
  job.stream_size = values[qsize_];
  for (const char* sticky : {"bus_status", "cmd_parse_error", "wd_fault", "ecc_fault"}) {
    if (Field(values, status_, sticky) != 0) {
      job.outcome = "not started";
      job.detail = fmt::format("STATUS.{} is still set from an earlier job: only a soft reset (RESET) clears it",
                               sticky);
      jobs_.push_back(std::move(job));
      return;
    }
  }
  jobs_.push_back(job);
  Running run;
  for (int n = 0; n < 8; ++n) run.basep[size_t(n)] = Basep(values, n);
  // The NPU reads its command stream from QBASE through its own port, as it reads
  // everything else (QCONFIG selects only the AXI port's limits).
  // QSIZE: "a multiple of 4, 0-16 MB" (ethosu55_interface.h); the model reads no more.
  std::vector<uint32_t> words(std::min<uint32_t>(values[qsize_], 16u << 20) / 4);
  const BusResponse fetched = Job::ReadStream(*port_, jobs_.back().stream, words);
  ++jobs_.back().transfer_count;
  jobs_.back().transfers.push_back({"command stream", jobs_.back().stream, words.size() * 4, false});
  jobs_.back().outcome = "running";
  if (!fetched.ok()) {
    run.fetch_failed = true;
    jobs_.back().outcome = "bus error";
    jobs_.back().fault_address = fetched.address;
    jobs_.back().fault_region = port_->Where(fetched.address);
    jobs_.back().fault_by = "the command stream's fetch";
    jobs_.back().detail = fmt::format("read of the {}-byte command stream at 0x{:08x} (QBASE): {} at 0x{:08x}: {}",
                                      words.size() * 4, jobs_.back().stream, ToString(fetched.resp), fetched.address,
                                      fetched.why);
  } else {
    run.stream = Decode(words, npu_.model == NpuModel::kEthosU65);
  }
  uint64_t cycles = run.stream.words;
  for (const Operation& op : run.stream.operations) cycles += Job::Cycles(op, npu_.macs);
  jobs_.back().cycles = std::max<uint64_t>(cycles, 1);
  run.end = now + jobs_.back().cycles;
  running_ = std::move(run);
  SetField(values, status_, "state", 1);
  SetField(values, status_, "cmd_end_reached", 0);
  values[qread_] = 0;
  attention_ = true;
}

void EthosU::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  if (running_ && now >= running_->end) End(values);
}

uint64_t EthosU::NextEventAt(const std::vector<uint32_t>&, uint64_t) const {
  return running_ ? running_->end : UINT64_MAX;
}

// The job's operations run, in order, until one fails; STATUS then says how it ended, as
// the driver's interrupt handler reads it (ethosu_dev_handle_interrupt: success is
// cmd_end_reached with none of bus_status, cmd_parse_error, wd_fault, ecc_fault).
void EthosU::End(std::vector<uint32_t>& values) {
  Running run = std::move(*running_);
  running_.reset();
  NpuJob& record = jobs_.back();
  record.ended = run.end;
  SetField(values, status_, "state", 0);
  SetField(values, status_, "irq_raised", 1);
  attention_ = true;
  CountCycles(values, record.cycles);
  if (run.fetch_failed) {
    SetField(values, status_, "bus_status", 1);
    SetField(values, status_, "faulting_channel", uint32_t(Channel::kCmd));
    return;
  }
  Job job(*port_, run.basep, shram_, record, npu_.macs);
  uint32_t qread = run.stream.end_offset;
  for (size_t i = 0; i < run.stream.operations.size(); ++i) {
    const Operation& op = run.stream.operations[i];
    const Outcome outcome = job.Run(op, i);
    if (outcome.kind == Outcome::Kind::kCompleted) {
      ++record.operations;
      continue;
    }
    record.detail = outcome.detail;
    qread = op.offset;
    if (outcome.kind == Outcome::Kind::kBusError) {
      record.outcome = "bus error";
      SetField(values, status_, "bus_status", 1);
      SetField(values, status_, "faulting_channel", uint32_t(outcome.channel));
    } else if (outcome.kind == Outcome::Kind::kWeightFault) {
      record.outcome = "weight decoder fault";
      SetField(values, status_, "wd_fault", 1);
    } else {
      // No status bit says "not modelled": the firmware sees a parse error, the report
      // says what it was.
      record.outcome = "not modelled";
      SetField(values, status_, "cmd_parse_error", 1);
    }
    values[qread_] = qread;
    return;
  }
  values[qread_] = qread;
  if (run.stream.parse_error) {
    record.outcome = "command parse error";
    record.detail = *run.stream.parse_error;
    SetField(values, status_, "cmd_parse_error", 1);
    return;
  }
  // NPU_OP_STOP, or the last word of the queue read without one (the driver's streams
  // always end with NPU_OP_STOP; ending at QSIZE is taken as its end: UNCONFIRMED).
  record.outcome = "completed";
  if (!run.stream.stopped) record.detail = "the stream ends at QSIZE without NPU_OP_STOP";
  SetField(values, status_, "cmd_end_reached", 1);
  values[status_] |= uint32_t(run.stream.irq_mask) << 16;  // irq_history_mask
}

// The PMU: the cycle counter and the event counters that count CYCLE or NPU_ACTIVE move
// by the job's cycles while PMCR.cnt_en and their enable bit are set; an event counter
// that wraps sets its overflow bit, and its interrupt if PMINTSET asks for it.
void EthosU::CountCycles(std::vector<uint32_t>& values, uint64_t cycles) {
  if ((values[pmcr_] & 1) == 0) return;
  const uint32_t enabled = values[pmcntenset_];
  if (enabled & 0x80000000u) {
    const uint64_t count =
        ((uint64_t(values[pmccntr_hi_] & 0xFFFF) << 32 | values[pmccntr_]) + cycles) & ((uint64_t{1} << 48) - 1);
    values[pmccntr_] = uint32_t(count);
    values[pmccntr_hi_] = uint32_t(count >> 32);
  }
  for (size_t n = 0; n < 4; ++n) {
    const uint32_t event = values[pmevtyper_[n]] & 0x3FF;
    if (!(enabled & (1u << n)) || (event != kEventCycle && event != kEventNpuActive)) continue;
    const uint64_t sum = uint64_t(values[pmevcntr_[n]]) + cycles;
    values[pmevcntr_[n]] = uint32_t(sum);
    if (sum >> 32) {
      values[pmovsset_] |= 1u << n;
      values[pmovsclr_] = values[pmovsset_];
      if (values[pmintset_] & (1u << n)) SetField(values, status_, "pmu_irq_raised", 1);
    }
  }
}

bool EthosU::Output(const std::string&, const std::vector<uint32_t>& values) const {
  return (values[status_] & irq_mask_) != 0;
}

}  // namespace faultline::ethos_u
