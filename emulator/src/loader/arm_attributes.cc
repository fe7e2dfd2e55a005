// The Arm build attributes of an ELF (.ARM.attributes, SHT_ARM_ATTRIBUTES): what the
// compiler and assembler built for. Layout: "Addenda to, and Errata in, the ABI for the Arm
// Architecture" (IHI 0045), §2 "Build attributes": 'A', then subsections of a uint32 length
// and a NUL-terminated vendor ("aeabi"), each holding tagged sub-subsections (1 = the whole
// file) of a uint32 size and then attributes, each a ULEB128 tag and a value: a ULEB128
// integer, or an NTBS string for tags 4, 5, 67 and, past 32, the odd ones; Tag_compatibility
// (32) is an integer and a string.
#include "faultline/image.h"

namespace faultline {

namespace {

struct Reader {
  const std::vector<uint8_t>& b;
  size_t at, end;
  bool ok = true;
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= end) return ok = false, 0;
      const uint8_t byte = b[at++];
      v |= uint64_t(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return v;
    }
    return ok = false, 0;
  }
  std::string Ntbs() {
    std::string s;
    while (at < end && b[at] != 0) s += char(b[at++]);
    if (at >= end) return ok = false, s;
    ++at;
    return s;
  }
  uint32_t U32() {
    if (end - at < 4) return ok = false, 0;
    const uint32_t v = uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
    at += 4;
    return v;
  }
};

}  // namespace

std::optional<ArmAttributes> ParseArmAttributes(const std::vector<uint8_t>& bytes) {
  if (bytes.empty() || bytes[0] != 'A') return std::nullopt;
  ArmAttributes a;
  bool any = false;
  for (size_t at = 1; at + 4 <= bytes.size();) {
    Reader sub{bytes, at, bytes.size()};
    const uint32_t length = sub.U32();
    if (!sub.ok || length < 4 || length > bytes.size() - at) break;
    sub.end = at + length;
    const std::string vendor = sub.Ntbs();
    at += length;
    if (!sub.ok || vendor != "aeabi") continue;
    while (sub.ok && sub.at < sub.end) {
      const size_t start = sub.at;
      const uint64_t scope = sub.Uleb();
      const uint32_t size = sub.U32();
      if (!sub.ok || size < 5 || size > sub.end - start) break;
      Reader attrs{bytes, sub.at, start + size};
      sub.at = start + size;
      if (scope != 1) continue;  // section or symbol attributes: the file's say it all
      while (attrs.ok && attrs.at < attrs.end) {
        const uint64_t tag = attrs.Uleb();
        if (tag == 4 || tag == 5 || tag == 67 || (tag > 32 && tag % 2 == 1)) {
          const std::string s = attrs.Ntbs();
          if (tag == 5) a.cpu_name = s;
          continue;
        }
        const uint64_t value = attrs.Uleb();
        if (tag == 32) attrs.Ntbs();
        if (!attrs.ok) break;
        any = true;
        switch (tag) {
          case 6: a.cpu_arch = uint32_t(value); break;        // Tag_CPU_arch
          case 7: a.profile = char(value); break;             // Tag_CPU_arch_profile
          case 10: a.fp_arch = uint32_t(value); break;        // Tag_FP_arch
          case 28: a.vfp_args = value == 1; break;            // Tag_ABI_VFP_args: VFP registers
          case 48: a.mve_arch = uint32_t(value); break;       // Tag_MVE_arch
        }
      }
    }
  }
  if (!any) return std::nullopt;
  return a;
}

std::string ArmArchName(uint32_t cpu_arch) {
  switch (cpu_arch) {
    case 10: return "v7";
    case 11: return "v6-M";
    case 12: return "v6S-M";
    case 13: return "v7E-M";
    case 16: return "v8-M.baseline";
    case 17: return "v8-M.mainline";
    case 21: return "v8.1-M.mainline";
    case 14: return "v8-A";
    case 15: return "v8-R";
  }
  return "architecture " + std::to_string(cpu_arch);
}

}  // namespace faultline
