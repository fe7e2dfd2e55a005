// `host_page:` in a board file: memory the host owns at fixed addresses (Kelvin's model
// header page), read strictly like the rest of the board.
#include "host_page.h"

namespace faultline {

// An output section's name as the linker script writes it (`.model_input`).
std::string SectionName(const Field& f) {
  std::string name = f.Scalar();
  if (name.size() < 2 || name[0] != '.' || name.find_first_of(" \t*()") != std::string::npos) {
    f.Fail(fmt::format("'{}' is not an output section name", name),
           "give the name of the output section as the linker script writes it, e.g. .model_input");
  }
  return name;
}

// `host_page: {base, size, input, output_header: {section, symbol?, base, size}}`. Where
// the page lies on the board is checked once the regions are known (ParseBoard).
HostPage ParseHostPage(const Field& f) {
  Mapping m(f, {"base", "size", "input", "output_header"});
  HostPage p;
  p.where = f.Where();
  p.base = m.Require("base").Address();
  const Field size = m.Require("size");
  p.size = size.Size();
  if (p.size == 0 || p.size > (uint64_t{1} << 32) - p.base) {
    size.Fail(fmt::format("a page of 0x{:x} bytes at 0x{:x} is empty or runs past 4 GiB", p.size, p.base),
              "give the size of the memory the host owns, e.g. 4K");
  }
  p.input_section = SectionName(m.Require("input"));
  Mapping hm(m.Require("output_header"), {"section", "symbol", "base", "size"});
  p.header_section = SectionName(hm.Require("section"));
  if (hm.Has("symbol")) p.header_symbol = hm.Get("symbol").Scalar();
  const Field header = hm.Require("base");
  p.header_base = header.Address();
  p.header_size = hm.Require("size").Size();
  if (p.header_size == 0 || p.header_size > p.size || p.header_base < p.base ||
      p.header_base - p.base > p.size - p.header_size) {
    header.Fail(fmt::format("the output header (0x{:x} bytes at 0x{:x}) is not inside the host page "
                            "0x{:08x}-0x{:08x}",
                            p.header_size, p.header_base, p.base, p.base + p.size - 1),
                "the host reads the header in the page it owns: give output_header a base and size inside it "
                "(Kelvin: the page's last 64 bytes, base + size - 64)");
  }
  return p;
}

}  // namespace faultline
