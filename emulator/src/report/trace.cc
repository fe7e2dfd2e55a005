// `run --trace FILE` (issue 17): every block executed, in order, with loops folded.
//
// A trace of every block is as long as the run: ~60 million blocks for a 300 million
// instruction inference. Loops make it repetitive, so it is folded three times over: a
// sequence of up to kMaxPeriod entries that repeats at once is written once, followed by
// a line saying how many more times it ran ("^6 x31": the 6 entries above, 31 more
// times). Each fold sees the one before's lines as entries, so loops around loops fold
// too. Expanding each ^ line in order gives back every block.
#include <algorithm>
#include <array>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "faultline/report.h"
#include "faultline/text.h"

namespace faultline {

namespace {

constexpr size_t kTraceBuffer = size_t(1) << 20;  // bytes formatted before each write
constexpr size_t kMaxPeriod = 32;                  // entries in the longest loop body folded

// An entry of a fold's stream in one word, so that entries compare as integers: a block
// is its instruction count << 32 | its address (a block has far fewer than 2^31
// instructions); a repeat of the `period` entries before it has the top bit set, the
// period in bits 56-62 and how many more times it ran in the 56 bits below.
using Entry = uint64_t;
constexpr Entry kRepeat = Entry(1) << 63;
constexpr int kPeriodShift = 56;
constexpr Entry kTimes = (Entry(1) << kPeriodShift) - 1;

Entry BlockEntry(const TracedBlock& b) { return Entry(b.instructions) << 32 | b.address; }
Entry RepeatEntry(uint32_t period, uint64_t times) { return kRepeat | Entry(period) << kPeriodShift | times; }

// What a fold's output from here on depends on: the held entries and the repeat (its
// runs only say which periods the held entries repeat at, once they are 2P long), and
// how many entries it has passed on.
struct FoldState {
  std::array<Entry, 2 * kMaxPeriod + 1> held;
  std::array<Entry, kMaxPeriod> body;
  size_t n;
  uint32_t period, at;
  uint64_t times, passed;
};
// What became of a fold's saved state: the same; the same but for its repeat's count,
// which it went on matching (nothing passed on); or another.
enum Since { kSame, kCounted, kOther };

// Writes v in decimal at `at`; returns the end.
char* Decimal(char* at, uint64_t v) {
  char digits[20];
  char* d = digits + sizeof digits;
  do {
    *--d = char('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return std::copy(d, digits + sizeof digits, at);
}

}  // namespace

// Passes its entries on to `Next` (the next fold, or the lines), except that a run of
// entries that repeats at once is passed on once, followed by a repeat entry. Entries are
// held back (at most 2 x kMaxPeriod) until they cannot start a repeat. The repeat found
// is the shortest: for each period P, runs_ counts how many of the latest entries equal
// the one P before them, and P repeats once that count reaches P (32 compares per held
// entry, in SSE2 lanes, and no search).
template <typename Next>
class BlockTrace::Fold {
 public:
  explicit Fold(Next& next) : next_(next) {}

  void Add(Entry e) {
    if (period_ > 0) {
      if (e == body_[at_]) {
        if (++at_ == period_) at_ = 0, ++times_;
        return;
      }
      EndRepeat();
    }
    Hold(e);
  }

  void Save(FoldState& s) const {
    s.n = end_ - begin_;
    for (size_t i = 0; i < s.n; ++i) s.held[i] = At(begin_ + i);
    std::copy_n(body_.begin(), period_, s.body.begin());
    s.period = period_;
    s.at = at_;
    s.times = Times();
    s.passed = passed_;
  }
  // What became of the state saved in `s`.
  Since Compare(const FoldState& s) const {
    if (s.n != end_ - begin_ || s.period != period_ || s.at != at_ ||
        !std::equal(body_.begin(), body_.begin() + period_, s.body.begin())) {
      return kOther;
    }
    for (size_t i = 0; i < s.n; ++i) {
      if (s.held[i] != At(begin_ + i)) return kOther;
    }
    if (period_ == 0 || s.times == times_) return kSame;
    return s.passed == passed_ ? kCounted : kOther;
  }
  void Count(uint64_t times) { times_ += times; }
  // Back to a saved state.
  void Restore(const FoldState& s) {
    begin_ = kMaxPeriod;
    end_ = begin_ + s.n;
    for (size_t i = 0; i < s.n; ++i) {
      lo_[begin_ + i] = uint32_t(s.held[i]);
      hi_[begin_ + i] = uint32_t(s.held[i] >> 32);
    }
    std::copy_n(s.body.begin(), s.period, body_.begin());
    period_ = s.period;
    at_ = s.at;
    times_ = s.times;
    passed_ = s.passed;
    // The runs among the held entries: a period is found only from those (see Hold).
    for (size_t j = 0; j < kMaxPeriod; ++j) {
      const size_t p = kMaxPeriod - j;
      size_t i = end_;
      while (i >= begin_ + p + 1 && At(i - 1) == At(i - 1 - p)) --i;
      runs_[j] = uint8_t(end_ - i);
    }
  }
  uint64_t Times() const { return period_ > 0 ? times_ : 0; }

  void Finish() {
    if (period_ > 0) EndRepeat();
    for (size_t i = begin_; i < end_; ++i) Pass(At(i));
    Clear();
    next_.Finish();
  }

 private:
  void Clear() {
    begin_ = end_ = kMaxPeriod;
    runs_ = {};
  }

  void Hold(Entry e) {
    if (end_ == lo_.size()) {  // move the held entries back to the start, kMaxPeriod slots in
      std::copy(lo_.begin() + long(begin_), lo_.end(), lo_.begin() + kMaxPeriod);
      std::copy(hi_.begin() + long(begin_), hi_.end(), hi_.begin() + kMaxPeriod);
      end_ -= begin_ - kMaxPeriod;
      begin_ = kMaxPeriod;
    }
    lo_[end_] = uint32_t(e);
    hi_[end_] = uint32_t(e >> 32);
    ++end_;
    const size_t n = end_ - begin_;
    // Bit 32-P: the latest P or more entries equal the one P before them. The compares
    // reach back past the held entries, but a run of P compares only held ones once 2P
    // entries are held.
    uint32_t found = Runs(end_ - 1 - kMaxPeriod, uint32_t(e), uint32_t(e >> 32));
    if (n < 2 * kMaxPeriod) found &= ~((uint32_t(2) << (kMaxPeriod - 1 - n / 2)) - 1);
    if (found != 0) {
      const size_t period = size_t(__builtin_clz(found)) + 1;
      for (size_t i = begin_; i < end_ - period; ++i) Pass(At(i));  // up to and with the first copy
      for (size_t i = 0; i < period; ++i) body_[i] = At(end_ - period + i);
      Clear();
      period_ = uint32_t(period);
      at_ = 0;
      times_ = 1;
      return;
    }
    if (n > 2 * kMaxPeriod) Pass(At(begin_++));
  }

  Entry At(size_t i) const { return Entry(hi_[i]) << 32 | lo_[i]; }

  void Pass(Entry e) {
    ++passed_;
    next_.Add(e);
  }

  // Counts the runs for the entry (lo, hi) compared with the kMaxPeriod at `back`
  // onwards, entry back + j being P = kMaxPeriod - j before it; returns bit j set where
  // the run of P reaches P.
  uint32_t Runs(size_t back, uint32_t lo, uint32_t hi) {
#ifdef __SSE2__
    static_assert(kMaxPeriod == 32);
    const __m128i l = _mm_set1_epi32(int(lo)), h = _mm_set1_epi32(int(hi));
    auto equal4 = [&](size_t j) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&lo_[back + j]));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&hi_[back + j]));
      return _mm_and_si128(_mm_cmpeq_epi32(a, l), _mm_cmpeq_epi32(b, h));
    };
    auto equal16 = [&](size_t j) {  // 16 byte lanes, all ones where equal
      return _mm_packs_epi16(_mm_packs_epi32(equal4(j), equal4(j + 4)), _mm_packs_epi32(equal4(j + 8), equal4(j + 12)));
    };
    const __m128i one = _mm_set1_epi8(1);
    // Runs stay below 2 x kMaxPeriod + 2, so a signed compare of bytes will do.
    auto* runs = reinterpret_cast<__m128i*>(runs_.data());
    const __m128i runs0 = _mm_and_si128(_mm_add_epi8(_mm_load_si128(runs), one), equal16(0));
    const __m128i runs1 = _mm_and_si128(_mm_add_epi8(_mm_load_si128(runs + 1), one), equal16(16));
    _mm_store_si128(runs, runs0);
    _mm_store_si128(runs + 1, runs1);
    const __m128i below0 = _mm_setr_epi8(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16);
    const __m128i below1 = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    return uint32_t(_mm_movemask_epi8(_mm_cmpgt_epi8(runs0, below0))) |
           uint32_t(_mm_movemask_epi8(_mm_cmpgt_epi8(runs1, below1))) << 16;
