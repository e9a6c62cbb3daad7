// What a feature's shape constraint (fixed, enumerated or range, as MLMultiArrayConstraint
// reports it) allows, per axis and for a whole shape. Load-time validation uses the axis
// view; the simulated model uses the whole-shape check to fail like Core ML does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace statefulchat {

// The lengths one axis accepts: a range, or a sorted list (enumerated or fixed).
struct QueryLengths {
  bool isRange = true;
  int64_t min = 1;
  int64_t max = 1;               // inclusive (range)
  std::vector<int64_t> allowed;  // ascending (enumerated or fixed)
  bool Allows(int64_t q) const;
  bool Empty() const { return isRange ? max < min : allowed.empty(); }
  int64_t Smallest() const { return isRange ? min : (allowed.empty() ? 0 : allowed.front()); }
  std::string Describe() const;  // "1..2048" or "{1, 64}"
};

// The lengths axis `axis` of `feature` accepts. Throws kModelInvalid when the rank is short.
QueryLengths AxisLengths(const FeatureDescription& feature, size_t axis);

// Lengths accepted by both.
QueryLengths Intersect(const QueryLengths& a, const QueryLengths& b);

// Whether `shape` satisfies the feature's constraint, as a prediction would need.
bool AcceptsShape(const FeatureDescription& feature, const std::vector<int64_t>& shape);

}  // namespace statefulchat
