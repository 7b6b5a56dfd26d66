// --script files: UI actions for tests and demos, one command per line ('#' comments).
// Parsing and validation only; app/lowerscope/script_runner.h executes them. No ImGui: tested in
// tests/viewers/script_test.cpp.
//
// Commands:
//   open FILE                    load a graph (runs the current pipeline) or a .lstrace
//   pipeline NAME | profile fp|int | target generic|u55|u85
//   run [RUN-OPTIONS]            run again (options below change the current config)
//   wait                         wait until the run, comparison and layout are finished
//   select pass PASS             select a pass (PASS below)
//   next pass | prev pass | next changed | prev changed | first pass | last pass
//   select node NAME             select a node of the shown graph by name
//   pin pass PASS | unpin        diff against a pinned pass instead of the previous one
//   view pipeline|graph|inspector|timing|delegation|ir-diff|panes
//   pane add PASS | pane clear   side-by-side panes (at most 4; shared camera and selection)
//   pane add-b PASS              a pane with a pass of run B (compare / compare-trace): two runs
//                                side by side, nodes matched through their shared source graph
//   PASS: an index (-1: the source graph), first|last (the list's Home/End: the source row, the
//   last pass shown), or a name (the first pass of that name). Under --profile int a name may
//   be one of the quantizer's passes ("Prepared by quantize-pt2e"): select pass and pane add
//   then show that run first, as `stage quantizer` does (and a pipeline pass named while the
//   quantizer's run is shown goes back). A name both runs have means the shown run's pass;
//   RUN:NAME picks the run (quantize-pt2e:FuseBatchNorm2dPass, tosa:last).
//   filter hide-skipped on|off | filter hide-unchanged on|off | filter search TEXT
//   search TEXT | search next | search prev      node search in the graph view
//   next change | prev change    select and centre the next/previous node of the diff
//   compare [RUN-OPTIONS] [--repeat N]  run B with the current config changed by the options,
//                                then A and B timed in N interleaved repeats each (default 5,
//                                as `lowerscope-cli bench`); the timing view shows A vs B
//   compare-trace PATH           load a saved run (.lstrace) as B
//   fit | zoom FACTOR            graph view camera
//   follow lineage N             jump to entry N (0-based) of the inspector's lineage of the
//                                selected node (its pass and node), as a click on it does
//   expand MODULE | collapse MODULE   open a folded module one level / fold a module again
//                                (graph-option folds on; e.g. expand encoder.layers.encoder_layer_3)
//   enter NAME | leave           open a nested graph of the shown graph in place / go back
//   stage quantizer|pipeline     show the run that prepared the pipeline's source (the
//                                quantizer's passes, INT profile) / the pipeline run again
//   export comparison csv|json|md|chrome PATH | export chart PATH.svg|PATH.png
//                                (the chart: the run's bars, or the A/B chart with a comparison)
//   timing-option aggregate on|off | baseline A|B | zoom FACTOR   bars by pass name / A/B
//                                baseline / zoom the timeline around its centre (> 1: in)
//   export run lstrace|csv|md|chrome|dot PATH   the current run (dot: the selected snapshot)
//   frames N                     render N frames before the next command
//   key NAME [shift]             press and release a key (up, down, home, end, escape, f1,
//                                f5, or a letter a-z), as the keyboard would
//   expect pass-status changed|unchanged|skipped|failed   the selected pass's status
//   expect diff empty|nonempty   the graph view's diff at the selected pass
//   expect node NAME             the selected node
//   expect min|max WHAT N        a view counter; WHAT: drawn-nodes, drawn-labels, drawn-edges,
//                                drawn-badges, drawn-stubs, drawn-errors (boxes tinted above
//                                tolerance by the error overlay), drawn-ghosts (removed nodes),
//                                drawn-links (removed -> replacement), drawn-tinted (partition
//                                colours), columns, compare-rows, visible-passes,
//                                delegates, delegated-nodes, undelegated-ops (of the shown graph),
//                                ir-diff-added, ir-diff-removed (text IR diff lines of the pass)
//                                timing-bars, timeline-passes, timeline-ticks, timeline-visible
//                                (passes and ticks in the zoomed window), ab-rows, ab-repeats,
//                                ab-noise, op-diffs, pane-count, synced-panes, drawn-folds (folded
//                                modules drawn), folds (folded modules in the drawn graph), changed-fields,
//                                lineage-entries (inspector: the selected node)
//   expect ab-verdict PASS|total A|B|noise|saved-A|saved-B|only-A|only-B   the A/B verdict of a
//                                pass (first of that name) or of the total
//   expect min|max WHAT Kx OTHER the same against K times another counter
//                                (e.g. expect max drawn-edges 2x drawn-nodes)
//   graph-option badges|wrap|partitions|folds on|off   constants as badges on their users / wrap
//                                at Fit / partition colours / modules folded into boxes
//   expect error                 an error dialog is showing (e.g. a corrupt file)
//   expect help                  the Help/Keys overlay is showing
//   expect graph NAME            the graph view shows nested graph NAME (main: the top graph)
//   expect pipeline NAME         the shown run's pipeline (e.g. quantize-pt2e, tosa)
//   expect synced NODE           NODE is selected and every side-by-side pane outlines it or
//                                a counterpart (the nodes that replaced it / it came from)
//   expect summary TEXT          the selected pass's summary (title, reason, target ops, change
//                                groups, statistics; one line each) has a line containing TEXT
//   expect lineage TEXT          an entry of the selected node's lineage (inspector) contains TEXT
//   expect changed TEXT          a field the selected pass changed in the selected node, as the
//                                inspector shows it ("NAME: BEFORE -> AFTER"), contains TEXT
//   expect culprit NAME          the shown pass is the localised one (verify --localize) and
//                                its culprit is node NAME ("none": localised, nothing exceeds)
// RUN-OPTIONS: --no-skip --no-fast-copy --no-cache --skip --fast-copy --no-quantize --quantize --pipeline NAME
//              --profile fp|int --target generic|u55|u85 --disable PASS
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/status.h"
#include "viewers/model/run_job.h"

