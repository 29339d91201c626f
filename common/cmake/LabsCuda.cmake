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
