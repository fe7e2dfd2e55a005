// scenarios/**/*.yaml -> Scenario. Strict like board files: every key known, every
// value checked, paths resolved and opened now, each error with file:line and a fix.
#include <algorithm>
#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "../board/board_fields.h"
#include "../board/yaml_fields.h"
#include "faultline/error.h"
#include "faultline/scenario.h"
#include "console_regex.h"
#include "glob.h"
#include "fields.h"
#include "host_write.h"

namespace faultline {

namespace {

namespace fs = std::filesystem;
using namespace scenario_fields;

constexpr uintmax_t kMaxScenarioBytes = 1 << 20;

// Context for one file being parsed.
struct FileParser {
  fs::path path;
  fs::path dir;
  std::string origin;
  const ScenarioContext& context;
};

// `at: SYMBOL|ADDRESS`, `stop_at: SYMBOL|ADDRESS`.
Location ParseCodeLocation(const Field& f) {
  Location loc;
  loc.where = f.Where();
  std::string s = f.Scalar();
  if (s.empty()) f.Fail("empty location", "write a symbol (main) or an address (0x10000400)");
  if (StartsWithDigit(s)) {
    loc.address = f.Address() & ~uint64_t{1};  // a Thumb function pointer has bit 0 set
  } else {
    loc.symbol = s;
  }
  return loc;
}

int ParseRegister(const Field& f) {
  std::string s = f.Scalar();
  if (s == "sp") return 13;
  if (s == "lr") return 14;
  if (s == "pc") return 15;
  if (s.size() >= 2 && s[0] == 'r') {
    int n = -1;
    auto [end, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size() && n >= 0 && n <= 15) return n;
  }
  f.Fail(fmt::format("unknown register '{}'", s), "use r0-r12, sp, lr or pc");
}

// `file:` is relative to the scenario; `fixture_file:` to the fixtures directory, for a
// file the fixtures' build produces (a model blob), as `firmware: {fixture: B/N}` is.
std::vector<uint8_t> ReadFile(const FileParser& p, const Field& f, bool in_fixtures = false) {
  const fs::path relative = fs::path(f.Scalar()).lexically_normal();
  // A fixture file stays inside the fixtures directory (issue 20 item 7): not absolute,
  // no `..` out of it, no symbolic link that leads elsewhere.
  const auto outside = [&] {
    f.Fail(fmt::format("'{}' is outside the fixtures directory", f.Scalar()),
           "give a path inside it, e.g. fixture_file: ml/model.bin, or use file: for a file next to the scenario");
  };
  if (in_fixtures && (relative.is_absolute() || relative.empty() || *relative.begin() == "..")) outside();
  fs::path file = (in_fixtures ? p.context.fixtures_dir : p.dir) / f.Scalar();
  RequireRegularFile(file, f.Where(), "file to load");
  if (in_fixtures) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(file, ec), root = fs::weakly_canonical(p.context.fixtures_dir, ec);
    const auto [r, _] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    if (r != root.end()) outside();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in || fs::is_directory(file)) {
    f.Fail(fmt::format("cannot open '{}' (looked at {})", f.Scalar(), file.string()),
           in_fixtures ? "the path is relative to the fixtures directory: build the fixtures "
                         "(cmake --build build), or point at them with --fixtures DIR or "
                         "FAULTLINE_FIXTURES"
                       : "the path is relative to the scenario file");
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.empty()) f.Fail(fmt::format("'{}' is empty", f.Scalar()), "load a file with contents");
  return bytes;
}

SetupStep ParseStep(const FileParser& p, const Board& board, const Field& f) {
  Mapping m(f, {"at", "load", "write", "fill", "reg", "value", "field"});
  SetupStep step;
  step.where = f.Where();
  if (m.Has("at")) step.at = ParseCodeLocation(m.Get("at"));
  int actions = int(m.Has("load")) + int(m.Has("write")) + int(m.Has("fill")) + int(m.Has("reg")) +
                int(m.Has("field"));
  if (actions != 1) {
    f.Fail("a step needs exactly one of load, write, fill, reg or field",
           "split it into one step per action, each a list item");
  }
  if (m.Has("value") && !m.Has("reg") && !m.Has("field")) {
    m.Get("value").Fail("value goes with reg or field", "write reg: r0 and value: 1");
  }
  if (m.Has("load")) {
    Field lf = m.Get("load");
    Mapping lm(lf, {"file", "fixture_file", "address", "symbol", "offset"});
    step.target = ParseLocation(lm, lf);
    if (lm.Has("file") == lm.Has("fixture_file")) {
      lf.Fail("load needs exactly one of file or fixture_file",
              "write file: weights.bin (next to the scenario) or fixture_file: ml/model.bin (a "
              "build output in the fixtures directory)");
    }
    step.field = lf.path;
    step.bytes = lm.Has("file") ? ReadFile(p, lm.Get("file"))
                                : ReadFile(p, lm.Get("fixture_file"), /*in_fixtures=*/true);
    if (step.target.address) RequireInOneMemory(board, *step.target.address, step.bytes.size(), lf.path, lf.Where());
  } else if (m.Has("write")) {
    Field wf = m.Get("write");
    Mapping wm(wf, {"address", "symbol", "offset", "bytes", "u32"});
    step.target = ParseLocation(wm, wf);
    if (wm.Has("bytes") == wm.Has("u32")) {
      wf.Fail("write needs exactly one of bytes or u32", "write u32: 0xC0FFEE42 or bytes: \"42 ee ff c0\"");
    }
    step.field = wf.path;
    step.bytes = wm.Has("bytes") ? Bytes(wm.Get("bytes")) : LittleEndian(Words(wm.Get("u32")));
    if (step.target.address) RequireInOneMemory(board, *step.target.address, step.bytes.size(), wf.path, wf.Where());
  } else if (m.Has("fill")) {
    Field ff = m.Get("fill");
    Mapping fm(ff, {"address", "symbol", "offset", "size", "byte"});
    step.target = ParseLocation(fm, ff);
    uint64_t size = fm.Require("size").Size();
    if (size == 0 || size > (uint64_t{1} << 32)) {
      fm.Get("size").Fail(fmt::format("fill size {} is not between 1 byte and 4 GiB", size), "give the size in bytes, e.g. 256 or 4K");
    }
    uint64_t byte = fm.Require("byte").Number();
    if (byte > 0xFF) fm.Get("byte").Fail(fmt::format("0x{:x} does not fit in a byte", byte), "use 0x00..0xFF");
    step.field = ff.path;
    step.fill_size = size;
    step.fill_byte = uint8_t(byte);
    // The bytes are made when the run is prepared, once the target (a symbol, perhaps) is
    // known to hold them.
    if (step.target.address) {
      RequireInOneMemory(board, *step.target.address, size, ff.path, ff.Where());
    } else if (size > LargestMemory(board)) {
      fm.Get("size").Fail(fmt::format("fill of {} bytes is larger than every memory of board '{}' (the largest "
                                      "holds {} bytes)",
                                      size, board.name, LargestMemory(board)),
                          "fill at most the size of the memory the symbol is in");
    }
  } else if (m.Has("field")) {
    // field: RCC.MEMENR.AXISRAM5EN (or a whole register, RCC.MEMENR), value: 1
    Field ff = m.Get("field");
    std::string path = ff.Scalar();
    std::string known;
    for (const Peripheral& per : board.peripherals) known += (known.empty() ? "" : ", ") + per.name;
    auto dot = path.find('.');
    auto pit = std::find_if(board.peripherals.begin(), board.peripherals.end(),
                            [&](const Peripheral& per) { return per.name == path.substr(0, dot); });
    if (dot == std::string::npos || pit == board.peripherals.end()) {
      ff.Fail(fmt::format("'{}' is not PERIPHERAL.REGISTER[.FIELD] of board '{}'", path, board.name),
              "peripherals: " + (known.empty() ? std::string("none") : known));
    }
    auto dot2 = path.find('.', dot + 1);
    std::string reg_name = path.substr(dot + 1, dot2 == std::string::npos ? std::string::npos : dot2 - dot - 1);
    auto rit = std::find_if(pit->registers.begin(), pit->registers.end(),
                            [&](const Register& r) { return r.name == reg_name; });
    if (rit == pit->registers.end()) ff.Fail(fmt::format("{} has no register '{}'", pit->name, reg_name), "see faultline board show");
    step.kind = HostAction::Kind::kField;
    step.peripheral = size_t(pit - board.peripherals.begin());
    step.peripheral_register = size_t(rit - pit->registers.begin());
    uint64_t limit = 0xFFFFFFFFull;
    if (dot2 != std::string::npos) {
      std::string field = path.substr(dot2 + 1);
      auto fit = std::find_if(rit->fields.begin(), rit->fields.end(),
                              [&](const RegisterField& x) { return x.name == field; });
      if (fit == rit->fields.end()) ff.Fail(fmt::format("{}.{} has no field '{}'", pit->name, reg_name, field), "see faultline board show");
      step.mask = fit->mask();
      step.shift = fit->lsb;
      limit = (uint64_t{1} << (fit->msb - fit->lsb + 1)) - 1;
    }
    step.value = U32(m.Require("value"));
    if (step.value > limit) m.Get("value").Fail(fmt::format("{} does not fit {}", step.value, path), "use a smaller value");
  } else {
    step.kind = HostAction::Kind::kRegister;
    step.reg = ParseRegister(m.Get("reg"));
    step.value = U32(m.Require("value"));
  }
  return step;
}

Board ParseBoardRef(const FileParser& p, const Field& f) {
  std::string s = f.Scalar();
  fs::path as_path(s);
  if (as_path.extension() == ".yaml" || as_path.extension() == ".yml" || s.find('/') != std::string::npos) {
    fs::path file = p.dir / as_path;
    if (!PathExists(file)) {
      f.Fail(fmt::format("board file '{}' not found (looked at {})", s, file.string()),
             "the path is relative to the scenario file; or name a built-in board");
    }
    RequireRegularFile(file, f.Where() + ": board", "board .yaml");  // a directory or device: at this line
    return LoadBoardFile(file);
  }
  fs::path builtin = p.context.boards_dir / (s + ".yaml");
  if (!PathExists(builtin)) {
    std::set<std::string> known;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(p.context.boards_dir, ec)) {
      if (e.path().extension() == ".yaml") known.insert(e.path().stem().string());
    }
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    f.Fail(fmt::format("unknown board '{}'", s),
           fmt::format("use one of: {} (or a board .yaml path relative to the scenario)", list));
  }
  return LoadBoardFile(builtin);
}

