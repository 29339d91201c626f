// The solution with one part replaced, for the known-bad versions in this folder. The including file names the
// part it gets wrong before it includes this one (WRONG_PREDICT: predict_residency, WRONG_CHASE: chase_kernel,
// WRONG_STREAM: streaming_kernel, WRONG_BOUNDS: tiled_bounded) and defines that part itself; every other part is
// solutions/02_occupancy/occupancy.cu's own, included here (the replaced one as solution_…, for a version to call).
// Its helpers are at hand too: copy_rounds<LOADS>(), the right grid-stride copy with LOADS loads in flight, for a
// streaming kernel that adds its defect around it. Not a file to learn from: solutions/02_occupancy/occupancy.cu is.
#pragma once

#include "occupancy.hpp"  // first, so that the interface keeps its names

#ifdef WRONG_PREDICT
#define predict_residency solution_predict_residency
#endif
#ifdef WRONG_CHASE
#define chase_kernel solution_chase_kernel
#endif
#ifdef WRONG_STREAM
#define streaming_kernel solution_streaming_kernel
#endif
#ifdef WRONG_BOUNDS
#define tiled_bounded solution_tiled_bounded
#endif
#include "../occupancy.cu"
#undef predict_residency
#undef chase_kernel
#undef streaming_kernel
#undef tiled_bounded
