// The KV snapshot file of a session, framework-free so every refusal is tested on Linux.
// Little-endian throughout:
//
//   "SCKVSNAP" | u32 version | u32 state count
//   per state (sorted by name): u32 name length | name (UTF-8) | u32 dtype (1 fp16, 2 fp32)
//                               | u32 rank | i64 dims[rank]
//   u64 token count | i32 tokens[count]
//   per state, in the same order: its elements, dense and row-major
//
// The tokens travel with the state because an MLState does not record what it holds.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "tensor.h"

namespace statefulchat {

constexpr char kSnapshotMagic[8] = {'S', 'C', 'K', 'V', 'S', 'N', 'A', 'P'};
constexpr uint32_t kSnapshotVersion = 1;

struct SnapshotState {
  std::string name;
  DType dtype = DType::kFloat16;
  std::vector<int64_t> shape;
};

// Bytes of a state's dense payload.
uint64_t SnapshotStateBytes(const SnapshotState& state);

// Everything before the state payloads.
std::vector<uint8_t> EncodeSnapshotHeader(const std::vector<SnapshotState>& states, const std::vector<int32_t>& tokens);

// Reads the header from `in` and checks it against the states this model declares (same
// names, dtypes and shapes, in order), the model's capacity and the file's size, which
// must be exactly the header plus every payload. Throws NativeError(kSnapshotMismatch)
// naming the first difference; returns the tokens, with `in` at the first payload.
std::vector<int32_t> DecodeSnapshotHeader(std::istream& in, uint64_t fileSize, const std::vector<SnapshotState>& expected,
                                          int64_t capacity);

}  // namespace statefulchat
