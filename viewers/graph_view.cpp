// Graph view.
#include "viewers/graph_view.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <imgui_stdlib.h>

#include "core/trace/diff.h"
#include "viewers/model/delegation.h"
#include "viewers/theme.h"

namespace ls::viewers {

namespace {
constexpr float kMinZoom = 1e-4f, kMaxZoom = 4.f;
constexpr int kMinimapCells = 96;  // cells along the longer side

ImU32 dim(ImU32 c, float f) {
  auto ch = [&](int shift) { return ImU32(float((c >> shift) & 0xff) * f) << shift; };
  return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) | (c & IM_COL32_A_MASK);
}
/// Grows a screen rectangle around its centre to at least `minSize` on each side.
void inflate(ImVec2& p0, ImVec2& p1, float minSize) {
  if (p1.x - p0.x < minSize) {
    float c = (p0.x + p1.x) * 0.5f;
    p0.x = c - minSize * 0.5f, p1.x = c + minSize * 0.5f;
  }
  if (p1.y - p0.y < minSize) {
    float c = (p0.y + p1.y) * 0.5f;
    p0.y = c - minSize * 0.5f, p1.y = c + minSize * 0.5f;
  }
}
}  // namespace

CanvasData CanvasData::build(const ir::Graph& g, std::shared_ptr<const graph_layout::Layout> lay) {
  CanvasData d;
  d.graph = &g;
  d.layout = std::move(lay);
  d.nsByPos.resize(g.size());
  const graph_layout::Layout& L = *d.layout;
  d.stubUsers.assign(g.size(), 0);
  // Namespaces: call nodes by op (one classification per distinct op), the others one by one.
  std::vector<int16_t> nsByOp;
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    if (!n.isCall() || n.hasFlag(ir::kFlagOpaque)) {
      d.nsByPos[i] = uint8_t(viewmodel::classifyNode(g, n));
      continue;
    }
    if (n.op >= nsByOp.size()) nsByOp.resize(size_t(n.op) + 1, -1);
    if (nsByOp[n.op] < 0) nsByOp[n.op] = int16_t(viewmodel::classifyNode(g, n));
    d.nsByPos[i] = uint8_t(nsByOp[n.op]);
  }
  // Producers with stub edges: the number of all their users (stubs and routed edges).
  auto posOf = [&](ir::NodeId id) -> int64_t {
    return id < L.indexById.size() && L.indexById[id] >= 0 && size_t(L.indexById[id]) < g.size() ? L.indexById[id] : -1;
  };
  std::vector<uint8_t> hasStub(g.size(), 0);
  for (const graph_layout::EdgePath& e : L.edges)
    if (int64_t p = posOf(e.from); e.stub && p >= 0) hasStub[size_t(p)] = 1;
  for (const graph_layout::EdgePath& e : L.edges)
    if (int64_t p = posOf(e.from); p >= 0 && hasStub[size_t(p)]) ++d.stubUsers[size_t(p)];
  d.edgeBoxes.reserve(L.edges.size());
  for (const graph_layout::EdgePath& e : L.edges) {
    ImVec4 b(1e30f, 1e30f, -1e30f, -1e30f);
    for (const graph_layout::Point& p : e.points) {
      b.x = std::min(b.x, p.x), b.y = std::min(b.y, p.y);
      b.z = std::max(b.z, p.x), b.w = std::max(b.w, p.y);
    }
    d.edgeBoxes.push_back(b);
  }
  d.text_.resize(g.size());
  float w = std::max(L.width, 1.f), h = std::max(L.height, 1.f);
  if (w >= h) {
    d.minimapCols = kMinimapCells;
    d.minimapRows = std::max(1, int(std::ceil(kMinimapCells * h / w)));
  } else {
    d.minimapRows = kMinimapCells;
    d.minimapCols = std::max(1, int(std::ceil(kMinimapCells * w / h)));
  }
  d.minimapCells.assign(size_t(d.minimapCols) * size_t(d.minimapRows), 0);
  for (const graph_layout::NodeBox& b : L.nodes) {
    int cx = std::clamp(int((b.centerX() - L.minX) / w * float(d.minimapCols)), 0, d.minimapCols - 1);
    int cy = std::clamp(int((b.y + b.h * 0.5f - L.minY) / h * float(d.minimapRows)), 0, d.minimapRows - 1);
    ++d.minimapCells[size_t(cy) * size_t(d.minimapCols) + size_t(cx)];
  }
  return d;
}

const CanvasData::Text& CanvasData::text(size_t pos) const {
  Text& t = text_[pos];
  if (t.done) return t;
  const ir::Node& n = graph->at(pos);
  t.label = viewmodel::nodeLabel(n);
  if (viewmodel::isFoldNode(n)) {
    t.badges = viewmodel::foldOpSummary(n);
  } else if (layout->stats.badges > 0) {
    auto isBadge = [&](ir::NodeId id) {
      const graph_layout::NodeBox* b = layout->find(id);
      return b && b->badge;
    };
    t.badges = viewmodel::badgeLine(viewmodel::nodeBadges(*graph, n, isBadge));
  }
  t.done = true;
  return t;
}

