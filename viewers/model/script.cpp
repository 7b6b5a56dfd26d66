// --script parsing.
#include "viewers/model/script.h"

#include "viewers/model/ab_compare.h"

#include <array>
#include <charconv>
#include <sstream>

#include <fmt/format.h>

namespace ls::viewmodel {

namespace {
constexpr std::array<std::string_view, size_t(ScriptOp::COUNT)> kOpNames = {
    "open", "pipeline", "profile", "target", "run", "wait",
    "select pass", "next pass", "prev pass", "next changed", "prev changed", "first pass", "last pass",
    "select node", "pin pass", "unpin", "view", "filter", "search", "search next", "search prev",
    "compare", "fit", "zoom", "export comparison", "export chart", "frames", "next change", "prev change", "expect", "key", "export run", "enter", "leave", "compare-trace", "stage", "graph-option", "timing-option", "pane add", "pane clear", "expand", "collapse", "follow lineage", "pane add-b"};
static_assert(kOpNames.size() == size_t(ScriptOp::COUNT));

std::vector<std::string> splitWords(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c == ' ' || c == '\t')) {
      if (any) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) out.push_back(cur);
  return out;
}

bool isCounterName(std::string_view s) {
  return s == "drawn-nodes" || s == "drawn-labels" || s == "drawn-edges" || s == "drawn-badges" || s == "drawn-stubs" ||
         s == "drawn-errors" || s == "drawn-ghosts" || s == "drawn-links" || s == "drawn-tinted" || s == "columns" || s == "compare-rows" || s == "visible-passes" || s == "delegates" || s == "delegated-nodes" ||
         s == "undelegated-ops" || s == "ir-diff-added" || s == "ir-diff-removed" || s == "timing-bars" ||
         s == "timeline-passes" || s == "timeline-ticks" || s == "timeline-visible" || s == "ab-rows" || s == "ab-repeats" || s == "ab-noise" ||
         s == "op-diffs" || s == "pane-count" || s == "synced-panes" || s == "drawn-folds" || s == "folds" ||
         s == "changed-fields" || s == "lineage-entries";
}

bool parseInt(std::string_view s, int& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parseDouble(const std::string& s, double& v) {
  try {
    size_t n = 0;
    v = std::stod(s, &n);
    return n == s.size();
  } catch (...) {
    return false;
  }
}

bool isStatusName(std::string_view s) {
  for (size_t i = 0; i < size_t(passes::PassStatus::COUNT); ++i)
    if (passes::passStatusName(passes::PassStatus(i)) == s) return true;
  return false;
}

bool isVerdictName(std::string_view s) {
  for (size_t i = 0; i < size_t(AbVerdict::COUNT); ++i)
    if (abVerdictName(AbVerdict(i)) == s) return true;
  return false;
}

std::string rest(const std::vector<std::string>& w, size_t from) {
  std::string s;
  for (size_t i = from; i < w.size(); ++i) {
    if (i > from) s += ' ';
    s += w[i];
  }
  return s;
}
}  // namespace

std::string_view scriptOpName(ScriptOp op) { return size_t(op) < kOpNames.size() ? kOpNames[size_t(op)] : "?"; }

RunConfig RunOverrides::apply(RunConfig c) const {
  if (pipeline) c.pipeline = *pipeline;
  if (profile) c.profile = *profile;
  if (target) c.target = *target;
  if (skip) c.engine.skip = *skip;
  if (fastCopy) c.engine.fastCopy = *fastCopy;
  if (cache) c.engine.cache = *cache;
  if (quantize) c.quantize = *quantize;
  if (calibration) c.calibration = *calibration;
  if (observer) c.observer = *observer;
  for (const std::string& d : disable) c.disabled.push_back(d);
  return c;
}