#else
    uint32_t found = 0;
    for (size_t j = 0; j < kMaxPeriod; ++j) {
      runs_[j] = lo_[back + j] == lo && hi_[back + j] == hi ? uint8_t(runs_[j] + 1) : 0;
      found |= uint32_t(runs_[j] >= kMaxPeriod - j) << j;
    }
    return found;
#endif
  }

  // A repeat ends: its entry goes on; the part of the body matched since the last whole
  // copy is entries again.
  void EndRepeat() {
    Pass(RepeatEntry(period_, times_));
    const uint32_t matched = at_;
    period_ = 0;
    for (uint32_t i = 0; i < matched; ++i) Hold(body_[i]);
  }

  Next& next_;
  // The held entries' low and high words (apart, for the compares): [begin_, end_) are
  // held, and there are at least kMaxPeriod slots before begin_.
  std::array<uint32_t, 4096> lo_{}, hi_{};
  size_t begin_ = kMaxPeriod, end_ = kMaxPeriod;
  // For the entry kMaxPeriod - j before the latest, how many of the latest entries in a
  // row equal the one that far before them.
  alignas(16) std::array<uint8_t, kMaxPeriod> runs_{};
  std::array<Entry, kMaxPeriod> body_{};
  uint32_t period_ = 0;  // non-zero while the entries repeat body_
  uint32_t at_ = 0;      // entries of the current copy of body_ seen
  uint64_t times_ = 0;
  uint64_t passed_ = 0;  // entries passed on
};

