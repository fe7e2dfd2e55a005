// What faultline's replacements of libunicorn's internal functions share
// (unicorn_store_path.cc, core_block_count.cc, core_data_faults.cc): each defines
// functions of the same names as libunicorn's, exported from the executable, which the
// library's PLT and GOT bind to, and reaches the library's own through RTLD_NEXT.
#pragma once

#include <dlfcn.h>

namespace faultline::cpu {

// libunicorn's own definition of `name`, as a function pointer of type F (null if the
// library has none).
template <typename F>
F Unicorns(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// Whether a replacement is turned off: the environment variable `var` says `value` (for
// A/B measurement), or the loaded libunicorn is not the release it was written against.
bool TurnedOff(const char* var, const char* value);

// The CPUState (the start of the ARMCPU allocation CPUARMState lives in) that cpu_exec
// runs on this thread (core_data_faults.cc), or null outside it.
const void* RunningCpu();

}  // namespace faultline::cpu
