# kubeon_register_gtest(target [TEST_PREFIX prefix] [LABELS label...] [TIMEOUT seconds] [EACH_TEST])
#
# Registers a GoogleTest executable with CTest, one of two ways
# (KUBEON_CTEST_PER):
#   test        one CTest test per GoogleTest test, listed by running the
#               executable after each build (gtest_discover_tests): CTest
#               runs them in parallel and names each one.
#   executable  one CTest test per executable, all its tests in one process
#               (TEST_PREFIX + target).  The default with KUBEON_SANITIZE: an
#               instrumented process takes ~0.7 s to start and exit (the
#               shared sanitizer libraries' relocations, the leak check at
#               exit), which was most of the sanitizer run's test time when
#               each of ~1,000 tests had its own process.
# EACH_TEST keeps one CTest test per GoogleTest test in both ways: for
# executables whose tests mostly wait on other processes (kubectl against
# kube-sim), which then wait side by side.  TIMEOUT applies to each
# GoogleTest test; in the executable way the run's --timeout governs.
#
# The tests' own sources compile with KUBEON_TEST_OPTIMIZE in builds other
# than Debug (default -O0; the libraries under test keep the build type's
# flags): a test's code is set-up and assertions, and at -O2 it was half of
# the optimised build's compile time (change_commands_test.cc: 25.2 s of CPU
# at -O2, 18.7 s at -O1, 13.6 s at -Og, 12.5 s at -O0; -O0 also has none of
# the optimiser's flow-based warnings, which -Werror would make errors).
# Empty keeps the build type's flags.
#
# Under KUBEON_SANITIZE the tests' own sources leave out UBSan's vptr, null
# and alignment checks (KUBEON_TEST_CODE_SANITIZE_OPTIONS, CMakeLists.txt:
# about a third of a test file's sanitizer compile time); the libraries under
# test keep every check.
#
# The tests share one precompiled header (KUBEON_TEST_PCH, default ON):
# GoogleTest's, nlohmann's and the standard library's headers, parsed once per
# build instead of once per test file (a test file spends about 40 % of its
# compile time parsing, most of it in those headers; the test files are
# half of the optimised build's CPU).  kubeon_test_pch builds it with the
# tests' own options (KUBEON_TEST_OPTIMIZE, KUBEON_TEST_CODE_SANITIZE_OPTIONS,
# the build's flags); GCC uses it only where the options match, and a file
# where they do not compiles the headers as text, slower but the same.
#
# REQUIRES: target is an executable linking GTest::gtest_main (or its own main).
if(KUBEON_SANITIZE)
  set(KUBEON_CTEST_PER_DEFAULT executable)
else()
  set(KUBEON_CTEST_PER_DEFAULT test)
endif()
set(KUBEON_CTEST_PER ${KUBEON_CTEST_PER_DEFAULT} CACHE STRING
    "CTest tests per GoogleTest executable: 'test' (one per GoogleTest test) or 'executable' (one per executable)")
set_property(CACHE KUBEON_CTEST_PER PROPERTY STRINGS test executable)
if(NOT KUBEON_CTEST_PER MATCHES "^(test|executable)$")
  message(FATAL_ERROR "KUBEON_CTEST_PER is '${KUBEON_CTEST_PER}': 'test' or 'executable' is required")
endif()
set(KUBEON_TEST_OPTIMIZE "-O0" CACHE STRING
    "Optimisation flag of the tests' own sources in builds other than Debug (empty: the build type's)")

option(KUBEON_TEST_PCH "Precompile the headers every test includes (GoogleTest, nlohmann_json, std)" ON)
if(KUBEON_TEST_PCH)
  add_library(kubeon_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/test_pch.cc)
  # No definitions of its own: GCC refuses a header built with a macro the
  # test does not define (the tests' own definitions are not in it).
  target_link_libraries(kubeon_test_pch PRIVATE GTest::gtest nlohmann_json::nlohmann_json)
  if(KUBEON_TEST_OPTIMIZE)
    target_compile_options(kubeon_test_pch PRIVATE $<$<NOT:$<CONFIG:Debug>>:${KUBEON_TEST_OPTIMIZE}>)
  endif()
  target_compile_options(kubeon_test_pch PRIVATE ${KUBEON_TEST_CODE_SANITIZE_OPTIONS})
  target_precompile_headers(kubeon_test_pch PRIVATE
    <gtest/gtest.h> <nlohmann/json.hpp>
    <algorithm> <chrono> <cstdint> <filesystem> <fstream> <functional> <map> <memory> <optional> <set>
    <sstream> <string> <string_view> <utility> <vector>)
endif()

function(kubeon_register_gtest target)
  cmake_parse_arguments(ARG "EACH_TEST" "TEST_PREFIX;TIMEOUT" "LABELS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kubeon_register_gtest(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(KUBEON_TEST_OPTIMIZE)
    target_compile_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:${KUBEON_TEST_OPTIMIZE}>)
  endif()
  target_compile_options(${target} PRIVATE ${KUBEON_TEST_CODE_SANITIZE_OPTIONS})
  if(TARGET kubeon_test_pch)
    target_precompile_headers(${target} REUSE_FROM kubeon_test_pch)
  endif()
  set(properties)
  if(ARG_LABELS)
    list(APPEND properties LABELS "${ARG_LABELS}")
  endif()
  if(ARG_EACH_TEST OR KUBEON_CTEST_PER STREQUAL "test")
    if(ARG_TIMEOUT)
      list(APPEND properties TIMEOUT ${ARG_TIMEOUT})
    endif()
    set(prefix_args)
    if(ARG_TEST_PREFIX)
      set(prefix_args TEST_PREFIX ${ARG_TEST_PREFIX})
    endif()
    if(properties)
      gtest_discover_tests(${target} ${prefix_args} DISCOVERY_TIMEOUT 60 PROPERTIES ${properties})
    else()
      gtest_discover_tests(${target} ${prefix_args} DISCOVERY_TIMEOUT 60)
    endif()
  else()
    set(name ${ARG_TEST_PREFIX}${target})
    add_test(NAME ${name} COMMAND ${target})
    if(properties)
      set_tests_properties(${name} PROPERTIES ${properties})
    endif()
  endif()
endfunction()