// The last fold's entries, as lines; while `record` is set, their text is kept there too.
struct BlockTrace::Lines {
  BlockTrace& trace;
  std::string* record = nullptr;
  void Add(Entry e) {
    const size_t from = trace.text_.size();
    trace.Line(e);
    if (record != nullptr) record->append(trace.text_, from);
    WriteIfFull();
  }
  // Lines written before, again.
  void Again(std::string_view text) {
    trace.text_ += text;
    WriteIfFull();
  }
  void Finish() {}
  void WriteIfFull() {
    if (trace.text_.size() >= kTraceBuffer) trace.Write();
  }
};

// The folds, each passing to the next, behind a shortcut for loops longer than a fold's
// periods (outer loops of hundreds of blocks): when the blocks repeat the `cycle` blocks
// before them and the folds are back in the state they were in `cycle` blocks before,
// the next `cycle` blocks will do to the folds exactly what the last did: write the same
// lines, or add the same count to one fold's repeat (nothing depends on the count but its
// line). So while the blocks go on repeating, each costs a compare with the one `cycle`
// before, and the folds are brought up to date when one differs. The cycle to try is the
// distance to the block's previous occurrence (as LZ77 finds a match).
struct BlockTrace::Folds {
  explicit Folds(BlockTrace& trace) : lines{trace}, history(kHistory), last(kLastSlots) {}
  Lines lines;
  Fold<Lines> third{lines};
  Fold<Fold<Lines>> second{third};
  Fold<Fold<Fold<Lines>>> first{second};

