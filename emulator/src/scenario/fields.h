// What scenario_file.cc (the scenario's top-level keys, overrides, setup steps) and
// expect_file.cc (its `expect:` section) share: strict readers of lists, bytes, words and
// locations. Internal to the emulator library.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../board/yaml_fields.h"
#include "faultline/scenario.h"

namespace faultline::scenario_fields {

const std::vector<std::pair<std::string, std::string>>& Outcomes();
bool StartsWithDigit(const std::string& s);
std::vector<Field> Items(const Field& f, const char* example);
uint32_t U32(const Field& f);
std::vector<uint8_t> Bytes(const Field& f);
std::vector<uint32_t> Words(const Field& f);
std::vector<uint8_t> LittleEndian(const std::vector<uint32_t>& words);
std::string Glob(const Field& f);
Location ParseLocation(const Mapping& m, const Field& f);
// `uart: NAME` must name a UART port of the scenario's board.
std::string UartName(const Board& board, const Field& f);

// The `expect:` section (expect_file.cc).
Expectations ParseExpect(const Board& board, const Field& f);

}  // namespace faultline::scenario_fields
