// The libunicorn build this process runs on, and the guard every replacement of its
// internal functions stands behind (unicorn_build.cc).
#pragma once

#include <string>

namespace faultline::engine {

// Whether the loaded libunicorn's GNU build-id is one faultline's replacements of its
// internal functions were measured against. FAULTLINE_UNICORN_BUILD_ID=<hex> stands in
// for the measured id (to test the fallback).
bool KnownUnicornBuild();
// The loaded libunicorn's build-id in hex, or empty when it has none (a static library).
std::string UnicornBuildId();

// Whether the loaded libunicorn is the release faultline's replacements of its internal
// functions were written against (2.0.1: their signatures, and the layouts in
// engine/tcg_block.h, arm/core_data_faults.cc). Any other release keeps all of Unicorn's
// own paths: correct, only slower.
bool KnownUnicornRelease();

// Whether a replacement is turned off: the environment variable `var` says `value` (for
// A/B measurement), or the loaded libunicorn is not the release and build it was written
// against.
bool TurnedOff(const char* var, const char* value);

}  // namespace faultline::engine
