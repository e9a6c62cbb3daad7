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

  // Speculative decoding's check: appends `tokens` and returns, for each of them, the token
  // sampled from *its* logits row (result[i] follows tokens[0..i]). A seeded draw at each
  // position is SeededUniform(seed, position after that token), the draw a single-token
  // Evaluate would make there, so the result is what step-by-step decoding would sample.
  // The batch goes through the chunk planner like a prefill (all rows of every chunk are
  // read, overlapping chunks included). A model whose logits hold only the last position
  // is verified in single-token steps instead: correct, without the batch's speedup.
  // CapacityError is thrown before any prediction; the caller truncates what it rejects.
  std::vector<int32_t> Verify(const std::vector<int32_t>& tokens, const SamplingOptions& sampling);

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
  // Which positions' logits Append hands on: none (prefill), the last real token's, or
  // every real token's (verify).
  enum class Rows { kNone, kLast, kEvery };
  // Sees one real token's logits and the position after that token.
  using RowCallback = std::function<void(const std::vector<float>& logits, int64_t nextPosition)>;
  // Runs the chunks, handing `onRow` the rows `rows` asks for, in order.
  void Append(const std::vector<int32_t>& tokens, Rows rows, const RowCallback& onRow);
  int32_t Sample(const std::vector<float>& logits, const SamplingOptions& sampling, int64_t nextPosition);
  // Verify one token at a time (each step's last row is its own); every step is planned,
  // and refused, before the first runs.
  std::vector<int32_t> VerifyStepByStep(const std::vector<int32_t>& tokens, const SamplingOptions& sampling);

  std::shared_ptr<StatefulModel> model_;
  std::unique_ptr<ModelState> state_;
  int64_t position_ = 0;
  // The tokens in the cache, in order (size == position_): an overlapping chunk re-feeds
  // the last few of them instead of padding (see chunk_plan.h).
  std::vector<int32_t> history_;
  int64_t preferredChunk_;
  // Learned from the first prediction of q > 1: whether the logits output holds one row
  // (the last position's) instead of q. Core ML's description does not say reliably.
  std::optional<bool> lastRowOnly_;
  std::mt19937_64 unseededRandom_;
};

}  // namespace statefulchat
