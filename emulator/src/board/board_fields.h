// Board-file grammar that scenario overrides reuse, so that `reset:` and `load_mode:`
// read the same in a scenario as in a board file. Internal to the emulator library.
#pragma once

#include "faultline/board.h"
#include "yaml_fields.h"

namespace faultline {

ResetContents ParseResetField(const Field& field);
LoadMode ParseLoadModeValue(const Field& field);

}  // namespace faultline
