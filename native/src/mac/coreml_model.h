// The Core ML implementation of StatefulModel: one MLModel per engine (shared by every
// panel's session), one MLState per session. Deliberately thin: it only moves bytes in and
// out of MLMultiArrays; masks, chunking and sampling happen in src/core.
#pragma once

#import <CoreML/CoreML.h>

#include <string>
#include <vector>

#include "../core/stateful_model.h"

NS_ASSUME_NONNULL_BEGIN

namespace statefulchat {

class CoreMLModel : public StatefulModel {
 public:
  // `decode` may be nil: the default (or prefill) function then serves q == 1 too.
  CoreMLModel(MLModel* prefill, MLModel* _Nullable decode, std::string details);
  const ModelIO& io() const override { return io_; }
  const ModelIO& IOFor(int64_t q) const override { return decode_ != nil && q == 1 ? decodeIO_ : io_; }
  std::unique_ptr<ModelState> NewState() override;
  void Predict(ModelState& state, const PredictInput& input, const LogitsCallback& onLogits) override;
  std::string Details() const override { return details_; }
  std::vector<FeatureDescription> StateDescriptions() const override { return states_; }
  void ReadState(ModelState& state, const std::string& name, const StateReader& read) override;
  void WriteState(ModelState& state, const std::string& name, const StateWriter& write) override;

 private:
  MLModel* prefill_;
  MLModel* _Nullable decode_;
  ModelIO io_;
  ModelIO decodeIO_;
  std::vector<FeatureDescription> states_;  // stateDescriptionsByName, sorted by name
  std::string details_;
};

}  // namespace statefulchat

NS_ASSUME_NONNULL_END