  void Add(const TracedBlock* blocks, size_t n) {
    Entry* h = history.data();
    for (size_t i = 0; i < n; ++i) {
      if (phase_ == kSkip) {
        uint64_t t = t_;
        for (; i < n; ++i, ++t) {
          const Entry e = BlockEntry(blocks[i]);
          h[t & kMask] = e;
          if (e != h[(t - cycle_) & kMask]) break;
        }
        t_ = t;
        if (i == n) break;
        CatchUp();
      } else {
        h[t_ & kMask] = BlockEntry(blocks[i]);
      }
      Step(h[t_ & kMask]);
    }
  }

  void Finish() {
    if (phase_ == kSkip) CatchUp();
    lines.record = nullptr;
    first.Finish();
  }

 private:
  static constexpr uint64_t kHistory = uint64_t(1) << 16;  // blocks kept (a power of two)
  static constexpr uint64_t kMask = kHistory - 1;
  static constexpr uint64_t kMaxCycle = kHistory / 2;
  static constexpr size_t kLastSlots = 4096;
  static constexpr uint64_t kCheckpointEvery = 128;  // blocks
  enum Phase { kSearch, kVerify, kSkip };

  static size_t Slot(Entry e) { return size_t((e * 0x9e3779b97f4a7c15u) >> 52); }

  // Block t_ (in the history) through the folds, the cycle followed or a new one tried.
  void Step(Entry e) {
    if (cycle_ > 0 && e == history[(t_ - cycle_) & kMask]) {
      ++matched_;
    } else {
      lines.record = nullptr;
      phase_ = kSearch;
      const uint64_t seen = last[Slot(e)];  // 1 + where it was
      cycle_ = seen > 0 && t_ - (seen - 1) <= kMaxCycle && history[(seen - 1) & kMask] == e ? t_ - (seen - 1) : 0;
      matched_ = cycle_ > 0;
      save_at_ = std::clamp<uint64_t>(cycle_, 32, 64);
      tries_ = 0;
    }
    last[Slot(e)] = t_ + 1;
    first.Add(e);
    ++t_;
    if (phase_ == kVerify) {
      if (t_ == from_ + cycle_) {
        Verify();
      } else if ((t_ - from_) % kCheckpointEvery == 0) {
        Save((t_ - from_) / kCheckpointEvery);
      }
    } else if (cycle_ > 0 && matched_ == save_at_) {
      cycle_lines_.clear();
      lines.record = &cycle_lines_;
      phase_ = kVerify;
      from_ = t_;
      Save(0);
    }
  }

  // The folds' states and the lines written so far, at checkpoint k of the cycle.
  void Save(size_t k) {
    if (k >= checkpoints_.size()) checkpoints_.resize(k + 1);
    first.Save(checkpoints_[k].states[0]);
    second.Save(checkpoints_[k].states[1]);
    third.Save(checkpoints_[k].states[2]);
    checkpoints_[k].lines = cycle_lines_.size();
  }

  // A cycle since the states were saved, the blocks repeating all along: skip from here
  // if the folds are back where they were.
  void Verify() {
    lines.record = nullptr;
    const FoldState* saved = checkpoints_[0].states;
    const int since[3] = {first.Compare(saved[0]), second.Compare(saved[1]), third.Compare(saved[2])};
    counted_ = -1;
    bool same = true;
    for (int i = 0; i < 3; ++i) {
      if (since[i] == kOther || (since[i] == kCounted && counted_ >= 0)) same = false;
      if (since[i] == kCounted) counted_ = i;
    }
    if (same && (counted_ < 0 || cycle_lines_.empty())) {
      const uint64_t times[3] = {first.Times(), second.Times(), third.Times()};
      if (counted_ >= 0) per_cycle_ = times[counted_] - saved[counted_].times;
      phase_ = kSkip;
      from_ = t_;
      return;
    }
    // Not yet (a fold may still hold entries from before the loop): try again later.
    phase_ = kSearch;
    save_at_ = matched_ + (cycle_ << std::min(++tries_, 10u));
  }

