// NSError text carried into NativeError (and from there into the JS error message).
#pragma once

#import <Foundation/Foundation.h>

#include <string>

#include "../core/native_error.h"

NS_ASSUME_NONNULL_BEGIN

namespace statefulchat {

inline std::string DescribeNSError(NSError* _Nullable error) {
  if (error == nil) return "unknown Core ML error";
  NSString* text = [NSString stringWithFormat:@"%@ (%@ %ld)", error.localizedDescription, error.domain, (long)error.code];
  return std::string(text.UTF8String ? text.UTF8String : "unknown Core ML error");
}

inline NativeError CoreMLFailure(ErrorCode code, const std::string& what, NSError* _Nullable error) {
  return NativeError(code, what + ": " + DescribeNSError(error));
}

inline NSString* ToNSString(const std::string& text) {
  NSString* _Nullable converted = [NSString stringWithUTF8String:text.c_str()];  // nil on invalid UTF-8
  return converted ?: @"";
}

}  // namespace statefulchat

NS_ASSUME_NONNULL_END
