// `run --trace FILE` (issue 17): every block executed, in order, with loops folded.
//
// A trace of every block is as long as the run: ~60 million blocks for a 300 million
// instruction inference. Loops make it repetitive, so it is folded kFolds times: a
// sequence of up to kMaxPeriod entries that repeats at once is written once, followed by
// a line saying how many more times it ran ("^6 x31": the 6 entries above, 31 more
// times). Each fold sees the one before's lines as entries, so loops around loops fold
// too. Expanding each ^ line in order gives back every block.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "faultline/report.h"

namespace faultline {

namespace {

constexpr size_t kTraceBuffer = size_t(1) << 20;  // bytes formatted before each write
constexpr size_t kMaxPeriod = 32;                  // entries in the longest loop body folded
constexpr size_t kFolds = 3;

}  // namespace

// An entry of a fold's stream: a block, or a repeat of the `period` entries before it.
struct BlockTrace::Entry {
  uint32_t address = 0, instructions = 0;
  uint32_t period = 0;  // non-zero: a repeat
  uint64_t times = 0;   // a repeat: how many more times
  bool operator==(const Entry&) const = default;
};

// Passes its entries on, except that a run of entries that repeats at once is passed on
// once, followed by a repeat entry. Entries are held back (at most 2 x kMaxPeriod) until
// they cannot start a repeat. A period is looked for only at the distances back to the
// last few times the same entry was held (a few compares per entry, not kMaxPeriod).
class BlockTrace::Fold {
 public:
  Fold(BlockTrace& trace, Fold* next) : trace_(trace), next_(next) {}

  void Add(const Entry& e) {
    if (period_ > 0) {
      if (e == body_[at_]) {
        if (++at_ == period_) at_ = 0, ++times_;
        return;
      }
      EndRepeat();
    }
    Hold(e);
  }

  // The first fold's blocks: a block that continues a repeat costs one compare, with
  // the repeat's position kept in registers (alu's one-block loop is all this).
  void AddBlocks(const TracedBlock* blocks, size_t n) {
    for (size_t i = 0; i < n;) {
      if (period_ > 0) {
        const Entry* body = body_.data();
        uint32_t at = at_;
        uint64_t times = times_;
        for (; i < n && body[at].period == 0 && blocks[i].address == body[at].address &&
               blocks[i].instructions == body[at].instructions;
             ++i) {
          if (++at == period_) at = 0, ++times;
        }
        at_ = at;
        times_ = times;
        if (i == n) break;
      }
      Add({.address = blocks[i].address, .instructions = blocks[i].instructions});
      ++i;
    }
  }

  void Finish() {
    if (period_ > 0) EndRepeat();
    for (size_t i = start_; i < held_.size(); ++i) Pass(held_[i]);
    held_.clear();
    start_ = 0;
  }

 private:
  void Pass(const Entry& e) {
    if (next_ != nullptr) {
      next_->Add(e);
    } else {
      trace_.Line(e);
    }
  }

  void Hold(const Entry& e) {
    held_.push_back(e);
    const size_t n = held_.size() - start_;
    const Entry* end = held_.data() + held_.size();
    auto repeats = [&](size_t p) { return 2 * p <= n && std::equal(end - p, end, end - 2 * p); };
    // The candidate periods: the distances back to the entry's last kRecent entries
    // (direct-mapped by a hash of the entry, so a candidate is only a candidate).
    size_t period = 0;
    const uint64_t key = uint64_t(e.address) * 0x9E3779B1u + e.instructions * 31u + e.period * 0x85EBCA77u + e.times;
    auto& recent = recent_[(key ^ (key >> 17)) % recent_.size()];
    const uint64_t now = seen_++;
    for (size_t i = 0; i < recent.size() && period == 0; ++i) {
      const uint64_t p = now - recent[i];
      if (p >= 1 && p <= kMaxPeriod && p <= now && repeats(size_t(p))) period = size_t(p);
    }
    std::rotate(recent.rbegin(), recent.rbegin() + 1, recent.rend());
    recent[0] = now;
    if (period > 0) {
      for (size_t i = start_; i < held_.size() - period; ++i) Pass(held_[i]);  // up to and with the first copy
      body_.assign(end - period, end);
      held_.clear();
      start_ = 0;
      period_ = uint32_t(period);
      at_ = 0;
      times_ = 1;
      return;
    }
    if (n > 2 * kMaxPeriod) {
      Pass(held_[start_++]);
      if (start_ >= 4096) {  // keep the buffer short: drop what went on
        held_.erase(held_.begin(), held_.begin() + long(start_));
        start_ = 0;
      }
    }
  }

