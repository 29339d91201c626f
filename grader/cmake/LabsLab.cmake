# labs_add_lab(): one call per lab folder builds everything the lab needs and registers its tests.
#
#   labs_add_lab(<NN_name>
#     TITLE        "<one line>"
#     EDIT         <files the student edits; the solution's versions live in solutions/<NN_name>/>
#     CODE_POINTS  <points of the code checks; must equal what checks.cu declares>
#     [SOURCES     <frozen sources linked with every implementation; default: baseline.cu if present>]
#     [CHECKS      <defines register_checks(); default: checks.cu, and checks_kernels.cu if present (the
#                  grader's own kernels: a checks.cu without device code is compiled by the host compiler)>]
#     [ANSWER_KEY  <defines register_answers(), host only; default: answer_key.cpp>]
#     [BENCH       <Google Benchmark experiment; default: bench.cu if present>]
#     [APPEND_TO_EDIT <a frozen file compiled at the end of each editable .cu translation unit, e.g. the
#                  explicit instantiations of the student's templates, so that the student's file holds
#                  nothing that exists only for the build>]
#     [WRONG       <known-bad versions of the editable file, in solutions/<NN_name>/; default: wrong/*.cu and
#                  wrong/*.cpp>]
#     [EXPECT      <what the grader must say of each, in solutions/<NN_name>/; default: wrong/expect.json>]
#     [WRONG_TIMEOUT <seconds each known-bad version may run; default 120>]
#     [LIBRARIES   <extra libraries for the implementations, the checks and the benchmark>]
#     [DENY        <the code policy's additions: regexes over demangled symbol names the student's
#                  object may not call, e.g. the lab's given implementations (a plain name matches that
#                  function); "pattern -- why" gives the reason the report shows instead of "a given
#                  implementation of this lab">]
#     [ALLOW       <exceptions to the default policy (grader/include/grader/policy.hpp), e.g. "^nvrtc">]
#     [SM90A       the editable files, the lab's given sources, its checks and its benchmark are compiled for
#                  sm_90a wherever the build targets 9.0 (labs_sm90a: wgmma and TMA for a Hopper part)]
#     [CALCULATORS <the `grader calc` models that can answer this lab's questions: their results are hidden
#                  when they equal one of its keys; without the list, every calculator's are>])
#
# Vocabulary: an *implementation* is whose code is graded — the student's (labs/NN/), the solution
# (solutions/NN/) or one of the lab's known-bad versions (solutions/NN/wrong/: like the solution, nothing a
# student receives); a *variant* is a version of a kernel within a lab (v1, v2, fused, ...).
#
# Targets, for lab NN:
#   labNN_answers          grades answers.toml against the answer key (no CUDA)
#   labNN_checks_student   correctness/performance checks on the student's code (not in `all`: the grader
#                          builds it itself so that a compile error is reported, not fatal)
#   labNN_checks_solution  the same on the solution (LABS_BUILD_SOLUTIONS)
#   labNN_checks_submission, labNN_checks_batchK   the same on a submission staged by `grader --submission`,
#                          and by worker K of `grader batch` (not in `all`: the grader builds them)
#   labNN_checks_wrong_X   the same on solutions/NN/wrong/X.cu (LABS_BUILD_TESTS and LABS_BUILD_SOLUTIONS)
#   labNN_bench[_solution] the experiment on the student's code [on the solution]
# Tests: the solution's answers full (cpu), template answers zero (cpu), the solution's code full (gpu), untouched
# template code zero without crashing (gpu), and every known-bad version graded as wrong/expect.json says
# (labNN_wrong: gpu; labNN_wrong_cpu for the versions whose verdict needs no GPU — they must not build,
# or the code policy stops them — marked "build": "fails" or "cpu": true).

