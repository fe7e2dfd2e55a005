// faultline-bench: the speed and memory benchmark of issue 9 (bench/run calls it).
//
// Every measurement runs whole processes (fork/exec), timed on the monotonic clock
// from fork to exit, with the peak resident set from wait4's rusage. Engines that are
// compared run alternately in the same round (faultline, QEMU, native, then the next
// round), after a warm-up round, so that a busy machine slows them alike; a ratio is
// taken per round and its median reported. Nothing here is a test: it reports, it
// never fails a build.
#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Json = nlohmann::ordered_json;

struct Options {
  std::string build_dir = FAULTLINE_BENCH_BUILD_DIR;
  std::string source_dir = FAULTLINE_BENCH_SOURCE_DIR;
  std::string json_path;  // default: <source>/bench/results.json
  std::string qemu = "qemu-system-arm";
  std::string qemu_riscv32 = "qemu-system-riscv32";
  int repeats = 5;
  std::vector<std::string> only;  // workload names; empty: all
  bool use_qemu = true;
  bool compare_stock = false;  // also run faultline on Unicorn 2.0.1's own paths (fl-stock)
  bool callgrind = false;      // also count host instructions, once per engine, under valgrind
};

struct Sample {
  double seconds = 0;      // wall clock
  double cpu_seconds = 0;  // user + system, from rusage: less sensitive to a busy machine
  long max_rss_kib = 0;
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

std::string TempPath(const std::string& leaf) {
  static std::string dir = [] {
    char tmpl[] = "/tmp/faultline-bench.XXXXXX";
    const char* d = mkdtemp(tmpl);
    return std::string(d ? d : "/tmp");
  }();
  return dir + "/" + leaf;
}

// Runs argv to completion, with `env` (NAME=VALUE) added to the environment; stdout and
// stderr go to a file that is read back.
Sample Run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
  Sample s;
  std::string out = TempPath("out.txt");
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (in >= 0) dup2(in, 0);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  auto t1 = std::chrono::steady_clock::now();
  s.seconds = std::chrono::duration<double>(t1 - t0).count();
  s.max_rss_kib = ru.ru_maxrss;
  s.cpu_seconds = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  s.output = ss.str();
  return s;
}

struct Stats {
  double median = 0, min = 0, max = 0;
};

Stats Summarise(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

bool OnPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return Executable(name);
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && Executable(dir + "/" + name)) return true;
  }
  return false;
}

std::string Checksum(const std::string& output) {
  std::smatch m;
  static const std::regex re("bench: checksum (0x[0-9a-f]{8})");
  return std::regex_search(output, m, re) ? m[1].str() : "";
}

// Host instructions of one run under callgrind: deterministic, unlike wall time on a
// shared machine (docs/performance.md). 0 if valgrind failed.
uint64_t HostInstructions(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
  std::vector<std::string> v = {"valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"};
  v.insert(v.end(), argv.begin(), argv.end());
  Sample s = Run(v, env);
  std::smatch m;
  static const std::regex re("Collected : ([0-9]+)");
  return std::regex_search(s.output, m, re) ? std::stoull(m[1].str()) : 0;
}

// The faultline run's JSON result (--json), or null.
Json ReadJson(const std::string& path) {
  std::ifstream f(path);
  if (!f) return nullptr;
  try {
    return Json::parse(f);
  } catch (const std::exception&) {
    return nullptr;
  }
}

// One engine's series within a workload.
struct Series {
  std::string engine;  // faultline | qemu | native | ...
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=VALUE added for this engine
  std::vector<Sample> samples;  // measured (warm-up dropped)
  std::string checksum;
  std::string note;  // why it did not run
  uint64_t instructions = 0;  // faultline's count (also used for QEMU's MIPS)
  std::string outcome;        // faultline's outcome
  bool ok = true;

  std::vector<double> Seconds() const {
    std::vector<double> v;
    for (const Sample& s : samples) v.push_back(s.seconds);
    return v;
  }
  std::vector<double> CpuSeconds() const {
    std::vector<double> v;
    for (const Sample& s : samples) v.push_back(s.cpu_seconds);
    return v;
  }
  long PeakRss() const {
    long m = 0;
    for (const Sample& s : samples) m = std::max(m, s.max_rss_kib);
    return m;
  }
};

// Runs the series alternately: a warm-up round, then `repeats` measured rounds. The
// order rotates each round so no engine always runs right after another.
void RunAlternating(std::vector<Series*> series, int repeats) {
  for (int round = 0; round <= repeats; ++round) {
    for (size_t k = 0; k < series.size(); ++k) {
      Series& s = *series[(k + size_t(round)) % series.size()];
      if (!s.ok) continue;
      Sample sample = Run(s.argv, s.env);
      if (round > 0) s.samples.push_back(sample);
    }
  }
}

Json StatsJson(const Stats& s) { return {{"median", s.median}, {"min", s.min}, {"max", s.max}}; }

struct Bench {
  Options opt;
  Json results = Json::object();
  std::vector<std::string> table;   // printed rows
  std::vector<std::string> targets; // PASS/FAIL lines
  bool have_qemu = false;