CanvasStats drawCanvas(ImDrawList* dl, const CanvasFrame& f, const Camera& cam, ImVec2 origin, ImVec2 size) {
  CanvasStats st;
  if (!f.data || !f.data->layout) return st;
  const CanvasData& d = *f.data;
  const graph_layout::Layout& L = *d.layout;
  if (d.nsByPos.size() != L.nodes.size()) return st;  // the layout covers every node, in graph order
  const float z = cam.zoom;
  const float vx0 = cam.x, vy0 = cam.y, vx1 = cam.x + size.x / z, vy1 = cam.y + size.y / z;
  auto sx = [&](float x) { return origin.x + (x - cam.x) * z; };
  auto sy = [&](float y) { return origin.y + (y - cam.y) * z; };
  const bool diffOn = f.diff && !f.diff->empty();

  // Edges (under the boxes). Paths are short polylines; the bbox test culls most of them.
  const ImU32 edgeCol = theme::kEdge;
  const ImU32 edgeSel = theme::rgb(255, 255, 255, 230);
  // Without VtxOffset support (16-bit indices) one draw list holds at most 64k vertices: stop
  // adding detail before that instead of overflowing.
  const bool bounded = !(dl->Flags & ImDrawListFlags_AllowVtxOffset);
  auto full = [&] { return bounded && dl->_VtxCurrentIdx > 60000; };
  // Level of detail: when a row is under ~3 px tall, edges are drawn as one straight segment.
  const bool straightEdges = L.rowHeight * z < 3.f;
  ImVec2 pts[64];
  for (size_t i = 0; i < L.edges.size(); ++i) {
    if (full()) {
      st.truncated = true;
      break;
    }
    const ImVec4& b = d.edgeBoxes[i];
    if (b.z < vx0 || b.x > vx1 || b.w < vy0 || b.y > vy1) continue;
    const graph_layout::EdgePath& e = L.edges[i];
    bool sel = f.selected != ir::kInvalidNode && (e.from == f.selected || e.to == f.selected);
    ImU32 col = sel ? edgeSel : edgeCol;
    float th = sel ? 2.f : 1.f;
    size_t n = e.points.size();
    if (e.stub && !sel && n >= 2) {
      // A value with many users: a short stub under the producer and one over each user.
      float len = std::min(14.f, 0.3f * L.layerPitch * z);
      ImVec2 from(sx(e.points.front().x), sy(e.points.front().y)), to(sx(e.points.back().x), sy(e.points.back().y));
      dl->AddLine(from, ImVec2(from.x, from.y + len), col, th);
      dl->AddLine(ImVec2(to.x, to.y - len), to, col, th);
      if (len >= 6.f) dl->AddCircleFilled(ImVec2(to.x, to.y - len), 2.f, col);
      ++st.edges;
      ++st.stubs;
      continue;
    }
    if (straightEdges && n >= 2 && e.breaks.empty()) {
      dl->AddLine(ImVec2(sx(e.points.front().x), sy(e.points.front().y)), ImVec2(sx(e.points.back().x), sy(e.points.back().y)),
                  col, th);
      ++st.edges;
      continue;
    }
    size_t k = 0, nextBreak = 0;
    for (size_t j = 0; j < n; ++j) {
      if (nextBreak < e.breaks.size() && e.breaks[nextBreak] == j) {
        // The edge continues in the next column: close this piece with an arrow head and start
        // the next piece with a dot.
        if (k >= 2) dl->AddPolyline(pts, int(k), col, 0, th);
        if (k >= 1) {
          ImVec2 t = pts[k - 1];
          dl->AddTriangleFilled(ImVec2(t.x - 4, t.y - 5), ImVec2(t.x + 4, t.y - 5), ImVec2(t.x, t.y + 1), col);
        }
        ImVec2 h(sx(e.points[j].x), sy(e.points[j].y));
        dl->AddCircleFilled(h, 2.5f, col);
        k = 0;
        ++nextBreak;
      }
      pts[k++] = ImVec2(sx(e.points[j].x), sy(e.points[j].y));
      if (k == 64 || j + 1 == n) {
        if (k >= 2) dl->AddPolyline(pts, int(k), col, 0, th);
        pts[0] = pts[k - 1];
        k = 1;
      }
    }
    ++st.edges;
  }

  // Boxes and labels.
  ImFont* font = ImGui::GetFont();
  const float boxH = L.rowHeight * z;
  // The default font is a 13 px bitmap font: draw it at its native size whenever the box has
  // room (crisp), scaled down only when zoomed out, and not at all when unreadable.
  const float nativeSize = font ? font->FontSize : 13.f;
  const float fontSize = boxH >= nativeSize + 6.f ? nativeSize : boxH * 0.6f;
  const bool drawLabels = fontSize >= 7.f && font;
  const bool twoLines = boxH >= 2.2f * fontSize + 4.f && drawLabels;
  const bool threeLines = boxH >= 3.2f * fontSize + 4.f && drawLabels;
  const float rounding = boxH > 8.f ? std::min(4.f, boxH * 0.12f) : 0.f;
  // Removed nodes as red ghosts in their old row, moved sideways into space of their own
  // (viewmodel::placeGhosts), each linked to the nodes that replaced it or were fused from it.
  if (diffOn && f.ghosts) {
    for (const viewmodel::GhostBox& gb : *f.ghosts) {
      const ir::NodeId id = gb.id;
      const bool visible = !(gb.x > vx1 || gb.x + gb.w < vx0 || gb.y > vy1 || gb.y + gb.h < vy0);
      // Links to the replacements (drawn even when only the replacement is on screen).
      const auto links = std::equal_range(f.diff->replacedBy.begin(), f.diff->replacedBy.end(), std::pair{id, ir::NodeId(0)},
                                          [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto it = links.first; it != links.second; ++it) {
        const ir::NodeId to = it->second;
        const graph_layout::NodeBox* r = L.find(to);
        if (!r || r->w <= 0) continue;
        const bool linkSel = f.selected == id || f.selected == to;
        ImVec2 a(sx(gb.x + gb.w), sy(gb.y + gb.h * 0.5f)), b(sx(r->x), sy(r->y + r->h * 0.5f));
        if (r->x < gb.x) a.x = sx(gb.x), b.x = sx(r->x + r->w);
        if (std::max(gb.x + gb.w, r->x + r->w) < vx0 || std::min(gb.x, r->x) > vx1) continue;
        dl->AddLine(a, b, linkSel ? theme::kLinked : (theme::kLinked & 0x00ffffff) | 0x90000000, linkSel ? 2.f : 1.f);
        ++st.links;
      }
      if (!visible) continue;
      ImVec2 p0(sx(gb.x), sy(gb.y)), p1(sx(gb.x + gb.w), sy(gb.y + gb.h));
      inflate(p0, p1, 4.f);
      dl->AddRectFilled(p0, p1, theme::rgb(220, 60, 60, 60), rounding);
      dl->AddRect(p0, p1, id == f.selected ? theme::kSelected : theme::kRemoved, rounding, 0, 1.5f);
      if (drawLabels && f.compared) {
        if (const ir::Node* n = f.compared->find(id)) {
          std::string lab = "removed: " + viewmodel::shortOpName(*n);
          ImVec4 clip(p0.x + 2, p0.y, p1.x - 2, p1.y);
          dl->AddText(font, fontSize, ImVec2(p0.x + 4, p0.y + (boxH - fontSize) * 0.5f), theme::rgb(255, 150, 150),
                      lab.data(), lab.data() + lab.size(), 0.f, &clip);
        }
      }
      ++st.ghosts;
    }
  }

  for (size_t i = 0; i < L.nodes.size(); ++i) {
    const graph_layout::NodeBox& b = L.nodes[i];
    if (b.badge) continue;  // drawn in its users' boxes
    if (b.x > vx1 || b.x + b.w < vx0 || b.y > vy1 || b.y + b.h < vy0) continue;
    if (full()) {
      st.truncated = true;
      break;
    }
    ImVec2 p0(sx(b.x), sy(b.y)), p1(sx(b.x + b.w), sy(b.y + b.h));
    viewmodel::DiffMark m = diffOn ? f.diff->mark(b.id) : viewmodel::DiffMark::None;
    // Zoomed far out boxes stay visible (at least 2 px; diff marks 4 px so changes stand out).
    inflate(p0, p1, m == viewmodel::DiffMark::None ? 2.f : 4.f);
    ImU32 fill = theme::kNamespaceFill[d.nsByPos[i]];
    if (m == viewmodel::DiffMark::Added) fill = dim(theme::kAdded, 0.8f);
    else if (m == viewmodel::DiffMark::Changed) fill = dim(theme::kChanged, 0.8f);
    else if (diffOn) fill = dim(fill, 0.55f);
    // Partition colours (delegation): the node's partition, others dimmed.
    if (f.tints && !diffOn) {
      const uint32_t t = b.id < f.tints->size() ? (*f.tints)[b.id] : 0;
      fill = t ? theme::rgb(int(t >> 16 & 255), int(t >> 8 & 255), int(t & 255)) : dim(fill, 0.35f);
      if (t) ++st.tinted;
    }
    // Error overlay (a localised pass): compared nodes filled by their error, others dimmed.
    const trace::NodeError* err = f.errors ? f.errors->error(b.id) : nullptr;
    if (err) {
      const viewmodel::Rgba c = viewmodel::errorColour(*err);
      fill = theme::rgb(c.r, c.g, c.b, c.a);
      st.errors += err->exceeds;
    } else if (f.errors) {
      fill = dim(theme::kNamespaceFill[d.nsByPos[i]], 0.4f);
    }
    dl->AddRectFilled(p0, p1, fill, rounding);
    ++st.nodes;
    if (d.nsByPos[i] == uint8_t(viewmodel::OpNamespace::Module)) ++st.folds;
    bool selected = b.id == f.selected;
    bool hit = f.hitById && b.id < f.hitById->size() && (*f.hitById)[b.id];
    if (selected) dl->AddRect(p0, p1, theme::kSelected, rounding, 0, 2.5f);
    else if (hit) dl->AddRect(p0, p1, theme::kSearchHit, rounding, 0, 2.f);
    else if (m == viewmodel::DiffMark::Added && boxH > 4.f) dl->AddRect(p0, p1, theme::kAdded, rounding, 0, 1.5f);
    else if (m == viewmodel::DiffMark::Changed && boxH > 4.f) dl->AddRect(p0, p1, theme::kChanged, rounding, 0, 1.5f);
    if (f.errors && f.errors->isCulprit(b.id))
      dl->AddRect(ImVec2(p0.x - 4, p0.y - 4), ImVec2(p1.x + 4, p1.y + 4), theme::kCulprit, rounding, 0, 3.f);
    if (drawLabels) {
      // Lines by priority: op and type, the badge line (parameters), the node name.
      const CanvasData::Text& text = d.text(i);
      const std::string& lab = text.label;
      const std::string& badge = text.badges;
      const std::string& name = d.graph->at(i).name;
      const std::string* lines[3] = {&lab, nullptr, nullptr};
      ImU32 colours[3] = {err && err->exceeds ? IM_COL32(20, 20, 20, 255) : IM_COL32(240, 240, 240, 255),
                          theme::kBadgeText, IM_COL32(200, 200, 200, 170)};
      int count = 1;
      if (twoLines && !badge.empty()) lines[count] = &badge, colours[count] = theme::kBadgeText, ++count;
      if ((count == 1 && twoLines) || (count == 2 && threeLines))
        lines[count] = &name, colours[count] = IM_COL32(200, 200, 200, 170), ++count;
      ImVec4 clip(p0.x + 2, p0.y, p1.x - 2, p1.y);
      float ty = p0.y + (boxH - float(count) * fontSize) * 0.5f;
      for (int k = 0; k < count; ++k) {
        const std::string& t = *lines[k];
        dl->AddText(font, fontSize, ImVec2(p0.x + 4, ty + float(k) * fontSize), colours[k], t.data(), t.data() + t.size(), 0.f,
                    &clip);
        if (lines[k] == &badge) ++st.badges;
      }
      ++st.labels;
      // "N users" under a producer whose edges are stubs.
      if (d.stubUsers[i] && !selected) {
        std::string u = fmt::format("{} users", d.stubUsers[i]);
        dl->AddText(font, fontSize * 0.9f, ImVec2(p0.x + b.w * z * 0.5f + 4, p1.y + 1), theme::kBadgeText, u.data(), u.data() + u.size());
      }
    }
  }

  return st;
}

bool GraphView::layoutPending(const ViewState& s) const {
  GraphPtr g = s.shownGraph();
  if (!g) return false;
  if (foldingActive(s)) {
    // The folded graph of the shown one (made on the next frame when it is not yet).
    if (!foldShown_.graph || foldShownReal_ != g) return true;
    g = foldShown_.graph;
  }
  auto state = cache_.state(g.get());
  return state == graph_layout::LayoutCache::State::Queued || state == graph_layout::LayoutCache::State::Absent;
}

void GraphView::refreshData(const ViewState& s, const GraphPtr& shown, const GraphPtr& compared) {
  // Derived data is rebuilt only when the trace, the shown graph, its layout, the compared
  // graph or the search changes (never every frame).
  if (generationOf(s.trace) != lastGeneration_) {
    lastGeneration_ = generationOf(s.trace);
    data_.reset();
    dataKey_ = {};
    shownHold_.reset();
  }
  auto [drawn, drawnCompared] = drawnGraphs(s, shown, compared);
  shownKey_ = s.shownKey();
  shownKey_.fold = folding_ ? foldGen_ : 0;
  if (!shown) {
    data_.reset();
    dataKey_ = {};
    shownHold_.reset();
    return;
  }
  auto lay = cache_.get(drawn.get());
  auto cmpRaw = drawnCompared ? cache_.get(drawnCompared.get()) : nullptr;
  if (lay && (!data_ || dataKey_ != shownKey_ || rawLayout_ != lay || rawCompared_ != cmpRaw ||
              dataSpec_.layersPerColumn != wrapSpec_.layersPerColumn)) {
    // Drawn layouts: without the layers empty in both the shown and the compared layout (so
    // removed nodes keep their rows), then wrapped into columns.
    rawLayout_ = lay;
    rawCompared_ = cmpRaw;
    dataSpec_ = wrapSpec_;
    std::vector<uint8_t> keep = graph_layout::occupiedLayers(*lay);
    if (cmpRaw) {
      std::vector<uint8_t> other = graph_layout::occupiedLayers(*cmpRaw);
      if (other.size() > keep.size()) keep.resize(other.size(), 0);
      for (size_t l = 0; l < other.size(); ++l) keep[l] |= other[l];
    }
    compact_ = std::make_shared<const graph_layout::Layout>(graph_layout::compactLayers(*lay, keep));
    comparedLayout_ = cmpRaw ? wrapped(std::make_shared<const graph_layout::Layout>(graph_layout::compactLayers(*cmpRaw, keep))) : nullptr;
    data_ = std::make_unique<CanvasData>(CanvasData::build(*drawn, wrapped(compact_)));
    dataKey_ = shownKey_;
    shownHold_ = drawn;
    nsCount_.assign(size_t(viewmodel::OpNamespace::COUNT), 0);
    for (uint8_t ns : data_->nsByPos) ++nsCount_[ns];
  }
  // Without a layout yet, the previous snapshot's layout stays on screen (positions are mostly
  // shared between passes) with a "laying out" note.
  // Diff
  GraphKey comparedKey = s.comparedKey();
  comparedKey.fold = shownKey_.fold;
  if (shownKey_ != diffShown_ || comparedKey != diffCompared_) {
    diffShown_ = shownKey_;
    diffCompared_ = std::move(comparedKey);
    hasDiff_ = compared != nullptr;
    changeCursor_ = -1;
    if (hasDiff_) diff_ = viewmodel::prepareDiff(trace::diffGraphs(*compared, *shown), *shown);
    else diff_ = {};
    // Folded: a fold is marked when a node inside changed; links point at folds.
    if (hasDiff_ && folding_) viewmodel::foldDiff(diff_, foldShown_, drawnCompared ? &foldCompared_ : nullptr);
    comparedHold_ = compared;
  }
  // Removed nodes in space of their own, for the drawn layouts and this diff.
  std::shared_ptr<const graph_layout::Layout> drawnLayout =
      data_ && dataKey_ == shownKey_ ? data_->layout : nullptr;
  if (drawnLayout != ghostLayout_ || comparedLayout_ != ghostCompared_ || !(ghostDiff_ == diffShown_) ||
      !(ghostDiffCompared_ == diffCompared_)) {
    ghostLayout_ = drawnLayout;
    ghostCompared_ = comparedLayout_;
    ghostDiff_ = diffShown_;
    ghostDiffCompared_ = diffCompared_;
    ghosts_ = hasDiff_ && drawnLayout && comparedLayout_ ? viewmodel::placeGhosts(*drawnLayout, *comparedLayout_, diff_.removed)
                                                        : std::vector<viewmodel::GhostBox>{};
  }

  // Search hits
  if (search_ != searchCached_ || searchGraph_ != shownKey_) {
    searchCached_ = search_;
    searchGraph_ = shownKey_;
    hits_ = viewmodel::searchNodes(*shown, search_);
    // Hits by drawn id: a hit inside a folded module marks its fold.
    hitById_.assign(std::max(shown->nextId(), drawn->nextId()), 0);
    for (ir::NodeId id : hits_) hitById_[folding_ ? foldShown_.drawnId(id) : id] = 1;
    hitCursor_ = -1;
  }
}

void GraphView::refreshTints(const ViewState& s) {
  if (!s.trace) {
    tints_.clear();
    runHasDelegates_ = false;
    return;
  }
  if (tintsGeneration_ != s.trace->generation) {
    // Whether the toolbar offers partition colours: the run's final graph has delegates.
    tintsGeneration_ = s.trace->generation;
    tintsPass_ = -2;
    tints_.clear();
    runHasDelegates_ = !viewmodel::delegateNodes(s.trace->finalGraph()).empty();
  }
  if (!s.partitionColours || !runHasDelegates_ || tintsPass_ == s.selectedPass) return;
  tintsPass_ = s.selectedPass;
  tints_ = viewmodel::partitionTints(*s.trace, s.selectedPass);
}

const viewmodel::GhostBox* GraphView::ghostOf(ir::NodeId id) const {
  for (const viewmodel::GhostBox& g : ghosts_)
    if (g.id == id) return &g;
  return nullptr;
}

std::shared_ptr<const graph_layout::Layout> GraphView::wrapped(const std::shared_ptr<const graph_layout::Layout>& raw) const {
  if (!raw || !wrap_ || wrapSpec_.columns(*raw) <= 1) return raw;
  return std::make_shared<const graph_layout::Layout>(graph_layout::wrapColumns(*raw, wrapSpec_));
}

void GraphView::centerOn(ir::NodeId id, float minZoom) {
  if (!data_ || !data_->layout) return;
  const graph_layout::NodeBox* b = data_->layout->find(id);
  const viewmodel::GhostBox* gb = b ? nullptr : ghostOf(id);
  if (!b && !gb) return;
  const float cx = b ? b->centerX() : gb->x + gb->w * 0.5f, cy = b ? b->y + b->h * 0.5f : gb->y + gb->h * 0.5f;
  cam_.zoom = std::max(cam_.zoom, minZoom);
  cam_.x = cx - canvasSize_.x * 0.5f / cam_.zoom;
  cam_.y = cy - canvasSize_.y * 0.5f / cam_.zoom;
}

bool GraphView::searchStep(ViewState& s, int dir) {
  GraphPtr shown = s.shownGraph();
  if (shown) refreshData(s, shown, s.comparedGraph());
  if (hits_.empty()) return false;
  int n = int(hits_.size());
  hitCursor_ = hitCursor_ < 0 ? (dir > 0 ? 0 : n - 1) : ((hitCursor_ + dir) % n + n) % n;
  s.selectedNode = hits_[size_t(hitCursor_)];
  s.centerRequested = true;
  return true;
}

size_t GraphView::diffSize(const ViewState& s) {
  GraphPtr shown = s.shownGraph();
  if (!shown) return 0;
  refreshData(s, shown, s.comparedGraph());
  return hasDiff_ ? diff_.added + diff_.changed + diff_.removed.size() : 0;
}

bool GraphView::changeStep(ViewState& s, int dir) {
  GraphPtr shown = s.shownGraph();
  if (!shown) return false;
  refreshData(s, shown, s.comparedGraph());
  if (!hasDiff_ || diff_.empty()) return false;
  // Changes in reading order (top to bottom, then left to right) of their boxes.
  std::vector<std::pair<graph_layout::Point, ir::NodeId>> items;
  auto add = [&](ir::NodeId id, const graph_layout::Layout* L) {
    const graph_layout::NodeBox* b = L ? L->find(id) : nullptr;
    if (b) items.push_back({{b->x, b->y}, id});
  };
  const graph_layout::Layout* cur = data_ && dataKey_ == shownKey_ ? data_->layout.get() : nullptr;
  const ir::Graph& drawn = cur ? *data_->graph : *shown;  // folds stand for their nodes
  for (size_t i = 0; i < drawn.size(); ++i)
    if (diff_.mark(drawn.at(i).id) != viewmodel::DiffMark::None) add(drawn.at(i).id, cur);
  for (const viewmodel::GhostBox& g : ghosts_) items.push_back({{g.x, g.y}, g.id});
  if (items.empty()) return false;
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.first.y != b.first.y ? a.first.y < b.first.y : a.first.x < b.first.x;
  });
  int n = int(items.size());
  changeCursor_ = changeCursor_ < 0 || changeCursor_ >= n ? (dir > 0 ? 0 : n - 1) : ((changeCursor_ + dir) % n + n) % n;
  s.selectedNode = items[size_t(changeCursor_)].second;
  s.centerRequested = true;
  return true;
}

