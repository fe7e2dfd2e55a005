// `masters:` in a board file: the bus masters beside the CPU (an NPU, DMA controllers) and
// what each one reaches. bus/bus_view.cc gives each its view of the memory map.
#include "bus_masters.h"

#include <algorithm>
#include <tuple>

namespace faultline {

std::string ToString(MasterKind kind) { return kind == MasterKind::kNpu ? "npu" : "dma"; }

BusMaster ParseBusMaster(const Field& f) {
  Mapping m(f, {"name", "kind", "reaches", "description", "source"});
  BusMaster b;
  b.where = f.Where();
  b.name = m.Require("name").Scalar();
  const Field kind = m.Require("kind");
  if (kind.Scalar() == "npu") {
    b.kind = MasterKind::kNpu;
  } else if (kind.Scalar() == "dma") {
    b.kind = MasterKind::kDma;
  } else {
    kind.Fail(fmt::format("unknown master kind '{}'", kind.Scalar()),
              "write npu (an Ethos-U, Neural-ART) or dma (a DMA controller)");
  }
  const Field reaches = m.Require("reaches");
  if (!reaches.node.IsSequence() || reaches.node.size() == 0) {
    reaches.Fail("expected a list of the regions, aliases and peripherals it reaches",
                 "write e.g. reaches: [sram0, dtcm_global]");
  }
  for (size_t i = 0; i < reaches.node.size(); ++i) {
    b.reaches.push_back(Field{reaches.node[i], f.origin, fmt::format("{}.reaches[{}]", f.path, i)}.Scalar());
  }
  if (m.Has("description")) b.description = m.Get("description").Scalar();
  if (m.Has("source")) b.source = m.Get("source").Scalar();
  return b;
}

void ResolveBusMasters(const std::vector<BusMaster>& masters, Board& board) {
  const auto named = [&](const std::string& name) {
    return std::any_of(board.regions.begin(), board.regions.end(), [&](const Region& r) { return r.name == name; }) ||
           std::any_of(board.aliases.begin(), board.aliases.end(), [&](const Alias& a) { return a.name == name; }) ||
           std::any_of(board.peripherals.begin(), board.peripherals.end(),
                       [&](const Peripheral& p) { return p.name == name; });
  };
  for (const BusMaster& b : masters) {
    for (const BusMaster& earlier : board.masters) {
      if (earlier.name == b.name) {
        throw InputError(b.where, fmt::format("master name '{}' is used twice (first at {})", b.name, earlier.where),
                         "give each master a unique name");
      }
    }
    for (const std::string& r : b.reaches) {
      if (!named(r)) {
        throw InputError(b.where, fmt::format("master '{}' reaches '{}', which is no region, alias or peripheral of this board", b.name, r),
                         "name a region, alias or peripheral the board declares (`faultline board show` lists them)");
      }
    }
    board.masters.push_back(b);
  }
  for (const Peripheral& p : board.peripherals) {
    if (!p.npu && !p.dma) continue;  // a master among the devices: its `master:` is one of its kind
    const auto [master, kind, what] = p.npu ? std::tuple(p.npu->master, MasterKind::kNpu, "NPU")
                                            : std::tuple(p.dma->master, MasterKind::kDma, "DMA controller");
    auto m = std::find_if(board.masters.begin(), board.masters.end(), [&](const BusMaster& x) { return x.name == master; });
    if (m == board.masters.end() || m->kind != kind) {
      throw InputError(p.where, fmt::format("{} {} names master '{}', which is no {} entry of masters:", what, p.name,
                                            master, ToString(kind)),
                       fmt::format("add masters: - {{name: {}, kind: {}, reaches: [...]}}, listing the regions and "
                                   "aliases the {}'s ports reach", master, ToString(kind), what));
    }
  }
}

}  // namespace faultline
