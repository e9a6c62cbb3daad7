// KV snapshots of a session on the simulated model: a round trip continues exactly as the
// original would have, and every kind of mismatch is refused before any state changes.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "../src/core/native_error.h"
#include "../src/core/session.h"
#include "../src/core/simulated_model.h"
#include "../src/core/state_snapshot.h"
#include "../src/core/strided_copy.h"

using namespace statefulchat;

namespace {
SimulatedModelSpec Spec(int64_t capacity = 64, DType stateType = DType::kFloat16) {
  SimulatedModelSpec spec;
  spec.capacity = capacity;
  spec.vocabSize = 50000;
  spec.stateType = stateType;
  return spec;
}

std::shared_ptr<SimulatedModel> Model(const SimulatedModelSpec& spec = Spec()) {
  return std::make_shared<SimulatedModel>(spec);
}

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "state_snapshot_" + name + ".kv"; }

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Greedy steps from a session's current position.
std::vector<int32_t> Continue(Session& session, int32_t first, int steps) {
  std::vector<int32_t> produced;
  int32_t next = first;
  for (int step = 0; step < steps; ++step) {
    next = *session.Evaluate({next}, SamplingOptions{});
    produced.push_back(next);
  }
  return produced;
}

// Ids whose high 16 bits are non-zero, so value_cache matters as much as key_cache.
const std::vector<int32_t> kTurn1 = {70000, 3, 65536, 42, 131071};
const std::vector<int32_t> kTurn2 = {7, 8, 9};

// Expects a refusal with kSnapshotMismatch mentioning `why`, and an unchanged session.
void ExpectRefused(const std::string& path, const std::shared_ptr<SimulatedModel>& model, const std::string& why) {
  Session session(model, 16);
  session.Evaluate({1, 2, 3}, std::nullopt);
  try {
    session.LoadState(path);
    FAIL() << "loaded a mismatched snapshot (" << why << ")";
  } catch (const NativeError& error) {
    EXPECT_EQ(error.code(), ErrorCode::kSnapshotMismatch) << error.what();
    EXPECT_NE(std::string(error.what()).find(why), std::string::npos) << error.what();
  }
  EXPECT_EQ(session.position(), 3);
  Session fresh(model, 16);
  EXPECT_EQ(session.Evaluate({4}, SamplingOptions{}), fresh.Evaluate({1, 2, 3, 4}, SamplingOptions{}));
}

std::string SavedSnapshot(const std::shared_ptr<SimulatedModel>& model, const std::string& name) {
  Session session(model, 16);
  session.Evaluate(kTurn1, std::nullopt);
  const std::string path = TempPath(name);
  session.SaveState(path, kTurn1);
  return path;
}
}  // namespace

TEST(StateSnapshot, RoundTripContinuesLikeTheOriginal) {
  for (DType stateType : {DType::kFloat16, DType::kFloat32}) {
    auto model = Model(Spec(64, stateType));
    Session original(model, 4);
    original.Evaluate(kTurn1, std::nullopt);
    const int32_t reply = *original.Evaluate(kTurn2, SamplingOptions{});
    std::vector<int32_t> held = kTurn1;
    held.insert(held.end(), kTurn2.begin(), kTurn2.end());
    const std::string path = TempPath(std::string("round_trip_") + DTypeName(stateType));
    const uint64_t size = original.SaveState(path, held);
    EXPECT_EQ(size, ReadBytes(path).size());

    Session restored(model, 4);
    restored.Evaluate({5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, std::nullopt);  // replaced wholesale
    EXPECT_EQ(restored.LoadState(path), held);
    EXPECT_EQ(restored.position(), static_cast<int64_t>(held.size()));
    EXPECT_EQ(Continue(restored, reply, 6), Continue(original, reply, 6));

    // Bytes in, same bytes out: the strided copy loses nothing either way.
    Session again(model, 4);
    again.LoadState(path);
    const std::string copy = TempPath("round_trip_copy");
    again.SaveState(copy, held);
    EXPECT_EQ(ReadBytes(copy), ReadBytes(path));
    std::remove(path.c_str());
    std::remove(copy.c_str());
  }
}

TEST(StateSnapshot, TruncatedPositionIsWhatIsSaved) {
  auto model = Model();
  Session session(model, 16);
  session.Evaluate(kTurn1, std::nullopt);
  session.Truncate(3);
  const std::string path = TempPath("truncated_position");
  const std::vector<int32_t> held(kTurn1.begin(), kTurn1.begin() + 3);
  session.SaveState(path, held);
  Session restored(model, 16);
  EXPECT_EQ(restored.LoadState(path), held);
  Session fresh(model, 16);
  EXPECT_EQ(restored.Evaluate({11, 12}, SamplingOptions{}), fresh.Evaluate({70000, 3, 65536, 11, 12}, SamplingOptions{}));
}

TEST(StateSnapshot, SaveRefusesTokensTheStateDoesNotHold) {
  Session session(Model(), 16);
  session.Evaluate(kTurn1, std::nullopt);
  EXPECT_THROW(session.SaveState(TempPath("wrong_tokens"), {1, 2, 3, 4, 5}), NativeError);
  EXPECT_THROW(session.SaveState(TempPath("wrong_tokens"), {70000, 3}), NativeError);
}

TEST(StateSnapshot, RefusesWrongMagic) {
  auto model = Model();
  const std::string path = SavedSnapshot(model, "magic");
  auto bytes = ReadBytes(path);
  bytes[0] = 'X';
  WriteBytes(path, bytes);
  ExpectRefused(path, model, "magic");
}

TEST(StateSnapshot, RefusesAnotherFormatVersion) {
  auto model = Model();
  const std::string path = SavedSnapshot(model, "version");
  auto bytes = ReadBytes(path);
  bytes[sizeof kSnapshotMagic] = static_cast<uint8_t>(kSnapshotVersion + 1);
  WriteBytes(path, bytes);
  ExpectRefused(path, model, "format version 2");
}

TEST(StateSnapshot, RefusesAnotherStateName) {
  auto model = Model();
  std::vector<SnapshotState> states = SnapshotStatesOf(*model);
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].name, "key_cache");  // sorted by name
  states[1].name = "value_cachf";
  auto bytes = EncodeSnapshotHeader(states, kTurn1);
  bytes.resize(bytes.size() + SnapshotStateBytes(states[0]) + SnapshotStateBytes(states[1]), 0);
  const std::string path = TempPath("name");
  WriteBytes(path, bytes);
  ExpectRefused(path, model, "state 'value_cachf' where the model has 'value_cache'");
}