Result<std::vector<ScriptCommand>> parseScript(std::string_view text, std::string_view sourceName) {
  std::vector<ScriptCommand> out;
  std::istringstream in{std::string(text)};
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t hash = line.find('#');
    std::string body = hash == std::string::npos ? line : line.substr(0, hash);
    std::vector<std::string> w = splitWords(body);
    if (w.empty()) continue;
    ScriptCommand c;
    c.line = lineNo;
    c.text = line;
    auto err = [&](std::string_view what) {
      return Status::error(fmt::format("{}:{}: '{}': {}", sourceName, lineNo, line, what));
    };
    auto need = [&](size_t n) { return w.size() == n; };
    auto parseRunOptions = [&](size_t from, RunOverrides& o) -> Status {
      for (size_t i = from; i < w.size(); ++i) {
        const std::string& f = w[i];
        auto value = [&]() -> const std::string* { return i + 1 < w.size() ? &w[++i] : nullptr; };
        if (f == "--no-skip") o.skip = false;
        else if (f == "--skip") o.skip = true;
        else if (f == "--no-fast-copy") o.fastCopy = false;
        else if (f == "--fast-copy") o.fastCopy = true;
        else if (f == "--no-cache") o.cache = false;
        else if (f == "--cache") o.cache = true;
        else if (f == "--no-quantize") o.quantize = false;
        else if (f == "--quantize") o.quantize = true;
        else if (f == "--pipeline") {
          auto* v = value();
          if (!v) return err("--pipeline needs a name");
          o.pipeline = *v;
        } else if (f == "--profile") {
          auto* v = value();
          auto p = v ? passes::parseProfile(*v) : std::nullopt;
          if (!p) return err("--profile expects fp or int");
          o.profile = *p;
        } else if (f == "--target") {
          auto* v = value();
          auto t = v ? passes::parseTarget(*v) : std::nullopt;
          if (!t) return err("--target expects generic, u55 or u85");
          o.target = *t;
        } else if (f == "--calibration") {
          auto* v = value();
          if (!v) return err("--calibration needs a .npy file or a directory");
          o.calibration = *v;
        } else if (f == "--observer") {
          auto* v = value();
          if (!v || (*v != "histogram" && *v != "minmax")) return err("--observer expects histogram or minmax");
          o.observer = *v == "minmax" ? quant::ActivationObserver::MinMax : quant::ActivationObserver::Histogram;
        } else if (f == "--disable") {
          auto* v = value();
          if (!v) return err("--disable needs a pass name");
          o.disable.push_back(*v);
        } else {
          return err(fmt::format("unknown run option '{}'", f));
        }
      }
      return Status::ok();
    };
    const std::string& w0 = w[0];
    std::string w1 = w.size() > 1 ? w[1] : std::string();
    if (w0 == "open") {
      if (w.size() < 2) return err("expected: open FILE");
      c.op = ScriptOp::Open;
      c.arg = rest(w, 1);
    } else if (w0 == "pipeline" || w0 == "profile" || w0 == "target") {
      if (!need(2)) return err(fmt::format("expected: {} VALUE", w0));
      c.op = w0 == "pipeline" ? ScriptOp::Pipeline : w0 == "profile" ? ScriptOp::Profile : ScriptOp::Target;
      if (c.op == ScriptOp::Profile && !passes::parseProfile(w1)) return err("profile expects fp or int");
      if (c.op == ScriptOp::Target && !passes::parseTarget(w1)) return err("target expects generic, u55 or u85");
      c.arg = w1;
    } else if (w0 == "run" || w0 == "compare") {
      c.op = w0 == "run" ? ScriptOp::Run : ScriptOp::Compare;
      if (c.op == ScriptOp::Compare)
        for (size_t i = 1; i < w.size(); ++i)
          if (w[i] == "--repeat") {
            if (i + 1 >= w.size() || !parseInt(w[i + 1], c.number) || c.number < 1) return err("--repeat expects a count >= 1");
            w.erase(w.begin() + long(i), w.begin() + long(i) + 2);
            break;
          }
      LS_RETURN_IF_ERROR(parseRunOptions(1, c.overrides));
    } else if (w0 == "wait") {
      if (!need(1)) return err("expected: wait");
      c.op = ScriptOp::Wait;
    } else if (w0 == "select" && (w1 == "pass" || w1 == "node")) {
      if (w.size() < 3) return err(fmt::format("expected: select {} {}", w1, w1 == "pass" ? "N|NAME|first|last" : "NAME"));
      c.op = w1 == "pass" ? ScriptOp::SelectPass : ScriptOp::SelectNode;
      c.arg = rest(w, 2);
      c.numeric = c.op == ScriptOp::SelectPass && parseInt(c.arg, c.number);
    } else if ((w0 == "next" || w0 == "prev") && need(2) && w1 == "change") {
      c.op = w0 == "next" ? ScriptOp::NextChange : ScriptOp::PrevChange;
    } else if ((w0 == "next" || w0 == "prev" || w0 == "first" || w0 == "last") && need(2) &&
               (w1 == "pass" || (w1 == "changed" && (w0 == "next" || w0 == "prev")))) {
      if (w1 == "changed") c.op = w0 == "next" ? ScriptOp::NextChanged : ScriptOp::PrevChanged;
      else c.op = w0 == "next" ? ScriptOp::NextPass : w0 == "prev" ? ScriptOp::PrevPass : w0 == "first" ? ScriptOp::FirstPass : ScriptOp::LastPass;
    } else if (w0 == "pin") {
      if (w.size() < 3 || w1 != "pass") return err("expected: pin pass N|NAME|first|last");
      c.op = ScriptOp::Pin;
      c.arg = rest(w, 2);
      c.numeric = parseInt(c.arg, c.number);
    } else if (w0 == "pane") {
      if (w1 == "clear" && need(2)) {
        c.op = ScriptOp::PaneClear;
      } else {
        if (w.size() < 3 || (w1 != "add" && w1 != "add-b")) return err("expected: pane add|add-b N|NAME|first|last, or pane clear");
        c.op = w1 == "add" ? ScriptOp::PaneAdd : ScriptOp::PaneAddB;
        c.arg = rest(w, 2);
        c.numeric = parseInt(c.arg, c.number);
      }
    } else if (w0 == "unpin") {
      c.op = ScriptOp::Unpin;
    } else if (w0 == "view") {
      if (!need(2) || (w1 != "pipeline" && w1 != "graph" && w1 != "inspector" && w1 != "timing" && w1 != "delegation" &&
                       w1 != "ir-diff" && w1 != "panes"))
        return err("expected: view pipeline|graph|inspector|timing|delegation|ir-diff|panes");
      c.op = ScriptOp::View;
      c.arg = w1;
    } else if (w0 == "filter") {
      c.op = ScriptOp::Filter;
      if (w1 == "hide-skipped" || w1 == "hide-unchanged") {
        if (!need(3) || (w[2] != "on" && w[2] != "off")) return err(fmt::format("expected: filter {} on|off", w1));
        c.arg = w1;
        c.arg2 = w[2];
      } else if (w1 == "search") {
        c.arg = w1;
        c.arg2 = rest(w, 2);
      } else {
        return err("expected: filter hide-skipped|hide-unchanged on|off, or filter search TEXT");
      }
    } else if (w0 == "search") {
      if (w.size() < 2) return err("expected: search TEXT|next|prev");
      if (need(2) && w1 == "next") c.op = ScriptOp::SearchNext;
      else if (need(2) && w1 == "prev") c.op = ScriptOp::SearchPrev;
      else {
        c.op = ScriptOp::Search;
        c.arg = rest(w, 1);
      }
    } else if (w0 == "compare-trace") {
      if (w.size() < 2) return err("expected: compare-trace PATH.lstrace");
      c.op = ScriptOp::CompareTrace;
      c.arg = rest(w, 1);
    } else if (w0 == "enter") {
      if (w.size() < 2) return err("expected: enter NESTED-GRAPH-NAME");
      c.op = ScriptOp::Enter;
      c.arg = rest(w, 1);
    } else if (w0 == "leave") {
      c.op = ScriptOp::Leave;
    } else if (w0 == "follow") {
      if (!need(3) || w1 != "lineage" || !parseInt(w[2], c.number) || c.number < 0) return err("expected: follow lineage N");
      c.op = ScriptOp::FollowLineage;
    } else if (w0 == "expand" || w0 == "collapse") {
      if (!need(2)) return err(fmt::format("expected: {} MODULE-PATH", w0));
      c.op = w0 == "expand" ? ScriptOp::Expand : ScriptOp::Collapse;
      c.arg = w1;
    } else if (w0 == "stage") {
      if (!need(2) || (w1 != "quantizer" && w1 != "pipeline")) return err("expected: stage quantizer|pipeline");
      c.op = ScriptOp::Stage;
      c.arg = w1;
    } else if (w0 == "fit") {
      c.op = ScriptOp::Fit;
    } else if (w0 == "zoom") {
      if (!need(2) || !parseDouble(w1, c.factor) || c.factor <= 0) return err("expected: zoom FACTOR (> 0)");
      c.op = ScriptOp::Zoom;
    } else if (w0 == "export" && w1 == "comparison") {
      if (w.size() < 4 || (w[2] != "csv" && w[2] != "json" && w[2] != "md" && w[2] != "chrome"))
        return err("expected: export comparison csv|json|md|chrome PATH");
      c.op = ScriptOp::ExportComparison;
      c.arg = w[2];
      c.arg2 = rest(w, 3);
    } else if (w0 == "export" && w1 == "run") {
      if (w.size() < 4 || (w[2] != "lstrace" && w[2] != "csv" && w[2] != "md" && w[2] != "chrome" && w[2] != "dot"))
        return err("expected: export run lstrace|csv|md|chrome|dot PATH");
      c.op = ScriptOp::ExportRun;
      c.arg = w[2];
      c.arg2 = rest(w, 3);
    } else if (w0 == "export" && w1 == "chart") {
      c.arg2 = rest(w, 2);
      auto ends = [&](std::string_view e) { return c.arg2.size() > e.size() && c.arg2.compare(c.arg2.size() - e.size(), e.size(), e) == 0; };
      if (w.size() < 3 || (!ends(".png") && !ends(".svg"))) return err("expected: export chart PATH.svg|PATH.png");
      c.op = ScriptOp::ExportChart;
    } else if (w0 == "frames") {
      if (!need(2) || !parseInt(w1, c.number) || c.number < 0) return err("expected: frames N");
      c.op = ScriptOp::Frames;
    } else if (w0 == "key") {
      bool named = w1 == "up" || w1 == "down" || w1 == "home" || w1 == "end" || w1 == "escape" || w1 == "f1" || w1 == "f5";
      bool letter = w1.size() == 1 && w1[0] >= 'a' && w1[0] <= 'z';
      if ((!need(2) && !(need(3) && w[2] == "shift")) || !(named || letter))
        return err("expected: key up|down|home|end|escape|f1|f5|a-z [shift]");
      c.op = ScriptOp::Key;
      c.arg = w1;
      c.shift = need(3);
    } else if (w0 == "expect") {
      c.op = ScriptOp::Expect;
      c.arg = w1;
      if (w1 == "pass-status" && need(3) && isStatusName(w[2])) c.arg2 = w[2];
      else if (w1 == "diff" && need(3) && (w[2] == "empty" || w[2] == "nonempty")) c.arg2 = w[2];
      else if (w1 == "node" && w.size() >= 3) c.arg2 = rest(w, 2);
      else if (w1 == "graph" && need(3)) c.arg2 = w[2];
      else if (w1 == "pipeline" && need(3)) c.arg2 = w[2];
      else if (w1 == "summary" && w.size() >= 3) c.arg2 = rest(w, 2);
      else if (w1 == "synced" && w.size() >= 3) c.arg2 = rest(w, 2);
      else if (w1 == "ab-verdict" && need(4) && isVerdictName(w[3])) c.arg2 = w[2], c.arg3 = w[3];
      else if (w1 == "culprit" && w.size() >= 3) c.arg2 = rest(w, 2);
      else if ((w1 == "lineage" || w1 == "changed") && w.size() >= 3) c.arg2 = rest(w, 2);
      else if ((w1 == "error" || w1 == "help") && need(2)) {
      } else if ((w1 == "min" || w1 == "max") && w.size() >= 4 && isCounterName(w[2]) &&
                 ((need(4) && parseInt(w[3], c.number)) ||
                  (need(5) && w[3].size() >= 2 && w[3].back() == 'x' && isCounterName(w[4]) &&
                   parseDouble(w[3].substr(0, w[3].size() - 1), c.factor)))) {
        c.arg2 = w[2];
        if (w.size() == 5) c.arg3 = w[4];
      } else {
        return err(
            "expected: expect pass-status S | diff empty|nonempty | node NAME | min|max WHAT N | min|max WHAT Kx OTHER | "
            "graph NAME | pipeline NAME | summary TEXT | lineage TEXT | changed TEXT | synced NODE | ab-verdict PASS|total A|B|noise|saved-A|saved-B|only-A|only-B | "
            "culprit NAME|none | error | help (WHAT: drawn-nodes, drawn-labels, drawn-edges, drawn-badges, drawn-stubs, "
            "drawn-errors, drawn-ghosts, drawn-links, drawn-tinted, columns, compare-rows, visible-passes, delegates, delegated-nodes, undelegated-ops, "
            "ir-diff-added, ir-diff-removed, timing-bars, timeline-passes, timeline-ticks, timeline-visible, ab-rows, ab-repeats, ab-noise, "
            "op-diffs, pane-count, synced-panes, drawn-folds, folds, changed-fields, lineage-entries)");
      }
    } else if (w0 == "graph-option") {
      if (!need(3) || (w1 != "badges" && w1 != "wrap" && w1 != "partitions" && w1 != "folds") || (w[2] != "on" && w[2] != "off"))
        return err("expected: graph-option badges|wrap|partitions|folds on|off");
      c.op = ScriptOp::GraphOption;
      c.arg = w1;
      c.arg2 = w[2];
    } else if (w0 == "timing-option") {
      double zoom = 0;
      if (!need(3) || !((w1 == "aggregate" && (w[2] == "on" || w[2] == "off")) || (w1 == "baseline" && (w[2] == "A" || w[2] == "B")) ||
                        (w1 == "zoom" && parseDouble(w[2], zoom) && zoom > 0)))
        return err("expected: timing-option aggregate on|off | timing-option baseline A|B | timing-option zoom FACTOR");
      c.op = ScriptOp::TimingOption;
      c.arg = w1;
      c.arg2 = w[2];
    } else {
      return err("unknown command");
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ls::viewmodel
