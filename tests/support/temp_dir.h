// Test support: a directory of a test's own for the files it writes (boards, scenarios,
// JSON reports, patched ELFs). ctest -j runs every test in its own process, several at
// once, and the same test in two build trees at once: the name holds the process, the
// test and a counter, and the directory goes, with what is in it, when the TempDir does.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace faultline::testing {

class TempDir {
 public:
  // `what` is added to the name, to tell a test's directories apart when it looks.
  explicit TempDir(std::string_view what = {}) {
    static std::atomic<int> counter{0};
    std::string test = "no-test";
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
      test = std::string(info->test_suite_name()) + "." + info->name();
    }
    std::string name = "faultline-" + test + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    if (!what.empty()) name += "-" + std::string(what);
    for (char& c : name) {
      if (c == '/') c = '_';  // a parameterised test's name: Suite/Test/0
    }
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;  // a test that failed halfway may have left it read-only
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string string() const { return path_.string(); }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }
  operator const std::filesystem::path&() const { return path_; }  // NOLINT: used where a path is

 private:
  std::filesystem::path path_;
};

}  // namespace faultline::testing
