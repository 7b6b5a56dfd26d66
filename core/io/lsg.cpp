// .lsg save/load: identifier + Verifier + version check around the Graph table codec.
#include "core/io/flatbuffer_file.h"
#include "core/io/lsg.h"

#include <fmt/format.h>
#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/io/lsg_graph.h"
#include "core/io/schema/lsg_generated.h"
#include "core/util/atomic_file.h"

namespace ls::io {

static_assert(sizeof(kLsgIdentifier) == flatbuffers::kFileIdentifierLength + 1);

namespace {

constexpr char kProducer[] = "lowerscope";
// Nesting limit handed to the Verifier (tables + vectors): the root and a graph's nodes, args
// and lists take 7 levels, each nested subgraph 3 more (kMaxSubgraphNesting = 16 -> 55).
constexpr flatbuffers::uoffset_t kMaxVerifyDepth = 64;
static_assert(7 + 3 * kMaxSubgraphNesting <= kMaxVerifyDepth);


}  // namespace

bool looksLikeLsg(std::string_view bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, kLsgIdentifier, 4) == 0;
}

Status serializeLsgTo(const ir::Graph& g, const std::function<Status(std::string_view)>& use) {
  flatbuffers::FlatBufferBuilder b(serializedSizeHint(g));
  auto graph = writeGraph(b, g);
  if (!graph) return Status::error("cannot serialise graph to .lsg: " + graph.message());
  auto producer = b.CreateString(kProducer);
  auto root = fb::CreateLsgFile(b, kLsgVersion, *graph, producer);
  fb::FinishLsgFileBuffer(b, root);
  return use(std::string_view(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize()));
}

Result<std::string> serializeLsg(const ir::Graph& g) {
  std::string out;
  LS_RETURN_IF_ERROR(serializeLsgTo(g, [&](std::string_view bytes) {
    out.assign(bytes);
    return Status::ok();
  }));
  return out;
}

Status saveLsg(const ir::Graph& g, const std::string& path) {
  bool writing = false;  // writeFileAtomic's errors name the path already
  Status st = serializeLsgTo(g, [&](std::string_view bytes) {
    writing = true;
    return writeFileAtomic(path, bytes);
  });
  if (!st.isOk() && !writing) return Status::error(path + ": " + st.message());
  return st;
}

Result<ir::Graph> loadLsgBytes(std::string_view bytes, const std::string& sourceName,
                               std::shared_ptr<const void> bytesOwner) {
  auto fbytes = FlatbufferBytes::open(bytes, sourceName, kLsgIdentifier, "an .lsg graph", "an .lsg file");
  if (!fbytes) return fbytes.status();
  const uint8_t* data = fbytes->data();
  flatbuffers::Verifier verifier(data, bytes.size(), fbytes->verifierOptions(kMaxVerifyDepth));
  if (!fb::VerifyLsgFileBuffer(verifier))
    return Status::error(sourceName + ": corrupt .lsg file (flatbuffers verification failed: truncated or damaged)");

  const fb::LsgFile* file = fb::GetLsgFile(data);
  uint32_t version = file->version();
  uint32_t major = version >> 16, minor = version & 0xffff;
  if (major == 0)
    return Status::error(fmt::format("{}: invalid .lsg format version {}.{} (expected {}.x)", sourceName, major, minor,
                                     kLsgVersionMajor));
  if (major > kLsgVersionMajor)
    return Status::error(fmt::format("{}: file version {} is newer than supported {} (format {}.{}; this build reads "
                                     "{}.x): update lowerscope",
                                     sourceName, major, kLsgVersionMajor, major, minor, kLsgVersionMajor));
  if (!file->graph()) return Status::error(sourceName + ": .lsg file has no graph");
  ReadGraphOptions ro;
  // Constants view the buffer in place only when the table was read where it lies (not from
  // the aligned copy FlatbufferBytes makes of a misaligned buffer, which dies here).
  if (data == reinterpret_cast<const uint8_t*>(bytes.data())) ro.bytesOwner = std::move(bytesOwner);
  return readGraph(file->graph(), sourceName, ro);
}

Result<ir::Graph> loadLsg(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  auto held = std::make_shared<const std::string>(std::move(bytes).value());
  return loadLsgBytes(*held, path, held);
}

}  // namespace ls::io