  std::string Faultline() const { return opt.build_dir + "/faultline"; }
  std::string Fixture(const std::string& board, const std::string& name) const {
    return opt.build_dir + "/firmware-fixtures/" + board + "/" + name + ".elf";
  }
  std::string BenchBoard(const std::string& name) const {
    return opt.source_dir + "/bench/boards/" + name + ".yaml";
  }
  bool Wanted(const std::string& name) const {
    return opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), name) != opt.only.end();
  }

  // faultline run, with --json so every run also reports its instruction count.
  Series FaultlineSeries(const std::string& engine, const std::string& board, const std::string& elf,
                         std::vector<std::string> extra = {}) const {
    Series s;
    s.engine = engine;
    s.argv = {Faultline(), "run", "--board", board, "--json", TempPath(engine + ".json")};
    s.argv.insert(s.argv.end(), extra.begin(), extra.end());
    s.argv.push_back(elf);
    if (!Executable(Faultline())) {
      s.ok = false;
      s.note = "build/faultline is not built";
    } else if (access(elf.c_str(), R_OK) != 0) {
      s.ok = false;
      s.note = "fixture not built: " + elf;
    }
    return s;
  }

  // After the runs: the instruction count and outcome from the last --json.
  Series QemuSeries(const std::string& engine, const std::string& machine, const std::string& cpu,
                    const std::string& elf) const {
    Series s;
    s.engine = engine;
    s.argv = {opt.qemu, "-M", machine, "-cpu", cpu, "-nographic", "-monitor", "none",
              "-serial", "none", "-semihosting-config", "enable=on,target=native", "-kernel", elf};
    if (!have_qemu) {
      s.ok = false;
      s.note = opt.use_qemu ? opt.qemu + " not found: QEMU columns skipped" : "--no-qemu";
    }
    return s;
  }

  void ReadFaultlineResult(Series& s) const {
    if (!s.ok) return;
    Json j = ReadJson(s.argv[5]);
    if (j.is_object()) {
      s.instructions = j.value("instructions", uint64_t{0});
      s.outcome = j.value("outcome", std::string());
    }
  }

  static void Finish(Series& s) {
    if (!s.ok || s.samples.empty()) return;
    s.checksum = Checksum(s.samples.back().output);
  }

  // Throughput workloads (1)-(3): faultline, QEMU and the native build of one kernel.
  // `speed`: the target, faultline's MIPS over QEMU's (issue 38: 1.5 for Helium networks).
  void Throughput(const std::string& name, const std::string& what, const std::string& elf_name,
                  const std::string& native, const std::string& board = "mps2-an505",
                  const std::string& cpu = "cortex-m33", double speed_target = 1.0) {
    if (!Wanted(name)) return;
    std::string elf = Fixture(board, elf_name);
    Series fl = FaultlineSeries("faultline", board, elf);
    Series qemu = QemuSeries("qemu", board, cpu, elf);
    Series nat;
    nat.engine = "native";
    nat.argv = {opt.build_dir + "/bench/" + native};
    if (!Executable(nat.argv[0])) {
      nat.ok = false;
      nat.note = nat.argv[0] + " is not built";
    }
    // Before/after for docs/performance.md: Unicorn 2.0.1's own store path, block hook
    // call and per-access exit test (emulator/src/engine/store_path.cc,
    // core_block_count.cc and core_data_faults.cc turned off).
    Series stock = FaultlineSeries("fl-stock", "mps2-an505", elf);
    stock.env = {"FAULTLINE_UNICORN_STORE_PATH=stock", "FAULTLINE_BLOCK_COUNT=hook", "FAULTLINE_EXIT_CHECK=stock"};
    if (!opt.compare_stock) {
      stock.ok = false;
      stock.note = "";
    }
    fmt::print(stderr, "bench: {} ...\n", name);
    RunAlternating({&fl, &qemu, &nat, &stock}, opt.repeats);
    for (Series* s : {&fl, &qemu, &nat, &stock}) Finish(*s);
    ReadFaultlineResult(fl);

    Json w = {{"what", what}, {"board", board}, {"elf", elf}, {"instructions", fl.instructions}, {"outcome", fl.outcome}};
    std::vector<double> ratios, cpu_ratios;
    for (size_t i = 0; i < std::min(fl.samples.size(), qemu.samples.size()); ++i) {
      ratios.push_back(fl.samples[i].seconds / qemu.samples[i].seconds);
      cpu_ratios.push_back(fl.samples[i].cpu_seconds / qemu.samples[i].cpu_seconds);
    }
    Stats ratio = Summarise(ratios), cpu_ratio = Summarise(cpu_ratios);
    for (Series* s : {&fl, &qemu, &nat, &stock}) {
      if (s == &stock && !opt.compare_stock) continue;
      Json e = {{"command", s->argv}};
      if (!s->env.empty()) e["env"] = s->env;
      if (!s->ok) {
        e["skipped"] = s->note;
        w["engines"][s->engine] = e;
        table.push_back(fmt::format("{:<22} {:<10} {}", name, s->engine, s->note));
        continue;
      }
      Stats t = Summarise(s->Seconds());
      double mips = fl.instructions && t.median > 0 ? double(fl.instructions) / t.median / 1e6 : 0;
      e["seconds"] = StatsJson(t);
      e["cpu_seconds"] = StatsJson(Summarise(s->CpuSeconds()));
      e["runs"] = s->samples.size();
      e["mips"] = mips;
      e["peak_rss_kib"] = s->PeakRss();
      e["checksum"] = s->checksum;
      w["engines"][s->engine] = e;
      std::string extra;
      if (s == &fl && !ratios.empty()) {
        extra = fmt::format("x{:.2f} QEMU's time (cpu x{:.2f})", ratio.median, cpu_ratio.median);
      }
      table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.0f} {:>8} {:>11}  {}", name,
                                  s->engine, t.median, t.min, t.max, mips, s->PeakRss() / 1024,
                                  s->checksum.empty() ? "-" : s->checksum, extra));
    }
    bool same = fl.ok && !fl.checksum.empty() && (!qemu.ok || qemu.checksum == fl.checksum) &&
                (!nat.ok || nat.checksum == fl.checksum) && (!stock.ok || stock.checksum == fl.checksum);
    w["checksums_agree"] = same;
    if (!same) {
      // A row whose engines disagree measures nothing: refused.
      Target(fmt::format("{}: faultline >= {:.1f}x QEMU's MIPS", name, speed_target), false, "checksums differ: row refused");
    } else if (!ratios.empty()) {
      w["ratio_faultline_over_qemu_time"] = StatsJson(ratio);
      w["ratio_faultline_over_qemu_cpu_time"] = StatsJson(cpu_ratio);
      // faultline's MIPS over QEMU's on the same instruction count is the inverse ratio.
      double speed = 1.0 / ratio.median;
      w["faultline_mips_over_qemu_mips"] = speed;
      Target(fmt::format("{}: faultline >= {:.1f}x QEMU's MIPS", name, speed_target), speed >= speed_target,
             fmt::format("{:.2f}x wall, {:.2f}x cpu (medians of {} alternating pairs)", speed,
                         1.0 / cpu_ratio.median, ratios.size()));
    } else {
      Target(fmt::format("{}: faultline >= {:.1f}x QEMU's MIPS", name, speed_target), std::nullopt, "QEMU not run");
    }
    if (!same) table.push_back(fmt::format("{:<22} checksums DIFFER", name));
    if (opt.callgrind) w["host_instructions"] = CallgrindRows(name, fl, {&fl, &qemu});
    results["workloads"][name] = w;
  }

  // --callgrind: each engine once more under callgrind; rows with host instructions per
  // guest instruction, and faultline's over the first other engine's.
  Json CallgrindRows(const std::string& name, const Series& fl, std::vector<const Series*> engines) {
    Json j = Json::object();
    std::vector<uint64_t> counts;
    for (const Series* s : engines) {
      if (!s->ok) continue;
      fmt::print(stderr, "bench: {} {} under callgrind ...\n", name, s->engine);
      uint64_t n = HostInstructions(s->argv, s->env);
      j[s->engine] = n;
      counts.push_back(n);
      const uint64_t guest = s->instructions ? s->instructions : fl.instructions;  // QEMU: faultline's count
      table.push_back(fmt::format("{:<22} {:<10} {:>17} host instructions{}", name, s->engine + " cg",
                                  fmt::group_digits(n),
                                  guest && n ? fmt::format(", {:.1f} per guest instruction", double(n) / double(guest))
                                             : ""));
    }
    if (counts.size() >= 2 && counts[0] && counts[1]) {
      j["ratio"] = double(counts[0]) / double(counts[1]);
      table.push_back(fmt::format("{:<22} {:<10} x{:.2f} {}'s host instructions", name, "", j["ratio"].get<double>(),
                                  engines[1]->engine));
    }
    return j;
  }

  void Target(const std::string& what, std::optional<bool> holds, const std::string& detail) {
    std::string verdict = !holds ? "SKIP" : *holds ? "PASS" : "FAIL";
    targets.push_back(fmt::format("{}  {:<52} {}", verdict, what, detail));
    results["targets"].push_back({{"target", what}, {"result", verdict}, {"detail", detail}});
  }

  // (4) the whole scenario catalogue with -j2.
  void Scenarios() {
    if (!Wanted("scenarios")) return;
    Series s;
    s.engine = "faultline";
    s.argv = {Faultline(), "scenario", "-j", "2", opt.source_dir + "/scenarios"};
    fmt::print(stderr, "bench: scenarios ...\n");
    RunAlternating({&s}, opt.repeats);
    Stats t = Summarise(s.Seconds());
    bool passed = std::all_of(s.samples.begin(), s.samples.end(), [](const Sample& x) { return x.exit_code == 0; });
    results["workloads"]["scenarios"] = {{"command", s.argv}, {"seconds", StatsJson(t)},
                                         {"runs", s.samples.size()}, {"peak_rss_kib", s.PeakRss()},
                                         {"all_passed", passed}};
    table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8} {:>8} {:>11}  {}", "scenarios -j2",
                                "faultline", t.median, t.min, t.max, "-", s.PeakRss() / 1024, "-",
                                passed ? "all pass" : "SOME FAIL"));
    Target("scenario catalogue (-j2) <= 30 s", t.median <= 30.0, fmt::format("{:.2f} s median", t.median));
  }

  // (5) process start to first instruction: a one-instruction budget on a trivial ELF.
  void Startup() {
    if (!Wanted("startup")) return;
    Series fl = FaultlineSeries("faultline", "mps2-an505", Fixture("mps2-an505", "exit_plain"),
                                {"--max-instructions", "1"});
    Series full = FaultlineSeries("faultline-exit", "mps2-an505", Fixture("mps2-an505", "exit_plain"));
    Series qemu;
    qemu.engine = "qemu";
    qemu.argv = {opt.qemu, "-M", "mps2-an505", "-cpu", "cortex-m33", "-nographic", "-monitor", "none",
                 "-serial", "none", "-semihosting-config", "enable=on,target=native", "-kernel",
                 Fixture("mps2-an505", "exit_plain")};
    if (!have_qemu) {
      qemu.ok = false;
      qemu.note = "QEMU not run";
    }
    fmt::print(stderr, "bench: startup ...\n");
    RunAlternating({&fl, &full, &qemu}, std::max(opt.repeats, 10));
    ReadFaultlineResult(fl);
    Json w = {{"what", "process start to first instruction (exit_plain.elf, --max-instructions 1)"}};
    for (Series* s : {&fl, &full, &qemu}) {
      if (!s->ok) {
        table.push_back(fmt::format("{:<22} {:<10} {}", "startup", s->engine, s->note));
        continue;
      }
      Stats t = Summarise(s->Seconds());
      w[s->engine] = {{"command", s->argv}, {"seconds", StatsJson(t)}, {"runs", s->samples.size()},
                      {"peak_rss_kib", s->PeakRss()}};
      table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8} {:>8} {:>11}  {}", "startup",
                                  s->engine, t.median, t.min, t.max, "-", s->PeakRss() / 1024, "-",
                                  s == &fl ? "to first instruction" : s == &full ? "to exit" : "to exit"));
      if (s == &fl) {
        Target("startup (process start to first instruction) <= 30 ms", t.median <= 0.030,
               fmt::format("{:.1f} ms median, outcome {}", t.median * 1000, fl.outcome));
      }
    }
    results["workloads"]["startup"] = w;
  }

  // Issue 35: npunet (1.2M MACs) on mps3-an547, the CPU build's inference and the NPU's
  // job, each alone in its firmware, beside the same board's start-to-exit: the NPU's host
  // time is its process time less that baseline.
  void Npu() {
    if (!Wanted("npu")) return;
    Series npu = FaultlineSeries("faultline", "mps3-an547", Fixture("mps3-an547", "bench_npunet_npu"));
    Series cpu = FaultlineSeries("fl-cpu", "mps3-an547", Fixture("mps3-an547", "bench_npunet_cpu"));
    Series base = FaultlineSeries("fl-exit", "mps3-an547", Fixture("mps3-an547", "exit_plain"));
    fmt::print(stderr, "bench: npu ...\n");
    RunAlternating({&npu, &cpu, &base}, std::max(opt.repeats, 10));
    Json w = {{"what", "npunet: conv 3x3 + ReLU, depthwise 3x3 /2, average pool, FC, softmax; 1,223,168 MACs"}};
    for (Series* s : {&npu, &cpu, &base}) {
      ReadFaultlineResult(*s);
      if (!s->ok) {
        table.push_back(fmt::format("{:<22} {:<10} {}", "npunet", s->engine, s->note));
        continue;
      }
      Stats t = Summarise(s->Seconds());
      w[s->engine] = {{"command", s->argv}, {"seconds", StatsJson(t)}, {"instructions", s->instructions}};
      table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8} {:>8} {:>11}  {}",
                                  s == &npu ? "npunet on the NPU" : s == &cpu ? "npunet on the CPU" : "npunet baseline",
                                  s->engine, t.median, t.min, t.max, "-", s->PeakRss() / 1024, "-",
                                  fmt::format("{} insns", s->instructions)));
    }
    results["workloads"]["npu"] = w;
    if (npu.ok && base.ok) {
      const double job = Summarise(npu.Seconds()).median - Summarise(base.Seconds()).median;
      Target("NPU: a 1M-MAC network's job <= 50 ms of host time", job <= 0.050,
             fmt::format("{:.1f} ms (the NPU build's median less start-to-exit's)", job * 1000));
    } else {
      Target("NPU: a 1M-MAC network's job <= 50 ms of host time", std::nullopt, npu.ok ? base.note : npu.note);
    }
  }

  // The overhead of `variant` over `base` (the same kernel, run alternately): a row each
  // and a target `limit` on the median of per-round ratios, recorded under results[group].
  void Overhead(const std::string& group, const std::string& kernel, Series base, Series variant,
                double limit, const std::string& target) {
    fmt::print(stderr, "bench: {} overhead ({}) ...\n", group, kernel);
    RunAlternating({&base, &variant}, opt.repeats);
    Finish(base);
    Finish(variant);
    if (base.ok && variant.ok && (base.checksum.empty() || base.checksum != variant.checksum)) {
      variant.ok = false;  // a run that failed early is not a fast run
      variant.note = "the runs did not both complete with the same checksum";
    }
    const std::string label = fmt::format("{} <= {:.0f}% ({})", target, (limit - 1) * 100, kernel);
    if (!base.ok || !variant.ok) {
      Target(label, std::nullopt, base.note + variant.note);
      return;
    }
    std::vector<double> ratios;
    for (size_t i = 0; i < std::min(base.samples.size(), variant.samples.size()); ++i) {
      ratios.push_back(variant.samples[i].seconds / base.samples[i].seconds);
    }
    Stats r = Summarise(ratios);
    Stats tb = Summarise(base.Seconds()), tv = Summarise(variant.Seconds());
    results[group][kernel] = {{base.engine, {{"command", base.argv}, {"seconds", StatsJson(tb)}}},
                              {variant.engine, {{"command", variant.argv}, {"seconds", StatsJson(tv)}}},
                              {"ratio_" + variant.engine + "_over_" + base.engine, StatsJson(r)}};
    table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f}", group + " " + kernel, base.engine,
                                tb.median, tb.min, tb.max));
    table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8} {:>8} {:>11}  {:+.1f}%",
                                group + " " + kernel, variant.engine, tv.median, tv.min, tv.max, "", "", "",
                                (r.median - 1) * 100));
    Target(label, r.median <= limit, fmt::format("{:+.1f}% (median of {} pairs)", (r.median - 1) * 100, ratios.size()));
  }

  // Gating overhead: the same ELF on mps2-an505 and on a copy with gated regions,
  // peripherals and aliases it never touches.
  void Gating() {
    if (!Wanted("gating")) return;
    for (const std::string& kernel : {std::string("bench_tinynet"), std::string("bench_mem")}) {
      std::string elf = Fixture("mps2-an505", kernel);
      Overhead("gating", kernel, FaultlineSeries("plain", "mps2-an505", elf),
               FaultlineSeries("gated", BenchBoard("an505-gated"), elf), 1.10, "gating/events overhead");
    }
  }

  // The traps on the default path (issue 16: DIVBYZERO, UNALIGNED, NOCP raised from the
  // translated code, docs/fidelity.md): the three throughput kernels, whose firmware
  // enables none of them, with the traps and with FAULTLINE_TRAPS=off (Unicorn's
  // behaviour).
  void Traps() {
    if (Wanted("traps")) SwitchOverhead("traps", "FAULTLINE_TRAPS=off", "no-traps", 1.05, "trap checks cost");
  }

  // The three throughput kernels as faultline runs them by default (engine `group`) and
  // with the switch `off` in the environment (engine `off_name`).
  void SwitchOverhead(const std::string& group, const std::string& off, const std::string& off_name, double limit,
                      const std::string& target) {
    for (const std::string& kernel : {std::string("bench_tinynet"), std::string("bench_alu"), std::string("bench_mem")}) {
      std::string elf = Fixture("mps2-an505", kernel);
      Series without = FaultlineSeries(off_name, "mps2-an505", elf);
      without.argv.insert(without.argv.begin(), {"env", off});
      Overhead(group, kernel, without, FaultlineSeries(group, "mps2-an505", elf), limit, target);
    }
  }

  // The data cache model (issue 36 item 5): the three throughput kernels on the Cortex-M7
  // with SCB_EnableDCache first (stm32h747-cm7 *_dcache), the model on (engine `dcache`)
  // against FAULTLINE_DCACHE=off (CCR.DC stored, nothing cached). Target: at least 0.9x.
  void DataCache() {
    if (!Wanted("dcache")) return;
    for (const std::string& kernel : {std::string("bench_tinynet"), std::string("bench_alu"), std::string("bench_mem")}) {
      std::string elf = Fixture("stm32h747-cm7", kernel + "_dcache");
      Series without = FaultlineSeries("no-dcache", "stm32h747-cm7", elf);
      without.env = {"FAULTLINE_DCACHE=off"};  // not an `env` prefix: its exec would be timed
      Overhead("dcache", kernel, without, FaultlineSeries("dcache", "stm32h747-cm7", elf), 1.0 / 0.9,
               "data cache model cost (>= 0.9x speed)");
    }
    // With another master at work: npunet on mps3-an547's Ethos-U55, input cleaned and
    // output invalidated (npu_dcache_maintained): the NPU's transfers go through the model.
    const std::string npu = Fixture("mps3-an547", "npu_dcache_maintained");
    Series without = FaultlineSeries("no-dcache", "mps3-an547", npu);
    without.env = {"FAULTLINE_DCACHE=off"};
    Overhead("dcache", "npu_dcache_maintained", without, FaultlineSeries("dcache", "mps3-an547", npu), 1.25,
             "data cache model cost with the NPU at work");
  }

  // The road to the fault (issue 17): every block's code writes its entry into the
  // last-64 ring, against FAULTLINE_ROAD=off (the ring's ops left out).
  void RoadHistory() {
    if (Wanted("road")) SwitchOverhead("road", "FAULTLINE_ROAD=off", "no-road", 1.10, "last-64 block history cost");
  }

  // `run --trace FILE`: every block executed, loops folded, written to a file.
  void Trace() {
    if (!Wanted("trace")) return;
    for (const std::string& kernel : {std::string("bench_tinynet"), std::string("bench_alu"), std::string("bench_mem")}) {
      std::string elf = Fixture("mps2-an505", kernel);
      Overhead("trace", kernel, FaultlineSeries("no-trace", "mps2-an505", elf),
               FaultlineSeries("trace", "mps2-an505", elf, {"--trace", TempPath(kernel + ".trace")}), 2.0,
               "full --trace cost");
    }
  }

  // Memory: a board that declares 2 GiB of DDR, a small firmware.
  void Memory() {
    if (!Wanted("memory")) return;
    Series big = FaultlineSeries("ddr-2gib", BenchBoard("an505-ddr2g"), Fixture("mps2-an505", "hello"));
    fmt::print(stderr, "bench: memory ...\n");
    RunAlternating({&big}, opt.repeats);
    ReadFaultlineResult(big);
    if (!big.ok) {
      Target("peak RSS with 2 GiB DDR declared < 100 MB", std::nullopt, big.note);
      return;
    }
    long rss = big.PeakRss();
    results["memory"] = {{"command", big.argv}, {"peak_rss_kib", rss}, {"outcome", big.outcome},
                         {"exit_code", big.samples.empty() ? -1 : big.samples.back().exit_code}};
    table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8} {:>8} {:>8} {:>8}  outcome {}", "memory 2 GiB DDR",
                                "faultline", Summarise(big.Seconds()).median, "", "", "", rss / 1024, big.outcome));
    Target("peak RSS with 2 GiB DDR declared < 100 MB", rss < 100 * 1000,
           fmt::format("{:.1f} MB peak RSS, outcome {}", rss / 1024.0, big.outcome));
  }

  // The same C for Cortex-M33 (mps2-an505) and Cortex-M55 (mps3-an547, -mcpu=cortex-m55
  // without MVE: Armv8.1-M low-overhead loops and selects), throughput compared: the
  // inference (tinynet x12) and the DSP layers (issue 19: "M55 within 10 % of M33 on
  // every workload").
  void M33VersusM55() {
    if (!Wanted("m33-m55")) return;
    M33VersusM55On("tinynet x12", "bench_tinynet_m33s", "bench_tinynet_m55", "m33_vs_m55");
    M33VersusM55On("dsp", "bench_dsp", "bench_dsp", "m33_vs_m55_dsp");
  }

  void M33VersusM55On(const std::string& label, const std::string& m33_elf, const std::string& m55_elf,
                      const std::string& key) {
    Series m33 = FaultlineSeries("m33", "mps2-an505", Fixture("mps2-an505", m33_elf));
    Series m55 = FaultlineSeries("m55", "mps3-an547", Fixture("mps3-an547", m55_elf));
    fmt::print(stderr, "bench: M33 against M55, {} ...\n", label);
    // One probe run first: until the engine translates Armv8.1-M, the M55 build stops
    // as `unsupported`, and is reported so rather than timed.
    if (m55.ok) {
      Sample probe = Run(m55.argv);
      ReadFaultlineResult(m55);
      if (probe.exit_code != 0) {
        m55.ok = false;
        m55.note = "fails: " + (m55.outcome.empty() ? fmt::format("exit {}", probe.exit_code) : m55.outcome);
      }
    }
    RunAlternating({&m33, &m55}, opt.repeats);
    Json w = Json::object();
    std::vector<double> mips, seconds;
    for (Series* s : {&m33, &m55}) {
      ReadFaultlineResult(*s);
      Finish(*s);
      if (!s->ok) {
        w[s->engine] = {{"command", s->argv}, {"skipped", s->note}};
        table.push_back(fmt::format("{:<22} {:<10} {}", label + " " + s->engine, "faultline", s->note));
        continue;
      }
      Stats t = Summarise(s->Seconds());
      double m = s->instructions / t.median / 1e6;
      mips.push_back(m);
      seconds.push_back(t.median);
      w[s->engine] = {{"command", s->argv}, {"seconds", StatsJson(t)}, {"instructions", s->instructions},
                      {"mips", m}, {"checksum", s->checksum}};
      table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.0f} {:>8} {:>11}  {} insns",
                                  label + " " + s->engine, "faultline", t.median, t.min, t.max, m,
                                  s->PeakRss() / 1024, s->checksum, s->instructions));
    }
    if (opt.callgrind && m33.ok && m55.ok) w["host_instructions"] = CallgrindRows(label, m55, {&m55, &m33});
    results[key] = w;
    // The same inference: the M55 build retires fewer instructions (LE closes a loop
    // where the M33 build needs SUBS and BNE), so time, not MIPS, compares the speed.
    if (mips.size() == 2) {
      double r = seconds[1] / seconds[0];
      // Issue 19's concern is the M55 build running slower (it was 1.28x); faster passes.
      Target("M55 build's time within 10% of the M33 build's (" + label + ")", r <= 1.10,
             fmt::format("time M55/M33 = {:.2f} (MIPS M55/M33 = {:.2f})", r, mips[1] / mips[0]));
    } else {
      Target("M55 build's time within 10% of the M33 build's (" + label + ")", std::nullopt, m55.note);
    }
  }

  // Issue 15: the inference of `m33-m55` built for the M55 with MVE on (-O3,
  // -mfloat-abi=hard: GCC 12 vectorises its loops into Helium), against QEMU 7.2 on the
  // same ELF, and against the build without MVE (soft float) on faultline.
  void Helium() {
    if (!Wanted("helium")) return;
    const std::string elf = Fixture("mps3-an547", "bench_tinynet_mve");
    Series mve = FaultlineSeries("faultline", "mps3-an547", elf);
    Series qemu = QemuSeries("qemu", "mps3-an547", "cortex-m55", elf);
    Series soft = FaultlineSeries("fl-no-mve", "mps3-an547", Fixture("mps3-an547", "bench_tinynet_m55"));
    fmt::print(stderr, "bench: helium ...\n");
    RunAlternating({&mve, &qemu, &soft}, opt.repeats);
    Json w = Json::object();
    for (Series* s : {&mve, &qemu, &soft}) {
      Finish(*s);
      ReadFaultlineResult(*s);
      if (!s->ok) {
        w[s->engine] = {{"command", s->argv}, {"skipped", s->note}};
        table.push_back(fmt::format("{:<22} {:<10} {}", "tinynet x12 mve", s->engine, s->note));
        continue;
      }
      Stats t = Summarise(s->Seconds());
      const uint64_t n = s == &qemu ? mve.instructions : s->instructions;  // QEMU: the same ELF's count
      w[s->engine] = {{"command", s->argv}, {"seconds", StatsJson(t)}, {"instructions", n},
                      {"checksum", s->checksum}};
      table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.0f} {:>8} {:>11}  {} insns",
                                  s == &soft ? "tinynet x12 no-mve" : "tinynet x12 mve", s->engine, t.median, t.min,
                                  t.max, n / t.median / 1e6, s->PeakRss() / 1024, s->checksum, n));
    }
    if (mve.ok) {
      const Json r = ReadJson(mve.argv[5]);
      if (r.contains("mve")) w["mve_instructions"] = r["mve"].value("instructions", uint64_t{0});
    }
    results["helium"] = w;
    auto ratio = [](const Series& a, const Series& b) -> std::optional<double> {
      std::vector<double> r;
      for (size_t i = 0; i < std::min(a.samples.size(), b.samples.size()); ++i) {
        r.push_back(a.samples[i].seconds / b.samples[i].seconds);
      }
      if (!a.ok || !b.ok || r.empty()) return std::nullopt;
      return Summarise(r).median;
    };
    const bool same = mve.ok && (!qemu.ok || qemu.checksum == mve.checksum) && (!soft.ok || soft.checksum == mve.checksum);
    if (!same) table.push_back(fmt::format("{:<22} checksums DIFFER", "tinynet x12 mve"));
    if (auto r = ratio(mve, qemu)) {
      Target("helium: faultline >= 0.7x QEMU's speed", 1.0 / *r >= 0.7,
             fmt::format("{:.2f}x (QEMU time / faultline time, median of alternating pairs)", 1.0 / *r));
    } else {
      Target("helium: faultline >= 0.7x QEMU's speed", std::nullopt, mve.ok ? qemu.note : mve.note);
    }
    if (auto r = ratio(mve, soft)) {
      Target("helium: MVE build faster than the no-MVE build", *r < 1.0, fmt::format("time MVE/no-MVE = {:.2f}", *r));
    } else {
      Target("helium: MVE build faster than the no-MVE build", std::nullopt, mve.ok ? soft.note : mve.note);
    }
  }

  // Issue 38: the same network's Helium and no-MVE (DSP) builds on faultline's M55, run
  // alternately: on silicon the Helium build is the faster.
  void MveVersusNoMve(const std::string& name, const std::string& mve_elf, const std::string& dsp_elf) {
    if (!Wanted(name)) return;
    Series mve = FaultlineSeries("fl-mve", "mps3-an547", Fixture("mps3-an547", mve_elf));
    Series dsp = FaultlineSeries("fl-no-mve", "mps3-an547", Fixture("mps3-an547", dsp_elf));
    fmt::print(stderr, "bench: {} ...\n", name);
    RunAlternating({&mve, &dsp}, opt.repeats);
    std::vector<double> r;
    for (size_t i = 0; i < std::min(mve.samples.size(), dsp.samples.size()); ++i) {
      r.push_back(mve.samples[i].cpu_seconds / dsp.samples[i].cpu_seconds);
    }
    const std::string label = name + ": the Helium build faster than the no-MVE build";
    if (!mve.ok || !dsp.ok || r.empty()) {
      Target(label, std::nullopt, mve.ok ? dsp.note : mve.note);
      return;
    }
    const Stats ratio = Summarise(r);
    results[name] = {{"cpu_time_mve_over_no_mve", StatsJson(ratio)}};
    Target(label, ratio.median < 1.0, fmt::format("cpu time MVE/no-MVE = {:.2f} (median of {} pairs)", ratio.median, r.size()));
  }

  // Issue 18: tinynet's inference built for rv32im (riscv32-virt/ml_inference: one
  // inference, ~9.2 M instructions, so process start-up is part of each run) on faultline's
  // RV32 hart and on qemu-system-riscv32's virt machine, the same ELF.
  void Rv32() {
    if (!Wanted("rv32")) return;
    const std::string name = "tinynet rv32";
    const std::string elf = Fixture("riscv32-virt", "ml_inference");
    Series fl = FaultlineSeries("faultline", "riscv32-virt", elf);
    Series qemu;
    qemu.engine = "qemu";
    qemu.argv = {opt.qemu_riscv32, "-M", "virt", "-bios", "none", "-nographic", "-monitor", "none", "-serial",
                 "none", "-semihosting-config", "enable=on,target=native", "-kernel", elf};
    if (!opt.use_qemu || !OnPath(opt.qemu_riscv32)) {
      qemu.ok = false;
      qemu.note = opt.use_qemu ? opt.qemu_riscv32 + " not found: QEMU column skipped" : "--no-qemu";
    }
    fmt::print(stderr, "bench: rv32 ...\n");
    RunAlternating({&fl, &qemu}, opt.repeats);
    ReadFaultlineResult(fl);
    Json w = {{"what", "MobileNetV2-style int8 inference x1, rv32im"}, {"board", "riscv32-virt"}, {"elf", elf},
              {"instructions", fl.instructions}, {"outcome", fl.outcome}};
    static const std::regex fnv("tinynet: output fnv1a (0x[0-9a-f]{8})");
    for (Series* s : {&fl, &qemu}) {
      if (!s->ok) {
        w[s->engine] = {{"command", s->argv}, {"skipped", s->note}};
        table.push_back(fmt::format("{:<22} {:<10} {}", name, s->engine, s->note));
        continue;
      }
      std::smatch m;
      if (!s->samples.empty() && std::regex_search(s->samples.back().output, m, fnv)) s->checksum = m[1].str();
      Stats t = Summarise(s->Seconds());
      w[s->engine] = {{"command", s->argv}, {"seconds", StatsJson(t)},
                      {"cpu_seconds", StatsJson(Summarise(s->CpuSeconds()))}, {"checksum", s->checksum}};
      table.push_back(fmt::format("{:<22} {:<10} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.0f} {:>8} {:>11}  {} insns", name,
                                  s->engine, t.median, t.min, t.max, fl.instructions / t.median / 1e6,
                                  s->PeakRss() / 1024, s->checksum.empty() ? "-" : s->checksum, fl.instructions));
    }
    if (fl.ok && (fl.checksum.empty() || (qemu.ok && qemu.checksum != fl.checksum))) {
      table.push_back(fmt::format("{:<22} checksums DIFFER", name));
    }
    if (opt.callgrind) w["host_instructions"] = CallgrindRows(name, fl, {&fl, &qemu});
    results["rv32"] = w;
  }
};

