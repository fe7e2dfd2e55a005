#include "event_log.h"

#include <algorithm>

namespace faultline::arm {

bool EventLog::Count(const std::string& kind, const std::string& where) {
  for (Event& e : events_) {
    if (e.kind == kind && e.where == where) {
      ++e.count;
      return true;
    }
  }
  return false;
}

void EventLog::Record(Event first) {
  if (Count(first.kind, first.where)) return;
  first.count = 1;
  events_.push_back(std::move(first));
}

void EventLog::RegisterWritten(const std::string& name, uint32_t value, const std::string& fields) {
  auto it = std::find_if(register_writes_.begin(), register_writes_.end(),
                         [&](const RegisterWrite& w) { return w.name == name; });
  if (it == register_writes_.end()) {
    register_writes_.push_back({name, value, fields, 1});
  } else {
    it->value = value;
    it->fields = fields;
    ++it->count;
  }
}

void EventLog::UnmodelledReadAt(uint64_t word, size_t peripheral, uint64_t now, uint32_t pc, bool pc_precise) {
  UnmodelledRead& u = unmodelled_reads_[word];
  u.gap = u.count == 0 ? 0 : now - u.last_time;
  u.peripheral = peripheral;
  u.last_time = now;
  ++u.count;
  u.pc_precise = pc_precise;
  u.pc = pc;
}

}  // namespace faultline::arm
