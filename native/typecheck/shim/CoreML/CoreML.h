/* Linux type-check only: <CoreML/CoreML.h> resolves to the declared subset. */
#import "../../CoreMLSubset.h"
