# labs_add_lab(): one call per lab folder builds everything the lab needs and registers its tests.
#
#   labs_add_lab(<NN_name>
#     TITLE        "<one line>"
#     EDIT         <files the student edits; the reference versions live in solutions/<NN_name>/>
#     SOURCES      <frozen sources linked with either implementation (baseline, helpers)>
#     CHECKS       <checks.cu: defines register_checks()>
#     ANSWER_KEY   <answer_key.cpp: defines register_answers(); host only>
#     CODE_POINTS  <points of the code checks; must equal what checks.cu declares>
#     [BENCH       <bench.cu: Google Benchmark experiment>]
#     [LIBRARIES   <extra libraries for the checks and the benchmark>])
#
# Targets, for lab NN:
#   labNN_answers          grades answers.toml against the answer key (no CUDA)
#   labNN_checks_student   correctness/performance checks on the student's code (not in `all`: the grader
#                          builds it itself so that a compile error is reported, not fatal)
#   labNN_checks_solution  the same on the reference solution (LABS_BUILD_SOLUTIONS)
#   labNN_bench[_solution] the experiment on the student's code [on the solution]
# Tests: reference answers full (cpu), template answers zero (cpu), reference code full (gpu),
# untouched template code zero without crashing (gpu).

add_custom_target(labs_student_all)
set_property(GLOBAL PROPERTY LABS_REGISTRY_ENTRIES "")