std::string Now() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string Machine() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model;
  int cpus = 0;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      ++cpus;
      model = line.substr(line.find(':') + 2);
    }
  }
  double load[3] = {};
  getloadavg(load, 3);
  return fmt::format("{} x {}, load average {:.2f} at start", cpus, model, load[0]);
}

int Usage(const char* argv0) {
  fmt::print(stderr,
             "usage: {} [--repeats N] [--only NAME,...] [--json FILE] [--no-qemu] [--qemu PATH] [--build DIR]\n"
             "          [--compare-stock]   also run faultline on Unicorn 2.0.1's own paths\n"
             "          [--callgrind]       also count host instructions once per engine under valgrind\n"
             "  workloads: tinynet alu mem scenarios startup gating memory m33-m55 helium rv32 npu dcache\n",
             argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Bench b;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--repeats") {
      b.opt.repeats = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--only") {
      std::stringstream ss(value());
      std::string w;
      while (std::getline(ss, w, ',')) b.opt.only.push_back(w);
    } else if (a == "--json") {
      b.opt.json_path = value();
    } else if (a == "--compare-stock") {
      b.opt.compare_stock = true;
    } else if (a == "--callgrind") {
      b.opt.callgrind = true;
    } else if (a == "--no-qemu") {
      b.opt.use_qemu = false;
    } else if (a == "--qemu") {
      b.opt.qemu = value();
    } else if (a == "--build") {
      b.opt.build_dir = value();
    } else {
      return Usage(argv[0]);
    }
  }
  if (b.opt.json_path.empty()) b.opt.json_path = b.opt.source_dir + "/bench/results.json";
  b.have_qemu = b.opt.use_qemu && OnPath(b.opt.qemu);
  if (b.opt.callgrind && !OnPath("valgrind")) {
    fmt::print(stderr, "bench: --callgrind needs valgrind (apt install valgrind)\n");
    return 2;
  }
  if (b.opt.use_qemu && !b.have_qemu) fmt::print(stderr, "bench: {} not found: QEMU columns skipped\n", b.opt.qemu);

  b.results["date"] = Now();
  b.results["machine"] = Machine();
  b.results["repeats"] = b.opt.repeats;
  b.results["method"] =
      "whole-process wall time (monotonic, fork to exit), peak RSS from wait4; one warm-up round, then "
      "`repeats` rounds in which the compared commands run alternately; ratios are per round, medians reported";

  b.Throughput("tinynet", "MobileNetV2-style int8 inference x29 (~300M instructions)", "bench_tinynet",
               "bench_native_tinynet");
  b.Throughput("alu", "register-only integer loop", "bench_alu", "bench_native_alu");
  b.Throughput("mem", "word copy + 3x3 convolution + feedback over 16 KiB images", "bench_mem",
               "bench_native_mem");
  // Issue 19: the DSP-extension layers (firmware-fixtures/bench/dsp_kernels.c) on every
  // core, the same C; the M3 has no DSP extension and runs its C fallback.
  const char* dsp_what = "int8 conv (im2col, SMLAD/SXTB16), depthwise, FC, requantisation x40";
  b.Throughput("dsp-m3", dsp_what, "bench_dsp", "bench_native_dsp", "mps2-an385", "cortex-m3");
  b.Throughput("dsp-m4", dsp_what, "bench_dsp", "bench_native_dsp", "mps2-an386", "cortex-m4");
  b.Throughput("dsp-m7", dsp_what, "bench_dsp", "bench_native_dsp", "mps2-an500", "cortex-m7");
  b.Throughput("dsp-m33", dsp_what, "bench_dsp", "bench_native_dsp", "mps2-an505", "cortex-m33");
  b.Throughput("dsp-m55", dsp_what, "bench_dsp", "bench_native_dsp", "mps3-an547", "cortex-m55");
  b.Throughput("dsp-m55-mve", dsp_what, "bench_dsp_mve", "bench_native_dsp", "mps3-an547", "cortex-m55");
  // Issue 38: a DS-CNN-small-sized keyword-spotting network (kws_kernels.c) as CMSIS-NN
  // writes its kernels for each core: plain C on the M3, DSP on the others, Helium on the
  // M55 with MVE (short WLSTP/LETP copy and fill loops, tail-predicated dot products).
  const char* kws_what = "keyword spotting, DS-CNN small shape (conv, 4 depthwise-separable blocks, pool, FC, softmax) x12";
  b.Throughput("kws-m3", kws_what, "bench_kws", "bench_native_kws", "mps2-an385", "cortex-m3");
  b.Throughput("kws-m4", kws_what, "bench_kws", "bench_native_kws", "mps2-an386", "cortex-m4");
  b.Throughput("kws-m7", kws_what, "bench_kws", "bench_native_kws", "mps2-an500", "cortex-m7");
  b.Throughput("kws-m33", kws_what, "bench_kws", "bench_native_kws", "mps2-an505", "cortex-m33");
  b.Throughput("kws-m55", kws_what, "bench_kws", "bench_native_kws", "mps3-an547", "cortex-m55");
  b.Throughput("kws-m55-mve", kws_what, "bench_kws_mve", "bench_native_kws", "mps3-an547", "cortex-m55", 1.5);
  b.MveVersusNoMve("kws-mve-vs-dsp", "bench_kws_mve", "bench_kws");
  b.Throughput("simd-m4", "q15 add/sub/butterfly, q7 ReLU/max, u8 blend (QADD16, SHADD16, QASX, QSUB8, SEL...) x900",
               "bench_simd", "bench_native_simd", "mps2-an386", "cortex-m4");
  b.Startup();
  b.Gating();
  b.Traps();
  b.RoadHistory();
  b.DataCache();
  b.Trace();
  b.Memory();
  b.M33VersusM55();
  b.Helium();
  b.Npu();
  b.Rv32();
  b.Scenarios();

  fmt::print("faultline benchmark, {} ({}), {} measured runs each after a warm-up\n\n",
             b.results["date"].get<std::string>(), b.results["machine"].get<std::string>(), b.opt.repeats);
  fmt::print("{:<22} {:<10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>11}\n", "workload", "engine", "median s", "min s",
             "max s", "MIPS", "RSS MiB", "checksum");
  for (const std::string& row : b.table) fmt::print("{}\n", row);
  fmt::print("\ntargets:\n");
  for (const std::string& t : b.targets) fmt::print("  {}\n", t);
  std::ofstream out(b.opt.json_path);
  out << b.results.dump(2) << "\n";
  fmt::print("\nwritten: {}\n", b.opt.json_path);
  return 0;
}
