#include "coreml_description.h"

#include <cstdint>

namespace statefulchat {

namespace {
std::vector<int64_t> ToShape(NSArray<NSNumber*>* numbers) {
  std::vector<int64_t> shape;
  for (NSNumber* number in numbers) shape.push_back(number.longLongValue);
  return shape;
}

FeatureDescription DescribeArray(MLFeatureDescription* feature, FeatureKind kind) {
  FeatureDescription result;
  result.name = feature.name.UTF8String;
  result.kind = kind;
  MLMultiArrayConstraint* constraint = feature.multiArrayConstraint;
  result.isMultiArray = feature.type == MLFeatureTypeMultiArray && constraint != nil;
  if (!result.isMultiArray) return result;
  result.dtype = DTypeFromCoreML(constraint.dataType);
  result.shape = ToShape(constraint.shape);
  MLMultiArrayShapeConstraint* shapes = constraint.shapeConstraint;
  if (shapes.type == MLMultiArrayShapeConstraintTypeRange) {
    for (NSValue* value in shapes.sizeRangeForDimension) {
      const NSRange range = value.rangeValue;
      // NSRange is (location = lower bound, length); read the upper bound conservatively.
      const int64_t lower = static_cast<int64_t>(range.location);
      const int64_t upper = range.length >= static_cast<NSUInteger>(INT32_MAX)
                                ? INT32_MAX
                                : lower + static_cast<int64_t>(range.length) - (range.length > 0 ? 1 : 0);
      result.ranges.push_back(DimensionRange{lower, upper});
    }
  } else if (shapes.type == MLMultiArrayShapeConstraintTypeEnumerated) {
    for (NSArray<NSNumber*>* shape in shapes.enumeratedShapes) result.enumeratedShapes.push_back(ToShape(shape));
  }
  return result;
}
}  // namespace

DType DTypeFromCoreML(MLMultiArrayDataType dataType) {
  switch (dataType) {
    case MLMultiArrayDataTypeFloat16: return DType::kFloat16;
    case MLMultiArrayDataTypeFloat32: return DType::kFloat32;
    case MLMultiArrayDataTypeDouble: return DType::kFloat64;
    case MLMultiArrayDataTypeInt32: return DType::kInt32;
    default: return DType::kOther;
  }
}

std::vector<FeatureDescription> DescribeFeatures(MLModelDescription* description) {
  std::vector<FeatureDescription> features;
  for (NSString* name in description.inputDescriptionsByName) {
    features.push_back(DescribeArray(description.inputDescriptionsByName[name], FeatureKind::kInput));
  }
  for (NSString* name in description.outputDescriptionsByName) {
    features.push_back(DescribeArray(description.outputDescriptionsByName[name], FeatureKind::kOutput));
  }
  if (@available(macOS 15.0, *)) {
    for (NSString* name in description.stateDescriptionsByName) {
      MLFeatureDescription* feature = description.stateDescriptionsByName[name];
      FeatureDescription state;
      state.name = name.UTF8String;
      state.kind = FeatureKind::kState;
      MLStateConstraint* constraint = feature.stateConstraint;
      if (constraint != nil) {
        state.dtype = DTypeFromCoreML(constraint.dataType);
        state.shape = ToShape(constraint.bufferShape);
      }
      features.push_back(state);
    }
  }
  return features;
}

}  // namespace statefulchat