void ApplyOverrides(const FileParser& p, const Field& f, Scenario& s) {
  Mapping m(f, {"load_mode", "remove", "regions", "gates", "boot_address", "boot_config"});
  auto find = [&](const Field& name_field) {
    std::string name = name_field.Scalar();
    for (size_t i = 0; i < s.board.regions.size(); ++i) {
      if (s.board.regions[i].name == name) return i;
    }
    std::string list;
    for (const Region& r : s.board.regions) list += (list.empty() ? "" : ", ") + r.name;
    name_field.Fail(fmt::format("board '{}' has no region '{}'", s.board.name, name),
                    "use one of: " + list);
  };
  if (m.Has("load_mode")) s.load_mode = ParseLoadModeValue(m.Get("load_mode"));
  // Where reset reads the vector table, as `run --boot-address` / `--boot-config`.
  if (m.Has("boot_address") && m.Has("boot_config")) {
    m.Get("boot_config").Fail("both boot_address and boot_config", "give one: the boot config's mramAddress is the boot address");
  }
  if (m.Has("boot_address")) {
    s.boot_address = m.Get("boot_address").Address();
    s.boot_source = "overrides.boot_address";
  }
  if (m.Has("boot_config")) {
    Field bf = m.Get("boot_config");
    const fs::path file = p.dir / bf.Scalar();
    if (!PathExists(file)) {
      bf.Fail(fmt::format("boot config '{}' not found (looked at {})", bf.Scalar(), file.string()),
              "the path is relative to the scenario file");
    }
    const BootConfig c = ReadBootConfig(file.string());
    s.boot_address = c.image_address;
    s.boot_source = fmt::format("overrides.boot_config {}: {}.mramAddress", bf.Scalar(), c.entry);
  }
  if (m.Has("regions")) {
    Field rf = m.Get("regions");
    if (!rf.node.IsMap()) rf.Fail("expected a mapping of region name to changes", "write regions: {dtcm: {reset: zero}}");
    for (const auto& kv : rf.node) {
      Field name{kv.first, f.origin, rf.path};
      size_t i = find(name);
      Field changes{kv.second, f.origin, rf.path + "." + kv.first.Scalar()};
      Mapping cm(changes, {"reset"});
      s.board.regions[i].reset = ParseResetField(cm.Require("reset"));
    }
  }
  if (m.Has("remove")) {
    std::vector<size_t> drop;
    for (const Field& name : Items(m.Get("remove"), "write remove: [sram1]")) drop.push_back(find(name));
    std::sort(drop.rbegin(), drop.rend());
    drop.erase(std::unique(drop.begin(), drop.end()), drop.end());
    for (size_t i : drop) {
      // The region's aliases and gate go with it.
      const std::string name = s.board.regions[i].name;
      std::erase_if(s.board.aliases, [&](const Alias& a) { return a.of == name; });
      std::erase_if(s.board.gates, [&](const Gate& g) { return g.region == name; });
      s.board.regions.erase(s.board.regions.begin() + long(i));
    }
    if (s.board.regions.empty()) m.Get("remove").Fail("that removes every region", "keep at least the boot region");
  }
  if (m.Has("gates")) {
    // Force a gated region open or closed whatever its registers say: to show that a
    // failure is the gate's, or to skip bring-up code the scenario is not about.
    Field gf = m.Get("gates");
    if (!gf.node.IsMap()) gf.Fail("expected a mapping of region name to open or closed", "write gates: {axisram5: open}");
    for (const auto& kv : gf.node) {
      Field name{kv.first, f.origin, gf.path};
      auto it = std::find_if(s.board.gates.begin(), s.board.gates.end(),
                             [&](const Gate& g) { return g.region == name.Scalar(); });
      if (it == s.board.gates.end()) {
        std::string list;
        for (const Gate& g : s.board.gates) list += (list.empty() ? "" : ", ") + g.region;
        name.Fail(fmt::format("board '{}' has no gate on region '{}'", s.board.name, name.Scalar()),
                  "gated regions: " + (list.empty() ? std::string("none") : list));
      }
      static const std::vector<std::pair<std::string, bool>> kStates = {{"open", true}, {"closed", false}};
      it->forced = Field{kv.second, f.origin, gf.path + "." + name.Scalar()}.Choice("gate state", kStates);
    }
  }
}

