# faultline's CMake helpers for projects that test their firmware with scenarios.
#
#   include(path/to/faultline/cmake/Faultline.cmake)
#   faultline_add_scenarios(scenarios
#     [FAULTLINE /path/to/faultline]   # default: the `faultline` target, else $FAULTLINE_EXECUTABLE, else PATH
#     [FIXTURES dir]                    # passed as --fixtures (for `firmware: {fixture: B/N}`)
#     [PREFIX scenario]                 # test names are PREFIX/<path under DIR without .yaml>
#     [ARGS ...])                       # more arguments to `faultline scenario`
#
# Registers one ctest test per DIR/**/*.yaml, running `faultline scenario FILE`, so that
# `ctest -j` runs them in parallel and reports each one by name. The scenario's exit
# status is the test's result (0 pass, 1 expectation failed, 2 bad input).
function(faultline_add_scenarios dir)
  cmake_parse_arguments(FS "" "FAULTLINE;FIXTURES;PREFIX" "ARGS" ${ARGN})
  if(NOT FS_FAULTLINE)
    if(TARGET faultline)
      set(FS_FAULTLINE $<TARGET_FILE:faultline>)
    elseif(FAULTLINE_EXECUTABLE)
      set(FS_FAULTLINE "${FAULTLINE_EXECUTABLE}")
    else()
      find_program(FAULTLINE_EXECUTABLE faultline REQUIRED)
      set(FS_FAULTLINE "${FAULTLINE_EXECUTABLE}")
    endif()
  endif()
  if(NOT FS_PREFIX)
    set(FS_PREFIX scenario)
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  file(GLOB_RECURSE files CONFIGURE_DEPENDS "${dir}/*.yaml")
  list(SORT files)
  if(NOT files)
    message(WARNING "faultline_add_scenarios: no *.yaml under ${dir}")
  endif()
  foreach(file IN LISTS files)
    file(RELATIVE_PATH rel "${dir}" "${file}")
    string(REGEX REPLACE "\\.yaml$" "" rel "${rel}")
    set(command "${FS_FAULTLINE}" scenario "${file}")
    if(FS_FIXTURES)
      list(APPEND command --fixtures "${FS_FIXTURES}")
    endif()
    add_test(NAME ${FS_PREFIX}/${rel} COMMAND ${command} ${FS_ARGS})
  endforeach()
endfunction()