ir::NodeId GraphView::pick(ImVec2 c) const {
  if (!data_ || !data_->layout) return ir::kInvalidNode;
  for (const graph_layout::NodeBox& b : data_->layout->nodes)
    if (c.x >= b.x && c.x <= b.x + b.w && c.y >= b.y && c.y <= b.y + b.h) return b.id;
  if (hasDiff_)
    for (const viewmodel::GhostBox& b : ghosts_)
      if (c.x >= b.x && c.x <= b.x + b.w && c.y >= b.y && c.y <= b.y + b.h) return b.id;
  return ir::kInvalidNode;
}

void GraphView::drawToolbar(ViewState& s, const GraphPtr& shown) {
  if (!s.subgraphPath.empty()) {
    if (ImGui::Button("< Back")) s.subgraphPath.pop_back(), s.selectedNode = ir::kInvalidNode, fitPending_ = true;
    ImGui::SameLine();
    std::string crumb = "main";
    for (const std::string& n : s.subgraphPath) crumb += " > " + n;
    ImGui::TextUnformatted(crumb.c_str());
    ImGui::SameLine();
  }
  if (ImGui::Button("Fit")) fitPending_ = true;
  ImGui::SameLine();
  if (ImGui::Checkbox("wrap", &wrap_)) fitPending_ = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("At Fit, wrap long graphs into side-by-side columns of layers");
  ImGui::SameLine();
  bool fold = foldingActive(s);
  if (ImGui::Checkbox("modules", &fold)) setFoldMode(fold ? FoldMode::On : FoldMode::Off);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Fold each module (meta.module) into one box; double-click a box to expand it (M)\n"
                      "Default: folded above %zu nodes", kFoldAbove);
  if (folding_) {
    ImGui::SameLine();
    ImGui::TextDisabled("%zu folds", foldShown_.folds.size());
    // Fold back the expanded module the selected node is in (the innermost one).
    const ir::Node* sel = shown ? shown->find(s.selectedNode) : nullptr;
    std::string open;
    if (sel)
      for (const std::string& p : viewmodel::modulePrefixes(sel->module))
        if (expanded_.count(p)) open = p;
    if (!open.empty()) {
      ImGui::SameLine();
      if (ImGui::SmallButton(fmt::format("fold {}", open).c_str())) collapseModule(open);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Fold the module the selected node is in back into one box");
    }
  }
  ImGui::SameLine();
  double pct = double(cam_.zoom) * 100.0;
  ImGui::Text(pct >= 10 ? "%.0f%%" : pct >= 1 ? "%.1f%%" : "%.2f%%", pct);
  ImGui::SameLine();
  if (ImGui::Checkbox("diff", &s.diffEnabled) && s.diffEnabled) s.partitionColours = false;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Colour changes against the previous pass (or the pinned pass)");
  ImGui::SameLine();
  if (runHasDelegates_) {
    if (ImGui::Checkbox("partitions", &s.partitionColours) && s.partitionColours) s.diffEnabled = false;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Colour nodes by the XNNPACK partition they go into (colours as in the Delegation tab)");
    ImGui::SameLine();
  }
  if (s.pinnedPass != kNoPin) {
    ImGui::Text("vs pinned #%d", s.pinnedPass);
    ImGui::SameLine();
    if (ImGui::SmallButton("unpin")) s.pinnedPass = kNoPin;
  } else {
    ImGui::TextDisabled("vs previous");
    ImGui::SameLine();
    if (ImGui::SmallButton("pin this pass")) s.pinnedPass = s.selectedPass;
  }
  if (hasDiff_ && !diff_.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("< change")) changeStep(s, -1);
    ImGui::SameLine();
    if (ImGui::SmallButton("change >")) changeStep(s, +1);
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(200);
  if (ImGui::InputTextWithHint("##nodesearch", "find node/op, module:PATH", &search_, ImGuiInputTextFlags_EnterReturnsTrue)) searchStep(s, +1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prevhit", ImGuiDir_Up)) searchStep(s, -1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##nexthit", ImGuiDir_Down)) searchStep(s, +1);
  ImGui::SameLine();
  if (!search_.empty()) ImGui::Text("%d/%zu", hitCursor_ + 1, hits_.size());
  else ImGui::TextDisabled("%zu nodes", shown ? shown->size() : size_t(0));
  // Nested graphs of the shown graph.
  if (shown && !shown->subgraphs().empty()) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140);
    if (ImGui::BeginCombo("##subgraphs", "nested graphs")) {
      for (const auto& [name, sub] : shown->subgraphs())
        if (ImGui::Selectable(name.c_str())) s.subgraphPath.push_back(name), s.selectedNode = ir::kInvalidNode, fitPending_ = true;
      ImGui::EndCombo();
    }
  }
}

