#include "tensor.h"

namespace statefulchat {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat16: return "float16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kInt32: return "int32";
    case DType::kOther: return "other";
  }
  return "other";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat16: return 2;
    case DType::kFloat32: return 4;
    case DType::kFloat64: return 8;
    case DType::kInt32: return 4;
    case DType::kOther: return 0;
  }
  return 0;
}

}  // namespace statefulchat
