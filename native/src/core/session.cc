#include "session.h"

#include "capacity_guard.h"
#include "causal_mask.h"
#include "chunk_plan.h"
#include "logits_reader.h"
#include "native_error.h"
#include "state_snapshot.h"

namespace statefulchat {

Session::Session(std::shared_ptr<StatefulModel> model, int64_t preferredChunk)
    : model_(std::move(model)),
      state_(model_->NewState()),
      preferredChunk_(preferredChunk),
      unseededRandom_(std::random_device{}()) {}

namespace {
// Thrown inside Append when a verify batch first meets a logits output that holds only the
// last position: the chunk's other rows are not there to read. Verify catches it.
struct LastRowOnlyDiscovered {};
}  // namespace

void Session::Append(const std::vector<int32_t>& tokens, Rows rows, const RowCallback& onRow) {
  const ModelIO& io = model_->io();
  const auto chunks = PlanChunks(static_cast<int64_t>(tokens.size()), position_, io.capacity,
                                 io.queryLengths, preferredChunk_);
  size_t consumed = 0;
  for (size_t index = 0; index < chunks.size(); ++index) {
    const PlannedChunk& chunk = chunks[index];
    const bool last = index + 1 == chunks.size();
    const bool wanted = rows == Rows::kEvery || (rows == Rows::kLast && last);
    const ModelIO& served = model_->IOFor(chunk.queryLength);
    PredictInput input;
    input.start = position_ - chunk.overlap;
    input.ids.assign(history_.end() - static_cast<std::ptrdiff_t>(chunk.overlap), history_.end());
    input.ids.insert(input.ids.end(), tokens.begin() + static_cast<std::ptrdiff_t>(consumed),
                     tokens.begin() + static_cast<std::ptrdiff_t>(consumed + static_cast<size_t>(chunk.tokens)));
    // Pad with the last real token; the padded slots are beyond the new position.
    input.ids.resize(static_cast<size_t>(chunk.queryLength), input.ids.back());
    input.maskWidth = served.MaskWidthFor(input.start, chunk.queryLength);
    input.mask = BuildCausalMask(input.start, chunk.queryLength, input.maskWidth, served.causalMaskType);
    bool sawLogits = false;
    model_->Predict(*state_, input, [&](const StridedView& logits) {
      sawLogits = true;
      const LogitsLayout layout = DescribeLogits(logits);
      // One row for q > 1 means "the last position only" (row q - 1).
      const bool oneRow = layout.rows == 1;
      if (chunk.queryLength > 1) lastRowOnly_ = oneRow;
      if (!wanted || !onRow) return;
      if (!oneRow && layout.rows != chunk.queryLength) {
        throw NativeError(ErrorCode::kEngineFailed, "the logits output has " + std::to_string(layout.rows) +
                                                        " rows for a query of " + std::to_string(chunk.queryLength));
      }
      // Row of the j-th new token: after the re-fed overlap, before any padding.
      for (int64_t j = rows == Rows::kEvery ? 0 : chunk.tokens - 1; j < chunk.tokens; ++j) {
        const int64_t row = chunk.overlap + j;
        if (oneRow && row != chunk.queryLength - 1) {
          if (rows == Rows::kEvery) throw LastRowOnlyDiscovered{};
          // The only row belongs to padding.
          throw NativeError(ErrorCode::kEngineFailed,
                            "the model returns only the last position's logits and accepts no query length of " +
                                std::to_string(chunk.tokens) + " at position " + std::to_string(position_) +
                                " (allowed " + io.queryLengths.Describe() + ")");
        }
        onRow(ReadLogitsRow(logits, oneRow ? 0 : row), position_ + j + 1);
      }
    });
    if (wanted && onRow && !sawLogits) throw NativeError(ErrorCode::kEngineFailed, "the model returned no logits");
    position_ += chunk.tokens;
    history_.insert(history_.end(), tokens.begin() + static_cast<std::ptrdiff_t>(consumed),
                    tokens.begin() + static_cast<std::ptrdiff_t>(consumed + static_cast<size_t>(chunk.tokens)));
    consumed += static_cast<size_t>(chunk.tokens);
  }
}

int32_t Session::Sample(const std::vector<float>& logits, const SamplingOptions& sampling, int64_t nextPosition) {
  const double uniform = sampling.seed ? SeededUniform(*sampling.seed, static_cast<uint64_t>(nextPosition))
                                       : std::generate_canonical<double, 53>(unseededRandom_);
  return SampleToken(logits, sampling, uniform);
}

std::optional<int32_t> Session::Evaluate(const std::vector<int32_t>& tokens,
                                         const std::optional<SamplingOptions>& sampling) {
  if (tokens.empty()) {
    if (sampling) throw NativeError(ErrorCode::kEngineFailed, "cannot sample without tokens to evaluate");
    return std::nullopt;
  }
  if (!sampling) {
    Append(tokens, Rows::kNone, nullptr);
    return std::nullopt;
  }
  int32_t next = -1;
  Append(tokens, Rows::kLast,
         [&](const std::vector<float>& row, int64_t nextPosition) { next = Sample(row, *sampling, nextPosition); });
  return next;
}

std::vector<std::pair<int32_t, double>> Session::EvaluateTopK(const std::vector<int32_t>& tokens, int32_t k) {
  if (tokens.empty()) throw NativeError(ErrorCode::kEngineFailed, "cannot rank without tokens to evaluate");
  std::vector<std::pair<int32_t, double>> top;
  Append(tokens, Rows::kLast, [&](const std::vector<float>& row, int64_t) { top = TopKProbabilities(row, k); });
  return top;
}

std::vector<int32_t> Session::Verify(const std::vector<int32_t>& tokens, const SamplingOptions& sampling) {
  if (tokens.empty()) throw NativeError(ErrorCode::kEngineFailed, "cannot verify without tokens");
  EnsureCapacity(position_, static_cast<int64_t>(tokens.size()), capacity());
  if (lastRowOnly_.value_or(false)) return VerifyStepByStep(tokens, sampling);
  const int64_t start = position_;
  std::vector<int32_t> sampled;
  sampled.reserve(tokens.size());
  try {
    Append(tokens, Rows::kEvery, [&](const std::vector<float>& row, int64_t nextPosition) {
      sampled.push_back(Sample(row, sampling, nextPosition));
    });
    return sampled;
  } catch (const LastRowOnlyDiscovered&) {
    // Learned on this batch (lastRowOnly_ is now set). What it wrote is dropped exactly,
    // like any rejected tail, and the batch is redone step by step.
    Truncate(start);
  }
  return VerifyStepByStep(tokens, sampling);
}

std::vector<int32_t> Session::VerifyStepByStep(const std::vector<int32_t>& tokens, const SamplingOptions& sampling) {
  const ModelIO& io = model_->io();
  // The planner is deterministic: the steps it plans here are the ones Append will run.
  for (size_t i = 0; i < tokens.size(); ++i) {
    const int64_t at = position_ + static_cast<int64_t>(i);
    for (const PlannedChunk& step : PlanChunks(1, at, io.capacity, io.queryLengths, preferredChunk_)) {
      if (step.Padding() > 0) {
        throw NativeError(ErrorCode::kEngineFailed,
                          "cannot verify: the model returns only the last position's logits and accepts no query "
                          "length of 1 at position " + std::to_string(at) + " (allowed " +
                              io.queryLengths.Describe() + ")");
      }
    }
  }
  std::vector<int32_t> sampled;
  sampled.reserve(tokens.size());
  for (const int32_t token : tokens) {
    Append({token}, Rows::kLast, [&](const std::vector<float>& row, int64_t nextPosition) {
      sampled.push_back(Sample(row, sampling, nextPosition));
    });
  }
  return sampled;
}

void Session::Truncate(int64_t length) {
  if (length < 0 || length > position_) {
    throw NativeError(ErrorCode::kEngineFailed, "truncate(" + std::to_string(length) +
                                                    ") is outside 0.." + std::to_string(position_));
  }
  position_ = length;
  history_.resize(static_cast<size_t>(length));
}

void Session::Reset() {
  state_ = model_->NewState();
  position_ = 0;
  history_.clear();
}

uint64_t Session::SaveState(const std::string& path, const std::vector<int32_t>& tokens) {
  // A snapshot whose tokens are not the cache's would later be adopted as if they were.
  if (tokens != history_) {
    throw NativeError(ErrorCode::kEngineFailed, "saveState: the " + std::to_string(tokens.size()) +
                                                    " tokens given are not the " + std::to_string(position_) +
                                                    " tokens the state holds");
  }
  return SaveStateSnapshot(path, *model_, *state_, tokens);
}

std::vector<int32_t> Session::LoadState(const std::string& path) {
  std::unique_ptr<ModelState> loaded = model_->NewState();
  std::vector<int32_t> tokens = LoadStateSnapshot(path, *model_, *loaded);
  state_ = std::move(loaded);
  position_ = static_cast<int64_t>(tokens.size());
  history_ = tokens;
  return tokens;
}

}  // namespace statefulchat
