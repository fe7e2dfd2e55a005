// Replays a libFuzzer corpus with any compiler: feeds each file under the directories (or
// the files) named on the command line to the target once, as `fuzzer -runs=0 DIR` would.
// A crash, a sanitizer report or an exception other than InputError fails the test.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <sys/resource.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  // The fuzzers run with -malloc_limit_mb: here a parser that allocates hundreds of MB
  // for a few KB of input meets std::bad_alloc, which is not an InputError, and fails too.
  // AddressSanitizer has reserved terabytes of shadow already: there scripts/sanitize
  // caps each allocation instead (ASAN_OPTIONS max_allocation_size_mb).
  // A target that builds machines (fuzz_gdb) cannot have it: each engine reserves a board's
  // memory and a 1 GiB translation buffer, kept until exit. FAULTLINE_REPLAY_NO_ADDRESS_LIMIT
  // (tests/CMakeLists.txt) leaves it to the target's own bounds (a reply's size).
#if !defined(__SANITIZE_ADDRESS__)
  if (std::getenv("FAULTLINE_REPLAY_NO_ADDRESS_LIMIT") == nullptr) {
    const rlimit address_space{512ul << 20, 512ul << 20};
    setrlimit(RLIMIT_AS, &address_space);
  }
#endif
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(argv[i])) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "fuzz replay: no corpus files in the arguments\n");
    return 2;
  }
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fuzz replay: cannot read %s\n", file.c_str());
      return 2;
    }
    std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
    std::fprintf(stderr, "%s\n", file.c_str());  // the last one named is the one that crashed
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("fuzz replay: %zu inputs, none crashed\n", files.size());
  return 0;
}
