// Exports of traces and comparisons: Chrome trace-event JSON (Perfetto), CSV, Markdown and
// Graphviz DOT with diff colours. Pure functions returning the file contents.
#pragma once

#include <string>

#include "core/trace/compare.h"
#include "core/trace/trace.h"

namespace ls::io {

/// Chrome trace-event JSON: the pipeline as one complete ("X") slice, each pass that ran a
/// nested slice with its scan/run/verify phases nested below it, skipped passes as instant
/// ("i") events with the reason in args. Timestamps in microseconds.
std::string traceToChromeJson(const trace::Trace& t);
/// One row per pass: index,name,status,reason,start_ms,scan_ms,run_ms,verify_ms,total_ms,
/// nodes_before,nodes_after,hot,fast_copied,reinferred,cache_hits,cache_misses,message.
std::string traceToCsv(const trace::Trace& t);
std::string traceToMarkdown(const trace::Trace& t);
/// DOT of the graph after pass `passIndex` (-1 = source), nodes coloured against the graph
/// before that pass: added green, changed amber, removed as red dashed ghosts.
std::string snapshotToDot(const trace::Trace& t, int passIndex);

std::string comparisonToCsv(const trace::TraceComparison& c);
std::string comparisonToJson(const trace::TraceComparison& c);
std::string comparisonToMarkdown(const trace::TraceComparison& c);
/// Both runs in one Chrome trace: A as process 1, B as process 2.
std::string comparisonToChromeJson(const trace::Trace& a, const trace::Trace& b, const trace::TraceComparison& c);

}  // namespace ls::io
