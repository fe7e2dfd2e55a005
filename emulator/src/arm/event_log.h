// What the core's accesses did that did not stop the run: each kind of event (guest.h) at
// each place once, with its count and its first access; the last value written to each
// modelled register; and the reads of registers nobody declared, per word, which name the
// poll a run that ends on its budget was in. Filled on the served-access path only, which
// these accesses take anyway: nothing is recorded per instruction. Pure C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "faultline/guest.h"

namespace faultline::arm {

class EventLog {
 public:
  struct UnmodelledRead {
    size_t peripheral = 0;
    uint64_t count = 0;
    uint64_t last_time = 0;  // the core's time() at the latest read
    uint64_t gap = 0;        // time() between the latest two reads
    uint32_t pc = 0;         // the latest read's instruction (its block's start unless traced)
    bool pc_precise = false;
  };

  // One more of `kind` at `where`, if one is logged already; false if none is.
  bool Count(const std::string& kind, const std::string& where);
  // Logs `first` (its kind at its place, count 1), or counts one more if one is logged.
  void Record(Event first);
  void RegisterWritten(const std::string& name, uint32_t value, const std::string& fields);
  void UnmodelledReadAt(uint64_t word, size_t peripheral, uint64_t now, uint32_t pc, bool pc_precise);

  const std::vector<Event>& events() const { return events_; }
  const std::vector<RegisterWrite>& register_writes() const { return register_writes_; }
  const std::map<uint64_t, UnmodelledRead>& unmodelled_reads() const { return unmodelled_reads_; }

 private:
  std::vector<Event> events_;
  std::vector<RegisterWrite> register_writes_;
  std::map<uint64_t, UnmodelledRead> unmodelled_reads_;  // by word address
};

}  // namespace faultline::arm
