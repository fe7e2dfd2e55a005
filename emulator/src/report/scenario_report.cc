// Scenario results for people (a table with each failure's diff), CI (JUnit XML as
// GitHub, GitLab and Jenkins read it) and programs (JSON).
#include <fmt/core.h>
#include <tinyxml2.h>

#include <map>
#include <nlohmann/json.hpp>

#include "faultline/scenario.h"
#include "json_text.h"

namespace faultline {

namespace {

const char* StatusWord(ScenarioResult::Status s) {
  switch (s) {
    case ScenarioResult::Status::kPass: return "PASS";
    case ScenarioResult::Status::kFail: return "FAIL";
    case ScenarioResult::Status::kError: return "ERROR";
  }
  return "?";
}

std::string Label(const ScenarioResult& r) { return r.board + "/" + r.name; }

std::string Seeds(const ScenarioResult& r) {
  std::string s;
  for (const auto& [region, seed] : r.random_seeds) {
    s += fmt::format("{}{}=0x{:x}", s.empty() ? "" : ", ", region, seed);
  }
  return s;
}

// What the run did, in one line: the context a failure's diff needs.
std::string Got(const RunResult& r) {
  std::string s = ToString(r.outcome);
  if (r.outcome == Outcome::kExit) s += fmt::format(" (status {})", r.exit_code);
  if (r.fault) {
    s += fmt::format(" ({}", r.fault->kind);
    if (r.fault->access) s += fmt::format(", {} at 0x{:08x}", ToString(*r.fault->access), r.fault->address);
    s += fmt::format(", pc 0x{:08x}{})", r.fault->pc,
                     r.fault->pc_symbol ? " <" + r.fault->pc_symbol->ToString() + ">" : "");
  }
  if (!r.stop_detail.empty() && r.outcome != Outcome::kExit) {
    s += " (" + r.stop_detail + (r.budget ? "; raise it with " + r.budget->setting : "") + ")";
  }
  if (r.hang) s += " (" + r.hang->why + ")";
  if (r.unsupported) s += " (" + r.unsupported->what + ")";
  return s + fmt::format(" after {} instructions", r.instructions);
}

// The failure's body: each failed expectation, then what the run did, the seeds and
// the file.
std::string Details(const ScenarioResult& r, const std::string& indent) {
  std::string s;
  for (const std::string& f : r.failures) s += indent + f + "\n";
  if (r.run) s += indent + "got: " + Got(*r.run) + "\n";
  if (!r.random_seeds.empty()) s += indent + "random reset seeds: " + Seeds(r) + "\n";
  s += indent + "file: " + r.path.string() + "\n";
  return s;
}

}  // namespace

std::string FormatScenarioTable(const SuiteResult& result) {
  size_t width = 0;
  for (const auto& r : result.scenarios) width = std::max(width, Label(r).size());
  std::string out;
  for (const auto& r : result.scenarios) {
    out += fmt::format("{:<5}  {:<{}}  {:>7.3f} s\n", StatusWord(r.status), Label(r), width, r.seconds);
    if (r.status != ScenarioResult::Status::kPass) out += Details(r, "         ");
  }
  out += fmt::format("{} scenarios: {} passed, {} failed, {} errors ({:.2f} s)\n",
                     result.scenarios.size(), result.Count(ScenarioResult::Status::kPass),
                     result.Count(ScenarioResult::Status::kFail),
                     result.Count(ScenarioResult::Status::kError), result.seconds);
  return out;
}

// Console text as XML 1.0 character data: it has no place for C0 controls other than tab,
// LF and CR (XML 1.0 §2.2, "Char"), and tinyxml2 takes a C string, which a NUL would cut.
std::string XmlCharData(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      AppendByteEscape(out, u);
    } else {
      out += c;
    }
  }
  return EscapeNonUtf8(out);
}