TEST(StateSnapshot, RefusesAModelOfAnotherShape) {
  const std::string path = SavedSnapshot(Model(Spec(32)), "shape");
  ExpectRefused(path, Model(Spec(64)), "shape [2, 1, 1, 32, 4], the model's is [2, 1, 1, 64, 4]");
}

TEST(StateSnapshot, RefusesAnotherDtype) {
  const std::string path = SavedSnapshot(Model(Spec(64, DType::kFloat32)), "dtype");
  ExpectRefused(path, Model(Spec(64, DType::kFloat16)), "dtype code 2, the model's is float16");
}

TEST(StateSnapshot, RefusesATruncatedOrPaddedFile) {
  auto model = Model();
  const std::string path = SavedSnapshot(model, "truncated");
  const auto bytes = ReadBytes(path);
  WriteBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.end() - 1));
  ExpectRefused(path, model, "bytes, its header describes");
  auto longer = bytes;
  longer.push_back(0);
  WriteBytes(path, longer);
  ExpectRefused(path, model, "bytes, its header describes");
  WriteBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + 20));
  ExpectRefused(path, model, "truncated");
}

TEST(StateSnapshot, RefusesMoreTokensThanTheCapacity) {
  auto small = Model(Spec(8));
  std::vector<SnapshotState> states = SnapshotStatesOf(*small);
  auto bytes = EncodeSnapshotHeader(states, std::vector<int32_t>(9, 1));
  bytes.resize(bytes.size() + SnapshotStateBytes(states[0]) + SnapshotStateBytes(states[1]), 0);
  const std::string path = TempPath("too_many_tokens");
  WriteBytes(path, bytes);
  ExpectRefused(path, small, "9 tokens, the model holds at most 8");
}

TEST(StateSnapshot, MissingFileIsAnEngineFailure) {
  Session session(Model(), 16);
  try {
    session.LoadState(TempPath("does_not_exist"));
    FAIL();
  } catch (const NativeError& error) {
    EXPECT_EQ(error.code(), ErrorCode::kEngineFailed);
  }
}

TEST(StridedCopy, NdRoundTripThroughPaddedStrides) {
  const std::vector<int64_t> shape = {2, 3, 4};
  const std::vector<int64_t> strides = {3 * 6, 6, 1};  // rows padded to 6
  std::vector<uint16_t> dense(24);
  for (size_t i = 0; i < dense.size(); ++i) dense[i] = static_cast<uint16_t>(i + 1);
  std::vector<uint16_t> strided(2 * 3 * 6, 0xFFFF);
  CopyDenseToStrided(dense.data(), shape, strides, strided.data(), 2);
  EXPECT_EQ(strided[6 + 3], 8);  // [0, 1, 3]
  EXPECT_EQ(strided[4], 0xFFFF);  // padding untouched
  std::vector<uint16_t> back(24, 0);
  CopyStridedToDense(strided.data(), shape, strides, back.data(), 2);
  EXPECT_EQ(back, dense);
  // A transposed (column-major) view exercises the element-wise path.
  std::vector<uint16_t> columnMajor(24, 0);
  CopyDenseToStrided(dense.data(), shape, {1, 2, 6}, columnMajor.data(), 2);
  EXPECT_EQ(columnMajor[1 * 1 + 2 * 2 + 3 * 6], dense[1 * 12 + 2 * 4 + 3]);
  CopyStridedToDense(columnMajor.data(), shape, {1, 2, 6}, back.data(), 2);
  EXPECT_EQ(back, dense);
  EXPECT_EQ(StridedExtent(shape, strides), 1 * 18 + 2 * 6 + 3 + 1);
  EXPECT_EQ(StridedExtent(shape, {1, 2, 6}), 24);
}
