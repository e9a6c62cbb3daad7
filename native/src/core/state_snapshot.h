// Saving and loading a session's states through the model's ReadState/WriteState, in the
// format of snapshot_format.h. Runs on the session's worker, like a prediction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "snapshot_format.h"
#include "stateful_model.h"

namespace statefulchat {

// The model's states as a snapshot lists them (sorted by name, as StateDescriptions gives).
std::vector<SnapshotState> SnapshotStatesOf(const StatefulModel& model);

// Writes `state` and `tokens` to `path` (the caller renames it into place); returns the size.
uint64_t SaveStateSnapshot(const std::string& path, StatefulModel& model, ModelState& state,
                           const std::vector<int32_t>& tokens);

// Validates the whole header against `model` (NativeError kSnapshotMismatch) before it
// writes into `into`, which should be a fresh state: a failure while copying leaves it
// half-written. Returns the tokens it holds.
std::vector<int32_t> LoadStateSnapshot(const std::string& path, StatefulModel& model, ModelState& into);

}  // namespace statefulchat
