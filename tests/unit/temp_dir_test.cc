// tests/support/temp_dir.h: each TempDir is a fresh directory named after the process and
// the test, and it goes with everything in it.
#include "temp_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;

TEST(TempDir, EachIsNewNamedAfterTheTestAndProcessAndRemovedWithItsFiles) {
  fs::path kept;
  {
    const TempDir a, b("json");
    EXPECT_NE(a.path(), b.path());
    EXPECT_TRUE(fs::is_directory(a.path()));
    EXPECT_TRUE(fs::is_empty(a.path()));
    EXPECT_EQ(a.path().parent_path(), fs::temp_directory_path());
    const std::string name = b.path().filename().string();
    EXPECT_NE(name.find("TempDir.EachIsNewNamedAfterTheTestAndProcessAndRemovedWithItsFiles-" + std::to_string(getpid())),
              std::string::npos)
        << name;
    EXPECT_EQ(name.substr(name.size() - 5), "-json");
    fs::create_directories(a / "sub");
    std::ofstream(a / "sub" / "file.txt") << "x";
    kept = a;
  }
  EXPECT_FALSE(fs::exists(kept));
}

}  // namespace
}  // namespace faultline::testing
