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
