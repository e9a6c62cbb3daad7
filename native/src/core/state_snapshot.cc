#include "state_snapshot.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "native_error.h"
#include "strided_copy.h"

namespace statefulchat {

namespace {
[[noreturn]] void IoFailure(const std::string& what, const std::string& path) {
  throw NativeError(ErrorCode::kEngineFailed, what + " " + path + ": " + std::strerror(errno));
}

// The framework lends the buffer it has; it must be the one the model described.
void CheckLent(const SnapshotState& want, DType dtype, const std::vector<int64_t>& shape,
               const std::vector<int64_t>& strides) {
  if (dtype != want.dtype || shape != want.shape || strides.size() != shape.size()) {
    throw NativeError(ErrorCode::kEngineFailed, "state '" + want.name + "' is not the buffer its description promised");
  }
  for (int64_t stride : strides) {
    if (stride < 0) throw NativeError(ErrorCode::kEngineFailed, "state '" + want.name + "' has a negative stride");
  }
}
}  // namespace

std::vector<SnapshotState> SnapshotStatesOf(const StatefulModel& model) {
  std::vector<SnapshotState> states;
  for (const FeatureDescription& feature : model.StateDescriptions()) {
    states.push_back(SnapshotState{feature.name, feature.dtype, feature.shape});
  }
  return states;
}

uint64_t SaveStateSnapshot(const std::string& path, StatefulModel& model, ModelState& state,
                           const std::vector<int32_t>& tokens) {
  const std::vector<SnapshotState> states = SnapshotStatesOf(model);
  if (states.empty()) throw NativeError(ErrorCode::kEngineFailed, "the model declares no states to snapshot");
  const std::vector<uint8_t> header = EncodeSnapshotHeader(states, tokens);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) IoFailure("cannot create", path);
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
  std::vector<uint8_t> dense;
  for (const SnapshotState& want : states) {
    dense.resize(static_cast<size_t>(SnapshotStateBytes(want)));
    model.ReadState(state, want.name, [&](const StridedView& buffer) {
      CheckLent(want, buffer.dtype, buffer.shape, buffer.strides);
      CopyStridedToDense(buffer.data, buffer.shape, buffer.strides, dense.data(), DTypeSize(want.dtype));
    });
    out.write(reinterpret_cast<const char*>(dense.data()), static_cast<std::streamsize>(dense.size()));
  }
  out.flush();
  if (!out) IoFailure("cannot write", path);
  return static_cast<uint64_t>(out.tellp());
}

std::vector<int32_t> LoadStateSnapshot(const std::string& path, StatefulModel& model, ModelState& into) {
  const std::vector<SnapshotState> states = SnapshotStatesOf(model);
  if (states.empty()) throw NativeError(ErrorCode::kEngineFailed, "the model declares no states to restore");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) IoFailure("cannot open", path);
  const auto fileSize = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  std::vector<int32_t> tokens = DecodeSnapshotHeader(in, fileSize, states, model.io().capacity);
  std::vector<uint8_t> dense;
  for (const SnapshotState& want : states) {
    dense.resize(static_cast<size_t>(SnapshotStateBytes(want)));
    if (!in.read(reinterpret_cast<char*>(dense.data()), static_cast<std::streamsize>(dense.size()))) {
      throw NativeError(ErrorCode::kSnapshotMismatch, "KV snapshot refused: the file changed while it was read");
    }
    model.WriteState(into, want.name, [&](const MutableStridedView& buffer) {
      CheckLent(want, buffer.dtype, buffer.shape, buffer.strides);
      CopyDenseToStrided(dense.data(), buffer.shape, buffer.strides, buffer.data, DTypeSize(want.dtype));
    });
  }
  return tokens;
}

}  // namespace statefulchat