fs::path ParseFirmware(const FileParser& p, const Field& f) {
  if (f.node.IsMap()) {
    Mapping m(f, {"fixture"});
    Field fx = m.Require("fixture");
    std::string name = fx.Scalar();
    auto slash = name.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == name.size() ||
        name.find('/', slash + 1) != std::string::npos) {
      fx.Fail(fmt::format("fixture '{}' is not BOARD/NAME", name), "write e.g. fixture: mps2-an505/hello");
    }
    fs::path elf = p.context.fixtures_dir / (name + ".elf");
    if (!PathExists(elf)) {
      fx.Fail(fmt::format("fixture '{}' not found at {}", name, elf.string()),
              "build the fixtures (cmake --build build), or point at them with --fixtures DIR "
              "or FAULTLINE_FIXTURES");
    }
    return elf;
  }
  fs::path elf = p.dir / f.Scalar();
  if (!PathExists(elf)) {
    f.Fail(fmt::format("firmware '{}' not found (looked at {})", f.Scalar(), elf.string()),
           "the path is relative to the scenario file; or write firmware: {fixture: BOARD/NAME}");
  }
  RequireRegularFile(elf, f.Where() + ": firmware", "firmware ELF");
  return elf;
}

void ParseRun(const Field& f, Scenario& s) {
  Mapping m(f, {"max_instructions", "timeout", "stop_at"});
  if (m.Has("max_instructions")) {
    s.max_instructions = m.Get("max_instructions").Number();
    if (s.max_instructions == 0) m.Get("max_instructions").Fail("budget of 0 instructions", "give a positive number");
  }
  if (m.Has("timeout")) {
    Field t = m.Get("timeout");
    std::string text = t.Scalar();
    double v = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !ValidTimeout(v)) {
      t.Fail(fmt::format("'{}' is not a number of seconds from 0 to {}", text, kMaxTimeoutSeconds),
             "write e.g. timeout: 10 (0 = none)");
    }
    s.timeout_seconds = v;
  }
  if (m.Has("stop_at")) s.stop_at = ParseCodeLocation(m.Get("stop_at"));
}


