#include "shape_constraint.h"

#include <algorithm>

#include "native_error.h"

namespace statefulchat {

bool QueryLengths::Allows(int64_t q) const {
  if (isRange) return q >= min && q <= max;
  return std::binary_search(allowed.begin(), allowed.end(), q);
}

std::string QueryLengths::Describe() const {
  if (isRange) return std::to_string(min) + ".." + std::to_string(max);
  std::string text = "{";
  for (size_t i = 0; i < allowed.size(); ++i) text += (i ? ", " : "") + std::to_string(allowed[i]);
  return text + "}";
}

QueryLengths AxisLengths(const FeatureDescription& feature, size_t axis) {
  if (feature.shape.size() <= axis) {
    throw NativeError(ErrorCode::kModelInvalid, "input '" + feature.name + "' has rank " +
                                                    std::to_string(feature.shape.size()) + ", expected more than " +
                                                    std::to_string(axis));
  }
  QueryLengths lengths;
  if (!feature.enumeratedShapes.empty()) {
    lengths.isRange = false;
    for (const auto& shape : feature.enumeratedShapes) {
      if (shape.size() > axis) lengths.allowed.push_back(shape[axis]);
    }
  } else if (feature.ranges.size() > axis && feature.ranges[axis].min != feature.ranges[axis].max) {
    lengths.min = feature.ranges[axis].min;
    lengths.max = feature.ranges[axis].max;
    return lengths;
  } else if (feature.ranges.size() > axis) {
    lengths.isRange = false;  // a range of one size: a fixed axis of a flexible shape
    lengths.allowed.push_back(feature.ranges[axis].min);
  } else {
    lengths.isRange = false;
    lengths.allowed.push_back(feature.shape[axis]);
  }
  std::sort(lengths.allowed.begin(), lengths.allowed.end());
  lengths.allowed.erase(std::unique(lengths.allowed.begin(), lengths.allowed.end()), lengths.allowed.end());
  return lengths;
}

QueryLengths Intersect(const QueryLengths& a, const QueryLengths& b) {
  QueryLengths result;
  if (a.isRange && b.isRange) {
    result.min = std::max(a.min, b.min);
    result.max = std::min(a.max, b.max);
    return result;
  }
  result.isRange = false;
  const QueryLengths& list = a.isRange ? b : a;
  const QueryLengths& other = a.isRange ? a : b;
  for (int64_t q : list.allowed) {
    if (other.Allows(q)) result.allowed.push_back(q);
  }
  return result;
}

bool AcceptsShape(const FeatureDescription& feature, const std::vector<int64_t>& shape) {
  if (shape.size() != feature.shape.size()) return false;
  if (!feature.enumeratedShapes.empty()) {
    return std::find(feature.enumeratedShapes.begin(), feature.enumeratedShapes.end(), shape) !=
           feature.enumeratedShapes.end();
  }
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    const bool ok = feature.ranges.size() == shape.size()
                        ? shape[axis] >= feature.ranges[axis].min && shape[axis] <= feature.ranges[axis].max
                        : shape[axis] == feature.shape[axis];
    if (!ok) return false;
  }
  return true;
}

}  // namespace statefulchat
