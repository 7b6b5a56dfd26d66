// Constants for tests: shape-only ones whose values the executor synthesises from the name.
#pragma once

#include <string>

#include "core/ir/graph.h"

namespace ls::test {

/// A constant without data named `name` (role from `fqn`), its content hash set.
inline ir::Constant shapeOnlyConstant(const std::string& name, const std::string& fqn, ir::Shape s,
                                      ir::DType t = ir::DType::Float32) {
  ir::Constant c;
  c.name = name;
  c.fqn = fqn;
  c.shape = s;
  c.dtype = t;
  c.contentHash = ir::constantContentHash(c);
  return c;
}

}  // namespace ls::test
