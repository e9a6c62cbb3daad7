/* GNUstep's headers expect libobjc2's blocks header; Debian ships the same declarations
   as libblocksruntime's <Block.h>. Used only by the Linux type-check. */
#include <Block.h>
