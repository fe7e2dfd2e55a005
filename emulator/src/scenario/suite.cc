// Many scenarios: find the files, parse them all, select by filter and shard, and run
// the selection on worker threads (each run owns its engine).
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <string_view>
#include <fstream>
#include <cstdlib>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "faultline/error.h"
#include "faultline/scenario.h"
#include "glob.h"

namespace faultline {

namespace fs = std::filesystem;

Shard ParseShard(const std::string& text) {
  Shard s;
  auto slash = text.find('/');
  auto number = [](const std::string& t, int* v) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
    return !t.empty() && ec == std::errc() && end == t.data() + t.size();
  };
  if (slash == std::string::npos || !number(text.substr(0, slash), &s.index) ||
      !number(text.substr(slash + 1), &s.count) || s.count < 1 || s.index < 1 ||
      s.index > s.count) {
    throw InputError("--shard", fmt::format("'{}' is not I/N with 1 <= I <= N", text),
                     "write e.g. --shard 1/4 (the first of four shards)");
  }
  return s;
}

std::optional<Shard> ShardFromEnvironment() {
  const auto number = [](const char* name, int lowest) -> std::optional<int> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    int n = 0;
    const std::string_view t(v);
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || n < lowest) {
      throw InputError(name, fmt::format("'{}' is not a number from {}", EscapeControl(t), lowest),
                       "set it as the CI engine documents it, or pass --shard I/N, which takes precedence");
    }
    return n;
  };
  const auto shard = [](const char* count_name, int count, const char* index_name, int index) {
    if (index < 1 || index > count) {
      throw InputError(index_name, fmt::format("shard {} of {} ({}) does not exist", index, count, count_name),
                       "set it below the shard count, or pass --shard I/N, which takes precedence");
    }
    return Shard{index, count};
  };
  if (const auto total = number("TEST_TOTAL_SHARDS", 1)) {
    const auto index = number("TEST_SHARD_INDEX", 0);
    if (!index) throw InputError("TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS is set without it", "set both, as Bazel does");
    if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE"); status != nullptr && *status != 0) {
      std::ofstream(status, std::ios::app).flush();  // "this test runner shards": Bazel's test encyclopedia
    }
    return shard("TEST_TOTAL_SHARDS", *total, "TEST_SHARD_INDEX", *index + 1);
  }
  if (const auto total = number("CI_NODE_TOTAL", 1)) {
    const auto index = number("CI_NODE_INDEX", 1);
    if (!index) throw InputError("CI_NODE_INDEX", "CI_NODE_TOTAL is set without it", "set both, as GitLab does");
    return shard("CI_NODE_TOTAL", *total, "CI_NODE_INDEX", *index);
  }
  return std::nullopt;
}

std::vector<fs::path> FindScenarioFiles(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const std::string& arg : paths) {
    fs::path p(arg);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      RequireRegularFile(p, arg, "scenario .yaml");  // a device or FIFO: say so
      throw InputError(arg, "no such file or directory", "give scenario .yaml files or directories of them");
    }
    size_t before = files.size();
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".yaml") files.push_back(it->path());
    }
    if (files.size() == before) {
      throw InputError(arg, "holds no scenario (*.yaml) files", "give the directory that holds them");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

size_t SuiteResult::Count(ScenarioResult::Status status) const {
  return size_t(std::count_if(scenarios.begin(), scenarios.end(),
                              [&](const ScenarioResult& r) { return r.status == status; }));
}

SuiteResult RunScenarioSuite(const SuiteOptions& options) {
  auto start = std::chrono::steady_clock::now();
  // A file that does not parse (a bad regex, a typo) is that scenario's error, with its
  // file:line and fix: the others still run, and the table, JUnit and JSON list it.
  struct Entry {
    std::optional<Scenario> scenario;
    ScenarioResult error;  // when there is no scenario
    const std::string& Name() const { return scenario ? scenario->name : error.name; }
    const std::string& Board() const { return scenario ? scenario->board.name : error.board; }
    const fs::path& Path() const { return scenario ? scenario->path : error.path; }
  };
  std::vector<Entry> all;
  for (const fs::path& file : FindScenarioFiles(options.paths)) {
    try {
      all.push_back({LoadScenarioFile(file, options.context), {}});
    } catch (const InputError& e) {
      ScenarioResult r;
      r.path = file;
      r.name = file.stem().string();
      r.board = file.parent_path().filename().string();  // scenarios/<board>/<name>.yaml
      r.status = ScenarioResult::Status::kError;
      r.failures = {e.what()};
      all.push_back({std::nullopt, std::move(r)});
    }
  }

  std::vector<const Entry*> selected;
  for (const Entry& e : all) {
    const std::string& f = options.filter;
    if (f.empty() || GlobMatch(f, e.Name()) || GlobMatch(f, e.Board() + "/" + e.Name()) ||
        GlobMatch(f, e.Path().string())) {
      selected.push_back(&e);
    }
  }
  if (selected.empty()) {
    throw InputError("--filter", fmt::format("'{}' matches no scenario", options.filter),
                     "it is matched against each scenario's name, BOARD/NAME and path");
  }
  std::vector<const Entry*> shard;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (int(i % size_t(options.shard.count)) == options.shard.index - 1) shard.push_back(selected[i]);
  }

  if (options.gdb && shard.size() != 1) {
    throw InputError(options.gdb->origin,
                     fmt::format("gdb drives one scenario, and {} are selected", shard.size()),
                     "select one with --filter NAME (or BOARD/NAME), or give one scenario file");
  }
  SuiteResult result;
  result.scenarios.resize(shard.size());
  std::atomic<size_t> next{0};
  std::mutex progress;
  auto worker = [&] {
    for (size_t i = next++; i < shard.size(); i = next++) {
      if (options.on_start) {
        std::lock_guard lock(progress);
        options.on_start(i + 1, shard.size(), shard[i]->Board() + "/" + shard[i]->Name());
      }
      result.scenarios[i] = shard[i]->scenario ? RunScenario(*shard[i]->scenario, options.html, options.gdb) : shard[i]->error;
    }
  };
  size_t jobs = std::clamp<size_t>(size_t(std::max(options.jobs, 1)), 1, std::max<size_t>(shard.size(), 1));
  std::vector<std::thread> threads;
  for (size_t j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

int ExitStatus(const SuiteResult& r) {
  for (const ScenarioResult& s : r.scenarios) {
    if (s.internal_error) return 3;
  }
  if (r.Count(ScenarioResult::Status::kError) > 0) return 2;
  return r.Count(ScenarioResult::Status::kFail) > 0 ? 1 : 0;
}

fs::path DefaultFixturesDir(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("FAULTLINE_FIXTURES"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec).parent_path() / "firmware-fixtures";
}

}  // namespace faultline