  // Block t_ differs from the one a cycle before: the folds take the whole cycles
  // skipped at once, start again from the last checkpoint passed in the cycle (as
  // the first cycle left them there, one more cycle back), and take the blocks since.
  void CatchUp() {
    const uint64_t skipped = t_ - from_, rest = skipped % cycle_, k = rest / kCheckpointEvery;
    uint64_t cycles = skipped / cycle_;
    if (k > 0) {
      const Checkpoint& c = checkpoints_[k];
      first.Restore(c.states[0]);
      second.Restore(c.states[1]);
      third.Restore(c.states[2]);
      ++cycles;
    }
    if (counted_ == 0) first.Count(cycles * per_cycle_);
    if (counted_ == 1) second.Count(cycles * per_cycle_);
    if (counted_ == 2) third.Count(cycles * per_cycle_);
    if (counted_ < 0 && !cycle_lines_.empty()) {
      for (uint64_t c = k > 0; c < cycles; ++c) lines.Again(cycle_lines_);
      if (k > 0) lines.Again(std::string_view(cycle_lines_).substr(0, checkpoints_[k].lines));
    }
    for (uint64_t t = std::max(from_, t_ - cycle_); t < t_; ++t) last[Slot(history[t & kMask])] = t + 1;
    for (uint64_t t = t_ - (rest - k * kCheckpointEvery); t < t_; ++t) first.Add(history[t & kMask]);
    phase_ = kSearch;
  }

  std::vector<Entry> history;  // block t at t & kMask
  std::vector<uint64_t> last;  // by Slot(block): 1 + the latest t it was at (0: none)
  uint64_t t_ = 0;             // blocks seen
  uint64_t cycle_ = 0;         // the distance followed (0: none)
  uint64_t matched_ = 0;       // how many blocks in a row equal the one cycle_ before
  uint64_t save_at_ = 0;       // the matched_ at which to save the folds' states
  unsigned tries_ = 0;
  Phase phase_ = kSearch;
  uint64_t from_ = 0;  // kVerify: the t_ the states were saved at; kSkip: the first t_ skipped
  struct Checkpoint {
    FoldState states[3];  // of the folds
    size_t lines;         // the size of cycle_lines_
  };
  // Every kCheckpointEvery blocks of the cycle, from the start (where the blocks repeat
  // from); where they stop repeating, the folds start from the checkpoint before.
  std::vector<Checkpoint> checkpoints_;
  std::string cycle_lines_;  // the lines written in a cycle
  int counted_ = -1;                // kSkip: the fold a cycle adds per_cycle_ to its count (-1: lines)
  uint64_t per_cycle_ = 0;
};

BlockTrace::BlockTrace(const SymbolTable& symbols, Format format, std::function<void(std::string_view)> write,
                       uint64_t limit)
    : symbols_(symbols),
      format_(format),
      write_(std::move(write)),
      limit_(limit),
      folds_(std::make_unique<Folds>(*this)) {
  text_.reserve(kTraceBuffer + 256);
  if (format_ == Format::kText) {
    text_ += "# faultline trace: address instructions symbol; ^P xN: the P entries above ran N more times\n";
  }
}

BlockTrace::~BlockTrace() = default;

void BlockTrace::Add(const TracedBlock* blocks, size_t n) {
  if (!stopped_) folds_->Add(blocks, n);
}

