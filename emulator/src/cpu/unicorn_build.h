// The libunicorn build guard, for the code that still names it cpu:: (runner/run.cc):
// it lives in engine/unicorn_build.h.
#pragma once

#include "../engine/unicorn_build.h"

namespace faultline::cpu {

using engine::KnownUnicornBuild;
using engine::UnicornBuildId;

}  // namespace faultline::cpu
