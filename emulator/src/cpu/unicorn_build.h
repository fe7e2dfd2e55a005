// The libunicorn build this process runs on (unicorn_build.cc).
#pragma once

#include <string>

namespace faultline::cpu {

// Whether the loaded libunicorn's GNU build-id is one faultline's replacements of its
// internal functions were measured against. FAULTLINE_UNICORN_BUILD_ID=<hex> stands in
// for the measured id (to test the fallback).
bool KnownUnicornBuild();
// The loaded libunicorn's build-id in hex, or empty when it has none (a static library).
std::string UnicornBuildId();

}  // namespace faultline::cpu