function(labs_add_lab folder)
  cmake_parse_arguments(ARG "" "TITLE;CODE_POINTS;CHECKS;ANSWER_KEY;BENCH" "EDIT;SOURCES;LIBRARIES" ${ARGN})
  if(NOT folder MATCHES "^([0-9][0-9])_(.+)$")
    message(FATAL_ERROR "labs_add_lab: folder '${folder}' must look like NN_name")
  endif()
  set(id "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  foreach(required TITLE CODE_POINTS CHECKS ANSWER_KEY EDIT)
    if(NOT ARG_${required})
      message(FATAL_ERROR "labs_add_lab(${folder}): ${required} is required")
    endif()
  endforeach()
  set(lab_dir "${PROJECT_SOURCE_DIR}/labs/${folder}")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${folder}")
  set(p lab${id})

  # Answers: host only.
  add_executable(${p}_answers ${ARG_ANSWER_KEY})
  target_link_libraries(${p}_answers PRIVATE labs_grader_answers_main labs_models)
  target_include_directories(${p}_answers PRIVATE "${lab_dir}")

  # Code checks, once per implementation.
  set(variants student)
  if(LABS_BUILD_SOLUTIONS AND EXISTS "${solution_dir}")
    list(APPEND variants solution)
  endif()
  foreach(variant IN LISTS variants)
    if(variant STREQUAL "student")
      set(impl_dir "${lab_dir}")
    else()
      set(impl_dir "${solution_dir}")
    endif()
    set(impl "")
    foreach(f IN LISTS ARG_EDIT)
      list(APPEND impl "${impl_dir}/${f}")
    endforeach()
    add_library(${p}_impl_${variant} STATIC ${impl} ${ARG_SOURCES})
    target_include_directories(${p}_impl_${variant} PUBLIC "${lab_dir}")
    target_link_libraries(${p}_impl_${variant} PUBLIC labs_common ${ARG_LIBRARIES})
    labs_cuda_options(${p}_impl_${variant})

    add_executable(${p}_checks_${variant} ${ARG_CHECKS})
    target_link_libraries(${p}_checks_${variant} PRIVATE ${p}_impl_${variant} labs_grader_code_main labs_models)
    labs_cuda_options(${p}_checks_${variant})

    if(ARG_BENCH AND LABS_BUILD_BENCHMARKS)
      if(variant STREQUAL "student")
        set(bench ${p}_bench)
      else()
        set(bench ${p}_bench_solution)
      endif()
      add_executable(${bench} ${ARG_BENCH})
      target_link_libraries(${bench} PRIVATE ${p}_impl_${variant} labs_models benchmark::benchmark)
      labs_cuda_options(${bench})
    endif()
  endforeach()
  # The student's code stays out of `all`: a compile error there must not stop the other labs.
  set_target_properties(${p}_impl_student ${p}_checks_student PROPERTIES EXCLUDE_FROM_ALL TRUE)
  add_dependencies(labs_student_all ${p}_checks_student)
  if(TARGET ${p}_bench)
    set_target_properties(${p}_bench PROPERTIES EXCLUDE_FROM_ALL TRUE)
    add_dependencies(labs_student_all ${p}_bench)
  endif()

  # Registry entry for the grader (generator expressions resolve the executables' paths).
  set(build "\"${CMAKE_COMMAND}\", \"--build\", \"${PROJECT_BINARY_DIR}\", \"--target\"")
  set(edit_json "")
  foreach(f IN LISTS ARG_EDIT)
    list(APPEND edit_json "\"labs/${folder}/${f}\"")
  endforeach()
  list(JOIN edit_json ", " edit_json)
  set(entry "{\"id\": \"${id}\", \"name\": \"${name}\", \"title\": \"${ARG_TITLE}\", \"dir\": \"labs/${folder}\",
    \"answers_student\": \"${lab_dir}/answers.toml\",
    \"runner_answers\": [\"$<TARGET_FILE:${p}_answers>\"], \"build_answers\": [${build}, \"${p}_answers\"],
    \"runner_student\": [\"$<TARGET_FILE:${p}_checks_student>\"], \"build_student\": [${build}, \"${p}_checks_student\"],")
  if("solution" IN_LIST variants)
    string(APPEND entry "
    \"answers_solution\": \"${solution_dir}/answers.toml\",
    \"runner_solution\": [\"$<TARGET_FILE:${p}_checks_solution>\"], \"build_solution\": [${build}, \"${p}_checks_solution\"],")
  endif()
  string(APPEND entry "
    \"code_points\": ${ARG_CODE_POINTS}, \"student_files\": [${edit_json}]}")
  set_property(GLOBAL APPEND PROPERTY LABS_REGISTRY_ENTRIES "${entry}")

  if(LABS_BUILD_TESTS)
    set(grader_cmd $<TARGET_FILE:grader> --no-build --no-color --no-ceilings ${id})
    set(untouched "${PROJECT_SOURCE_DIR}/grader/scripts/if-untouched.sh" "${PROJECT_SOURCE_DIR}")
    set(edit_paths "")
    foreach(f IN LISTS ARG_EDIT)
      list(APPEND edit_paths "labs/${folder}/${f}")
    endforeach()
    if("solution" IN_LIST variants)
      add_test(NAME ${p}_solution_answers_full COMMAND ${grader_cmd} --solution --only answers --expect full)
      set_tests_properties(${p}_solution_answers_full PROPERTIES LABELS "cpu;lab${id}")
      add_test(NAME ${p}_solution_code_full COMMAND ${grader_cmd} --solution --only code --expect full)
      set_tests_properties(${p}_solution_code_full PROPERTIES LABELS "gpu;lab${id}")
    endif()
    add_test(NAME ${p}_template_answers_zero
             COMMAND ${untouched} "labs/${folder}/answers.toml" -- ${grader_cmd} --only answers --expect zero)
    set_tests_properties(${p}_template_answers_zero PROPERTIES LABELS "cpu;lab${id}")
    add_test(NAME ${p}_template_code_zero
             COMMAND ${untouched} ${edit_paths} -- ${grader_cmd} --only code --expect zero)
    set_tests_properties(${p}_template_code_zero PROPERTIES LABELS "gpu;lab${id}")
    foreach(t ${p}_solution_answers_full ${p}_solution_code_full ${p}_template_answers_zero ${p}_template_code_zero)
      if(TEST ${t})
        set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE ${LABS_SKIP_RETURN_CODE} TIMEOUT 900)
      endif()
    endforeach()
  endif()
endfunction()

# Writes the registry the grader reads: build/labs.json. Call once, after every labs_add_lab().
function(labs_write_registry)
  get_property(entries GLOBAL PROPERTY LABS_REGISTRY_ENTRIES)
  list(JOIN entries ",\n  " joined)
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/labs.json" CONTENT "{
  \"source_dir\": \"${PROJECT_SOURCE_DIR}\",
  \"ceilings_command\": [\"$<TARGET_FILE:labs_ceilings>\", \"--json\"],
  \"labs\": [
  ${joined}
  ]
}
")
endfunction()
