//===- Target.cpp - Where tile-run runs kernels ---------------------------===//

#include "tile/Runner/Target.h"

using namespace tile::runner;

// Anchors the vtable here.
Target::~Target() = default;
