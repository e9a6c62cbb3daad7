#include <gtest/gtest.h>

#include "../src/core/io_names.h"
#include "../src/core/native_error.h"

using namespace statefulchat;

namespace {
FeatureDescription Feature(const std::string& name, FeatureKind kind, DType dtype, std::vector<int64_t> shape) {
  FeatureDescription feature;
  feature.name = name;
  feature.kind = kind;
  feature.dtype = dtype;
  feature.shape = std::move(shape);
  return feature;
}

std::vector<FeatureDescription> SwiftTransformersStyle() {
  auto ids = Feature("inputIds", FeatureKind::kInput, DType::kInt32, {1, 1});
  ids.ranges = {{1, 1}, {1, 2048}};
  auto mask = Feature("causalMask", FeatureKind::kInput, DType::kFloat16, {1, 1, 1, 1});
  mask.ranges = {{1, 1}, {1, 1}, {1, 2048}, {1, 2048}};
  return {ids, mask,
          Feature("keyCache", FeatureKind::kState, DType::kFloat16, {28, 1, 4, 2048, 128}),
          Feature("valueCache", FeatureKind::kState, DType::kFloat16, {28, 1, 4, 2048, 128}),
          Feature("logits", FeatureKind::kOutput, DType::kFloat16, {1, 1, 151936})};
}
}  // namespace

TEST(IoNames, ResolvesCamelCaseModel) {
  const ModelIO io = ResolveModelIO(SwiftTransformersStyle());
  EXPECT_EQ(io.inputIds, "inputIds");
  EXPECT_EQ(io.causalMask, "causalMask");
  EXPECT_EQ(io.causalMaskType, DType::kFloat16);
  EXPECT_EQ(io.keyCache, "keyCache");
  EXPECT_EQ(io.valueCache, "valueCache");
  EXPECT_EQ(io.logits, "logits");
  EXPECT_EQ(io.capacity, 2048);
  EXPECT_TRUE(io.queryLengths.isRange);
  EXPECT_EQ(io.queryLengths.min, 1);
  EXPECT_EQ(io.queryLengths.max, 2048);
}

TEST(IoNames, ResolvesSnakeCaseFixedShapeModel) {
  const ModelIO io = ResolveModelIO({
      Feature("input_ids", FeatureKind::kInput, DType::kInt32, {1, 64}),
      Feature("causal_mask", FeatureKind::kInput, DType::kFloat32, {1, 1, 64, 512}),
      Feature("position", FeatureKind::kInput, DType::kInt32, {1}),
      Feature("key_cache", FeatureKind::kState, DType::kFloat16, {30, 1, 3, 512, 64}),
      Feature("value_cache", FeatureKind::kState, DType::kFloat16, {30, 1, 3, 512, 64}),
      Feature("logits", FeatureKind::kOutput, DType::kFloat32, {1, 64, 49152}),
  });
  EXPECT_EQ(io.inputIds, "input_ids");
  EXPECT_EQ(io.causalMaskType, DType::kFloat32);
  EXPECT_EQ(io.capacity, 512);
  EXPECT_FALSE(io.queryLengths.isRange);
  EXPECT_EQ(io.queryLengths.allowed, (std::vector<int64_t>{64}));
  EXPECT_EQ(io.position, "position");
  EXPECT_EQ(io.maskWidth, 512);
  EXPECT_EQ(io.MaskWidthFor(100, 64), 512);
}

TEST(IoNames, EnumeratedShapesBecomeAllowedLengths) {
  auto features = SwiftTransformersStyle();
  features[0].ranges.clear();
  features[0].enumeratedShapes = {{1, 64}, {1, 1}, {1, 64}};
  const ModelIO io = ResolveModelIO(features);
  EXPECT_EQ(io.queryLengths.allowed, (std::vector<int64_t>{1, 64}));
  EXPECT_TRUE(io.queryLengths.Allows(64));
  EXPECT_FALSE(io.queryLengths.Allows(2));
}