void GraphView::drawLegend(ImDrawList* dl, ImVec2 o) {
  float lh = ImGui::GetTextLineHeight();
  float x = o.x + 8, y = o.y + 6;
  auto chip = [&](ImU32 col, const std::string& text, bool outline = false) {
    if (outline) dl->AddRect(ImVec2(x, y + 2), ImVec2(x + lh - 2, y + lh - 2), col, 0, 0, 2.f);
    else dl->AddRectFilled(ImVec2(x, y + 2), ImVec2(x + lh - 2, y + lh - 2), col);
    dl->AddText(ImVec2(x + lh + 2, y), IM_COL32(220, 220, 220, 255), text.c_str());
    x += lh + 10 + ImGui::CalcTextSize(text.c_str()).x;
  };
  dl->AddRectFilled(o, ImVec2(o.x + 10000, o.y + lh * 2 + 14), theme::rgb(24, 25, 28, 200));
  for (size_t i = 0; i < nsCount_.size(); ++i)
    if (nsCount_[i] > 0)
      chip(theme::kNamespaceFill[i], fmt::format("{} {}", viewmodel::opNamespaceName(viewmodel::OpNamespace(i)), nsCount_[i]));
  x = o.x + 8;
  y += lh + 4;
  if (hasDiff_) {
    chip(theme::kAdded, fmt::format("added {}", diff_.added));
    chip(theme::kChanged, fmt::format("changed {}", diff_.changed));
    chip(theme::kRemoved, fmt::format("removed {}", diff_.removed.size()), true);
    dl->AddText(ImVec2(x, y), IM_COL32(170, 170, 170, 255), fmt::format("unchanged {}", diff_.unchanged).c_str());
  } else {
    dl->AddText(ImVec2(x, y), IM_COL32(150, 150, 150, 255), "no diff (source graph or diff off)");
  }
}