  // A repeat ends: its entry goes on; the part of the body matched since the last whole
  // copy is entries again.
  void EndRepeat() {
    Pass({.period = period_, .times = times_});
    const uint32_t matched = at_;
    period_ = 0;
    for (uint32_t i = 0; i < matched; ++i) Hold(body_[i]);
  }

  BlockTrace& trace_;
  Fold* next_;
  std::vector<Entry> held_;
  size_t start_ = 0;  // held_[start_..] are held; the rest went on
  std::vector<Entry> body_;
  uint32_t period_ = 0;  // non-zero while the entries repeat body_
  uint32_t at_ = 0;      // entries of the current copy of body_ seen
  uint64_t times_ = 0;
  // When entries were last held, by a hash of the entry: seen_ at each of the last kRecent.
  static constexpr size_t kRecent = 4;
  std::array<std::array<uint64_t, kRecent>, 1024> recent_{};
  uint64_t seen_ = 0;
};

BlockTrace::BlockTrace(const SymbolTable& symbols, Format format, std::function<void(std::string_view)> write)
    : symbols_(symbols), format_(format), write_(std::move(write)) {
  text_.reserve(kTraceBuffer + 256);
  if (format_ == Format::kText) {
    text_ += "# faultline trace: address instructions symbol; ^P xN: the P entries above ran N more times\n";
  }
  // folds_[0] sees the blocks, the last writes lines.
  for (size_t i = kFolds; i > 0; --i) {
    folds_.insert(folds_.begin(), std::make_unique<Fold>(*this, folds_.empty() ? nullptr : folds_.front().get()));
  }
}

BlockTrace::~BlockTrace() = default;

void BlockTrace::Add(const TracedBlock* blocks, size_t n) {
  folds_[0]->AddBlocks(blocks, n);
}

const std::string& BlockTrace::Symbol(uint32_t address) {
  auto [it, added] = symbols_by_address_.try_emplace(address);
  if (added) {
    std::optional<SymbolRef> s = symbols_.Lookup(address);
    it->second = s ? s->ToString() : "";
  }
  return it->second;
}

void BlockTrace::Line(const Entry& e) {
  if (format_ == Format::kText) {
    if (e.period > 0) {
      fmt::format_to(std::back_inserter(text_), "^{} x{}\n", e.period, e.times);
    } else {
      const std::string& symbol = Symbol(e.address);
      fmt::format_to(std::back_inserter(text_), "0x{:08x} {} {}\n", e.address, e.instructions,
                     symbol.empty() ? "?" : symbol);
    }
  } else if (e.period > 0) {
    text_ += nlohmann::json{{"repeat", e.period}, {"times", e.times}}.dump() + "\n";
  } else {
    const std::string& symbol = Symbol(e.address);
    text_ += nlohmann::json{{"address", e.address},
                            {"instructions", e.instructions},
                            {"symbol", symbol.empty() ? nlohmann::json(nullptr) : nlohmann::json(symbol)}}
                 .dump() +
             "\n";
  }
  if (text_.size() >= kTraceBuffer) {
    write_(text_);
    text_.clear();
  }
}

void BlockTrace::Finish() {
  for (auto& fold : folds_) fold->Finish();
  write_(text_);
  text_.clear();
}

}  // namespace faultline
