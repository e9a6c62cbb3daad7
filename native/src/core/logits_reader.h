// Reads one row of a logits output ([1, q, vocab], [q, vocab] or [1, vocab]) through the
// strides Core ML reports: an MLMultiArray backed by the Neural Engine is often padded,
// so a row is not simply `vocab` contiguous scalars.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.h"

namespace statefulchat {

struct LogitsLayout {
  int64_t vocabSize = 0;
  int64_t rows = 1;  // length of the sequence axis (1 when the output has none)
};

LogitsLayout DescribeLogits(const StridedView& view);

// The logits of the last *real* token: row `lastRow` of the sequence axis, or the only
// row when the model emits logits for the last position alone.
std::vector<float> ReadLogitsRow(const StridedView& view, int64_t lastRow);

}  // namespace statefulchat
