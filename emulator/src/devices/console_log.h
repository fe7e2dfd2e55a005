// What the firmware prints, bounded (issue 20 item 2): every byte goes to the stream as
// it comes, the log keeps only its last `keep` bytes (a firmware that prints forever
// must not grow the process until it dies), counts them all, and notes which of the
// watched strings appeared anywhere, so that a scenario's `contains` holds on a console
// far longer than what is kept. Pure C++; internal to the emulator library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

class ConsoleLog {
 public:
  // Called with each piece of text and the offset of its first byte in the console.
  using Stream = std::function<void(uint64_t offset, std::string_view text)>;

  explicit ConsoleLog(size_t keep, Stream stream = {}, std::vector<std::string> watch = {})
      : keep_(std::max<size_t>(keep, 1)), stream_(std::move(stream)), watch_(std::move(watch)),
        seen_(watch_.size(), false) {
    for (const std::string& w : watch_) longest_ = std::max(longest_, w.size());
  }

  void Append(std::string_view text) {
    if (text.empty()) return;
    if (stream_) stream_(bytes_, text);
    bytes_ += text.size();
    Watch(text);
    if (text.size() >= keep_) {  // a piece longer than what is kept replaces it all
      kept_.assign(text.substr(text.size() - keep_));
      return;
    }
    kept_.append(text);
    // Trimmed once it holds twice what is kept: each byte is moved at most once more.
    if (kept_.size() >= 2 * keep_) kept_.erase(0, kept_.size() - keep_);
  }

  // The last `keep` bytes (all of them if there were no more).
  std::string Tail() const { return kept_.size() > keep_ ? kept_.substr(kept_.size() - keep_) : kept_; }
  uint64_t bytes() const { return bytes_; }
  const std::vector<bool>& seen() const { return seen_; }

 private:
  // A watched string may straddle two appends: the previous text's last bytes are
  // searched again with the new ones.
  void Watch(std::string_view text) {
    if (watch_.empty()) return;
    std::string window = carry_;
    window.append(text);
    for (size_t i = 0; i < watch_.size(); ++i) {
      if (!seen_[i] && window.find(watch_[i]) != std::string::npos) seen_[i] = true;
    }
    const size_t carry = longest_ > 0 ? longest_ - 1 : 0;
    carry_ = window.size() > carry ? window.substr(window.size() - carry) : window;
  }

  size_t keep_;
  Stream stream_;
  std::vector<std::string> watch_;
  std::vector<bool> seen_;
  size_t longest_ = 0;
  std::string carry_;
  std::string kept_;
  uint64_t bytes_ = 0;
};

}  // namespace faultline
