/*
 * The subset of Core ML that native/src/mac uses, declared with Apple's exact class,
 * selector, property and enum names and signatures (macOS 15 SDK) *and Apple's
 * API_AVAILABLE annotations*, for one purpose: a clang + GNUstep `-fsyntax-only
 * -fobjc-arc -Werror` check on Linux, where Core ML does not exist. Compiled for a Darwin
 * target (typecheck.sh), the annotations make clang's -Wunguarded-availability-new see
 * every use of a macOS 15 API outside an @available(macOS 15.0, *) check, as Xcode
 * would for the addon's macOS 13 deployment target. It catches wrong selectors, types,
 * ARC, block-capture and availability mistakes; it proves nothing about runtime
 * behaviour. Never compiled into the addon.
 */
#pragma once

#import <Foundation/Foundation.h>

#ifndef NS_NOESCAPE
#define NS_NOESCAPE __attribute__((noescape))
#endif
#ifndef API_DEPRECATED
#define API_DEPRECATED(...)
#endif
#ifndef API_AVAILABLE
/* Apple's spelling, API_AVAILABLE(macos(15.0), ios(18.0), ...), expanded the way
   <os/availability.h> does: one clang availability attribute per platform. */
#define SC_AVAILABLE_macos(v) __attribute__((availability(macos, introduced = v)))
#define SC_AVAILABLE_ios(v) __attribute__((availability(ios, introduced = v)))
#define SC_AVAILABLE_watchos(v) __attribute__((availability(watchos, introduced = v)))
#define SC_AVAILABLE_tvos(v) __attribute__((availability(tvos, introduced = v)))
#define SC_AVAILABLE1(a) SC_AVAILABLE_##a
#define SC_AVAILABLE2(a, b) SC_AVAILABLE1(a) SC_AVAILABLE1(b)
#define SC_AVAILABLE3(a, b, c) SC_AVAILABLE1(a) SC_AVAILABLE2(b, c)
#define SC_AVAILABLE4(a, b, c, d) SC_AVAILABLE1(a) SC_AVAILABLE3(b, c, d)
#define SC_AVAILABLE_PICK(_1, _2, _3, _4, name, ...) name
#define API_AVAILABLE(...) \
  SC_AVAILABLE_PICK(__VA_ARGS__, SC_AVAILABLE4, SC_AVAILABLE3, SC_AVAILABLE2, SC_AVAILABLE1, unused)(__VA_ARGS__)
#endif
#define SC_ML_10_13 API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0))
#define SC_ML_10_14 API_AVAILABLE(macos(10.14), ios(12.0), watchos(5.0), tvos(12.0))
#define SC_ML_15 API_AVAILABLE(macos(15.0), ios(18.0), watchos(11.0), tvos(18.0))

NS_ASSUME_NONNULL_BEGIN

/* MLMultiArray.h */
typedef NS_ENUM(NSInteger, MLMultiArrayDataType) {
  MLMultiArrayDataTypeDouble = 0x10000 | 64,
  MLMultiArrayDataTypeFloat64 API_AVAILABLE(macos(11.0), ios(14.0), watchos(7.0), tvos(14.0)) = 0x10000 | 64,
  MLMultiArrayDataTypeFloat32 = 0x10000 | 32,
  MLMultiArrayDataTypeFloat16 API_AVAILABLE(macos(12.0), ios(16.0), watchos(9.0), tvos(16.0)) = 0x10000 | 16,
  MLMultiArrayDataTypeFloat API_AVAILABLE(macos(11.0), ios(14.0), watchos(7.0), tvos(14.0)) = 0x10000 | 32,
  MLMultiArrayDataTypeInt32 = 0x20000 | 32,
} SC_ML_10_13;

SC_ML_10_13
@interface MLMultiArray : NSObject
@property (readonly, nonatomic) MLMultiArrayDataType dataType;
@property (readonly, nonatomic) NSArray<NSNumber *> *shape;
@property (readonly, nonatomic) NSArray<NSNumber *> *strides;
@property (readonly, nonatomic) NSInteger count;
- (nullable instancetype)initWithShape:(NSArray<NSNumber *> *)shape
                              dataType:(MLMultiArrayDataType)dataType
                                 error:(NSError **)error;
- (void)getBytesWithHandler:(void (NS_NOESCAPE ^)(const void *bytes, NSInteger size))handler
    API_AVAILABLE(macos(12.3), ios(15.4), watchos(8.5), tvos(15.4));
- (void)getMutableBytesWithHandler:(void (NS_NOESCAPE ^)(void *mutableBytes, NSInteger size,
                                                         NSArray<NSNumber *> *strides))handler
    API_AVAILABLE(macos(12.3), ios(15.4), watchos(8.5), tvos(15.4));
@end

/* MLFeatureType.h */
typedef NS_ENUM(NSInteger, MLFeatureType) {
  MLFeatureTypeInvalid = 0,
  MLFeatureTypeInt64 = 1,
  MLFeatureTypeDouble = 2,
  MLFeatureTypeString = 3,
  MLFeatureTypeImage = 4,
  MLFeatureTypeMultiArray = 5,
  MLFeatureTypeDictionary = 6,
  MLFeatureTypeSequence = 7,
  MLFeatureTypeState SC_ML_15 = 8,
} SC_ML_10_13;

/* MLMultiArrayShapeConstraint.h */
typedef NS_ENUM(NSInteger, MLMultiArrayShapeConstraintType) {
  MLMultiArrayShapeConstraintTypeUnspecified = 1,
  MLMultiArrayShapeConstraintTypeEnumerated = 2,
  MLMultiArrayShapeConstraintTypeRange = 3,
} SC_ML_10_14;

