// Node inspector view.
#include "viewers/inspector_view.h"

#include <fmt/format.h>
#include <imgui.h>

#include "core/ir/printer.h"
#include "viewers/model/graph_model.h"
#include "viewers/theme.h"

namespace ls::viewers {

namespace {

constexpr int64_t kAutoValues = 65536;

std::string refText(const ir::Graph& g, const ir::ValueRef& r) {
  const ir::Node* n = g.find(r.node);
  std::string s = n ? "%" + n->name : "%<not in this graph>";
  if (r.output) s += fmt::format("#{}", r.output);
  return s;
}

/// A clickable node reference: selects the node and centres the graph view on it.
void refButton(ViewState& s, const ir::Graph& g, const ir::ValueRef& r, int uid) {
  ImGui::PushID(uid);
  std::string t = refText(g, r);
  ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(theme::kSearchHit));
  if (ImGui::SmallButton(t.c_str()) && g.find(r.node)) {
    s.selectedNode = r.node;
    s.centerRequested = true;
  }
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    if (const ir::Node* n = g.find(r.node)) ImGui::SetTooltip("%s", ir::printNode(g, *n).c_str());
  ImGui::PopID();
}

/// "was: OLD" under a changed field, in the changed colour's dim variant.
void wasLine(const viewmodel::FieldChange* ch) {
  if (!ch) return;
  ImGui::PushTextWrapPos(0.f);
  ImGui::TextColored(ImVec4(0.75f, 0.62f, 0.35f, 1.f), "was: %s", ch->before.c_str());
  ImGui::PopTextWrapPos();
}

void argRow(ViewState& s, const ir::Graph& g, const std::string& label, const ir::Arg& a, int& uid,
            const viewmodel::FieldChange* ch = nullptr) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  if (ch) ImGui::TextColored(theme::toVec(theme::kChanged), "%s", label.c_str());
  else ImGui::TextDisabled("%s", label.c_str());
  ImGui::TableSetColumnIndex(1);
  if (ch) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, (theme::kChanged & 0x00ffffff) | 0x30000000);
  if (const ir::ValueRef* r = a.ref()) {
    refButton(s, g, *r, uid++);
  } else if (const ir::RefList* l = a.asRefList()) {
    ImGui::TextUnformatted("[");
    for (const ir::ValueRef& r2 : *l) {
      ImGui::SameLine(0, 3);
      if (r2.isNone()) ImGui::TextUnformatted("None");
      else refButton(s, g, r2, uid++);
    }
    ImGui::SameLine(0, 3);
    ImGui::TextUnformatted("]");
  } else {
    std::string t = ir::printArg(g, a);
    ImGui::TextWrapped("%s", t.c_str());
  }
  wasLine(ch);
}

void metaBlock(const ir::TensorMeta& m, size_t i, const viewmodel::FieldChange* ch = nullptr) {
  if (!m.isTensor()) {
    ImGui::BulletText("out %zu: (not a tensor)", i);
    wasLine(ch);
    return;
  }
  if (ch) ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(theme::kChanged));
  ImGui::BulletText("out %zu: %s %s", i, std::string(ir::dtypeName(m.dtype)).c_str(), ir::toString(m.shape).c_str());
  if (ch) ImGui::PopStyleColor();
  wasLine(ch);
  ImGui::Indent();
  std::string order;
  for (int d = 0; d < m.dimOrder.rank(); ++d) order += fmt::format("{}{}", d ? "," : "", m.dimOrder[d]);
  ImGui::Text("dim order (%s)%s   numel %lld", order.c_str(), m.dimOrder.isIdentity() ? " contiguous" : "",
              (long long)m.numel());
  if (m.quant) {
    const ir::QuantParams& q = *m.quant;
    ImGui::Text("quant: %s %s [%lld, %lld]%s", q.scheme == ir::QScheme::PerTensor ? "per-tensor" : "per-channel",
                std::string(ir::dtypeName(q.storage)).c_str(), (long long)q.qmin, (long long)q.qmax,
                q.scheme == ir::QScheme::PerChannel ? fmt::format(" axis {}", q.axis).c_str() : "");
    size_t n = std::min<size_t>(q.scales.size(), 8);
    std::string sc, zp;
    for (size_t k = 0; k < n; ++k) {
      sc += fmt::format("{}{:.6g}", k ? ", " : "", q.scales[k]);
      if (k < q.zeroPoints.size()) zp += fmt::format("{}{}", k ? ", " : "", q.zeroPoints[k]);
    }
    if (q.scales.size() > n) sc += fmt::format(", ... ({} total)", q.scales.size());
    ImGui::TextWrapped("scale: %s", sc.c_str());
    ImGui::TextWrapped("zero point: %s", zp.c_str());
  }
  ImGui::Unindent();
}

