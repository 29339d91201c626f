# labs_models: the chapter's worked examples as host-only models (plain C++20, no CUDA), and the
# calculator registry behind `grader calc`. Included from common/CMakeLists.txt.

add_library(labs_models
  src/models/units.cpp
  src/models/datasets.cpp
  src/models/roofline.cpp
  src/models/occupancy.cpp
  src/models/tiling.cpp
  src/models/banks.cpp
  src/models/fusion.cpp
  src/models/pipeline.cpp
  src/models/attention.cpp
  src/models/launch.cpp
  src/models/shapes.cpp
  src/models/request.cpp
  src/models/reduction.cpp
  src/models/calc.cpp
  src/models/calc_models.cpp)
add_library(labs::models ALIAS labs_models)
target_include_directories(labs_models PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_link_libraries(labs_models
  PUBLIC nlohmann_json::nlohmann_json
  PRIVATE tomlplusplus::tomlplusplus)
target_compile_features(labs_models PUBLIC cxx_std_20)
target_compile_options(labs_models PRIVATE -Wall -Wextra)
# Where the device and model datasets live; $LABS_DATASETS_DIR overrides it at run time.
target_compile_definitions(labs_models PRIVATE LABS_DATASETS_DIR="${PROJECT_SOURCE_DIR}/datasets")

if(LABS_BUILD_TESTS)
  labs_add_test(models_tests LABELS cpu
    SOURCES tests/models/datasets_test.cpp tests/models/occupancy_test.cpp tests/models/tiling_test.cpp
            tests/models/banks_test.cpp tests/models/fusion_test.cpp tests/models/pipeline_test.cpp
            tests/models/attention_test.cpp tests/models/launch_test.cpp tests/models/shapes_test.cpp
            tests/models/request_test.cpp tests/models/reduction_test.cpp tests/models/calc_test.cpp
    LIBRARIES labs_models)
  # The GPU tests of the models: occupancy against the CUDA runtime, event waits against the hardware.
  labs_add_test(models_gpu_tests LABELS gpu
    SOURCES tests/models/occupancy_gpu_test.cu tests/models/events_gpu_test.cu
    LIBRARIES labs_models labs_common labs_occupancy_probe)
endif()