std::string FormatScenarioJunit(const SuiteResult& result) {
  tinyxml2::XMLDocument doc;
  doc.InsertEndChild(doc.NewDeclaration());
  auto* suites = doc.NewElement("testsuites");
  doc.InsertEndChild(suites);
  suites->SetAttribute("name", "faultline scenarios");
  suites->SetAttribute("tests", int(result.scenarios.size()));
  suites->SetAttribute("failures", int(result.Count(ScenarioResult::Status::kFail)));
  suites->SetAttribute("errors", int(result.Count(ScenarioResult::Status::kError)));
  suites->SetAttribute("time", fmt::format("{:.3f}", result.seconds).c_str());

  // One testsuite per board, in name order.
  std::map<std::string, std::vector<const ScenarioResult*>> by_board;
  for (const auto& r : result.scenarios) by_board[r.board].push_back(&r);
  for (const auto& [board, list] : by_board) {
    auto* suite = suites->InsertNewChildElement("testsuite");
    double seconds = 0;
    int failures = 0, errors = 0;
    for (const auto* r : list) {
      seconds += r->seconds;
      failures += r->status == ScenarioResult::Status::kFail;
      errors += r->status == ScenarioResult::Status::kError;
    }
    suite->SetAttribute("name", XmlCharData(board).c_str());
    suite->SetAttribute("tests", int(list.size()));
    suite->SetAttribute("failures", failures);
    suite->SetAttribute("errors", errors);
    suite->SetAttribute("time", fmt::format("{:.3f}", seconds).c_str());
    for (const auto* r : list) {
      auto* tc = suite->InsertNewChildElement("testcase");
      tc->SetAttribute("classname", XmlCharData(r->board).c_str());
      tc->SetAttribute("name", XmlCharData(r->name).c_str());
      tc->SetAttribute("file", XmlCharData(r->path.string()).c_str());
      tc->SetAttribute("time", fmt::format("{:.3f}", r->seconds).c_str());
      if (r->status != ScenarioResult::Status::kPass) {
        bool fail = r->status == ScenarioResult::Status::kFail;
        auto* f = tc->InsertNewChildElement(fail ? "failure" : "error");
        std::string first = r->failures.empty() ? "" : r->failures.front();
        if (r->failures.size() > 1) first += fmt::format(" (and {} more)", r->failures.size() - 1);
        f->SetAttribute("message", XmlCharData(first).c_str());
        f->SetAttribute("type", fail ? "expectation" : "input");
        f->SetText(XmlCharData(Details(*r, "")).c_str());
      }
      if (r->run && !r->run->console.empty()) {
        tc->InsertNewChildElement("system-out")->SetText(XmlCharData(r->run->console).c_str());
      }
    }
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

std::string FormatScenarioJson(const SuiteResult& result) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : result.scenarios) {
    nlohmann::json j = {{"name", r.name},
                        {"board", r.board},
                        {"path", r.path.string()},
                        {"status", r.status == ScenarioResult::Status::kPass   ? "pass"
                                   : r.status == ScenarioResult::Status::kFail ? "fail"
                                                                               : "error"},
                        {"seconds", r.seconds},
                        {"failures", r.failures}};
    nlohmann::json seeds = nlohmann::json::object();
    for (const auto& [region, seed] : r.random_seeds) seeds[region] = seed;
    j["random_seeds"] = seeds;
    if (r.run) {
      j["outcome"] = ToString(r.run->outcome);
      j["exit_code"] = r.run->exit_code;
      j["instructions"] = r.run->instructions;
      j["console"] = r.run->console;
      j["stop_detail"] = r.run->stop_detail;
      if (r.run->budget) {
        j["budget"] = {{"kind", r.run->budget->kind},
                       {"limit", r.run->budget->limit},
                       {"setting", r.run->budget->setting}};
      }
    }
    list.push_back(std::move(j));
  }
  nlohmann::json doc = {{"scenarios", list},
                        {"passed", result.Count(ScenarioResult::Status::kPass)},
                        {"failed", result.Count(ScenarioResult::Status::kFail)},
                        {"errors", result.Count(ScenarioResult::Status::kError)},
                        {"seconds", result.seconds}};
  return DumpJson(doc, 2) + "\n";
}

}  // namespace faultline
