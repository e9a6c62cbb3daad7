// MLModelDescription -> plain FeatureDescriptions, so role resolution stays in tested C++.
#pragma once

#import <CoreML/CoreML.h>

#include <vector>

#include "../core/tensor.h"

NS_ASSUME_NONNULL_BEGIN

namespace statefulchat {

DType DTypeFromCoreML(MLMultiArrayDataType dataType);

// Inputs, outputs and (macOS 15+) states of one model function.
std::vector<FeatureDescription> DescribeFeatures(MLModelDescription* description);

}  // namespace statefulchat

NS_ASSUME_NONNULL_END
