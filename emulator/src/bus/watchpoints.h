// The debugger's watchpoints (GDB's Z2/Z3/Z4, the DWT comparators a debugger sets): the
// ranges and what each watches. Pure C++, for either core: each turns them into page
// protections of its view of the bus, so that only accesses to watched pages reach its
// invalid-access hook, and into stops before an instruction that would access a watched
// range (arm::Core::SetWatch, riscv::Hart::SetWatch).
#pragma once

#include <cstdint>
#include <vector>

namespace faultline {

class Watchpoints {
 public:
  enum class Kind : uint32_t { kWrite = 2, kRead = 3, kAccess = 4 };  // GDB's Z2, Z3, Z4
  struct Watch {
    uint64_t begin, end;  // [begin, end)
    Kind kind;
    bool Watches(bool write) const { return kind == Kind::kAccess || (kind == Kind::kWrite) == write; }
  };
  // What the watchpoints on a page refuse there.
  struct Refused {
    bool read = false, write = false;
  };

  // Adds (or removes) the watchpoint on [address, address + length), length 0 as 1.
  // False when that changes nothing: it was there already (or was not).
  bool Set(uint64_t address, uint64_t length, Kind kind, bool on);
  bool empty() const { return watches_.empty(); }
  const std::vector<Watch>& all() const { return watches_; }
  // What the watchpoints touching [page, page + page_size) refuse on that page.
  Refused OnPage(uint64_t page, uint64_t page_size) const;
  // The first watchpoint an access of [address, address + size) of this kind hits.
  const Watch* Hit(uint64_t address, uint32_t size, bool write) const;

 private:
  std::vector<Watch> watches_;
};

}  // namespace faultline
