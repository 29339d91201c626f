# Catch2 v2 (Debian 12: header-only, target Catch2::Catch2) and Catch2 v3 (Ubuntu 24.04: compiled,
# targets Catch2::Catch2 and Catch2::Catch2WithMain) both work. This file is the one CMake branch
# that tells them apart; common/tests/catch_compat.hpp is the one header that does.
#
# Every test executable uses our own main (common/tests/test_main.cpp), so that a `gpu` test can exit
# with LABS_SKIP_RETURN_CODE when no CUDA device is present; ctest then reports it SKIPPED.

set(LABS_SKIP_RETURN_CODE 77 CACHE INTERNAL "Exit code of a test that could not run (ctest: SKIPPED)")

if(Catch2_VERSION VERSION_GREATER_EQUAL 3)
  set(LABS_CATCH2_MAJOR 3)
else()
  set(LABS_CATCH2_MAJOR 2)
endif()
message(STATUS "labs: Catch2 ${Catch2_VERSION} (v${LABS_CATCH2_MAJOR} API)")

add_library(labs_catch2 INTERFACE)
target_link_libraries(labs_catch2 INTERFACE Catch2::Catch2)
target_compile_definitions(labs_catch2 INTERFACE LABS_CATCH2_MAJOR=${LABS_CATCH2_MAJOR})
target_include_directories(labs_catch2 INTERFACE "${PROJECT_SOURCE_DIR}/common/tests")

# labs_add_test(<name> SOURCES <files...> [LIBRARIES <targets...>] LABELS <cpu|gpu> [more labels...])
#   One executable, one ctest test. A test labelled `gpu` skips (exit LABS_SKIP_RETURN_CODE) when no
#   CUDA device answers; ctest shows it as skipped, never as passed. GPU tests never run two at once
#   (RESOURCE_LOCK labs_gpu): a second process on the GPU makes the grader's measurements INVALID.
function(labs_add_test name)
  labs_gpu_tests_alone_at_end()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBRARIES;LABELS;ARGS" ${ARGN})
  if(NOT ARG_LABELS)
    message(FATAL_ERROR "labs_add_test(${name}): LABELS cpu or gpu is required")
  endif()
  if("gpu" IN_LIST ARG_LABELS)
    set(main_lib labs_test_main_gpu)
  elseif("cpu" IN_LIST ARG_LABELS)
    set(main_lib labs_test_main_cpu)
  else()
    message(FATAL_ERROR "labs_add_test(${name}): LABELS must contain cpu or gpu")
  endif()
  labs_host_compiled_when_no_device_code(${ARG_SOURCES})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${main_lib} labs_catch2 ${ARG_LIBRARIES})
  labs_cuda_options(${name})
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
                       SKIP_RETURN_CODE ${LABS_SKIP_RETURN_CODE})
  if("gpu" IN_LIST ARG_LABELS)
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK labs_gpu)
  endif()
endfunction()

# labs_gpu_tests_alone_at_end()
#   The test presets run two tests at a time. At the end of the calling directory (called by labs_add_test and
#   labs_add_lab; once per directory is enough), every test of that directory labelled `gpu` or holding
#   RESOURCE_LOCK labs_gpu gets that lock (no two tests share the GPU) and, where a GPU was visible at configure time
#   (LABS_GPU_VISIBLE), RUN_SERIAL: nothing runs beside it, so that no compile on the next core disturbs the host
#   timings it grades. Without a GPU those tests skip, or grade the host side only, and may run beside others.
function(labs_gpu_tests_alone_at_end)
  get_property(deferred DIRECTORY PROPERTY LABS_GPU_TESTS_ALONE_DEFERRED)
  if(NOT deferred)
    set_property(DIRECTORY PROPERTY LABS_GPU_TESTS_ALONE_DEFERRED TRUE)
    cmake_language(DEFER CALL _labs_gpu_tests_alone_here)
  endif()
endfunction()

function(_labs_gpu_tests_alone_here)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} LABELS labels)
    get_test_property(${test} RESOURCE_LOCK locks)
    if(NOT locks)
      set(locks "")
    endif()
    if("gpu" IN_LIST labels OR "labs_gpu" IN_LIST locks)
      if(NOT "labs_gpu" IN_LIST locks)
        list(APPEND locks labs_gpu)
        set_tests_properties(${test} PROPERTIES RESOURCE_LOCK "${locks}")
      endif()
      if(LABS_GPU_VISIBLE)
        set_tests_properties(${test} PROPERTIES RUN_SERIAL TRUE)
      endif()
    endif()
  endforeach()
endfunction()
