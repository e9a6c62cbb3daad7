#include "session.h"

#include "capacity_guard.h"
#include "causal_mask.h"
#include "chunk_plan.h"
#include "logits_reader.h"
#include "native_error.h"

namespace statefulchat {

Session::Session(std::shared_ptr<StatefulModel> model, int64_t preferredChunk)
    : model_(std::move(model)),
      state_(model_->NewState()),
      preferredChunk_(preferredChunk),
      unseededRandom_(std::random_device{}()) {}

std::optional<int32_t> Session::Evaluate(const std::vector<int32_t>& tokens,
                                         const std::optional<SamplingOptions>& sampling) {
  if (tokens.empty()) {
    if (sampling) throw NativeError(ErrorCode::kEngineFailed, "cannot sample without tokens to evaluate");
    return std::nullopt;
  }
  const ModelIO& io = model_->io();
  const auto chunks = PlanChunks(static_cast<int64_t>(tokens.size()), position_, io.capacity,
                                 io.queryLengths, preferredChunk_);
  std::optional<int32_t> next;
  size_t consumed = 0;
  for (size_t index = 0; index < chunks.size(); ++index) {
    const PlannedChunk& chunk = chunks[index];
    const bool last = index + 1 == chunks.size();
    PredictInput input;
    input.start = position_;
    input.ids.assign(tokens.begin() + static_cast<std::ptrdiff_t>(consumed),
                     tokens.begin() + static_cast<std::ptrdiff_t>(consumed + static_cast<size_t>(chunk.tokens)));
    // Pad with the last real token; the padded slots are beyond the new position.
    input.ids.resize(static_cast<size_t>(chunk.queryLength), input.ids.back());
    input.mask = BuildCausalMask(input.start, chunk.queryLength, io.causalMaskType);
    std::optional<int32_t> sampled;
    model_->Predict(*state_, input, [&](const StridedView& logits) {
      if (!last || !sampling) return;
      const std::vector<float> row = ReadLogitsRow(logits, chunk.tokens - 1);
      const uint64_t nextPosition = static_cast<uint64_t>(position_ + chunk.tokens);
      const double uniform = sampling->seed ? SeededUniform(*sampling->seed, nextPosition)
                                            : std::generate_canonical<double, 53>(unseededRandom_);
      sampled = SampleToken(row, *sampling, uniform);
    });
    position_ += chunk.tokens;
    consumed += static_cast<size_t>(chunk.tokens);
    if (last) next = sampled;
  }
  if (sampling && !next) throw NativeError(ErrorCode::kEngineFailed, "the model returned no logits");
  return next;
}

void Session::Truncate(int64_t length) {
  if (length < 0 || length > position_) {
    throw NativeError(ErrorCode::kEngineFailed, "truncate(" + std::to_string(length) +
                                                    ") is outside 0.." + std::to_string(position_));
  }
  position_ = length;
}

void Session::Reset() {
  state_ = model_->NewState();
  position_ = 0;
}

}  // namespace statefulchat