// ---- error overlay (verify --localize): one self-contained block

void GraphView::refreshErrorOverlay(const ViewState& s) {
  const bool nested = !s.subgraphPath.empty();
  if (errorsGeneration_ == generationOf(s.trace) && errorsPass_ == s.selectedPass && errorsNested_ == nested) return;
  errorsGeneration_ = generationOf(s.trace);
  errorsPass_ = s.selectedPass;
  errorsNested_ = nested;
  errors_ = viewmodel::ErrorOverlay::build(s.trace, s.selectedPass, nested);
}

void GraphView::drawErrorLegend(ImDrawList* dl, ImVec2 o, ImVec2 size) const {
  const trace::Localization* loc = errors_.localization();
  if (!loc) return;
  const float lh = ImGui::GetTextLineHeight(), barW = 180.f;
  const float x0 = o.x + 8, y0 = o.y + size.y - 3 * lh - 22;
  dl->AddRectFilled(ImVec2(o.x, y0 - 6), ImVec2(o.x + 560, o.y + size.y), theme::rgb(24, 25, 28, 220));
  const std::string title = fmt::format("error vs before pass #{} {}: {} of {} nodes above tolerance", loc->passIndex,
                                        loc->pass, loc->exceeding(), loc->nodes.size());
  dl->AddText(ImVec2(x0, y0), IM_COL32(230, 230, 230, 255), title.c_str());
  // The heat scale, in tolerances (1 .. 10^kHeatDecades, log).
  const float by = y0 + lh + 4;
  const viewmodel::Rgba w = viewmodel::kWithinTolerance;
  dl->AddRectFilled(ImVec2(x0, by), ImVec2(x0 + lh, by + lh), theme::rgb(w.r, w.g, w.b, w.a));
  dl->AddText(ImVec2(x0 + lh + 4, by), IM_COL32(210, 210, 210, 255), "within");
  const float bx = x0 + lh + 60;
  constexpr int kSteps = 24;
  for (int k = 0; k < kSteps; ++k) {
    const viewmodel::Rgba c = viewmodel::heatColour(float(k) / float(kSteps - 1));
    dl->AddRectFilled(ImVec2(bx + barW * float(k) / kSteps, by), ImVec2(bx + barW * float(k + 1) / kSteps, by + lh),
                      theme::rgb(c.r, c.g, c.b, c.a));
  }
  for (int dec = 0; dec <= int(viewmodel::kHeatDecades); ++dec) {
    const std::string t = dec == int(viewmodel::kHeatDecades) ? fmt::format(">=1e{}", dec) : fmt::format("1e{}", dec);
    dl->AddText(ImVec2(bx + barW * float(dec) / float(viewmodel::kHeatDecades) - 8, by + lh + 2), IM_COL32(190, 190, 190, 255),
                t.c_str());
  }
  const float cx = bx + barW + 30;
  dl->AddRect(ImVec2(cx, by), ImVec2(cx + lh, by + lh), theme::kCulprit, 0, 0, 3.f);
  const ir::Graph* g = data_ ? data_->graph : nullptr;
  const ir::Node* c = g ? g->find(loc->culprit) : nullptr;
  const std::string ct = c ? "culprit: " + c->name : loc->culprit == ir::kInvalidNode ? "no culprit" : "culprit";
  dl->AddText(ImVec2(cx + lh + 6, by), IM_COL32(230, 230, 230, 255), ct.c_str());
}

