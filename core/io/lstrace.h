// The native trace file (.lstrace): a trace::Trace (source graph, per-pass records, snapshots)
// as a verified, versioned flatbuffer (schema core/io/schema/lstrace.fbs). Snapshots share
// node versions: every distinct node version is stored once in a node pool and each graph
// lists indices into it, so a 150-pass trace costs little more than its graphs' distinct nodes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/trace/trace.h"
#include "core/util/status.h"

namespace ls::io {

/// The 4-character flatbuffers file identifier of .lstrace files.
inline constexpr char kLstraceIdentifier[] = "LST1";

/// Times in a loaded trace are durations of real runs: at most ~13 days per pass, and the sum over
/// a run's records stays far from int64 overflow (Trace::totals, timing views and exports add
/// them). Every trace loader (.lstrace, bundles) rejects times outside these bounds.
inline constexpr int64_t kMaxTraceTimeNs = int64_t(1) << 50;
inline constexpr int64_t kMaxTraceRunNs = int64_t(1) << 61;

/// Serialises a trace (structural sharing of node versions preserved on load).
Result<std::string> serializeTrace(const trace::Trace& t);
/// Serialises and writes atomically (temp file + rename).
Status saveTrace(const trace::Trace& t, const std::string& path);
/// Loads .lstrace bytes: identifier, flatbuffers Verifier, version and every index checked
/// before use; errors start with `sourceName`. Never crashes, whatever the bytes.
Result<trace::Trace> loadTraceBytes(std::string_view bytes, const std::string& sourceName);
/// Loads a trace file: .lstrace, or a recorder bundle (io/bundle.h, sniffed by looksLikeBundle), so
/// every command and the app that takes a trace also opens a bundle.
Result<trace::Trace> loadTrace(const std::string& path);
bool looksLikeTrace(std::string_view bytes);

}  // namespace ls::io
