// Op matching by OpId: `n.op == LS_OP("aten.relu.default")` interns the name once per use site
// (a function-local static), so a match is one integer comparison, never a string comparison.
// tests/tools/check_no_string_op_compare.sh fails when core/ compares an op name as a string.
#pragma once

#include "core/ir/symbol.h"

/// The OpId of the op name `name` (a string literal or constant), interned on first use.
#define LS_OP(name)                                                 \
  ([]() -> ::ls::ir::OpId {                                         \
    static const ::ls::ir::OpId ls_op_id_ = ::ls::ir::internOp(name); \
    return ls_op_id_;                                               \
  }())
