// libFuzzer target: any text given as a scenario file is a Scenario or an InputError with
// file:line, never a crash or a hang. Board names resolve against boards/ and
// `firmware: {fixture: ...}` against the built fixtures, as `faultline scenario` does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "faultline/error.h"
#include "faultline/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    faultline::ParseScenario(std::string(reinterpret_cast<const char*>(data), size),
                             FAULTLINE_SCENARIOS_DIR "/fuzz.yaml",
                             {FAULTLINE_BOARDS_DIR, FAULTLINE_FIXTURE_DIR});
  } catch (const faultline::InputError&) {
  }
  return 0;
}
