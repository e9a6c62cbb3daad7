#include "snapshot_format.h"

#include <cstring>

#include "native_error.h"

namespace statefulchat {

namespace {
// Bounds that keep a corrupt header from asking for absurd allocations before the size
// check can refuse it.
constexpr uint32_t kMaxStates = 1024;
constexpr uint32_t kMaxNameLength = 4096;
constexpr uint32_t kMaxRank = 16;

uint32_t DTypeCode(DType dtype) {
  switch (dtype) {
    case DType::kFloat16: return 1;
    case DType::kFloat32: return 2;
    default: return 0;
  }
}

[[noreturn]] void Mismatch(const std::string& why) {
  throw NativeError(ErrorCode::kSnapshotMismatch, "KV snapshot refused: " + why);
}

void PutU32(std::vector<uint8_t>& out, uint32_t value) {
  for (int byte = 0; byte < 4; ++byte) out.push_back(static_cast<uint8_t>(value >> (8 * byte)));
}

void PutU64(std::vector<uint8_t>& out, uint64_t value) {
  for (int byte = 0; byte < 8; ++byte) out.push_back(static_cast<uint8_t>(value >> (8 * byte)));
}

class HeaderReader {
 public:
  explicit HeaderReader(std::istream& in) : in_(in) {}
  uint64_t consumed() const { return consumed_; }

  void Bytes(void* into, size_t count) {
    if (!in_.read(static_cast<char*>(into), static_cast<std::streamsize>(count))) Mismatch("the file is truncated");
    consumed_ += count;
  }
  uint64_t Unsigned(int width) {
    uint8_t bytes[8] = {};
    Bytes(bytes, static_cast<size_t>(width));
    uint64_t value = 0;
    for (int byte = width - 1; byte >= 0; --byte) value = (value << 8) | bytes[byte];
    return value;
  }
  uint32_t U32() { return static_cast<uint32_t>(Unsigned(4)); }
  uint64_t U64() { return Unsigned(8); }

 private:
  std::istream& in_;
  uint64_t consumed_ = 0;
};

std::string DescribeShape(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t axis = 0; axis < shape.size(); ++axis) text += (axis ? ", " : "") + std::to_string(shape[axis]);
  return text + "]";
}
}  // namespace

uint64_t SnapshotStateBytes(const SnapshotState& state) {
  uint64_t elements = 1;
  for (int64_t size : state.shape) elements *= static_cast<uint64_t>(size);
  return elements * DTypeSize(state.dtype);
}

std::vector<uint8_t> EncodeSnapshotHeader(const std::vector<SnapshotState>& states, const std::vector<int32_t>& tokens) {
  std::vector<uint8_t> out(std::begin(kSnapshotMagic), std::end(kSnapshotMagic));
  PutU32(out, kSnapshotVersion);
  PutU32(out, static_cast<uint32_t>(states.size()));
  for (const SnapshotState& state : states) {
    if (DTypeCode(state.dtype) == 0) {
      throw NativeError(ErrorCode::kEngineFailed, "cannot snapshot state '" + state.name + "' of dtype " + DTypeName(state.dtype));
    }
    PutU32(out, static_cast<uint32_t>(state.name.size()));
    out.insert(out.end(), state.name.begin(), state.name.end());
    PutU32(out, DTypeCode(state.dtype));
    PutU32(out, static_cast<uint32_t>(state.shape.size()));
    for (int64_t size : state.shape) PutU64(out, static_cast<uint64_t>(size));
  }
  PutU64(out, tokens.size());
  for (int32_t token : tokens) PutU32(out, static_cast<uint32_t>(token));
  return out;
}

std::vector<int32_t> DecodeSnapshotHeader(std::istream& in, uint64_t fileSize, const std::vector<SnapshotState>& expected,
                                          int64_t capacity) {
  HeaderReader reader(in);
  char magic[sizeof kSnapshotMagic];
  reader.Bytes(magic, sizeof magic);
  if (std::memcmp(magic, kSnapshotMagic, sizeof magic) != 0) Mismatch("not a stateful-chat KV snapshot (bad magic)");
  const uint32_t version = reader.U32();
  if (version != kSnapshotVersion) {
    Mismatch("format version " + std::to_string(version) + ", this build reads " + std::to_string(kSnapshotVersion));
  }
  const uint32_t count = reader.U32();
  if (count != expected.size() || count > kMaxStates) {
    Mismatch(std::to_string(count) + " states, the model has " + std::to_string(expected.size()));
  }
  for (const SnapshotState& want : expected) {
    const uint32_t nameLength = reader.U32();
    if (nameLength > kMaxNameLength) Mismatch("a state name of " + std::to_string(nameLength) + " bytes");
    std::string name(nameLength, '\0');
    reader.Bytes(name.data(), nameLength);
    if (name != want.name) Mismatch("state '" + name + "' where the model has '" + want.name + "'");
    const uint32_t dtype = reader.U32();
    if (dtype != DTypeCode(want.dtype)) {
      Mismatch("state '" + name + "' has dtype code " + std::to_string(dtype) + ", the model's is " + DTypeName(want.dtype));
    }
    const uint32_t rank = reader.U32();
    if (rank > kMaxRank) Mismatch("state '" + name + "' has rank " + std::to_string(rank));
    std::vector<int64_t> shape(rank);
    for (int64_t& size : shape) size = static_cast<int64_t>(reader.U64());
    if (shape != want.shape) {
      Mismatch("state '" + name + "' has shape " + DescribeShape(shape) + ", the model's is " + DescribeShape(want.shape));
    }
  }
  const uint64_t tokenCount = reader.U64();
  if (tokenCount > static_cast<uint64_t>(capacity)) {
    Mismatch(std::to_string(tokenCount) + " tokens, the model holds at most " + std::to_string(capacity));
  }
  uint64_t expectedSize = reader.consumed() + tokenCount * sizeof(int32_t);
  for (const SnapshotState& state : expected) expectedSize += SnapshotStateBytes(state);
  if (fileSize != expectedSize) {
    Mismatch("the file has " + std::to_string(fileSize) + " bytes, its header describes " + std::to_string(expectedSize));
  }
  std::vector<int32_t> tokens(static_cast<size_t>(tokenCount));
  for (int32_t& token : tokens) token = static_cast<int32_t>(reader.U32());
  return tokens;
}

}  // namespace statefulchat
