// Our `tosa` pipeline and the quantizer's preparation against upstream's pinned pass lists
// (core/backends/arm/upstream_pipeline.inc, from tools/gen_upstream_pipeline.py): every entry
// the table calls "same" or "differs" runs here under upstream's name in upstream's relative
// order, "moved" entries run somewhere, "missing"/"n/a" entries do not run (else the table is
// stale), the passes named as doing an entry's work exist, and every pass we run is upstream's,
// named by an entry, or an extra the table explains. A change to either pipeline that the table
// does not explain fails here; regenerate the table with the new disposition.
#include "core/backends/arm/upstream_pipeline.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/passes/pass_manager.h"
#include "core/session/builtin.h"
#include "core/session/lowering_session.h"

namespace ls::arm {
namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const size_t c = s.find(',');
    out.emplace_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

std::vector<std::string> tosaPipeline() {
  EXPECT_TRUE(registerBuiltins().isOk());
  const passes::PipelineDef* def = passes::PipelineRegistry::instance().find("tosa");
  EXPECT_NE(def, nullptr);
  return def ? def->passes : std::vector<std::string>{};
}

/// The quantizer's preparation run, as an INT `lower` records it (pass names in order).
std::vector<std::string> preparation() {
  EXPECT_TRUE(registerBuiltins().isOk());
  session::SessionConfig cfg;
  cfg.pipeline = "tosa";
  cfg.profile = passes::Profile::INT;
  session::LoweringSession s(cfg);
  auto g = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/squeezenet1_1.fxjson.json");
  EXPECT_TRUE(g.isOk()) << g.message();
  if (!g) return {};
  auto p = s.prepare(std::move(g).value());
  EXPECT_TRUE(p.isOk()) << p.message();
  std::vector<std::string> out;
  if (p)
    for (const passes::PassRecord& r : p->quantizePasses) out.push_back(r.name);
  return out;
}

/// Everything wrong with `ours` against the table's entries of `list` (empty: it follows it).
std::vector<std::string> differences(UpstreamList list, const std::vector<std::string>& ours, const char* what) {
  std::vector<std::string> problems;
  std::map<std::string, std::vector<size_t>> at;
  for (size_t i = 0; i < ours.size(); ++i) at[ours[i]].push_back(i);
  std::set<std::string> explained;
  long last = -1;
  std::string lastName = "(start)";
  for (const UpstreamEntry& e : upstreamEntries()) {
    if (e.list != list) continue;
    const std::string name(e.name);
    auto it = at.find(name);
    switch (e.disposition) {
      case Disposition::Same:
      case Disposition::Differs: {
        explained.insert(name);
        if (it == at.end()) {
          problems.push_back(fmt::format("#{} {} is '{}' in the table but the {} does not run it", e.index, name,
                                         dispositionName(e.disposition), what));
          break;
        }
        auto next = std::find_if(it->second.begin(), it->second.end(), [&](size_t p) { return long(p) > last; });
        if (next == it->second.end()) {
          problems.push_back(fmt::format("#{} {} runs at {} in the {}, before {} (at {}), where upstream runs it after: "
                                         "order it as upstream does or make the entry 'moved' with the reason",
                                         e.index, name, it->second.front(), what, lastName, last));
          break;
        }
        last = long(*next);
        lastName = name;
        break;
      }
      case Disposition::Moved:
        explained.insert(name);
        if (it == at.end())
          problems.push_back(fmt::format("#{} {} is 'moved' in the table but the {} does not run it", e.index, name, what));
        break;
      case Disposition::Other:
      case Disposition::Partial:
        for (const std::string& o : split(e.ours)) {
          if (!passes::PassRegistry::instance().contains(o) && !at.count(o))
            problems.push_back(fmt::format("#{} {}: the table says {} does its work, but no pass has that name", e.index,
                                           name, o));
        }
        break;
      case Disposition::Missing:
      case Disposition::NotApplicable:
        if (it != at.end())
          problems.push_back(fmt::format("#{} {} is '{}' in the table but the {} runs it at {}: update the table",
                                         e.index, name, dispositionName(e.disposition), what, it->second.front()));
        break;
      case Disposition::Ours:
      case Disposition::COUNT: problems.push_back(fmt::format("#{} {}: an entry cannot be 'ours'", e.index, name)); break;
    }
  }
  // Our passes doing an upstream entry's work (in either list: the preparation and the pipeline
  // share passes) and the extras of this list.
  for (const UpstreamEntry& e : upstreamEntries())
    if (e.disposition == Disposition::Other || e.disposition == Disposition::Partial)
      for (const std::string& o : split(e.ours)) explained.insert(o);
  for (const UpstreamEntry& e : upstreamExtras())
    if (e.list == list) explained.insert(std::string(e.name));
  for (size_t i = 0; i < ours.size(); ++i)
    if (!explained.count(ours[i]))
      problems.push_back(fmt::format("{} runs at {} in the {} but the table neither lists it under upstream's name, "
                                     "names it as doing an entry's work, nor explains it as an extra",
                                     ours[i], i, what));
  return problems;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "\n  " + s;
  return out;
}

TEST(UpstreamPipeline, TheTableIsUpstreamsListsInOrderWithReasons) {
  ASSERT_TRUE(registerBuiltins().isOk());
  std::map<UpstreamList, int> next = {{UpstreamList::Tosa, 1}, {UpstreamList::Annotation, 1}};
  for (const UpstreamEntry& e : upstreamEntries()) {
    EXPECT_EQ(e.index, next[e.list]++) << e.name;
    EXPECT_TRUE(e.name.size() > 4 && e.name.substr(e.name.size() - 4) == "Pass") << e.name;
    EXPECT_FALSE(e.file.empty()) << e.name;
    if (e.disposition != Disposition::Same) {
      EXPECT_GE(e.reason.size(), 8u) << e.name << " needs a reason";
    }
  }
  EXPECT_GT(next[UpstreamList::Tosa], 100);
  EXPECT_GT(next[UpstreamList::Annotation], 40);
  EXPECT_EQ(upstreamCommit().size(), 40u);
  for (const UpstreamEntry& e : upstreamExtras()) {
    EXPECT_EQ(e.disposition, Disposition::Ours);
    // The preparation's own passes (the quantizer's flag and quantize passes) are not registered.
    if (e.list == UpstreamList::Tosa) {
      EXPECT_TRUE(passes::PassRegistry::instance().contains(std::string(e.name))) << e.name;
    }
    for (const UpstreamEntry& u : upstreamEntries()) {
      if (u.list == e.list) EXPECT_NE(u.name, e.name) << "an extra under an upstream name of the same list";
    }
  }
}

TEST(UpstreamPipeline, TosaPipelineFollowsThePinnedTable) {
  const std::vector<std::string> ours = tosaPipeline();
  ASSERT_FALSE(ours.empty());
  const std::vector<std::string> problems = differences(UpstreamList::Tosa, ours, "tosa pipeline");
  EXPECT_TRUE(problems.empty()) << "the tosa pipeline against upstream " << upstreamCommit() << ":" << joined(problems);
}

TEST(UpstreamPipeline, PreparationFollowsThePinnedTable) {
  const std::vector<std::string> ours = preparation();
  ASSERT_FALSE(ours.empty());
  const std::vector<std::string> problems = differences(UpstreamList::Annotation, ours, "preparation");
  EXPECT_TRUE(problems.empty()) << "the quantizer's preparation against upstream " << upstreamCommit() << ":"
                                << joined(problems);
}

TEST(UpstreamPipeline, ADeviationTheTableDoesNotExplainIsReported) {
  std::vector<std::string> ours = tosaPipeline();
  ASSERT_FALSE(ours.empty());
  // An unexplained pass, a missing 'same' entry and a swapped pair are each named.
  std::vector<std::string> extra = ours;
  extra.insert(extra.begin(), "RemoveNoopClonePassX");
  auto p1 = differences(UpstreamList::Tosa, extra, "tosa pipeline");
  ASSERT_EQ(p1.size(), 1u) << joined(p1);
  EXPECT_NE(p1[0].find("RemoveNoopClonePassX"), std::string::npos);

  const UpstreamEntry* same = nullptr;
  for (const UpstreamEntry& e : upstreamEntries())
    if (e.list == UpstreamList::Tosa && e.disposition == Disposition::Same) same = same ? same : &e;
  ASSERT_NE(same, nullptr);
  std::vector<std::string> without;
  for (const std::string& n : ours)
    if (n != same->name) without.push_back(n);
  auto p2 = differences(UpstreamList::Tosa, without, "tosa pipeline");
  ASSERT_FALSE(p2.empty());
  EXPECT_NE(p2[0].find(std::string(same->name)), std::string::npos) << joined(p2);
}

TEST(UpstreamPipeline, PassesShowTheirUpstreamEntry) {
  auto direct = upstreamEntriesFor("FuseBatchNorm2dPass");
  ASSERT_FALSE(direct.empty());
  EXPECT_EQ(direct[0]->file, "backends/arm/_passes/fuse_batch_norm2d_pass.py");
  // A pass of ours doing an upstream entry's work under another name finds that entry.
  bool found = false;
  for (const UpstreamEntry& e : upstreamEntries())
    if (e.disposition == Disposition::Other && !e.ours.empty()) {
      const std::string first = split(e.ours).front();
      for (const UpstreamEntry* f : upstreamEntriesFor(first)) found |= f == &e;
      break;
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ls::arm
