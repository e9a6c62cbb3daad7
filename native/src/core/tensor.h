// Plain descriptions of Core ML features, filled from MLModelDescription on macOS and by
// hand in tests. Keeping them framework-free lets every decision about names, shapes and
// dtypes be unit-tested on Linux.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace statefulchat {

enum class DType { kFloat16, kFloat32, kFloat64, kInt32, kOther };

const char* DTypeName(DType dtype);
size_t DTypeSize(DType dtype);

// How a flexible input dimension may vary (MLMultiArrayShapeConstraint).
struct DimensionRange {
  int64_t min = 0;
  int64_t max = 0;  // inclusive
};

enum class FeatureKind { kInput, kOutput, kState };

struct FeatureDescription {
  std::string name;
  FeatureKind kind = FeatureKind::kInput;
  DType dtype = DType::kOther;
  bool isMultiArray = true;
  // Default shape (inputs/outputs) or buffer shape (states).
  std::vector<int64_t> shape;
  // When non-empty: one range per dimension (range-constrained shape).
  std::vector<DimensionRange> ranges;
  // When non-empty: the allowed shapes (enumerated shape constraint).
  std::vector<std::vector<int64_t>> enumeratedShapes;
};

// A read-only strided view of an N-d array owned by someone else (an MLMultiArray's bytes).
struct StridedView {
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements, as MLMultiArray.strides reports them
};

}  // namespace statefulchat
