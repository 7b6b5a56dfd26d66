// .lstrace save/load: identifier + Verifier + version check around the trace tables; graphs
// use the shared Graph codec (lsg_graph.h) with one blob table for all snapshots.
#include "core/io/flatbuffer_file.h"
#include "core/io/lstrace.h"
#include "core/io/bundle.h"

#include <fmt/format.h>
#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/io/lsg_graph.h"
#include "core/io/schema/lstrace_generated.h"
#include "core/io/share_nodes.h"
#include "core/util/atomic_file.h"

namespace ls::io {

static_assert(sizeof(kLstraceIdentifier) == flatbuffers::kFileIdentifierLength + 1);

namespace {

constexpr uint32_t kVersionMajor = 1;
constexpr uint32_t kVersionMinor = 2;
constexpr uint32_t kVersion = (kVersionMajor << 16) | kVersionMinor;
constexpr char kProducer[] = "lowerscope";
// Root + snapshots vector + one Graph (see lsg.cpp: 7 levels + 3 per nested subgraph).
constexpr flatbuffers::uoffset_t kMaxVerifyDepth = 74;
static_assert(11 + 3 * kMaxSubgraphNesting <= kMaxVerifyDepth);  // +2: preparation run

}  // namespace

bool looksLikeTrace(std::string_view bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, kLstraceIdentifier, 4) == 0;
}