std::string passLabel(const trace::Trace& t, int pass) {
  if (pass < 0) return "source";
  if (size_t(pass) >= t.records.size()) return "?";
  return fmt::format("#{} {}", pass, t.records[size_t(pass)].name);
}

/// Numerics of a localised pass (verify --localize): the node's error against the graph before
/// the pass, the culprit verdict and its inputs' errors (lines from viewmodel::ErrorOverlay).
void errorSection(const viewmodel::ErrorOverlay& errors, const ir::Graph& g, const ir::Node& n) {
  if (!errors.active() || !ImGui::CollapsingHeader("Numerics (localised pass)", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const trace::NodeError* e = errors.error(n.id);
  const std::vector<std::string> lines = errors.describe(g, n);
  ImGui::PushTextWrapPos(0.f);
  for (size_t i = 0; i < lines.size(); ++i) {
    // The first line is the node's own error: coloured when above tolerance; the culprit line too.
    if (errors.isCulprit(n.id) && lines[i].rfind("CULPRIT", 0) == 0)
      ImGui::TextColored(theme::toVec(theme::kCulprit), "%s", lines[i].c_str());
    else if (i == 0 && e && e->exceeds)
      ImGui::TextColored(theme::toVec(theme::kRemoved), "%s", lines[i].c_str());
    else
      ImGui::TextUnformatted(lines[i].c_str());
  }
  ImGui::PopTextWrapPos();
}

}  // namespace

void InspectorView::draw(ViewState& s) {
  GraphPtr shown = s.shownGraph();
  if (!shown || s.selectedNode == ir::kInvalidNode) {
    ImGui::TextDisabled("Click a node in the graph to inspect it.");
    return;
  }
  const ir::Graph* g = shown.get();
  const ir::Node* n = g->find(s.selectedNode);
  GraphPtr compared;
  bool removedHere = false;
  if (!n) {
    // A removed node (ghost): show it from the graph it was diffed against.
    compared = s.comparedGraph();
    if (compared && compared->find(s.selectedNode)) {
      g = compared.get();
      n = g->find(s.selectedNode);
      removedHere = true;
    }
  }
  if (!n) {
    ImGui::TextDisabled("The selected node does not exist at this pass.");
  } else {
    ImGui::Text("%s", n->name.c_str());
    if (removedHere) {
      ImGui::SameLine();
      ImGui::TextColored(theme::toVec(theme::kRemoved), "(removed by this pass)");
    }
    ImGui::TextDisabled("%s", std::string(ir::nodeKindName(n->kind)).c_str());
    viewmodel::OpNamespace ns = viewmodel::classifyNode(*g, *n);
    // What the selected pass (or the pinned comparison) changed in this node, field by field.
    const std::vector<viewmodel::FieldChange> changes = removedHere ? std::vector<viewmodel::FieldChange>{} : changedFields(s);
    using Field = viewmodel::FieldChange::Field;
    const viewmodel::FieldChange* opChange = viewmodel::findChange(changes, Field::Op, 0);
    ImGui::TextColored(theme::toVec(opChange ? theme::kChanged : theme::kNamespaceFill[size_t(ns)] | 0xff404040), "%s",
                       n->isCall() ? n->target.c_str() : n->target.empty() ? "-" : n->target.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("[%s]", std::string(viewmodel::opNamespaceName(ns)).c_str());
    wasLine(opChange);
    if (!n->module.empty()) ImGui::TextDisabled("module %s", n->module.c_str());
    wasLine(viewmodel::findChange(changes, Field::Module, 0));
    if (n->hasFlag(ir::kFlagOpaque)) ImGui::TextColored(theme::toVec(theme::kRemoved), "opaque op (unknown to the registry)");
    if (n->hasFlag(ir::kFlagDisallowTransform)) ImGui::TextDisabled("flag: disallow transform");

    // Before/after when the node was changed by the selected pass (or since the pinned pass).
    if (!removedHere) {
      GraphPtr before = s.comparedGraph();
      const ir::NodePtr* bp = before ? before->findPtr(n->id) : nullptr;
      const ir::NodePtr* ap = g->findPtr(n->id);
      if (!before) {
      } else if (!bp) {
        ImGui::TextColored(theme::toVec(theme::kAdded), "added by this pass");
      } else if (ap && *bp != *ap) {
        if (ImGui::CollapsingHeader("Changed in this pass", ImGuiTreeNodeFlags_DefaultOpen)) {
          if (changes.empty()) ImGui::TextDisabled("a new version with the same fields");
          else if (ImGui::BeginTable("##changes", 3, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
            ImGui::TableSetupColumn("field", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5);
            ImGui::TableSetupColumn("before");
            ImGui::TableSetupColumn("after");
            ImGui::TableHeadersRow();
            for (const viewmodel::FieldChange& c : changes) {
              ImGui::TableNextRow();
              ImGui::TableSetColumnIndex(0);
              ImGui::TextUnformatted(c.name.c_str());
              ImGui::TableSetColumnIndex(1);
              ImGui::PushTextWrapPos(0.f);
              ImGui::TextDisabled("%s", c.before.c_str());
              ImGui::TableSetColumnIndex(2);
              ImGui::TextColored(theme::toVec(theme::kChanged), "%s", c.after.c_str());
              ImGui::PopTextWrapPos();
            }
            ImGui::EndTable();
          }
        }
        if (ImGui::CollapsingHeader("Before / after (printed)")) {
          ImGui::PushTextWrapPos(0.f);
          ImGui::TextDisabled("before:");
          ImGui::TextUnformatted(ir::printNode(*before, **bp).c_str());
          ImGui::TextColored(theme::toVec(theme::kChanged), "after:");
          ImGui::TextUnformatted(ir::printNode(*g, **ap).c_str());
          ImGui::PopTextWrapPos();
        }
      }
    }
    if (!removedHere) {
      const bool nested = !s.subgraphPath.empty();
      if (errorsGeneration_ != generationOf(s.trace) || errorsPass_ != s.selectedPass || errorsNested_ != nested) {
        errorsGeneration_ = generationOf(s.trace), errorsPass_ = s.selectedPass, errorsNested_ = nested;
        errors_ = viewmodel::ErrorOverlay::build(s.trace, s.selectedPass, nested);
      }
      errorSection(errors_, *g, *n);
    }
    if (ImGui::CollapsingHeader("Arguments", ImGuiTreeNodeFlags_DefaultOpen)) {
      if (n->args.empty() && n->kwargs.empty()) ImGui::TextDisabled("none");
      else if (ImGui::BeginTable("##args", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5);
        ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
        int uid = 0;
        for (size_t i = 0; i < n->args.size(); ++i)
          argRow(s, *g, viewmodel::argName(*n, i), n->args[i], uid, viewmodel::findChange(changes, Field::Arg, i));
        for (const ir::Kwarg& k : n->kwargs) argRow(s, *g, k.name, k.value, uid, viewmodel::findChange(changes, Field::Kwarg, 0, k.name));
        ImGui::EndTable();
      }
    }
    if (const ir::Constant* c = viewmodel::constantOf(*g, *n); c && ImGui::CollapsingHeader("Constant", ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::Text("%s %s%s", std::string(ir::dtypeName(c->dtype)).c_str(), ir::toString(c->shape).c_str(),
                  c->fqn.empty() || c->fqn == c->name ? "" : fmt::format("   ({})", c->fqn).c_str());
      ImGui::TextDisabled("%s, %s", std::string(ir::constantKindName(c->kind)).c_str(), viewmodel::constantSource(*c).c_str());
      if (auto recipe = viewmodel::constantRecipe(*c)) {
        ImGui::PushTextWrapPos(0.f);
        ImGui::Text("Recipe: %s", recipe->c_str());
        ImGui::PopTextWrapPos();
      }
      if (valuesGeneration_ != generationOf(s.trace) || valuesNode_ != n->id) {
        valuesGeneration_ = generationOf(s.trace);
        valuesNode_ = n->id;
        valuesText_.clear();
        valuesError_.clear();
      }
      if (valuesText_.empty() && valuesError_.empty()) {
        // Small constants show their values at once; large ones on demand (synthesis or a scan
        // of every element takes time).
        if (c->numel() <= kAutoValues || ImGui::SmallButton("Show values")) {
          auto v = viewmodel::constantValues(*c);
          if (!v) valuesError_ = v.message();
          else
            valuesText_ = fmt::format("min {:.6g}  max {:.6g}  mean {:.6g}{}{}\n{}", v->min, v->max, v->mean,
                                      v->nonFinite ? fmt::format("  non-finite {}", v->nonFinite) : "",
                                      v->synthesized ? "  (synthesised)" : "", viewmodel::formatValues(*v));
        }
      } else if (!valuesError_.empty()) {
        ImGui::TextColored(theme::toVec(theme::kRemoved), "%s", valuesError_.c_str());
      } else {
        ImGui::PushTextWrapPos(0.f);
        ImGui::TextUnformatted(valuesText_.c_str());
        ImGui::PopTextWrapPos();
      }
    }
    if (ImGui::CollapsingHeader("Outputs (TensorMeta)", ImGuiTreeNodeFlags_DefaultOpen)) {
      if (n->outputs.empty()) ImGui::TextDisabled("none");
      for (size_t i = 0; i < n->outputs.size(); ++i) metaBlock(n->outputs[i], i, viewmodel::findChange(changes, Field::Output, i));
    }
    if (ImGui::CollapsingHeader("Users", ImGuiTreeNodeFlags_DefaultOpen)) {
      auto users = g->users(n->id);
      if (users.empty()) ImGui::TextDisabled("none");
      int uid = 1000;
      for (ir::NodeId u : users) {
        refButton(s, *g, ir::ValueRef{u, 0}, uid++);
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < 120) ImGui::NewLine();
      }
      ImGui::NewLine();
    }
    if (ImGui::CollapsingHeader("Provenance", ImGuiTreeNodeFlags_DefaultOpen)) {
      if (n->provenance.empty()) {
        ImGui::TextDisabled("imported from the model file");
      } else {
        ImGui::Text("created by %s", n->provenance.createdBy.empty() ? "?" : n->provenance.createdBy.c_str());
        if (!n->provenance.derivedFrom.empty()) {
          ImGui::TextUnformatted("derived from:");
          // Source nodes were removed by the creating pass: look them up in the source graph.
          const ir::Graph* src = s.trace && s.trace->source ? s.trace->source.get() : g;
          int uid = 2000;
          for (ir::NodeId d : n->provenance.derivedFrom) {
            ImGui::SameLine();
            const ir::Graph* where = g->find(d) ? g : src->find(d) ? src : nullptr;
            if (where == g) refButton(s, *g, ir::ValueRef{d, 0}, uid++);
            else if (where) ImGui::TextDisabled("%%%s", where->node(d).name.c_str());
            else ImGui::TextDisabled("(a node of an intermediate pass)");
          }
        }
      }
    }
  }
  if (s.trace && ImGui::CollapsingHeader("History across passes", ImGuiTreeNodeFlags_DefaultOpen)) {
    lineage(s);  // refreshes history_ and lineage_
    const trace::Trace& t = *s.trace;
    if (history_.first == -2) {
      ImGui::TextDisabled("not in any snapshot");
    } else {
      ImGui::Text("first: %s", passLabel(t, history_.first).c_str());
      ImGui::Text("last:  %s", passLabel(t, history_.last).c_str());
    }
    if (history_.events.empty()) ImGui::TextDisabled("never changed by a pass");
    for (size_t i = 0; i < history_.events.size(); ++i) {
      const viewmodel::NodeEvent& e = history_.events[i];
      ImGui::PushID(int(i));
      std::string text = fmt::format("{} by {}", viewmodel::nodeEventName(e.kind), passLabel(t, e.pass));
      if (e.kind == viewmodel::NodeEvent::Kind::Changed) text += fmt::format(" ({})", viewmodel::changeBitsText(e.what));
      if (ImGui::Selectable(text.c_str(), s.selectedPass == e.pass)) s.selectPass(e.pass);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("select this pass");
      ImGui::PopID();
    }
  }
  // The value followed through the nodes that replaced this one or that it was fused from.
  if (s.trace && ImGui::CollapsingHeader("Lineage (through replacements)", ImGuiTreeNodeFlags_DefaultOpen)) {
    const std::vector<viewmodel::LineageEntry>& lin = lineage(s);
    if (lin.empty()) ImGui::TextDisabled("no lineage (the node is not in this graph)");
    for (size_t i = 0; i < lin.size(); ++i) {
      const viewmodel::LineageEntry& e = lin[i];
      ImGui::PushID(int(10000 + i));
      using K = viewmodel::LineageEntry::Kind;
      const ImU32 col = e.kind == K::ReplacedBy || e.kind == K::FusedFrom ? theme::kLinked
                        : e.kind == K::Removed                           ? theme::kRemoved
                        : e.kind == K::Changed                           ? theme::kChanged
                                                                         : theme::rgb(220, 220, 220);
      ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(e.selected ? col : (col & 0x00ffffff) | 0xb0000000));
      const bool here = s.selectedPass == e.pass && s.selectedNode == e.node;
      if (ImGui::Selectable(e.text.c_str(), here)) followLineage(s, i);
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("show this pass and node");
      ImGui::PopID();
    }
  }
}

std::vector<viewmodel::FieldChange> InspectorView::changedFields(const ViewState& s) const {
  GraphPtr shown = s.shownGraph(), before = s.comparedGraph();
  const ir::Node* a = before ? before->find(s.selectedNode) : nullptr;
  const ir::Node* b = shown ? shown->find(s.selectedNode) : nullptr;
  if (!a || !b || a == b) return {};
  return viewmodel::nodeFieldChanges(*before, *a, *shown, *b);
}

const std::vector<viewmodel::LineageEntry>& InspectorView::lineage(const ViewState& s) {
  if (!s.trace) {
    lineage_.clear();
    return lineage_;
  }
  if (histGeneration_ != generationOf(s.trace) || histNode_ != s.selectedNode || histPath_ != s.subgraphPath ||
      histPass_ != s.selectedPass) {
    histGeneration_ = generationOf(s.trace);
    histNode_ = s.selectedNode;
    histPath_ = s.subgraphPath;
    histPass_ = s.selectedPass;
    history_ = viewmodel::nodeHistory(*s.trace, s.selectedNode, s.subgraphPath);
    lineage_ = viewmodel::nodeLineage(*s.trace, s.selectedNode, s.selectedPass, s.subgraphPath);
  }
  return lineage_;
}

bool InspectorView::followLineage(ViewState& s, size_t index) {
  const std::vector<viewmodel::LineageEntry>& lin = lineage(s);
  if (index >= lin.size()) return false;
  const viewmodel::LineageEntry e = lin[index];
  s.selectPass(e.pass);
  s.selectedNode = e.node;
  s.centerRequested = true;
  return true;
}

}  // namespace ls::viewers
