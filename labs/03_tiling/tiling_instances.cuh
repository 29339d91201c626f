/**
 * @file tiling_instances.cuh
 * @brief Lab 03: the explicit instantiations of your v1 templates for the tiles the experiment sweeps, and of your
 * v4 for the steps of its ladder.
 *
 * FROZEN: do not edit, and do not include it: the build compiles it at the end of tiling.cu's
 * translation unit (labs_add_lab's APPEND_TO_EDIT), where launch_gemm_v1_tiles and gemm_v1_kernel_info
 * are defined, so that the checks and the benchmark can link against every tile of TILING_V1_TILES.
 */
#pragma once

#include "tiling.hpp"

/// @cond EXPLICIT_INSTANTIATIONS
TILING_V1_TILES(TILING_INSTANTIATE_V1_TILE)
TILING_V4_STEPS(TILING_INSTANTIATE_V4_STEP)
/// @endcond
