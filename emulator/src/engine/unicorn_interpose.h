// What faultline's replacements of libunicorn's internal functions share (the Arm ones
// in cpu/, the RV32 ones in riscv/): each defines functions of the same names as
// libunicorn's, exported from the executable, which the library's PLT and GOT bind to,
// and reaches the library's own through RTLD_NEXT.
#pragma once

#include <dlfcn.h>

#include "unicorn_build.h"

namespace faultline::engine {

// libunicorn's own definition of `name`, as a function pointer of type F (null if the
// library has none).
template <typename F>
F Unicorns(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace faultline::engine