TEST(IoNames, MissingRolesAreNamedWithWhatExists) {
  auto features = SwiftTransformersStyle();
  features.erase(features.begin() + 2);  // no key cache: a stateless model
  try {
    ResolveModelIO(features);
    FAIL();
  } catch (const NativeError& error) {
    EXPECT_EQ(error.code(), ErrorCode::kModelInvalid);
    EXPECT_NE(std::string(error.what()).find("key cache"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("valueCache"), std::string::npos);
  }
}

TEST(IoNames, RejectsUnknownInputsAndWrongTypes) {
  auto extra = SwiftTransformersStyle();
  extra.push_back(Feature("position_ids", FeatureKind::kInput, DType::kInt32, {1, 1}));
  EXPECT_THROW(ResolveModelIO(extra), NativeError);
  auto floatIds = SwiftTransformersStyle();
  floatIds[0].dtype = DType::kFloat32;
  EXPECT_THROW(ResolveModelIO(floatIds), NativeError);
}

TEST(IoNames, CapacityIsTheSequenceAxis) {
  EXPECT_EQ(CacheSequenceLength({1, 8, 1024, 64}), 1024);
  EXPECT_THROW(CacheSequenceLength({1024, 64}), NativeError);
}

// Issue 9, item 3: the mask's own shape constraints decide too, at load.
namespace {
std::string RefusalOf(const std::vector<FeatureDescription>& features) {
  try {
    ResolveModelIO(features);
  } catch (const NativeError& error) {
    EXPECT_EQ(error.code(), ErrorCode::kModelInvalid);
    return error.what();
  }
  return "";
}
}  // namespace

TEST(IoNames, MaskFixedAtOneRowAllowsSingleTokenStepsOnly) {
  auto features = SwiftTransformersStyle();
  features[1].ranges[2] = {1, 1};  // [1, 1, 1, end]
  const ModelIO io = ResolveModelIO(features);
  EXPECT_FALSE(io.queryLengths.isRange);
  EXPECT_EQ(io.queryLengths.allowed, (std::vector<int64_t>{1}));
  EXPECT_EQ(io.maskWidth, 0);
}

TEST(IoNames, MaskRowsNarrowTheTokenInputsLengths) {
  auto features = SwiftTransformersStyle();
  features[1].ranges[2] = {1, 128};
  const ModelIO io = ResolveModelIO(features);
  EXPECT_TRUE(io.queryLengths.isRange);
  EXPECT_EQ(io.queryLengths.max, 128);
}

TEST(IoNames, NoCommonQueryLengthIsRefused) {
  auto features = SwiftTransformersStyle();
  features[0].ranges.clear();
  features[0].shape = {1, 64};  // ids fixed at 64
  features[1].ranges[2] = {1, 1};
  EXPECT_NE(RefusalOf(features).find("no query length"), std::string::npos);
}

TEST(IoNames, FixedMaskWidthWithoutAPositionInputIsRefused) {
  auto features = SwiftTransformersStyle();
  features[1].ranges[3] = {2048, 2048};
  EXPECT_NE(RefusalOf(features).find("cannot carry the write position"), std::string::npos);
  features.push_back(Feature("position", FeatureKind::kInput, DType::kInt32, {1}));
  EXPECT_EQ(ResolveModelIO(features).maskWidth, 2048);
}

TEST(IoNames, FixedMaskWidthMustSpanTheCache) {
  auto features = SwiftTransformersStyle();
  features[1].ranges[3] = {1024, 1024};
  features.push_back(Feature("position", FeatureKind::kInput, DType::kInt32, {1}));
  EXPECT_NE(RefusalOf(features).find("must span the cache"), std::string::npos);
}

TEST(IoNames, MaskEndThatCannotStartAtZeroIsRefused) {
  auto features = SwiftTransformersStyle();
  features[1].ranges[3] = {64, 2048};
  EXPECT_NE(RefusalOf(features).find("position 0"), std::string::npos);
}

TEST(IoNames, MaskRankAndPositionTypeAreChecked) {
  auto features = SwiftTransformersStyle();
  features[1].shape = {1, 1, 2048};
  features[1].ranges.pop_back();
  EXPECT_NE(RefusalOf(features).find("[1, 1, q, end]"), std::string::npos);
  auto floatPosition = SwiftTransformersStyle();
  floatPosition.push_back(Feature("position", FeatureKind::kInput, DType::kFloat32, {1}));
  EXPECT_NE(RefusalOf(floatPosition).find("int32"), std::string::npos);
}
