# Compile options shared by every target of the project that contains device code.
# Included once by the top-level CMakeLists.txt.

# labs_cuda_options(<target>)
#   -lineinfo (default) or -G (LABS_CUDA_DEBUG=ON) for device code, warnings for host code.
function(labs_cuda_options target)
  if(LABS_CUDA_DEBUG)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-G>)
  else()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall>)
endfunction()

# labs_host_compiled_when_no_device_code(<file>...): each .cu file with no device code of its own (no __global__,
# __device__, __shared__ or __constant__ and no <<<, outside // comments and string literals; no .cuh included) is
# compiled by the host compiler. Such files (most checks.cu and bench.cu: they call launchers defined elsewhere)
# gain nothing from nvcc, which would parse them three times more (cudafe++, then cicc once per architecture)
# to generate no device code: g++ compiles lab 01's checks in a fifth of nvcc's time. A file that does have
# device code stays CUDA; one hidden behind a macro would fail to compile under g++, not slip through.
function(labs_host_compiled_when_no_device_code)
  foreach(file IN LISTS ARGN)
    if(NOT file MATCHES "\\.cu$")
      continue()
    endif()
    file(READ "${file}" text)
    if(text MATCHES "#include[ \t]*[<\"][^>\"]*\\.cuh[>\"]")
      continue()
    endif()
    string(REGEX REPLACE "//[^\n]*" "" text "${text}")
    string(REGEX REPLACE "\"([^\"\\\\\n]|\\\\.)*\"" "\"\"" text "${text}")
    if(NOT text MATCHES "__global__|__device__|__shared__|__constant__|<<<")
      set_source_files_properties("${file}" PROPERTIES LANGUAGE CXX)
    endif()
  endforeach()
endfunction()

# labs_sm90a(<target>...): the targets' device code is compiled for sm_90a — Hopper's architecture-specific
# instructions (wgmma, setmaxnreg; labs/hopper.cuh) — wherever the build targets compute capability 9.0: each 90 of the
# build's CUDA architectures becomes 90a-real (the code an H100 or H200 runs) and, where the build embeds PTX for 90,
# 90-virtual stays (what a later GPU compiles, without those instructions: gpulab::sm90a_unavailable() says so there).
# `native` is resolved first (CMAKE_CUDA_ARCHITECTURES_NATIVE, else the GPU nvidia-smi saw at configure time).
# LABS_SM90A=1 tells the code that it was compiled so; a build without 90 gets LABS_SM90A=0 and no change.
function(labs_sm90a)
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(archs STREQUAL "native")
    if(CMAKE_CUDA_ARCHITECTURES_NATIVE)
      set(archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
    elseif(_labs_smi_out MATCHES "^([0-9]+)\\.([0-9]+)")
      set(archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}-real")
    endif()
  endif()
  set(mapped "")
  set(sm90a 0)
  foreach(a IN LISTS archs)
    if(a STREQUAL "90")
      list(APPEND mapped 90a-real 90-virtual)
      set(sm90a 1)
    elseif(a STREQUAL "90-real")
      list(APPEND mapped 90a-real)
      set(sm90a 1)
    else()
      list(APPEND mapped "${a}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES mapped)
  foreach(target IN LISTS ARGN)
    if(sm90a)
      set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES "${mapped}")
    endif()
    target_compile_definitions(${target} PRIVATE LABS_SM90A=${sm90a})
  endforeach()
endfunction()