// `input: {uart: NAME, text: ...}`, or a list of them.
std::vector<UartInput> ParseInput(const Board& board, const Field& f) {
  std::vector<Field> items;
  if (f.node.IsSequence()) {
    items = Items(f, "list inputs: input: [{uart: UART0, text: \"...\"}]");
  } else {
    items.push_back(f);
  }
  std::vector<UartInput> out;
  for (const Field& item : items) {
    Mapping m(item, {"uart", "text"});
    out.push_back({UartName(board, m.Require("uart")), m.Require("text").Scalar(), item.Where()});
  }
  return out;
}

// A top-level key's field, named by its own key ("expect.fault.kind", not
// "scenario.expect.fault.kind"), as the failure lines name expectations.
Field Key(const Mapping& m, const char* key) {
  Field f = m.Require(key);
  f.path = key;
  return f;
}

}  // namespace

Scenario ParseScenario(const std::string& yaml, const fs::path& path, const ScenarioContext& context) {
  FileParser p{path, path.parent_path(), path.string(), context};
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}", p.origin, e.mark.line + 1), "not valid YAML: " + e.msg,
                     "fix the YAML syntax at that line");
  }
  Field top{root, p.origin, "scenario"};
  if (!root.IsMap()) top.Fail("a scenario file must be a YAML mapping", "see docs/scenarios.md for an example");
  Mapping m(top, {"name", "description", "board", "overrides", "firmware", "setup", "input", "run", "expect"});
  Scenario s;
  s.path = path;
  s.name = Key(m, "name").Scalar();
  if (s.name.empty()) Key(m, "name").Fail("empty name", "name the scenario, e.g. name: bus_fault");
  s.description = Key(m, "description").Scalar();
  s.board = ParseBoardRef(p, Key(m, "board"));
  if (m.Has("overrides")) ApplyOverrides(p, Key(m, "overrides"), s);
  s.firmware = ParseFirmware(p, Key(m, "firmware"));
  if (m.Has("setup")) {
    for (const Field& item : Items(Key(m, "setup"), "list steps: setup: [{write: {...}}]")) {
      s.setup.push_back(ParseStep(p, s.board, item));
    }
  }
  if (m.Has("input")) s.input = ParseInput(s.board, Key(m, "input"));
  if (m.Has("run")) ParseRun(Key(m, "run"), s);
  s.expect = ParseExpect(s.board, Key(m, "expect"));
  return s;
}

Scenario LoadScenarioFile(const fs::path& path, const ScenarioContext& context) {
  RequireRegularFile(path, path.string(), "scenario .yaml");
  // One scenario is a description and a few expectations (the shipped ones are 1-2 KiB);
  // yaml-cpp builds a node tree many times the text's size, so a huge file is refused
  // before a byte of it is read.
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxScenarioBytes) {
    throw InputError(path.string(),
                     fmt::format("scenario file is {} bytes, more than the {} a scenario may have", size,
                                 kMaxScenarioBytes),
                     "keep one scenario per file, and bulk data in a file that a setup `load:` step names");
  }
  std::ifstream in(path);
  if (!in) throw InputError(path.string(), "cannot open scenario file", "check the path");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseScenario(ss.str(), path, context);
}

std::string Location::ToString() const {
  if (address) return fmt::format("0x{:08x}", *address);
  return offset ? fmt::format("{}+0x{:x}", symbol, offset) : symbol;
}

}  // namespace faultline
