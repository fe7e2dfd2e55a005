#include <fmt/core.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "faultline/image.h"

namespace faultline {

namespace {

// C++ names as people write them (rt::plan_memory(void const*, unsigned int)), through
// the ABI's demangler; anything else unchanged.
std::string Demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = status == 0 && out != nullptr ? out : name;
  std::free(out);
  return result;
}

}  // namespace

std::string SymbolRef::ToString() const {
  std::string shown = Demangle(name);
  return offset == 0 ? shown : fmt::format("{}+0x{:x}", shown, offset);
}

SymbolTable::SymbolTable(std::vector<Symbol> symbols) : symbols_(std::move(symbols)) {
  // At equal addresses the lookup (which walks backwards) meets the last one first:
  // order so that it prefers a strong definition over a weak alias (Default_Handler
  // over BusFault_Handler), and a sized symbol over a label.
  std::stable_sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
    if (a.address != b.address) return a.address < b.address;
    if (a.weak != b.weak) return a.weak;
    return a.size < b.size;
  });
}

std::optional<SymbolRef> SymbolTable::Lookup(uint64_t addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  // Walk back over symbols at or below addr: the first that contains it wins; an
  // unsized label right at addr is fine too.
  std::optional<SymbolRef> unsized;
  int checked = 0;
  while (it != symbols_.begin() && checked++ < 64) {
    --it;
    if (it->size > 0 && addr < it->address + it->size) {
      return SymbolRef{it->name, addr - it->address};
    }
    if (it->size == 0 && !unsized && addr - it->address < 0x1000) {
      unsized = SymbolRef{it->name, addr - it->address};
    }
  }
  return unsized;
}

std::optional<Symbol> SymbolTable::Find(const std::string& name) const {
  for (const Symbol& s : symbols_) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

}  // namespace faultline