namespace {

using SnapshotOffsets = std::vector<flatbuffers::Offset<fb::Graph>>;

Result<SnapshotOffsets> writeSnapshots(flatbuffers::FlatBufferBuilder& b, const trace::Trace& t,
                                       BlobTableWriter& blobs, std::string_view what) {
  SnapshotOffsets snaps;
  snaps.reserve(t.snapshots.size());
  for (size_t i = 0; i < t.snapshots.size(); ++i) {
    if (!t.snapshots[i]) return Status::error(fmt::format("cannot serialise {}: snapshot {} is empty", what, i));
    auto s = writeGraph(b, *t.snapshots[i], &blobs);
    if (!s) return Status::error(fmt::format("cannot serialise {} snapshot {}: {}", what, i, s.message()));
    snaps.push_back(*s);
  }
  return snaps;
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::PassRecord>>> writeRecords(
    flatbuffers::FlatBufferBuilder& b, const std::vector<trace::PassRecord>& records) {
  std::vector<flatbuffers::Offset<fb::PassRecord>> recs;
  recs.reserve(records.size());
  for (const trace::PassRecord& r : records) {
    std::vector<flatbuffers::Offset<fb::TraceStat>> stats;
    for (const trace::StatValue& s : r.stats)
      stats.push_back(fb::CreateTraceStat(b, b.CreateString(s.name), b.CreateString(s.description), s.value));
    auto statsVec = b.CreateVector(stats);
    auto name = b.CreateString(r.name);
    auto msg = b.CreateString(r.message);
    flatbuffers::Offset<fb::SemanticCheck> sem;
    if (r.semantic.checked)
      sem = fb::CreateSemanticCheck(b, r.semantic.equivalent, r.semantic.maxAbsError, r.semantic.maxRelError,
                                    r.semantic.maxSteps, r.semantic.failingOutput, r.semantic.failingElement,
                                    r.semantic.execNs);
    fb::PassRecordBuilder rb(b);
    rb.add_index(r.index);
    rb.add_name(name);
    rb.add_status(uint8_t(r.status));
    rb.add_reason(uint8_t(r.reason));
    rb.add_message(msg);
    rb.add_start_ns(r.startNs);
    rb.add_scan_ns(r.scanNs);
    rb.add_run_ns(r.runNs);
    rb.add_verify_ns(r.verifyNs);
    rb.add_nodes_before(r.nodesBefore);
    rb.add_nodes_after(r.nodesAfter);
    rb.add_hot(r.hot);
    rb.add_fast_copied(r.fastCopied);
    rb.add_reinferred(r.reinferred);
    rb.add_cache_hits(r.cacheHits);
    rb.add_cache_misses(r.cacheMisses);
    rb.add_stats(statsVec);
    rb.add_snapshot(r.snapshot);
    if (r.semantic.checked) rb.add_semantic(sem);
    recs.push_back(rb.Finish());
  }
  return b.CreateVector(recs);
}

flatbuffers::Offset<fb::Localization> writeLocalization(flatbuffers::FlatBufferBuilder& b, const trace::Localization& l) {
  std::vector<flatbuffers::Offset<fb::NodeError>> nodes;
  nodes.reserve(l.nodes.size());
  for (const trace::NodeError& e : l.nodes)
    nodes.push_back(fb::CreateNodeError(b, e.id, e.matched, uint8_t(e.match), e.maxAbsError, e.error, e.inputError,
                                        e.exceeds, e.source));
  std::vector<flatbuffers::Offset<fb::SkippedNode>> skipped;
  skipped.reserve(l.skipped.size());
  for (const trace::SkippedNode& k : l.skipped) skipped.push_back(fb::CreateSkippedNode(b, k.id, b.CreateString(k.reason)));
  return fb::CreateLocalization(b, l.passIndex, b.CreateString(l.pass), b.CreateString(l.metric), l.rtol, l.atol,
                                l.maxSteps, l.scaleRelative, b.CreateVector(nodes), b.CreateVector(skipped), l.culprit);
}

}  // namespace

Result<std::string> serializeTrace(const trace::Trace& t) {
  if (!t.source) return Status::error("cannot serialise trace: it has no source graph");
  const trace::Trace* prep = t.preparation.get();
  if (prep && !prep->source) return Status::error("cannot serialise trace: its preparation run has no source graph");
  size_t guess = t.source->size() * 160 * (1 + t.snapshots.size() + (prep ? 1 + prep->snapshots.size() : 0));
  flatbuffers::FlatBufferBuilder b(std::max<size_t>(4096, std::min<size_t>(guess, size_t(1) << 28)));
  BlobTableWriter blobs(b);
  auto source = writeGraph(b, *t.source, &blobs);
  if (!source) return Status::error("cannot serialise trace source graph: " + source.message());
  LS_ASSIGN_OR_RETURN(snaps, writeSnapshots(b, t, blobs, "trace"));
  auto recVec = writeRecords(b, t.records);
  flatbuffers::Offset<fb::PreparationRun> prepRun;
  if (prep) {
    auto psource = writeGraph(b, *prep->source, &blobs);
    if (!psource) return Status::error("cannot serialise the preparation run's source graph: " + psource.message());
    LS_ASSIGN_OR_RETURN(psnaps, writeSnapshots(b, *prep, blobs, "preparation run"));
    auto precs = writeRecords(b, prep->records);
    auto psnapVec = b.CreateVector(psnaps);
    auto ppipeline = b.CreateString(prep->pipeline);
    auto pmodel = b.CreateString(prep->model);
    fb::PreparationRunBuilder pb(b);
    pb.add_pipeline(ppipeline);
    pb.add_model(pmodel);
    pb.add_profile(uint8_t(prep->profile));
    pb.add_target(uint8_t(prep->target));
    pb.add_total_ns(prep->totalNs);
    pb.add_source(*psource);
    pb.add_records(precs);
    pb.add_snapshots(psnapVec);
    prepRun = pb.Finish();
  }
  flatbuffers::Offset<fb::Localization> loc;
  if (t.localization) loc = writeLocalization(b, *t.localization);
  auto snapVec = b.CreateVector(snaps);
  auto blobVec = blobs.finish();
  if (blobs.full()) return Status::error("cannot serialise trace: constant data exceeds the 1 GiB limit");
  auto producer = b.CreateString(kProducer);
  auto model = b.CreateString(t.model);
  auto pipeline = b.CreateString(t.pipeline);
  fb::LstraceFileBuilder fbld(b);
  fbld.add_version(kVersion);
  fbld.add_producer(producer);
  fbld.add_model(model);
  fbld.add_pipeline(pipeline);
  fbld.add_profile(uint8_t(t.profile));
  fbld.add_target(uint8_t(t.target));
  fbld.add_opt_skip(t.options.skip);
  fbld.add_opt_fast_copy(t.options.fastCopy);
  fbld.add_opt_cache(t.options.cache);
  fbld.add_total_ns(t.totalNs);
  fbld.add_source(*source);
  fbld.add_records(recVec);
  fbld.add_snapshots(snapVec);
  fbld.add_blobs(blobVec);
  if (prep) fbld.add_preparation(prepRun);
  if (t.localization) fbld.add_localization(loc);
  fb::FinishLstraceFileBuffer(b, fbld.Finish());
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

Status saveTrace(const trace::Trace& t, const std::string& path) {
  auto bytes = serializeTrace(t);
  if (!bytes) return Status::error(path + ": " + bytes.message());
  return writeFileAtomic(path, *bytes);
}

namespace {

constexpr int64_t kMaxTimeNs = kMaxTraceTimeNs;
constexpr int64_t kMaxRunNs = kMaxTraceRunNs;

/// Reads one run (source graph, snapshots sharing nodes with their predecessor, records) into `t`.
Status readRun(const fb::Graph* source, const flatbuffers::Vector<flatbuffers::Offset<fb::Graph>>* snapshots,
               const flatbuffers::Vector<flatbuffers::Offset<fb::PassRecord>>* records, const std::string& sourceName,
               const ReadGraphOptions& ro, trace::Trace& t) {
  auto src = readGraph(source, sourceName + " (source graph)", ro);
  if (!src) return src.status();
  t.source = std::make_shared<const ir::Graph>(std::move(*src));
  const ir::Graph* prev = t.source.get();
  if (snapshots) {
    for (flatbuffers::uoffset_t i = 0; i < snapshots->size(); ++i) {
      auto g = readGraph(snapshots->Get(i), fmt::format("{} (snapshot {})", sourceName, i), ro);
      if (!g) return g.status();
      auto shared = std::make_shared<const ir::Graph>(shareNodesWith(std::move(*g), *prev));
      t.snapshots.push_back(shared);
      prev = shared.get();
    }
  }
  int32_t nsnap = int32_t(t.snapshots.size());
  int64_t total = 0;
  if (t.totalNs < 0 || t.totalNs > kMaxRunNs)
    return Status::error(fmt::format("{}: total time {} ns is out of range (0..{})", sourceName, t.totalNs, kMaxRunNs));
  if (records) {
    for (flatbuffers::uoffset_t i = 0; i < records->size(); ++i) {
      const fb::PassRecord* fr = records->Get(i);
      trace::PassRecord r;
      r.index = fr->index();
      r.name = fr->name() ? fr->name()->str() : "";
      if (fr->status() >= uint8_t(passes::PassStatus::COUNT))
        return Status::error(fmt::format("{}: pass record {} ('{}'): invalid status {}", sourceName, i, r.name,
                                         fr->status()));
      if (fr->reason() >= uint8_t(passes::SkipReason::COUNT))
        return Status::error(fmt::format("{}: pass record {} ('{}'): invalid skip reason {}", sourceName, i, r.name,
                                         fr->reason()));
      if (fr->snapshot() < -1 || fr->snapshot() >= nsnap)
        return Status::error(fmt::format("{}: pass record {} ('{}'): snapshot index {} out of range (-1..{})",
                                         sourceName, i, r.name, fr->snapshot(), nsnap - 1));
      for (auto [what, ns] : {std::pair<const char*, int64_t>{"start", fr->start_ns()}, {"scan", fr->scan_ns()},
                              {"run", fr->run_ns()}, {"verify", fr->verify_ns()},
                              {"semantic check", fr->semantic() ? fr->semantic()->exec_ns() : 0}})
        if (ns < 0 || ns > kMaxTimeNs)
          return Status::error(fmt::format("{}: pass record {} ('{}'): {} time {} ns is out of range (0..{})", sourceName,
                                           i, r.name, what, ns, kMaxTimeNs));
      total += fr->scan_ns() + fr->run_ns() + fr->verify_ns();
      if (total > kMaxRunNs)
        return Status::error(fmt::format("{}: pass record {} ('{}'): the run's pass times add up beyond {} ns",
                                         sourceName, i, r.name, kMaxRunNs));
      r.status = passes::PassStatus(fr->status());
      r.reason = passes::SkipReason(fr->reason());
      r.message = fr->message() ? fr->message()->str() : "";
      r.startNs = fr->start_ns();
      r.scanNs = fr->scan_ns();
      r.runNs = fr->run_ns();
      r.verifyNs = fr->verify_ns();
      r.nodesBefore = fr->nodes_before();
      r.nodesAfter = fr->nodes_after();
      r.hot = fr->hot();
      r.fastCopied = fr->fast_copied();
      r.reinferred = fr->reinferred();
      r.cacheHits = fr->cache_hits();
      r.cacheMisses = fr->cache_misses();
      if (fr->stats())
        for (const fb::TraceStat* s : *fr->stats())
          r.stats.push_back({s->name() ? s->name()->str() : "", s->description() ? s->description()->str() : "",
                             s->value()});
      r.snapshot = fr->snapshot();
      if (const fb::SemanticCheck* sc = fr->semantic()) {
        r.semantic.checked = true;
        r.semantic.equivalent = sc->equivalent();
        r.semantic.maxAbsError = sc->max_abs_error();
        r.semantic.maxRelError = sc->max_rel_error();
        r.semantic.maxSteps = sc->max_steps();
        r.semantic.failingOutput = sc->failing_output();
        r.semantic.failingElement = sc->failing_element();
        r.semantic.execNs = sc->exec_ns();
      }
      t.records.push_back(std::move(r));
    }
  }
  return Status::ok();
}

/// Reads and checks a localisation against the run it belongs to: its pass is a record of
/// `t`, every node it names is a call node of the graph after that pass (matched nodes: of the
/// graph before it), no error is NaN or negative, and the culprit is a source among its nodes.
Result<trace::Localization> readLocalization(const fb::Localization& fl, const trace::Trace& t,
                                             const std::string& sourceName) {
  const std::string where = sourceName + " (localisation)";
  trace::Localization l;
  l.passIndex = fl.pass_index();
  if (l.passIndex < 0 || l.passIndex >= int32_t(t.records.size()))
    return Status::error(fmt::format("{}: pass index {} out of range (0..{})", where, l.passIndex,
                                     int64_t(t.records.size()) - 1));
  l.pass = fl.pass() ? fl.pass()->str() : "";
  l.metric = fl.metric() ? fl.metric()->str() : "";
  l.rtol = fl.rtol();
  l.atol = fl.atol();
  l.maxSteps = fl.max_steps();
  l.scaleRelative = fl.scale_relative();
  l.culprit = fl.culprit();
  const ir::Graph& before = t.graphBefore(l.passIndex);
  const ir::Graph& after = t.graphAfter(l.passIndex);
  auto callAfter = [&](ir::NodeId id) {
    const ir::Node* n = after.find(id);
    return n && n->isCall();
  };
  if (fl.nodes()) {
    for (flatbuffers::uoffset_t i = 0; i < fl.nodes()->size(); ++i) {
      const fb::NodeError* fe = fl.nodes()->Get(i);
      trace::NodeError e;
      e.id = fe->id();
      e.matched = fe->matched();
      if (!callAfter(e.id))
        return Status::error(fmt::format("{}: node error {}: node {} is not a call node of the graph after pass #{}",
                                         where, i, e.id, l.passIndex));
      if (!before.contains(e.matched))
        return Status::error(fmt::format("{}: node error {} ('{}'): matched node {} is not in the graph before pass #{}",
                                         where, i, after.node(e.id).name, e.matched, l.passIndex));
      if (fe->match() >= uint8_t(trace::NodeMatch::COUNT))
        return Status::error(fmt::format("{}: node error {} ('{}'): invalid match kind {}", where, i,
                                         after.node(e.id).name, fe->match()));
      e.match = trace::NodeMatch(fe->match());
      e.maxAbsError = fe->max_abs_error();
      e.error = fe->error();
      e.inputError = fe->input_error();
      for (double v : {e.maxAbsError, e.error, e.inputError})
        if (!(v >= 0.0))
          return Status::error(fmt::format("{}: node error {} ('{}'): error {} is NaN or negative", where, i,
                                           after.node(e.id).name, v));
      e.exceeds = fe->exceeds();
      e.source = fe->source();
      l.nodes.push_back(e);
    }
  }
  if (fl.skipped()) {
    for (flatbuffers::uoffset_t i = 0; i < fl.skipped()->size(); ++i) {
      const fb::SkippedNode* fk = fl.skipped()->Get(i);
      if (!callAfter(fk->id()))
        return Status::error(fmt::format("{}: skipped node {}: node {} is not a call node of the graph after pass #{}",
                                         where, i, fk->id(), l.passIndex));
      l.skipped.push_back({fk->id(), fk->reason() ? fk->reason()->str() : ""});
    }
  }
  if (l.culprit != ir::kInvalidNode) {
    const trace::NodeError* c = l.find(l.culprit);
    if (!c || !c->source)
      return Status::error(fmt::format("{}: culprit node {} is not a node whose error starts there", where, l.culprit));
  }
  return l;
}

}  // namespace

Result<trace::Trace> loadTraceBytes(std::string_view bytes, const std::string& sourceName) {
  auto fbytes = FlatbufferBytes::open(bytes, sourceName, kLstraceIdentifier, "an .lstrace trace", "an .lstrace file");
  if (!fbytes) return fbytes.status();
  const uint8_t* data = fbytes->data();
  flatbuffers::Verifier verifier(data, bytes.size(), fbytes->verifierOptions(kMaxVerifyDepth));
  if (!fb::VerifyLstraceFileBuffer(verifier))
    return Status::error(sourceName + ": corrupt .lstrace file (flatbuffers verification failed: truncated or damaged)");

  const fb::LstraceFile* file = fb::GetLstraceFile(data);
  uint32_t major = file->version() >> 16, minor = file->version() & 0xffff;
  if (major == 0 || major > kVersionMajor)
    return Status::error(fmt::format("{}: unsupported .lstrace format version {}.{} (this build reads {}.x)",
                                     sourceName, major, minor, kVersionMajor));
  if (!file->source()) return Status::error(sourceName + ": .lstrace file has no source graph");
  if (file->profile() >= uint8_t(passes::Profile::COUNT))
    return Status::error(fmt::format("{}: invalid profile {} (expected 0..{})", sourceName, file->profile(),
                                     int(passes::Profile::COUNT) - 1));
  if (file->target() >= uint8_t(passes::Target::COUNT))
    return Status::error(fmt::format("{}: invalid target {} (expected 0..{})", sourceName, file->target(),
                                     int(passes::Target::COUNT) - 1));

  trace::Trace t;
  t.model = file->model() ? file->model()->str() : "";
  t.pipeline = file->pipeline() ? file->pipeline()->str() : "";
  t.profile = passes::Profile(file->profile());
  t.target = passes::Target(file->target());
  t.options.skip = file->opt_skip();
  t.options.fastCopy = file->opt_fast_copy();
  t.options.cache = file->opt_cache();
  t.totalNs = file->total_ns();

  BlobTableReader blobs(file->blobs(), std::make_shared<ir::ConstantStore>());
  ReadGraphOptions ro;
  ro.blobs = &blobs;
  LS_RETURN_IF_ERROR(readRun(file->source(), file->snapshots(), file->records(), sourceName, ro, t));
  if (const fb::PreparationRun* pr = file->preparation()) {
    const std::string where = sourceName + " (preparation run)";
    if (!pr->source()) return Status::error(where + ": it has no source graph");
    if (pr->profile() >= uint8_t(passes::Profile::COUNT) || pr->target() >= uint8_t(passes::Target::COUNT))
      return Status::error(fmt::format("{}: invalid profile {} or target {}", where, pr->profile(), pr->target()));
    auto prep = std::make_shared<trace::Trace>();
    prep->pipeline = pr->pipeline() ? pr->pipeline()->str() : "";
    prep->model = pr->model() ? pr->model()->str() : "";
    prep->profile = passes::Profile(pr->profile());
    prep->target = passes::Target(pr->target());
    prep->totalNs = pr->total_ns();
    LS_RETURN_IF_ERROR(readRun(pr->source(), pr->snapshots(), pr->records(), where, ro, *prep));
    t.preparation = std::move(prep);
  }
  if (const fb::Localization* fl = file->localization()) {
    auto l = readLocalization(*fl, t, sourceName);
    if (!l) return l.status();
    t.localization = std::make_shared<const trace::Localization>(std::move(l).value());
  }
  return t;
}

Result<trace::Trace> loadTrace(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  if (looksLikeBundle(*bytes)) return loadBundleBytes(*bytes, path);
  return loadTraceBytes(*bytes, path);
}

}  // namespace ls::io
