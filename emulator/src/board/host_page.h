// `host_page:` in a board file (host_page.cc). Internal to the emulator library.
#pragma once

#include <string>

#include "faultline/board.h"
#include "yaml_fields.h"

namespace faultline {

// An output section's name as the linker script writes it (`.model_input`).
std::string SectionName(const Field& f);
// `host_page: {base, size, input, output_header: {section, symbol?, base, size}}`.
HostPage ParseHostPage(const Field& f);

}  // namespace faultline
