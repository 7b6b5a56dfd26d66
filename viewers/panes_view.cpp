// Side-by-side panes (see panes_view.h).
#include "viewers/panes_view.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <imgui.h>

#include "viewers/model/counterparts.h"
#include "viewers/theme.h"

namespace ls::viewers {

namespace {

constexpr float kGap = 6.f, kHeaderH = 20.f, kMinZoom = 1e-4f, kMaxZoom = 4.f;

GraphPtr topGraphAfter(const trace::Trace& t, int pass) {
  const int snap = t.snapshotAfter(pass);
  return snap >= 0 && size_t(snap) < t.snapshots.size() ? t.snapshots[size_t(snap)] : t.source;
}

}  // namespace

void PanesView::refresh(const ViewState& s) {
  bool same = generation_ == generationOf(s.trace) && generationB_ == generationOf(s.compareTrace) && panes_.size() == s.panes.size();
  for (size_t i = 0; same && i < panes_.size(); ++i) same = panes_[i].ref == s.panes[i];
  if (!same) {
    std::vector<Pane> next;
    for (const ViewState::PaneRef& r : s.panes) {
      Pane pane;
      pane.ref = r;
      pane.trace = s.paneTrace(r);
      if (pane.trace) {
        pane.pass = std::clamp(r.pass, -1, int(pane.trace->records.size()) - 1);
        pane.graph = topGraphAfter(*pane.trace, pane.pass);
      }
      // Keep what was built for a pass that stays.
      for (Pane& old : panes_)
        if (old.pass == pane.pass && old.graph == pane.graph) pane.data = std::move(old.data);
      next.push_back(std::move(pane));
    }
    panes_ = std::move(next);
    generation_ = generationOf(s.trace);
    generationB_ = generationOf(s.compareTrace);
    highlightRef_ = {};  // recompute the highlights
    fitPending_ = true;
  }
  for (Pane& p : panes_) {
    if (!p.graph) continue;
    cache_.request(p.graph);
    if (!p.data || p.data->graph != p.graph.get() || !p.data->layout)
      if (auto lay = cache_.get(p.graph.get())) p.data = std::make_unique<CanvasData>(CanvasData::build(*p.graph, lay));
  }
}

void PanesView::draw(ViewState& s) {
  if (!s.trace) {
    ImGui::TextDisabled("No run yet.");
    return;
  }
  if (s.panes.empty()) {
    ImGui::TextWrapped("Side by side: add up to %zu passes (right-click a pass in the pipeline list > \"Side by side\", "
                       "or select a pass and press S). The panes share one camera and one selection: a node selected "
                       "in any pane is outlined in all of them, or the nodes that replaced it or that it came from.",
                       ViewState::kMaxPanes);
    return;
  }
  refresh(s);
  bool anyB = false;
  for (const Pane& p : panes_) anyB |= p.ref.runB;

  // Toolbar.
  if (ImGui::Button("Fit")) fitPending_ = true;
  ImGui::SameLine();
  if (ImGui::Button("Clear panes")) {
    s.panes.clear();
    return;
  }
  ImGui::SameLine();
  // Run B's passes (after compare / compare-trace): two runs side by side.
  if (s.compareTrace) {
    const trace::Trace& b = *s.compareTrace;
    ImGui::SetNextItemWidth(260);
    const std::string hint = fmt::format("+ pass of run B ({})", b.pipeline);
    if (ImGui::BeginCombo("##addB", hint.c_str())) {
      const int last = int(b.records.size()) - 1;
      for (int p = -1; p <= last; ++p) {
        if (p >= 0 && p != last && b.records[size_t(p)].status != passes::PassStatus::Changed) continue;
        const std::string label = p < 0 ? std::string("source graph") : fmt::format("#{} {}", p, b.records[size_t(p)].name);
        if (ImGui::Selectable(label.c_str())) s.addPane(p, true);
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show a pass of the comparison run (%s) next to run A's", s.labelB.c_str());
    ImGui::SameLine();
  }
  // The selection: made elsewhere (a node of run A at the selected pass), or in a pane.
  if (s.selectedNode != written_.node || s.selectedPass != written_.pass) {
    ref_ = {false, s.selectedPass, s.selectedNode};
    written_ = {false, s.selectedPass, s.selectedNode};
  }
  const viewmodel::TracePtr& refTrace = ref_.runB ? s.compareTrace : s.trace;
  const ir::Node* sel = refTrace && ref_.node != ir::kInvalidNode ? refTrace->graphAfter(ref_.pass).find(ref_.node) : nullptr;
  ImGui::TextDisabled("%zu panes, one camera | selected: %s%s", panes_.size(), anyB ? (ref_.runB ? "B " : "A ") : "",
                      sel ? sel->name.c_str() : "(none)");

  // Counterparts of the selection in every pane: by NodeId and provenance within a run, through
  // the shared source graph across runs.
  bool newSelection = false;
  if (!(highlightRef_ == ref_)) {
    newSelection = highlightRef_.node != ref_.node && ref_.node != ir::kInvalidNode;
    highlightRef_ = ref_;
    for (Pane& p : panes_)
      p.highlight = ref_.node == ir::kInvalidNode || !refTrace || !p.trace
                        ? std::vector<ir::NodeId>{}
                        : viewmodel::crossCounterparts(*refTrace, ref_.pass, *p.trace, p.pass, {ref_.node});
  }

  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 size = ImGui::GetContentRegionAvail();
  size.x = std::max(size.x, 100.f);
  size.y = std::max(size.y, 60.f);
  const size_t n = panes_.size();
  const float paneW = (size.x - kGap * float(n - 1)) / float(n);
  const float paneH = size.y - kHeaderH;
  auto paneOrigin = [&](size_t i) { return ImVec2(origin.x + float(i) * (paneW + kGap), origin.y + kHeaderH); };
  ImGui::InvisibleButton("##panes", size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();

  // Fit: the union of every pane's layout fills one pane.
  if (fitPending_) {
    float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
    bool all = true;
    for (const Pane& p : panes_) {
      if (!p.data || !p.data->layout) {
        all = false;
        continue;
      }
      const graph_layout::Layout& L = *p.data->layout;
      x0 = std::min(x0, L.minX), y0 = std::min(y0, L.minY);
      x1 = std::max(x1, L.minX + L.width), y1 = std::max(y1, L.minY + L.height);
    }
    if (all && x1 > x0) {
      cam_.zoom = std::clamp(std::min(paneW / (x1 - x0), paneH / (y1 - y0)) * 0.95f, kMinZoom, 1.f);
      cam_.x = (x0 + x1) * 0.5f - paneW * 0.5f / cam_.zoom;
      cam_.y = y0 - 10.f / cam_.zoom;
      fitPending_ = false;
    }
  }
  // A new selection made elsewhere (graph view, search, script): bring it into view, legibly,
  // in the pane that holds the node (the camera is shared, so the others follow).
  if ((newSelection || s.centerRequested) && !fitPending_) {
    for (const Pane& p : panes_)
      if (const graph_layout::NodeBox* b = p.data && p.data->layout && !p.highlight.empty() ? p.data->layout->find(p.highlight.front()) : nullptr) {
        cam_.zoom = std::max(cam_.zoom, 0.8f);
        cam_.x = b->centerX() - paneW * 0.5f / cam_.zoom;
        cam_.y = b->y + b->h * 0.5f - paneH * 0.5f / cam_.zoom;
        break;
      }
  }
  // Which pane the mouse is over, and the canvas point under it.
  int overPane = -1;
  for (size_t i = 0; i < n; ++i) {
    ImVec2 o = paneOrigin(i);
    if (io.MousePos.x >= o.x && io.MousePos.x < o.x + paneW && io.MousePos.y >= o.y && io.MousePos.y < o.y + paneH)
      overPane = int(i);
  }
  if (hovered && overPane >= 0) {
    ImVec2 o = paneOrigin(size_t(overPane));
    if (io.MouseWheel != 0.f) {
      float nz = std::clamp(cam_.zoom * std::pow(1.15f, io.MouseWheel), kMinZoom, kMaxZoom);
      float cx = cam_.x + (io.MousePos.x - o.x) / cam_.zoom, cy = cam_.y + (io.MousePos.y - o.y) / cam_.zoom;
      cam_.zoom = nz;
      cam_.x = cx - (io.MousePos.x - o.x) / nz;
      cam_.y = cy - (io.MousePos.y - o.y) / nz;
    }
    if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 2.f).x == 0.f &&
        ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 2.f).y == 0.f) {
      const Pane& p = panes_[size_t(overPane)];
      ImVec2 c(cam_.x + (io.MousePos.x - o.x) / cam_.zoom, cam_.y + (io.MousePos.y - o.y) / cam_.zoom);
      if (p.data && p.data->layout)
        for (const graph_layout::NodeBox& b : p.data->layout->nodes)
          if (b.w > 0 && c.x >= b.x && c.x <= b.x + b.w && c.y >= b.y && c.y <= b.y + b.h) selectIn(s, size_t(overPane), b.id);
    }
  }
  if (ImGui::IsItemActive() && (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.f) || ImGui::IsMouseDragging(ImGuiMouseButton_Right, 2.f))) {
    cam_.x -= io.MouseDelta.x / cam_.zoom;
    cam_.y -= io.MouseDelta.y / cam_.zoom;
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  synced_ = 0;
  for (size_t i = 0; i < n; ++i) {
    const Pane& p = panes_[i];
    ImVec2 o = paneOrigin(i);
    ImVec2 hdr(o.x, origin.y);
    std::string title = !p.trace      ? std::string("run B is not loaded")
                        : p.pass < 0 ? std::string("source graph")
                                     : fmt::format("#{} {}", p.pass, p.trace->records[size_t(p.pass)].name);
    // With panes of both runs, each title names its run and pipeline.
    if (anyB && p.trace) title = fmt::format("{} {}: {}", p.ref.runB ? "B" : "A", p.trace->pipeline, title);
    dl->PushClipRect(hdr, ImVec2(hdr.x + paneW, o.y), true);
    dl->AddText(ImVec2(hdr.x + 4, hdr.y + 3),
                p.pass == s.selectedPass && !p.ref.runB ? theme::kSelected : p.ref.runB ? theme::kRunB : IM_COL32(200, 200, 200, 255),
                title.c_str());
    dl->PopClipRect();
    dl->PushClipRect(o, ImVec2(o.x + paneW, o.y + paneH), true);
    dl->AddRectFilled(o, ImVec2(o.x + paneW, o.y + paneH), theme::kCanvasBg);
    if (!p.data || !p.data->layout) {
      dl->AddText(ImVec2(o.x + 10, o.y + 10), IM_COL32(200, 200, 200, 255), "laying out...");
      dl->PopClipRect();
      continue;
    }
    CanvasFrame f;
    f.data = p.data.get();
    f.selected = p.highlight.size() == 1 ? p.highlight[0] : ir::kInvalidNode;
    drawCanvas(dl, f, cam_, o, ImVec2(paneW, paneH));
    // The selection's counterparts: an outline each (the box where the node is, or the nodes that
    // replaced it / it came from).
    bool drawn = false;
    for (ir::NodeId id : p.highlight)
      if (const graph_layout::NodeBox* b = p.data->layout->find(id); b && b->w > 0) {
        ImVec2 a(o.x + (b->x - cam_.x) * cam_.zoom, o.y + (b->y - cam_.y) * cam_.zoom);
        ImVec2 z(o.x + (b->x + b->w - cam_.x) * cam_.zoom, o.y + (b->y + b->h - cam_.y) * cam_.zoom);
        dl->AddRect(ImVec2(a.x - 3, a.y - 3), ImVec2(z.x + 3, z.y + 3), theme::kLinked, 4.f, 0, 2.5f);
        drawn = true;
      }
    if (drawn) ++synced_;
    if (ref_.node != ir::kInvalidNode && p.highlight.empty())
      dl->AddText(ImVec2(o.x + 6, o.y + paneH - 20), IM_COL32(255, 200, 120, 255), "no counterpart at this pass");
    dl->PopClipRect();
    if (i + 1 < n)
      dl->AddLine(ImVec2(o.x + paneW + kGap * 0.5f, origin.y), ImVec2(o.x + paneW + kGap * 0.5f, origin.y + size.y),
                  IM_COL32(80, 80, 90, 255), 1.f);
  }
}

void PanesView::selectIn(ViewState& s, size_t pane, ir::NodeId id) {
  const Pane& p = panes_[pane];
  ref_ = {p.ref.runB, p.pass, id};
  if (!p.ref.runB) {
    s.selectedNode = id;
    // The inspector follows the pane's pass, so the node it shows exists there.
    s.selectPass(p.pass);
  } else if (s.trace && p.trace) {
    // The inspector shows run A: the node's counterpart in the first pane of run A.
    int passA = s.selectedPass;
    for (const Pane& q : panes_)
      if (!q.ref.runB) {
        passA = q.pass;
        break;
      }
    std::vector<ir::NodeId> a = viewmodel::crossCounterparts(*p.trace, p.pass, *s.trace, passA, {id});
    s.selectPass(passA);
    s.selectedNode = a.empty() ? ir::kInvalidNode : a.front();
  }
  written_ = {false, s.selectedPass, s.selectedNode};
}

}  // namespace ls::viewers
