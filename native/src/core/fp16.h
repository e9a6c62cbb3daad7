// IEEE 754 binary16 <-> binary32 without hardware support: Core ML states, masks and
// logits are often fp16, and the Linux CI has no _Float16 guarantees.
#pragma once

#include <cstdint>

namespace statefulchat {

float HalfToFloat(uint16_t half);
// Round-to-nearest-even; overflow gives +/-inf, NaN stays NaN.
uint16_t FloatToHalf(float value);

constexpr uint16_t kHalfNegativeInfinity = 0xFC00;
constexpr uint16_t kHalfZero = 0x0000;

}  // namespace statefulchat