add_custom_target(labs_student_all)
# What a student's course needs built before `grader` runs (the README's main command, the `default` build preset):
# the grader, each lab's answer key and the benchmarks the handouts name. The rest (the student's checks, the
# solutions, the known-bad versions, the batch slots, the tests) is built on demand by the grader or by the
# `instructor` and `test` presets.
add_custom_target(labs_course)
# What only instructors run, out of `all` and of the test preset (the `instructor` preset builds it; CI compiles it
# after the tests): each lab's known-bad versions graded on a GPU (their labNN_wrong test builds them where a GPU
# answers) and the solutions' benchmarks (the handouts' figures).
add_custom_target(labs_instructor_all)
set_property(GLOBAL PROPERTY LABS_REGISTRY_ENTRIES "")


# _labs_json_quote(<out> <string>): <string> as a JSON string literal (quotes, backslashes, control
# characters escaped), so that any title or path makes valid JSON.
function(_labs_json_quote out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# _labs_json_list(<out> <items...>): a JSON array of strings.
function(_labs_json_list out)
  set(items "")
  foreach(item IN LISTS ARGN)
    _labs_json_quote(q "${item}")
    list(APPEND items "${q}")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# _labs_json_set(<json-var> <key> <json-value>): sets a member; string(JSON) checks that the value parses. A
# function, not a macro: a macro would substitute the value into its body and undo the escaping of any
# backslash in it (a DENY or ALLOW regex like "syscall\\.h").
function(_labs_json_set var key value)
  string(JSON result SET "${${var}}" "${key}" "${value}")
  set(${var} "${result}" PARENT_SCOPE)
endfunction()

# What every registry tells the grader about the build: where it is, and (with Ninja) how to list the
# headers an object's source included, for the code policy.
if(CMAKE_GENERATOR MATCHES "Ninja")
  _labs_json_list(_labs_deps "${CMAKE_MAKE_PROGRAM}" -C "${PROJECT_BINARY_DIR}" -t deps)
else()
  set(_labs_deps "[]")
endif()
_labs_json_quote(_labs_build_dir "${PROJECT_BINARY_DIR}")
set(_labs_registry_tools "\"build_dir\": ${_labs_build_dir}, \"deps_command\": ${_labs_deps}")

# _labs_implementation(<prefix> <name> <edit files...>): the implementation library <prefix>_impl_<name>
# (the given editable files, linked with the lab's frozen sources <prefix>_given) and its checks runner
# <prefix>_checks_<name>. Uses lab_dir, ARG_LIBRARIES, ARG_APPEND_TO_EDIT of the caller.
function(_labs_implementation p name)
  set(sources "")
  foreach(f IN LISTS ARGN)
    if(ARG_APPEND_TO_EDIT AND f MATCHES "\\.cu$")
      # One translation unit: the editable file, then the frozen tail (e.g. explicit instantiations).
      get_filename_component(base "${f}" NAME)
      set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/${name}/${base}")
      file(CONFIGURE OUTPUT "${wrapper}" CONTENT
           "// Generated by labs_add_lab: ${f}, then the lab's frozen ${ARG_APPEND_TO_EDIT}.\n#include \"${f}\"\n#include \"${lab_dir}/${ARG_APPEND_TO_EDIT}\"\n")
      list(APPEND sources "${wrapper}")
    else()
      list(APPEND sources "${f}")
    endif()
  endforeach()
  add_library(${p}_impl_${name} STATIC ${sources})
  target_include_directories(${p}_impl_${name} PUBLIC "${lab_dir}")
  target_link_libraries(${p}_impl_${name} PUBLIC ${p}_given labs_common ${ARG_LIBRARIES})
  labs_cuda_options(${p}_impl_${name})
  if(ARG_SM90A)
    labs_sm90a(${p}_impl_${name})
  endif()
  # The graded code is compiled as written, never through the compiler cache (LABS_COMPILER_CACHE): its compile
  # errors name its files by their full paths, and no object of it comes from anywhere but its own compile.
  set_target_properties(${p}_impl_${name} PROPERTIES CXX_COMPILER_LAUNCHER "" CUDA_COMPILER_LAUNCHER "")
  # The graded module: the implementation (all of it: what the policy scanned is what runs), the lab's given
  # code and its checks. The runner beside it loads it only once its sandbox and observer are in place.
  add_library(${p}_module_${name} MODULE)
  target_link_libraries(${p}_module_${name} PRIVATE ${p}_checks_obj "$<LINK_LIBRARY:WHOLE_ARCHIVE,${p}_impl_${name}>"
                        labs_grader_gpu labs_models ${ARG_LIBRARIES})
  set_target_properties(${p}_module_${name} PROPERTIES LINKER_LANGUAGE CUDA PREFIX "" SUFFIX ".graded.so"
                        OUTPUT_NAME "${p}_checks_${name}")
  # Every symbol resolved at link time, as for an executable: a renamed launcher is a link error the grader reports
  # ("compiled but did not link"), not a module that fails to load.
  target_link_options(${p}_module_${name} PRIVATE "LINKER:--no-undefined")
  labs_cuda_options(${p}_module_${name})
  # The runner: the grader's program alone.
  add_executable(${p}_checks_${name})
  target_link_libraries(${p}_checks_${name} PRIVATE labs_grader_code_main)
  add_dependencies(${p}_checks_${name} ${p}_module_${name})
  labs_cuda_options(${p}_checks_${name})
endfunction()

# _labs_staged_implementation(<prefix> <name> <dir>): the implementation <name> built from copies of the
# editable files in <dir>, where the grader stages a submission's (until then, the templates; answers.toml
# is staged there too). Out of `all`: the grader builds it. Uses lab_dir and ARG_EDIT of the caller.
function(_labs_staged_implementation p name dir)
  set(edit "")
  file(MAKE_DIRECTORY "${dir}")
  foreach(f IN LISTS ARG_EDIT ITEMS answers.toml)
    if(NOT EXISTS "${dir}/${f}")
      file(COPY_FILE "${lab_dir}/${f}" "${dir}/${f}")
    endif()
    if(NOT f STREQUAL "answers.toml")
      list(APPEND edit "${dir}/${f}")
    endif()
  endforeach()
  _labs_implementation(${p} ${name} ${edit})
  set_target_properties(${p}_impl_${name} ${p}_module_${name} ${p}_checks_${name} PROPERTIES EXCLUDE_FROM_ALL TRUE)
endfunction()

# _labs_members(<out> <p> <impl> <as>): the registry members of implementation <impl> under the name
# <as>: runner_<as> (its checks runner), build_<as> (the command that builds it) and objects_<as> (its
# compiled objects, for the code policy: one string, "\n"-separated, since the list is known only when the
# build is generated).
function(_labs_members out p impl as)
  _labs_json_list(runner "$<TARGET_FILE:${p}_checks_${impl}>")
  _labs_json_list(build "${CMAKE_COMMAND}" --build "${PROJECT_BINARY_DIR}" --target ${p}_checks_${impl})
  set(${out} runner_${as} "${runner}" build_${as} "${build}"
             objects_${as} "\"$<JOIN:$<TARGET_OBJECTS:${p}_impl_${impl}>,\\n>\"" PARENT_SCOPE)
endfunction()

# _labs_registry_entry(<out> id name title dir code_points [members as key json ...])
function(_labs_registry_entry out id name title dir code_points)
  set(e "{}")
  foreach(member id name title dir)
    _labs_json_quote(q "${${member}}")
    _labs_json_set(e ${member} "${q}")
  endforeach()
  _labs_json_set(e code_points "${code_points}")
  set(rest ${ARGN})
  while(rest)
    list(POP_FRONT rest key value)
    _labs_json_set(e "${key}" "${value}")
  endwhile()
  # Entries travel in CMake lists: a ';' (only ever inside a JSON string) is written as \u003b.
  string(REPLACE ";" "\\u003b" e "${e}")
  set(${out} "${e}" PARENT_SCOPE)
endfunction()

function(labs_add_lab folder)
  cmake_parse_arguments(ARG "SM90A" "TITLE;CODE_POINTS;ANSWER_KEY;BENCH;APPEND_TO_EDIT;EXPECT;WRONG_TIMEOUT"
                        "EDIT;SOURCES;CHECKS;LIBRARIES;WRONG;DENY;ALLOW;CALCULATORS" ${ARGN})
  if(COMMAND labs_gpu_tests_alone_at_end)
    labs_gpu_tests_alone_at_end()  # the lab's GPU tests run alone where a GPU is visible (LabsTesting.cmake)
  endif()
  if(NOT folder MATCHES "^([0-9][0-9])_(.+)$")
    message(FATAL_ERROR "labs_add_lab: folder '${folder}' must look like NN_name")
  endif()
  set(id "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  foreach(required TITLE CODE_POINTS EDIT)
    if(NOT ARG_${required})
      message(FATAL_ERROR "labs_add_lab(${folder}): ${required} is required")
    endif()
  endforeach()
  set(lab_dir "${PROJECT_SOURCE_DIR}/labs/${folder}")
  # The grader's table and the handout name the lab alike: "# Lab NN — TITLE {#labNN}" heads the README.
  if(EXISTS "${lab_dir}/README.md")
    file(STRINGS "${lab_dir}/README.md" heading LIMIT_COUNT 1 ENCODING UTF-8)
    if(NOT heading STREQUAL "# Lab ${id} — ${ARG_TITLE} {#lab${id}}")
      message(FATAL_ERROR "labs_add_lab(${folder}): TITLE \"${ARG_TITLE}\" differs from the handout's heading "
                          "\"${heading}\" (it must read: # Lab ${id} — ${ARG_TITLE} {#lab${id}})")
    endif()
  endif()
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${folder}")
  set(p lab${id})
  # The lab's usual file names are the defaults.
  if(NOT ARG_CHECKS)
    set(ARG_CHECKS checks.cu)
    if(EXISTS "${lab_dir}/checks_kernels.cu")  # the grader's own kernels, beside host-only checks
      list(APPEND ARG_CHECKS checks_kernels.cu)
      # Their entry points are global (checks.cu calls them from another object): the graded code may not.
      list(APPEND ARG_DENY "^lab${id}_ -- the grader's own kernels (checks_kernels.cu)")
    endif()
  endif()
  list(TRANSFORM ARG_CHECKS PREPEND "${lab_dir}/")
  if(NOT ARG_ANSWER_KEY)
    set(ARG_ANSWER_KEY answer_key.cpp)
  endif()
  if(NOT DEFINED ARG_SOURCES AND EXISTS "${lab_dir}/baseline.cu")
    set(ARG_SOURCES baseline.cu)
  endif()
  if(NOT ARG_BENCH AND EXISTS "${lab_dir}/bench.cu")
    set(ARG_BENCH bench.cu)
  endif()
  # The known-bad versions live beside the solution, and are built with it.
  if(NOT LABS_BUILD_SOLUTIONS OR NOT EXISTS "${solution_dir}")
    set(ARG_WRONG "")
  elseif(NOT DEFINED ARG_WRONG)
    file(GLOB ARG_WRONG CONFIGURE_DEPENDS RELATIVE "${solution_dir}" "${solution_dir}/wrong/*.cu" "${solution_dir}/wrong/*.cpp")
  endif()
  if(NOT ARG_EXPECT)
    set(ARG_EXPECT wrong/expect.json)
  endif()
  if(NOT ARG_WRONG_TIMEOUT)
    set(ARG_WRONG_TIMEOUT 120)
  endif()
  list(TRANSFORM ARG_SOURCES PREPEND "${lab_dir}/")

  # Answers: host only.
  add_executable(${p}_answers "${lab_dir}/${ARG_ANSWER_KEY}")
  add_dependencies(labs_course ${p}_answers)
  target_link_libraries(${p}_answers PRIVATE labs_grader_answers_main labs_models)
  target_include_directories(${p}_answers PRIVATE "${lab_dir}")

  # The lab's frozen sources (baseline, helpers) and its checks are compiled once and linked with each
  # implementation.
  if(ARG_SOURCES)
    add_library(${p}_given STATIC ${ARG_SOURCES})
    target_include_directories(${p}_given PUBLIC "${lab_dir}")
    target_link_libraries(${p}_given PUBLIC labs_common ${ARG_LIBRARIES})
    labs_cuda_options(${p}_given)
    if(ARG_SM90A)
      labs_sm90a(${p}_given)
    endif()
  else()
    add_library(${p}_given INTERFACE)
  endif()

  # The checks are compiled once and linked with each implementation.
  labs_host_compiled_when_no_device_code(${ARG_CHECKS})
  add_library(${p}_checks_obj OBJECT ${ARG_CHECKS})
  add_dependencies(labs_course ${p}_checks_obj)  # course code: compiled with the rest, not lab by lab by the grader
  target_include_directories(${p}_checks_obj PRIVATE "${lab_dir}")
  target_link_libraries(${p}_checks_obj PRIVATE labs_grader_gpu labs_models ${ARG_LIBRARIES})
  labs_cuda_options(${p}_checks_obj)
  if(ARG_SM90A)
    labs_sm90a(${p}_checks_obj)
  endif()

  set(edit_student "")
  set(edit_solution "")
  set(student_files "")
  foreach(f IN LISTS ARG_EDIT)
    list(APPEND edit_student "${lab_dir}/${f}")
    list(APPEND edit_solution "${solution_dir}/${f}")
    list(APPEND student_files "labs/${folder}/${f}")
  endforeach()
  set(implementations student)
  _labs_implementation(${p} student ${edit_student})
  if(LABS_BUILD_SOLUTIONS AND EXISTS "${solution_dir}")
    _labs_implementation(${p} solution ${edit_solution})
    list(APPEND implementations solution)
  endif()
  # The student's code stays out of `all`: a compile error there must not stop the other labs.
  set_target_properties(${p}_impl_student ${p}_module_student ${p}_checks_student PROPERTIES EXCLUDE_FROM_ALL TRUE)
  add_dependencies(labs_student_all ${p}_checks_student)

  # A submission graded by `grader --submission`: the grader copies only its editable files into
  # build/submission/labs/<NN_name>/ and builds this implementation from there, with the course's own
  # checks, headers and baseline. Until then the copies are the templates.
  set(submission_dir "${PROJECT_BINARY_DIR}/submission/labs/${folder}")
  _labs_staged_implementation(${p} submission "${submission_dir}")

  # `grader batch` grades several submissions at once: each worker stages into a slot of its own
  # (build/batch-slots/<K>/labs/<NN_name>/) and builds that slot's implementation, so that no two workers
  # write the same files. LABS_BATCH_SLOTS slots, out of `all` like the submission's.
  set(batch_slots "")
  if(LABS_BATCH_SLOTS GREATER 0)
    math(EXPR last_slot "${LABS_BATCH_SLOTS} - 1")
    foreach(k RANGE ${last_slot})
      set(slot_dir "${PROJECT_BINARY_DIR}/batch-slots/${k}/labs/${folder}")
      _labs_staged_implementation(${p} batch${k} "${slot_dir}")
      _labs_members(slot_members ${p} batch${k} submission)
      _labs_json_quote(slot_dir_json "${slot_dir}")
      _labs_registry_entry(slot_entry "${id}" "${name}" "" "labs/${folder}" "${ARG_CODE_POINTS}"
                           ${slot_members} submission_dir "${slot_dir_json}")
      list(APPEND batch_slots "${slot_entry}")
    endforeach()
  endif()
  list(JOIN batch_slots ", " batch_slots)

  if(ARG_BENCH AND LABS_BUILD_BENCHMARKS)
    labs_host_compiled_when_no_device_code("${lab_dir}/${ARG_BENCH}")
    foreach(impl IN LISTS implementations)
      set(bench ${p}_bench)
      if(impl STREQUAL "solution")
        set(bench ${p}_bench_solution)
      endif()
      add_executable(${bench} "${lab_dir}/${ARG_BENCH}")
      target_link_libraries(${bench} PRIVATE ${p}_impl_${impl} labs_models benchmark::benchmark)
      labs_cuda_options(${bench})
      if(ARG_SM90A)
        labs_sm90a(${bench})
      endif()
    endforeach()
    set_target_properties(${p}_bench PROPERTIES EXCLUDE_FROM_ALL TRUE)
    add_dependencies(labs_student_all ${p}_bench)
    add_dependencies(labs_course ${p}_bench)
    # The solution's benchmark measures the handouts' figures: an instructor's work, on a GPU (labs_instructor_all).
    # A lab whose figures.py runs it on the host (lab 04 draws its layouts from it; labs_figures_current redraws
    # them) keeps it in `all`.
    set(host_figures FALSE)
    if(TARGET ${p}_bench_solution AND EXISTS "${lab_dir}/figures.py")
      file(READ "${lab_dir}/figures.py" figures_text)
      if(figures_text MATCHES "${p}_bench_solution")
        set(host_figures TRUE)
      endif()
    endif()
    if(TARGET ${p}_bench_solution AND NOT host_figures)
      set_target_properties(${p}_bench_solution PROPERTIES EXCLUDE_FROM_ALL TRUE)
      add_dependencies(labs_instructor_all ${p}_bench_solution)
    endif()
  endif()

  # Registry entry for the grader (generator expressions resolve the executables' paths).
  _labs_json_list(deny ${ARG_DENY})
  _labs_json_list(allow ${ARG_ALLOW})
  set(policy "{\"deny\": ${deny}, \"allow\": ${allow}}")
  if(DEFINED ARG_CALCULATORS)
    _labs_json_list(calculators ${ARG_CALCULATORS})
  else()
    set(calculators "null")
  endif()
  _labs_json_list(runner_answers "$<TARGET_FILE:${p}_answers>")
  _labs_json_list(build_answers "${CMAKE_COMMAND}" --build "${PROJECT_BINARY_DIR}" --target ${p}_answers)
  _labs_json_list(files ${student_files})
  _labs_json_quote(answers_student "${lab_dir}/answers.toml")
  _labs_json_quote(submission_json "${submission_dir}")
  _labs_members(student ${p} student student)
  _labs_members(submission ${p} submission submission)
  set(more ${student} ${submission} runner_answers "${runner_answers}" build_answers "${build_answers}"
           student_files "${files}" answers_student "${answers_student}" policy "${policy}"
           submission_dir "${submission_json}" calculators "${calculators}")
  if("solution" IN_LIST implementations)
    _labs_members(solution ${p} solution solution)
    _labs_json_quote(answers_solution "${solution_dir}/answers.toml")
    list(APPEND more ${solution} answers_solution "${answers_solution}")
  endif()
  _labs_registry_entry(entry "${id}" "${name}" "${ARG_TITLE}" "labs/${folder}" "${ARG_CODE_POINTS}" ${more})
  # (Set here, not through a macro, which would read the slots' JSON escapes as CMake's.)
  string(JSON entry SET "${entry}" batch_slots "[${batch_slots}]")
  string(REPLACE ";" "\\u003b" entry "${entry}")
  set_property(GLOBAL APPEND PROPERTY LABS_REGISTRY_ENTRIES "${entry}")

  if(NOT LABS_BUILD_TESTS)
    return()
  endif()
  set(grader_cmd $<TARGET_FILE:grader> --no-build --no-color --no-ceilings ${id})
  set(untouched "${PROJECT_SOURCE_DIR}/grader/scripts/if-untouched.sh" "${PROJECT_SOURCE_DIR}")
  set(tests ${p}_template_answers_zero ${p}_template_code_zero)
  if("solution" IN_LIST implementations)
    add_test(NAME ${p}_solution_answers_full COMMAND ${grader_cmd} --solution --only answers --expect full)
    set_tests_properties(${p}_solution_answers_full PROPERTIES LABELS "cpu;lab${id}")
    add_test(NAME ${p}_solution_code_full COMMAND ${grader_cmd} --solution --only code --expect full)
    set_tests_properties(${p}_solution_code_full PROPERTIES LABELS "gpu;lab${id}" RESOURCE_LOCK labs_gpu)
    list(APPEND tests ${p}_solution_answers_full ${p}_solution_code_full)
  endif()
  add_test(NAME ${p}_template_answers_zero
           COMMAND ${untouched} "labs/${folder}/answers.toml" -- ${grader_cmd} --only answers --expect zero)
  set_tests_properties(${p}_template_answers_zero PROPERTIES LABELS "cpu;lab${id}")
  add_test(NAME ${p}_template_code_zero COMMAND ${untouched} ${student_files} -- ${grader_cmd} --only code --expect zero)
  set_tests_properties(${p}_template_code_zero PROPERTIES LABELS "gpu;lab${id}" RESOURCE_LOCK labs_gpu)

  # Known-bad versions: each one replaces the (single) editable source file (.cu, or .cpp for a host-only lab); wrong/expect.json says what the
  # grader must report for it. Those expected not to build stay out of `all`; they and those the code
  # policy stops are graded by a cpu test that lets the grader build them; the others by a gpu test.
  if(ARG_WRONG)
    if(NOT EXISTS "${solution_dir}/${ARG_EXPECT}")
      message(FATAL_ERROR "labs_add_lab(${folder}): known-bad versions need ${ARG_EXPECT}")
    endif()
    set(edit_src ${ARG_EDIT})
    list(FILTER edit_src INCLUDE REGEX "\\.(cu|cpp)$")
    list(LENGTH edit_src n_src)
    if(NOT n_src EQUAL 1)
      message(FATAL_ERROR "labs_add_lab(${folder}): WRONG needs exactly one editable source file (.cu or .cpp)")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${solution_dir}/${ARG_EXPECT}")
    file(READ "${solution_dir}/${ARG_EXPECT}" expect_json)
    set(code_entries "")
    set(cpu_entries "")
    foreach(w IN LISTS ARG_WRONG)
      get_filename_component(stem "${w}" NAME_WE)
      get_filename_component(wname "${w}" NAME)
      string(JSON must_build ERROR_VARIABLE no_build GET "${expect_json}" "${wname}" build)
      if(no_build)
        set(must_build "builds")
      endif()
      string(JSON on_cpu ERROR_VARIABLE no_cpu GET "${expect_json}" "${wname}" cpu)
      if(no_cpu)
        set(on_cpu OFF)
      endif()
      _labs_implementation(${p} wrong_${stem} "${solution_dir}/${w}")
      # What several labs' known-bad versions share (a loader walk, a tool probe): solutions/known_bad/.
      target_include_directories(${p}_impl_wrong_${stem} PRIVATE "${PROJECT_SOURCE_DIR}/solutions/known_bad")
      _labs_members(members ${p} wrong_${stem} student)  # graded as "the student's" code
      _labs_json_list(files "solutions/${folder}/${w}")
      _labs_registry_entry(entry "${id}" "wrong_${stem}" "lab ${id} known-bad: ${wname}" "labs/${folder}"
                           "${ARG_CODE_POINTS}" ${members} student_files "${files}" policy "${policy}")
      if(must_build STREQUAL "fails")
        set_target_properties(${p}_impl_wrong_${stem} ${p}_module_wrong_${stem} ${p}_checks_wrong_${stem}
                              PROPERTIES EXCLUDE_FROM_ALL TRUE)
        list(APPEND cpu_entries "${entry}")
      elseif(on_cpu)
        list(APPEND cpu_entries "${entry}")
      else()
        # Graded on a GPU only: built by its test where a GPU answers (the grader builds each version before grading
        # it), not by `all` — on a machine without a GPU nothing would run them (labs_instructor_all has them).
        set_target_properties(${p}_impl_wrong_${stem} ${p}_module_wrong_${stem} ${p}_checks_wrong_${stem}
                              PROPERTIES EXCLUDE_FROM_ALL TRUE)
        add_dependencies(labs_instructor_all ${p}_checks_wrong_${stem})
        list(APPEND code_entries "${entry}")
      endif()
    endforeach()
    set(check_expect "${PROJECT_SOURCE_DIR}/grader/scripts/check_expect.py")
    foreach(kind code cpu)
      if(NOT ${kind}_entries)
        continue()
      endif()
      list(JOIN ${kind}_entries ",\n  " joined)
      set(registry "${CMAKE_CURRENT_BINARY_DIR}/wrong_${kind}.json")
      file(GENERATE OUTPUT "${registry}" CONTENT "{${_labs_registry_tools},\n\"labs\": [\n  ${joined}\n]}\n")
      set(report "${CMAKE_CURRENT_BINARY_DIR}/wrong_${kind}_report.json")
      set(test ${p}_wrong)
      set(label gpu)
      # Without a GPU the code test says so and skips before building anything (the probe measures nothing).
      set(gate "\"$0\" --probe >/dev/null || { echo 'SKIPPED: no GPU: the known-bad versions graded on one are not built'; exit 77; };")
      if(kind STREQUAL "cpu")
        set(test ${p}_wrong_cpu)
        set(label cpu)
        set(gate "")
      endif()
      # The grader builds each version before grading it (in the build tree: never two such tests at once).
      add_test(NAME ${test}
               COMMAND sh -c "${gate} \"$1\" --registry \"$2\" --no-color --no-ceilings --only code --timeout $3 --json \"$4\" >/dev/null; \"$5\" \"$6\" \"$7\" \"$4\" $8"
                       $<TARGET_FILE:labs_ceilings> $<TARGET_FILE:grader> "${registry}" ${ARG_WRONG_TIMEOUT} "${report}"
                       "${Python3_EXECUTABLE}" "${check_expect}" "${solution_dir}/${ARG_EXPECT}" ${kind})
      set_tests_properties(${test} PROPERTIES LABELS "${label};lab${id}")
      if(kind STREQUAL "cpu")
        set_tests_properties(${test} PROPERTIES RESOURCE_LOCK labs_build_tree)
      else()
        set_tests_properties(${test} PROPERTIES RESOURCE_LOCK "labs_gpu;labs_build_tree")
      endif()
      list(APPEND tests ${test})
    endforeach()
  endif()
  set_tests_properties(${tests} PROPERTIES SKIP_RETURN_CODE ${LABS_SKIP_RETURN_CODE} TIMEOUT 900)
endfunction()

# Writes the registry the grader reads: build/labs.json. Call once, after every labs_add_lab().
function(labs_write_registry)
  get_property(entries GLOBAL PROPERTY LABS_REGISTRY_ENTRIES)
  set(doc "{}")
  _labs_json_quote(source_dir "${PROJECT_SOURCE_DIR}")
  _labs_json_set(doc source_dir "${source_dir}")
  _labs_json_list(ceilings "$<TARGET_FILE:labs_ceilings>")
  _labs_json_set(doc ceilings_command "${ceilings}")
  _labs_json_set(doc labs "[]")
  _labs_json_set(doc build_dir "${_labs_build_dir}")
  _labs_json_set(doc deps_command "${_labs_deps}")
  set(i 0)
  foreach(entry IN LISTS entries)
    string(JSON doc SET "${doc}" labs ${i} "${entry}")
    math(EXPR i "${i} + 1")
  endforeach()
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/labs.json" CONTENT "${doc}\n")
endfunction()
