// One conversation's KV state and its position. Not thread-safe by itself: the addon runs
// every call on the session's SerialWorker, which also refuses overlapping calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sampler.h"
#include "stateful_model.h"

namespace statefulchat {

class Session {
 public:
  Session(std::shared_ptr<StatefulModel> model, int64_t preferredChunk);

  int64_t position() const { return position_; }
  int64_t capacity() const { return model_->io().capacity; }

  // Appends `tokens` (chunked as the model allows). Returns the next token sampled from
  // the last real token's logits when `sampling` is set. CapacityError is thrown before
  // any prediction; a failure mid-way leaves position at the last completed chunk.
  std::optional<int32_t> Evaluate(const std::vector<int32_t>& tokens,
                                  const std::optional<SamplingOptions>& sampling);

  // Like Evaluate, but returns the k most likely next tokens and their probabilities.
  std::vector<std::pair<int32_t, double>> EvaluateTopK(const std::vector<int32_t>& tokens, int32_t k);

  // Moves the position back. Exact without touching the buffers: a slot at or past the
  // position is never read again before it is rewritten, because the next write starts
  // at the position and the mask [1,1,q,end] hides every slot >= end and, per row, every
  // slot after that row's own position.
  void Truncate(int64_t length);

  // Core ML has no reset: a new, zeroed MLState replaces the old one.
  void Reset();

  // Writes the states and `tokens` (which must be what the cache holds) to `path`;
  // returns the file's size.
  uint64_t SaveState(const std::string& path, const std::vector<int32_t>& tokens);

  // Replaces the state with the one saved at `path` and returns the tokens it holds
  // (the position becomes their count). The file is read into a new state that is
  // adopted only once complete, so a refused or failed load leaves the session as it was.
  std::vector<int32_t> LoadState(const std::string& path);

 private:
  // Runs the chunks; `onLastRow` sees the last real token's logits (only when set).
  void Append(const std::vector<int32_t>& tokens, const std::function<void(const std::vector<float>&, int64_t)>& onLastRow);

  std::shared_ptr<StatefulModel> model_;
  std::unique_ptr<ModelState> state_;
  int64_t position_ = 0;
  // The tokens in the cache, in order (size == position_): an overlapping chunk re-feeds
  // the last few of them instead of padding (see chunk_plan.h).
  std::vector<int32_t> history_;
  int64_t preferredChunk_;
  std::mt19937_64 unseededRandom_;
};

}  // namespace statefulchat
