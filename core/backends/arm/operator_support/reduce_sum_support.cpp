// Upstream's reduce_sum_support.py (SumSupported): on the Ethos-U55, Vela's limits on a
// REDUCE_SUM (each reduced dim, and the products of the dims before and after it, within
// [1, 65536]); other targets take every sum. See operator_support.h.
#include <fmt/format.h>

#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/operator_support/operator_support.h"
#include "core/ir/op_ref.h"

namespace ls::arm::support {

namespace {

class SumSupported : public Check {
 public:
  explicit SumSupported(const Spec& spec) : spec_(spec) {}
  std::string_view name() const override { return "SumSupported"; }
  std::optional<std::string> refuse(const ir::Graph& g, const ir::Node& n) const override {
    if (!isOp(n, LS_OP("aten.sum.dim_IntList")) || !spec_.u55()) return std::nullopt;
    const ir::Node* in = producer(g, n, 0);
    if (!in) return std::nullopt;
    const ir::Shape& s = in->meta().shape;
    const int rank = s.rank();
    if (rank == 0) return std::nullopt;
    std::vector<int64_t> dims;
    if (sarg(n, 1).isNone()) {
      for (int i = 0; i < rank; ++i) dims.push_back(i);
    } else {
      for (int64_t d : sints(n, 1).value_or(std::vector<int64_t>{})) dims.push_back(((d % rank) + rank) % rank);
    }
    for (int64_t d : dims) {
      if (s[int(d)] < 1 || s[int(d)] > 65536)
        return fmt::format("sum needs dims < 65536, got shape torch.Size({})", shapeList(s));
      // Which dim is innermost in memory is not known yet: the stricter condition.
      double pre = 1, post = 1;
      for (int i = 0; i < int(d); ++i) pre *= double(s[i]);
      for (int i = int(d) + 1; i < rank; ++i) post *= double(s[i]);
      if (pre < 1 || pre > 65536 || post < 1 || post > 65536) return "Failed dim check";
    }
    return std::nullopt;
  }

 private:
  Spec spec_;
};

}  // namespace

CheckPtr sumSupported(const Spec& spec) { return std::make_unique<SumSupported>(spec); }

}  // namespace ls::arm::support