namespace ls::viewmodel {

enum class ScriptOp : uint8_t {
  Open, Pipeline, Profile, Target, Run, Wait,
  SelectPass, NextPass, PrevPass, NextChanged, PrevChanged, FirstPass, LastPass,
  SelectNode, Pin, Unpin, View, Filter, Search, SearchNext, SearchPrev,
  Compare, Fit, Zoom, ExportComparison, ExportChart, Frames, NextChange, PrevChange, Expect, Key, ExportRun, Enter, Leave, CompareTrace, Stage,
  GraphOption, TimingOption, PaneAdd, PaneClear, Expand, Collapse, FollowLineage, PaneAddB,
  COUNT
};
std::string_view scriptOpName(ScriptOp op);

/// Changes a run config: each field set only when the option was given.
struct RunOverrides {
  std::optional<std::string> pipeline;
  std::optional<passes::Profile> profile;
  std::optional<passes::Target> target;
  std::optional<bool> skip, fastCopy, cache, quantize;
  std::optional<std::string> calibration;
  std::optional<quant::ActivationObserver> observer;
  std::vector<std::string> disable;
  RunConfig apply(RunConfig c) const;
};

struct ScriptCommand {
  ScriptOp op = ScriptOp::Wait;
  int line = 0;
  std::string text;        ///< the source line (for messages)
  std::string arg;         ///< name / path / view / filter key / format
  std::string arg2;        ///< filter value / export path
  std::string arg3;        ///< expect min|max: the other counter of a relative bound
  int number = 0;          ///< pass index when `arg` is numeric, frame count, compare repeats (0: unchanged)
  bool numeric = false;    ///< `arg` was an integer
  bool shift = false;      ///< key: with Shift held
  double factor = 1.0;     ///< zoom
  RunOverrides overrides;  ///< run / compare
};

/// Parses a whole script. Errors name the source, line and what was expected.
Result<std::vector<ScriptCommand>> parseScript(std::string_view text, std::string_view sourceName);

}  // namespace ls::viewmodel
