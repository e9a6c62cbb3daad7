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

void Session::Append(const std::vector<int32_t>& tokens,
                     const std::function<void(const std::vector<float>&, int64_t)>& onLastRow) {
  const ModelIO& io = model_->io();
  const auto chunks = PlanChunks(static_cast<int64_t>(tokens.size()), position_, io.capacity,
                                 io.queryLengths, preferredChunk_);
  size_t consumed = 0;
  for (size_t index = 0; index < chunks.size(); ++index) {
    const PlannedChunk& chunk = chunks[index];
    const bool last = index + 1 == chunks.size();
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
    const int64_t lastRealRow = chunk.overlap + chunk.tokens - 1;
    bool sawLogits = false;
    model_->Predict(*state_, input, [&](const StridedView& logits) {
      sawLogits = true;
      if (!last || !onLastRow) return;
      // One row means "the last position only": it belongs to padding when there is any.
      if (chunk.Padding() > 0 && DescribeLogits(logits).rows == 1) {
        throw NativeError(ErrorCode::kEngineFailed,
                          "the model returns only the last position's logits and accepts no query length of " +
                              std::to_string(chunk.tokens) + " at position " + std::to_string(position_) +
                              " (allowed " + io.queryLengths.Describe() + ")");
      }
      onLastRow(ReadLogitsRow(logits, lastRealRow), position_ + chunk.tokens);
    });
    if (last && onLastRow && !sawLogits) throw NativeError(ErrorCode::kEngineFailed, "the model returned no logits");
    position_ += chunk.tokens;
    history_.insert(history_.end(), tokens.begin() + static_cast<std::ptrdiff_t>(consumed),
                    tokens.begin() + static_cast<std::ptrdiff_t>(consumed + static_cast<size_t>(chunk.tokens)));
    consumed += static_cast<size_t>(chunk.tokens);
  }
}

std::optional<int32_t> Session::Evaluate(const std::vector<int32_t>& tokens,
                                         const std::optional<SamplingOptions>& sampling) {
  if (tokens.empty()) {
    if (sampling) throw NativeError(ErrorCode::kEngineFailed, "cannot sample without tokens to evaluate");
    return std::nullopt;
  }
  if (!sampling) {
    Append(tokens, nullptr);
    return std::nullopt;
  }
  int32_t next = -1;
  Append(tokens, [&](const std::vector<float>& row, int64_t nextPosition) {
    const double uniform = sampling->seed ? SeededUniform(*sampling->seed, static_cast<uint64_t>(nextPosition))
                                          : std::generate_canonical<double, 53>(unseededRandom_);
    next = SampleToken(row, *sampling, uniform);
  });
  return next;
}

std::vector<std::pair<int32_t, double>> Session::EvaluateTopK(const std::vector<int32_t>& tokens, int32_t k) {
  if (tokens.empty()) throw NativeError(ErrorCode::kEngineFailed, "cannot rank without tokens to evaluate");
  std::vector<std::pair<int32_t, double>> top;
  Append(tokens, [&](const std::vector<float>& row, int64_t) { top = TopKProbabilities(row, k); });
  return top;
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
