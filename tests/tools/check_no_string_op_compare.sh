#!/bin/sh
# Fails (exit 1, listing file:line) when a C++ file under core/ compares an op name as a string
# (`op == "aten.relu.default"`, `opName(n.op) != "tosa.CAST"`, `"aten.x" == name`,
# `opName(n.op) == kName`): ops are matched by OpId (n.op == LS_OP("aten.relu.default"),
# core/ir/op_ref.h).
# Usage: check_no_string_op_compare.sh [source root]   (default: the repository root)
root=${1:-$(dirname "$0")/../..}
ns='(aten|tosa|quantized_decomposed|quantized|xnnpack|prims|higher_order|lowerscope)'
hits=$(grep -rnE --include='*.cpp' --include='*.h' --include='*.hpp' --include='*.inc' \
  -e "(==|!=)[[:space:]]*\"$ns\.[A-Za-z_]" -e "\"$ns\.[A-Za-z_][^\"]*\"[[:space:]]*(==|!=)" \
  -e "opName\([^()]*(\([^()]*\))?[^()]*\)[[:space:]]*(==|!=)" -e "(==|!=)[[:space:]]*(ir::)?opName\(" "$root/core")
if [ -n "$hits" ]; then
  echo "string comparisons of op names in core/ (compare OpIds: n.op == LS_OP(\"...\"), core/ir/op_ref.h):"
  echo "$hits" | sed "s|^$root/||"
  exit 1
fi
echo "no string op comparisons in core/"
