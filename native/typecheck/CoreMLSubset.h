/*
 * The subset of Core ML that native/src/mac uses, declared with Apple's exact class,
 * selector, property and enum names and signatures (macOS 15 SDK), for one purpose: a
 * clang + GNUstep `-fsyntax-only -fobjc-arc -Werror` check on Linux, where Core ML does
 * not exist. It catches wrong selectors, types, ARC and block-capture mistakes; it proves
 * nothing about runtime behaviour. Never compiled into the addon.
 */
#pragma once

#import <Foundation/Foundation.h>

#ifndef NS_NOESCAPE
#define NS_NOESCAPE __attribute__((noescape))
#endif
#ifndef API_AVAILABLE
#define API_AVAILABLE(...)
#endif
#ifndef API_DEPRECATED
#define API_DEPRECATED(...)
#endif

NS_ASSUME_NONNULL_BEGIN

/* MLMultiArray.h */
typedef NS_ENUM(NSInteger, MLMultiArrayDataType) {
  MLMultiArrayDataTypeDouble = 0x10000 | 64,
  MLMultiArrayDataTypeFloat64 = 0x10000 | 64,
  MLMultiArrayDataTypeFloat32 = 0x10000 | 32,
  MLMultiArrayDataTypeFloat16 = 0x10000 | 16,
  MLMultiArrayDataTypeFloat = 0x10000 | 32,
  MLMultiArrayDataTypeInt32 = 0x20000 | 32,
};

@interface MLMultiArray : NSObject
@property (readonly, nonatomic) MLMultiArrayDataType dataType;
@property (readonly, nonatomic) NSArray<NSNumber *> *shape;
@property (readonly, nonatomic) NSArray<NSNumber *> *strides;
@property (readonly, nonatomic) NSInteger count;
- (nullable instancetype)initWithShape:(NSArray<NSNumber *> *)shape
                              dataType:(MLMultiArrayDataType)dataType
                                 error:(NSError **)error;
- (void)getBytesWithHandler:(void (NS_NOESCAPE ^)(const void *bytes, NSInteger size))handler
    API_AVAILABLE(macos(12.3));
- (void)getMutableBytesWithHandler:(void (NS_NOESCAPE ^)(void *mutableBytes, NSInteger size,
                                                         NSArray<NSNumber *> *strides))handler
    API_AVAILABLE(macos(12.3));
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
  MLFeatureTypeState API_AVAILABLE(macos(15.0)) = 8,
};

/* MLMultiArrayShapeConstraint.h */
typedef NS_ENUM(NSInteger, MLMultiArrayShapeConstraintType) {
  MLMultiArrayShapeConstraintTypeUnspecified = 1,
  MLMultiArrayShapeConstraintTypeEnumerated = 2,
  MLMultiArrayShapeConstraintTypeRange = 3,
};

@interface MLMultiArrayShapeConstraint : NSObject
@property (readonly, nonatomic) MLMultiArrayShapeConstraintType type;
@property (readonly, nonatomic) NSArray<NSValue *> *sizeRangeForDimension;
@property (readonly, nonatomic) NSArray<NSArray<NSNumber *> *> *enumeratedShapes;
@end

/* MLMultiArrayConstraint.h */
@interface MLMultiArrayConstraint : NSObject
@property (readonly, nonatomic) NSArray<NSNumber *> *shape;
@property (readonly, nonatomic) MLMultiArrayDataType dataType;
@property (readonly, nonatomic) MLMultiArrayShapeConstraint *shapeConstraint;
@end

/* MLStateConstraint.h */
API_AVAILABLE(macos(15.0))
@interface MLStateConstraint : NSObject
@property (readonly, nonatomic) NSArray<NSNumber *> *bufferShape;
@property (readonly, nonatomic) MLMultiArrayDataType dataType;
@end

/* MLFeatureDescription.h */
@interface MLFeatureDescription : NSObject
@property (readonly, nonatomic, copy) NSString *name;
@property (readonly, nonatomic) MLFeatureType type;
@property (readonly, nonatomic, getter=isOptional) BOOL optional;
@property (readonly, nullable, nonatomic) MLMultiArrayConstraint *multiArrayConstraint;
@property (readonly, nullable, nonatomic) MLStateConstraint *stateConstraint API_AVAILABLE(macos(15.0));
@end

/* MLModelDescription.h */
@interface MLModelDescription : NSObject
@property (readonly, nonatomic) NSDictionary<NSString *, MLFeatureDescription *> *inputDescriptionsByName;
@property (readonly, nonatomic) NSDictionary<NSString *, MLFeatureDescription *> *outputDescriptionsByName;
@property (readonly, nonatomic) NSDictionary<NSString *, MLFeatureDescription *> *stateDescriptionsByName
    API_AVAILABLE(macos(15.0));
@end

/* MLFeatureValue.h */
@interface MLFeatureValue : NSObject
@property (readonly, nullable, nonatomic) MLMultiArray *multiArrayValue;
+ (instancetype)featureValueWithMultiArray:(MLMultiArray *)value;
@end

/* MLFeatureProvider.h */
@protocol MLFeatureProvider
@property (readonly, nonatomic) NSSet<NSString *> *featureNames;
- (nullable MLFeatureValue *)featureValueForName:(NSString *)featureName;
@end

/* MLDictionaryFeatureProvider.h */
@interface MLDictionaryFeatureProvider : NSObject <MLFeatureProvider>
- (nullable instancetype)initWithDictionary:(NSDictionary<NSString *, id> *)dictionary
                                      error:(NSError **)error;
@end

/* MLComputeUnits.h */
typedef NS_ENUM(NSInteger, MLComputeUnits) {
  MLComputeUnitsCPUOnly = 0,
  MLComputeUnitsCPUAndGPU = 1,
  MLComputeUnitsAll = 2,
  MLComputeUnitsCPUAndNeuralEngine API_AVAILABLE(macos(13.0)) = 3,
};

/* MLModelConfiguration.h */
@interface MLModelConfiguration : NSObject <NSCopying>
@property (readwrite) MLComputeUnits computeUnits;
@property (readwrite, nullable, copy, nonatomic) NSString *functionName API_AVAILABLE(macos(15.0));
@end

/* MLPredictionOptions.h */
@interface MLPredictionOptions : NSObject
@end

/* MLState.h */
API_AVAILABLE(macos(15.0))
@interface MLState : NSObject
- (void)getMultiArrayForStateNamed:(NSString *)stateName
                           handler:(void (NS_NOESCAPE ^)(MLMultiArray *buffer))handler;
@end

/* MLModel.h */
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
    API_AVAILABLE(macos(13.0));
@end

/* MLModel+MLState.h */
API_AVAILABLE(macos(15.0))
@interface MLModel (MLState)
- (MLState *)newState;
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)inputFeatures
                                              usingState:(MLState *)state
                                                   error:(NSError *__autoreleasing *)error;
- (nullable id<MLFeatureProvider>)predictionFromFeatures:(id<MLFeatureProvider>)inputFeatures
                                              usingState:(MLState *)state
                                                 options:(MLPredictionOptions *)options
                                                   error:(NSError *__autoreleasing *)error;
@end

NS_ASSUME_NONNULL_END