SC_ML_10_14
@interface MLMultiArrayShapeConstraint : NSObject
@property (readonly, nonatomic) MLMultiArrayShapeConstraintType type;
@property (readonly, nonatomic) NSArray<NSValue *> *sizeRangeForDimension;
@property (readonly, nonatomic) NSArray<NSArray<NSNumber *> *> *enumeratedShapes;
@end

/* MLMultiArrayConstraint.h */
SC_ML_10_13
@interface MLMultiArrayConstraint : NSObject
@property (readonly, nonatomic) NSArray<NSNumber *> *shape;
@property (readonly, nonatomic) MLMultiArrayDataType dataType;
@property (readonly, nonatomic) MLMultiArrayShapeConstraint *shapeConstraint SC_ML_10_14;
@end

/* MLStateConstraint.h */
SC_ML_15
@interface MLStateConstraint : NSObject
@property (readonly, nonatomic) NSArray<NSNumber *> *bufferShape;
@property (readonly, nonatomic) MLMultiArrayDataType dataType;
@end

/* MLFeatureDescription.h */
SC_ML_10_13
@interface MLFeatureDescription : NSObject
@property (readonly, nonatomic, copy) NSString *name;
@property (readonly, nonatomic) MLFeatureType type;
@property (readonly, nonatomic, getter=isOptional) BOOL optional;
@property (readonly, nullable, nonatomic) MLMultiArrayConstraint *multiArrayConstraint;
@property (readonly, nullable, nonatomic) MLStateConstraint *stateConstraint SC_ML_15;
@end

/* MLModelDescription.h */
SC_ML_10_13
@interface MLModelDescription : NSObject
@property (readonly, nonatomic) NSDictionary<NSString *, MLFeatureDescription *> *inputDescriptionsByName;
@property (readonly, nonatomic) NSDictionary<NSString *, MLFeatureDescription *> *outputDescriptionsByName;
@property (readonly, nonatomic) NSDictionary<NSString *, MLFeatureDescription *> *stateDescriptionsByName
    SC_ML_15;
@end

/* MLFeatureValue.h */
SC_ML_10_13
@interface MLFeatureValue : NSObject
@property (readonly, nullable, nonatomic) MLMultiArray *multiArrayValue;
+ (instancetype)featureValueWithMultiArray:(MLMultiArray *)value;
@end

/* MLFeatureProvider.h */
SC_ML_10_13
@protocol MLFeatureProvider
@property (readonly, nonatomic) NSSet<NSString *> *featureNames;
- (nullable MLFeatureValue *)featureValueForName:(NSString *)featureName;
@end

/* MLDictionaryFeatureProvider.h */
SC_ML_10_13
@interface MLDictionaryFeatureProvider : NSObject <MLFeatureProvider>
- (nullable instancetype)initWithDictionary:(NSDictionary<NSString *, id> *)dictionary
                                      error:(NSError **)error;
@end

/* MLComputeUnits.h */
typedef NS_ENUM(NSInteger, MLComputeUnits) {
  MLComputeUnitsCPUOnly = 0,
  MLComputeUnitsCPUAndGPU = 1,
  MLComputeUnitsAll = 2,
  MLComputeUnitsCPUAndNeuralEngine API_AVAILABLE(macos(13.0), ios(16.0), watchos(9.0), tvos(16.0)) = 3,
} SC_ML_10_14;

/* MLModelConfiguration.h */
SC_ML_10_14
@interface MLModelConfiguration : NSObject <NSCopying>
@property (readwrite) MLComputeUnits computeUnits;
@property (readwrite, nullable, copy, nonatomic) NSString *functionName SC_ML_15;
@end

/* MLPredictionOptions.h */
SC_ML_10_13
@interface MLPredictionOptions : NSObject
@end

/* MLState.h */
SC_ML_15
@interface MLState : NSObject
- (void)getMultiArrayForStateNamed:(NSString *)stateName
                           handler:(void (NS_NOESCAPE ^)(MLMultiArray *buffer))handler;
@end

/* MLModel.h */
SC_ML_10_13
@interface MLModel : NSObject
@property (readonly, nonatomic) MLModelDescription *modelDescription;
@property (readonly, nonatomic) MLModelConfiguration *configuration;
+ (nullable instancetype)modelWithContentsOfURL:(NSURL *)url
                                  configuration:(MLModelConfiguration *)configuration
                                          error:(NSError **)error;
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)input
                                                   error:(NSError **)error;
@end

/* MLModel+MLModelCompilation.h */
@interface MLModel (MLModelCompilation)
+ (void)compileModelAtURL:(NSURL *)modelURL
        completionHandler:(void (^)(NSURL *_Nullable compiledModelURL, NSError *_Nullable error))handler
    API_AVAILABLE(macos(13.0), ios(16.0), tvos(16.0));
@end

/* MLModel+MLState.h: per-method annotations, as Apple declares them */
@interface MLModel (MLState)
- (MLState *)newState SC_ML_15;
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)inputFeatures
                                              usingState:(MLState *)state
                                                   error:(NSError *__autoreleasing *)error SC_ML_15;
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)inputFeatures
                                              usingState:(MLState *)state
                                                 options:(MLPredictionOptions *)options
                                                   error:(NSError *__autoreleasing *)error SC_ML_15;
@end

NS_ASSUME_NONNULL_END