void GraphView::drawMinimap(ImDrawList* dl, ImVec2 o, ImVec2 size) {
  if (!data_ || !data_->layout || data_->minimapCols == 0) return;
  const graph_layout::Layout& L = *data_->layout;
  // No minimap while the whole graph is on screen.
  if (cam_.x <= L.minX && cam_.y <= L.minY && cam_.x + size.x / cam_.zoom >= L.minX + L.width &&
      cam_.y + size.y / cam_.zoom >= L.minY + L.height)
    return;
  float maxW = 170.f, maxH = std::min(260.f, size.y * 0.45f);
  float sc = std::min(maxW / std::max(L.width, 1.f), maxH / std::max(L.height, 1.f));
  float mw = std::max(L.width * sc, 24.f), mh = std::max(L.height * sc, 24.f);
  ImVec2 p0(o.x + size.x - mw - 10, o.y + size.y - mh - 10), p1(p0.x + mw, p0.y + mh);
  dl->AddRectFilled(ImVec2(p0.x - 3, p0.y - 3), ImVec2(p1.x + 3, p1.y + 3), theme::rgb(10, 10, 12, 220));
  float cw = mw / float(data_->minimapCols), ch = mh / float(data_->minimapRows);
  for (int r = 0; r < data_->minimapRows; ++r)
    for (int c = 0; c < data_->minimapCols; ++c) {
      uint32_t n = data_->minimapCells[size_t(r) * size_t(data_->minimapCols) + size_t(c)];
      if (!n) continue;
      int a = std::min(255, 90 + int(n) * 40);
      dl->AddRectFilled(ImVec2(p0.x + float(c) * cw, p0.y + float(r) * ch),
                        ImVec2(p0.x + float(c + 1) * cw, p0.y + float(r + 1) * ch), theme::rgb(120, 160, 210, a));
    }
  // Viewport.
  auto mx = [&](float x) { return p0.x + (x - L.minX) * sc; };
  auto my = [&](float y) { return p0.y + (y - L.minY) * sc; };
  ImVec2 v0(mx(cam_.x), my(cam_.y)), v1(mx(cam_.x + canvasSize_.x / cam_.zoom), my(cam_.y + canvasSize_.y / cam_.zoom));
  dl->PushClipRect(ImVec2(p0.x - 3, p0.y - 3), ImVec2(p1.x + 3, p1.y + 3), true);
  dl->AddRect(v0, v1, theme::rgb(255, 255, 255, 200), 0, 0, 1.5f);
  dl->PopClipRect();
  // Click/drag in the minimap centres the view there.
  ImVec2 mouse = ImGui::GetIO().MousePos;
  bool inside = mouse.x >= p0.x && mouse.x <= p1.x && mouse.y >= p0.y && mouse.y <= p1.y;
  if (inside && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) minimapDrag_ = true;
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) minimapDrag_ = false;
  if (minimapDrag_) {
    float cx = (mouse.x - p0.x) / sc + L.minX, cy = (mouse.y - p0.y) / sc + L.minY;
    cam_.x = cx - canvasSize_.x * 0.5f / cam_.zoom;
    cam_.y = cy - canvasSize_.y * 0.5f / cam_.zoom;
  }
}