void BlockTrace::Write() {
  if (stopped_) {
    text_.clear();
    return;
  }
  if (written_ + text_.size() <= limit_) {
    write_(text_);
    written_ += text_.size();
    text_.clear();
    return;
  }
  // The whole lines that fit, then the line that says where the trace stopped.
  const size_t fits = size_t(limit_ - written_);
  const size_t end = fits == 0 ? 0 : text_.rfind('\n', fits - 1) + 1;  // npos + 1 == 0: none fits
  write_(std::string_view(text_).substr(0, end));
  const std::string why = fmt::format("the trace stops here, at its limit of {} bytes (--trace-limit MIB raises it); "
                                      "the run went on",
                                      limit_);
  write_(format_ == Format::kText ? "# faultline: " + why + "\n"
                                  : nlohmann::json{{"stopped", why}, {"limit", limit_}}.dump() + "\n");
  stopped_ = true;
  text_.clear();
}

const std::string& BlockTrace::Symbol(uint32_t address) {
  auto [it, added] = symbols_by_address_.try_emplace(address);
  if (added) {
    std::optional<SymbolRef> s = symbols_.Lookup(address);
    it->second = s ? EscapeNonUtf8(s->ToString()) : "";  // an ELF's names are bytes (text.h)
  }
  return it->second;
}

namespace {

// "BusFault", "SysTick", "IRQ 3" (Armv7-M ARM §B1.5.2 exception numbers).
std::string ExceptionName(uint32_t n) {
  static const char* const kNames[16] = {"", "Reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault",
                                         "SecureFault", "", "", "", "SVCall", "DebugMonitor", "", "PendSV", "SysTick"};
  if (n >= 16) return fmt::format("IRQ {}", n - 16);
  return kNames[n][0] != 0 ? kNames[n] : fmt::format("exception {}", n);
}

}  // namespace

void BlockTrace::Line(uint64_t e) {
  const uint32_t address = uint32_t(e), instructions = uint32_t(e >> 32);
  const uint32_t period = uint32_t(e >> kPeriodShift) & 0x7f;
  const uint64_t times = e & kTimes;
  if (!(e & kRepeat) && instructions == kTracedException) {  // an exception entry or return
    if (format_ == Format::kText) {
      text_ += address == 0 ? "# exception return\n" : "# exception entry: " + ExceptionName(address) + "\n";
    } else {
      text_ += (address == 0 ? nlohmann::json{{"exception_return", true}}
                             : nlohmann::json{{"exception", address}, {"name", ExceptionName(address)}})
                   .dump() +
               "\n";
    }
    return;
  }
  if (format_ == Format::kText) {
    // "^P xN" or "0x%08x N symbol", by hand: tinynet's trace is 2.6M lines.
    char line[48];
    char* at = line;
    if (e & kRepeat) {
      *at++ = '^';
      at = Decimal(at, period);
      *at++ = ' ';
      *at++ = 'x';
      at = Decimal(at, times);
      *at++ = '\n';
      text_.append(line, at);
    } else {
      *at++ = '0';
      *at++ = 'x';
      for (int shift = 28; shift >= 0; shift -= 4) *at++ = "0123456789abcdef"[(address >> shift) & 15];
      *at++ = ' ';
      at = Decimal(at, instructions);
      *at++ = ' ';
      text_.append(line, at);
      const std::string& symbol = Symbol(address);
      text_ += symbol.empty() ? "?" : symbol;
      text_ += '\n';
    }
  } else if (e & kRepeat) {
    text_ += nlohmann::json{{"repeat", period}, {"times", times}}.dump() + "\n";
  } else {
    const std::string& symbol = Symbol(address);
    text_ += nlohmann::json{{"address", address},
                            {"instructions", instructions},
                            {"symbol", symbol.empty() ? nlohmann::json(nullptr) : nlohmann::json(symbol)}}
                 .dump() +
             "\n";
  }
}

void BlockTrace::Finish() {
  if (!stopped_) folds_->Finish();
  Write();
}

}  // namespace faultline
