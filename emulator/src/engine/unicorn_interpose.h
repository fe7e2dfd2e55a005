// What faultline's replacements of libunicorn's internal functions share (the Arm ones
// in cpu/, the RV32 ones in riscv/): each defines functions of the same names as
// libunicorn's, exported from the executable, which the library's PLT and GOT bind to,
// and reaches the library's own through RTLD_NEXT.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstring>

#include "unicorn_build.h"

namespace faultline::engine {

// libunicorn's own definition of `name`, as a function pointer of type F (null if the
// library has none).
template <typename F>
F Unicorns(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// The T at `offset` bytes from `p` inside one of libunicorn's structures (their layouts
// are read off its disassembly; each replacement names the ones it uses).
template <typename T>
T Field(const void* p, ptrdiff_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(p) + offset, sizeof v);
  return v;
}

}  // namespace faultline::engine
