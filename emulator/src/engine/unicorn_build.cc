// Which libunicorn this process runs on. faultline's replacements of libunicorn's internal
// functions (engine/store_path.cc, arm/core_block_count.cc, arm/core_data_faults.cc,
// engine/unicorn_xip.cc, engine/unicorn_dsp_ops.cc, arm/core_traps.cc, riscv/hart_block_count.cc) call them with the signatures and read the struct layouts
// of one build, so they are enabled for that build only: the GNU build-id of the loaded
// library must be one measured here. Any other build — a rebuild of the same 2.0.1
// source, another distribution, another architecture — runs Unicorn's own paths.
#include "unicorn_build.h"

#include <dlfcn.h>
#include <elf.h>
#include <fmt/core.h>
#include <link.h>
#include <unicorn/unicorn.h>

#include <cstdlib>
#include <cstring>

namespace faultline::engine {

namespace {

// Debian 12 libunicorn2 2.0.1.post1-1+b1, amd64: `readelf -n
// /usr/lib/x86_64-linux-gnu/libunicorn.so.2` (NT_GNU_BUILD_ID), the build whose internals
// ../shared/reference/unicorn.md measured and the replacements were written against.
constexpr const char* kKnownBuildIds[] = {"f439d3d09a3fefbcc7d4014bd3f67c12d55957e6"};

struct Search {
  const char* path;  // the object that defines uc_version, from dladdr
  std::string id;
};

// The NT_GNU_BUILD_ID note in the PT_NOTE segments of the object named `path`.
int FindBuildId(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || std::strcmp(info->dlpi_name, search->path) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const unsigned char* name = p + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((n->n_namesz + 3) & ~3u);
      if (desc + n->n_descsz > end) break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        for (uint32_t k = 0; k < n->n_descsz; ++k) search->id += fmt::format("{:02x}", desc[k]);
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

struct Build {
  std::string id;  // empty: not found (a static libunicorn, no note)
  bool known = false;
};

const Build& Loaded() {
  static const Build b = [] {
    Build out;
    Dl_info where{};
    if (dladdr(reinterpret_cast<void*>(&uc_version), &where) != 0 && where.dli_fname != nullptr) {
      Search search{where.dli_fname, {}};
      dl_iterate_phdr(FindBuildId, &search);
      out.id = search.id;
    }
    // For testing the fallback: pretend to run on another build.
    if (const char* e = std::getenv("FAULTLINE_UNICORN_BUILD_ID")) out.id = e;
    for (const char* known : kKnownBuildIds) out.known = out.known || out.id == known;
    return out;
  }();
  return b;
}

}  // namespace

bool KnownUnicornBuild() { return Loaded().known; }

std::string UnicornBuildId() { return Loaded().id; }

// uc_version(): major << 24 | minor << 16 | patch << 8 | extra (unicorn.h); Debian 12's
// libunicorn2 2.0.1.post1 reports 2.0.1, extra 255.
bool KnownUnicornRelease() { return (uc_version(nullptr, nullptr) & 0xFFFFFF00u) == 0x02000100u; }

bool TurnedOff(const char* var, const char* value) {
  const char* e = std::getenv(var);
  return (e != nullptr && std::strcmp(e, value) == 0) || !KnownUnicornRelease() || !KnownUnicornBuild();
}

}  // namespace faultline::arm