void GraphView::draw(ViewState& s) {
  GraphPtr shown = s.shownGraph();
  GraphPtr compared = s.comparedGraph();
  if (shown) {
    // Nested graphs are laid out on demand; main snapshots were requested as a chain. Folded
    // graphs are made here and laid out like any other.
    auto [drawn, drawnCompared] = drawnGraphs(s, shown, compared);
    cache_.request(drawn, drawnCompared);
    if (drawnCompared) cache_.request(drawnCompared);
  }
  refreshData(s, shown, compared);
  drawToolbar(s, shown);

  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 size = ImGui::GetContentRegionAvail();
  size.x = std::max(size.x, 50.f);
  size.y = std::max(size.y, 50.f);
  canvasSize_ = size;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), theme::kCanvasBg);
  ImGui::InvisibleButton("##canvas", size,
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight | ImGuiButtonFlags_MouseButtonMiddle);
  bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();

  if (!shown) {
    dl->AddText(ImVec2(origin.x + 20, origin.y + 20), IM_COL32(200, 200, 200, 255),
                s.trace ? "This nested graph does not exist at the selected pass." : "Open a model (File > Open) or drop a file here.");
    return;
  }
  if (!data_) {
    auto st = cache_.state(shown.get());
    std::string msg = st == graph_layout::LayoutCache::State::Failed ? "Layout failed: " + cache_.error(shown.get())
                                                                : fmt::format("Laying out {} nodes...", shown->size());
    dl->AddText(ImVec2(origin.x + 20, origin.y + 40), IM_COL32(200, 200, 200, 255), msg.c_str());
    return;
  }

  // Camera requests, once the shown graph's own layout is ready (a fit against the previous
  // pass's layout would frame the wrong graph).
  if ((fitPending_ || s.fitRequested || foldRefit_) && dataKey_ == shownKey_ && compact_) {
    // Fit: long graphs wrap into columns so the whole graph fills the canvas. A new trace:
    // the same, but never below a zoom that keeps labels legible; then the view starts at the
    // graph's inputs (top left) and the minimap shows the rest.
    const float legendH = 44.f;
    graph_layout::WrapSpec spec =
        wrap_ ? graph_layout::chooseWrap(*compact_, size.x * 0.95f, (size.y - legendH) * 0.95f, 1.f) : graph_layout::WrapSpec{};
    if (spec.layersPerColumn != wrapSpec_.layersPerColumn) {
      wrapSpec_ = spec;
      refreshData(s, shown, compared);
    }
    const graph_layout::Layout& W = *data_->layout;
    float zAll = std::min(size.x / std::max(W.width, 1.f), (size.y - legendH) / std::max(W.height, 1.f)) * 0.95f;
    const float legible = 0.85f;
    bool explicitFit = fitPending_;
    cam_.zoom = std::clamp(explicitFit ? std::min(zAll, 1.f) : std::max(std::min(zAll, 1.f), legible), kMinZoom, 1.5f);
    bool fitsW = W.width * cam_.zoom <= size.x, fitsH = W.height * cam_.zoom <= size.y - legendH;
    cam_.x = fitsW ? W.minX + W.width * 0.5f - size.x * 0.5f / cam_.zoom : W.minX - 10.f / cam_.zoom;
    cam_.y = fitsH ? W.minY + W.height * 0.5f - (size.y + legendH) * 0.5f / cam_.zoom : W.minY - legendH / cam_.zoom;
    if (!fitsW) {
      // Start at the first graph input.
      for (const ir::NodePtr& p : shown->nodes())
        if (p->kind == ir::NodeKind::Placeholder && !graph_layout::isConstantNode(*shown, *p))
          if (const graph_layout::NodeBox* b = W.find(p->id)) {
            cam_.x = std::max(W.minX - 10.f / cam_.zoom, b->centerX() - size.x * 0.3f / cam_.zoom);
            break;
          }
    }
    fitPending_ = s.fitRequested = foldRefit_ = false;
  }
  auto zoomAround = [&](float factor, ImVec2 screen) {
    float nz = std::clamp(cam_.zoom * factor, kMinZoom, kMaxZoom);
    float cx = cam_.x + (screen.x - origin.x) / cam_.zoom, cy = cam_.y + (screen.y - origin.y) / cam_.zoom;
    cam_.zoom = nz;
    cam_.x = cx - (screen.x - origin.x) / nz;
    cam_.y = cy - (screen.y - origin.y) / nz;
  };
  if (zoomRequest_ != 1.f) {
    zoomAround(zoomRequest_, ImVec2(origin.x + size.x * 0.5f, origin.y + size.y * 0.5f));
    zoomRequest_ = 1.f;
  }
  if (s.centerRequested) {
    // A node inside a folded module: open the folds around it, centre once laid out.
    if (!revealSelected(s) && dataKey_ == shownKey_) {
      centerOn(s.selectedNode, 0.6f);
      s.centerRequested = false;
    }
  }

  // Input.
  if (hovered && io.MouseWheel != 0.f) zoomAround(std::pow(1.15f, io.MouseWheel), io.MousePos);
  bool panning = ImGui::IsItemActive() && !minimapDrag_ &&
                 (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.f) || ImGui::IsMouseDragging(ImGuiMouseButton_Right, 2.f) ||
                  ImGui::IsMouseDragging(ImGuiMouseButton_Middle, 2.f));
  if (panning) {
    cam_.x -= io.MouseDelta.x / cam_.zoom;
    cam_.y -= io.MouseDelta.y / cam_.zoom;
  }
  ImVec2 mouseCanvas(cam_.x + (io.MousePos.x - origin.x) / cam_.zoom, cam_.y + (io.MousePos.y - origin.y) / cam_.zoom);
  if (hovered && !minimapDrag_ && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
      ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 2.f).x == 0.f && ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 2.f).y == 0.f) {
    ir::NodeId id = pick(mouseCanvas);
    if (id != ir::kInvalidNode) s.selectedNode = id;
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    ir::NodeId id = pick(mouseCanvas);
    const viewmodel::Fold* fold = folding_ ? foldShown_.fold(id) : nullptr;
    if (fold) {
      // A folded module opens one level.
      expandModule(fold->path);
    } else if (id != ir::kInvalidNode) {
      s.selectedNode = id;
      // A delegate/control-flow node opens its nested graph in place; others are centred.
      std::vector<std::string> nested;
      if (const ir::Node* n = shown->find(id)) nested = viewmodel::nestedGraphRefs(*shown, *n);
      if (!nested.empty()) {
        // The nested graph opens fitted, with nothing selected (the inspector would show a
        // node of the outer graph).
        s.subgraphPath.push_back(nested.front());
        s.selectedNode = ir::kInvalidNode;
        fitPending_ = true;
      } else {
        centerOn(id, 0.f);
      }
    }
  }
  // Key indices are the platform backend's (GLFW: letters are their ASCII upper-case codes).
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !io.WantTextInput && ImGui::IsKeyPressed('F', false))
    fitPending_ = true;
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !io.WantTextInput && ImGui::IsKeyPressed('M', false))
    setFoldMode(foldingActive(s) ? FoldMode::Off : FoldMode::On);

  dl->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
  CanvasFrame f;
  f.data = data_.get();
  f.diff = hasDiff_ ? &diff_ : nullptr;
  f.comparedLayout = comparedLayout_.get();
  f.ghosts = &ghosts_;
  refreshTints(s);
  f.tints = s.partitionColours && !tints_.empty() && s.subgraphPath.empty() ? &tints_ : nullptr;
  f.compared = comparedHold_.get();
  f.selected = folding_ ? foldShown_.drawnId(s.selectedNode) : s.selectedNode;
  f.hitById = search_.empty() ? nullptr : &hitById_;
  refreshErrorOverlay(s);
  f.errors = errors_.active() ? &errors_ : nullptr;
  stats_ = drawCanvas(dl, f, cam_, origin, size);
  drawLegend(dl, origin);
  drawErrorLegend(dl, origin, size);
  drawMinimap(dl, origin, size);
  if (dataKey_ != shownKey_) {
    dl->AddText(ImVec2(origin.x + 10, origin.y + size.y - 22), IM_COL32(255, 220, 120, 255), "laying out this pass...");
  }
  dl->PopClipRect();

  // Tooltip for the hovered node.
  if (hovered && !panning) {
    ir::NodeId id = pick(mouseCanvas);
    if (const viewmodel::Fold* fold = folding_ ? foldShown_.fold(id) : nullptr) {
      const ir::Node& fn = foldShown_.graph->node(id);
      ImGui::BeginTooltip();
      ImGui::Text("module %s  (%zu nodes, folded)", fold->path.c_str(), fold->members.size());
      ImGui::TextDisabled("%s", viewmodel::foldOpSummary(fn, 8).c_str());
      if (hasDiff_ && diff_.mark(id) != viewmodel::DiffMark::None) ImGui::Text("nodes inside changed in this pass");
      ImGui::TextDisabled("double-click to expand");
      ImGui::EndTooltip();
    } else if (id != ir::kInvalidNode) {
      const ir::Node* n = shown->find(id);
      bool removed = false;
      if (!n && comparedHold_) n = comparedHold_->find(id), removed = true;
      if (n) {
        ImGui::BeginTooltip();
        ImGui::Text("%s%s", n->name.c_str(), removed ? "  (removed)" : "");
        ImGui::TextDisabled("%s", n->isCall() ? n->target.c_str() : std::string(ir::nodeKindName(n->kind)).c_str());
        if (n->meta(0).isTensor()) ImGui::Text("%s", ir::toString(n->meta(0)).c_str());
        if (!n->module.empty()) ImGui::TextDisabled("module %s", n->module.c_str());
        if (hasDiff_ && !removed && diff_.mark(id) != viewmodel::DiffMark::None)
          ImGui::Text("%s in this pass", std::string(viewmodel::diffMarkName(diff_.mark(id))).c_str());
        ImGui::EndTooltip();
      }
    }
  }
}

}  // namespace ls::viewers
