set(AREA_SOURCES batch_allocator.cc exit_memory.cc output_file.cc terminal_text.cc report.cc audit_db.cc plan_command.cc change_commands.cc apply_command.cc controller_command.cc main_command.cc)
set(AREA_DEPS kubeon_model kubeon_net kubeon_mig kubeon_policy kubeon_metrics kubeon_plan kubeon_kube kubeon_inputs kubeon_audit kubeon_apply kubeon_controller CLI11::CLI11 nlohmann_json::nlohmann_json)
set(AREA_TESTS batch_allocator_test.cc exit_memory_test.cc output_file_test.cc terminal_text_test.cc report_test.cc plan_command_test.cc demo_sources_test.cc change_commands_test.cc)

# The bad-input cases (see bad_inputs_test below), globbed here rather than in
# the deferred function so that CONFIGURE_DEPENDS re-runs CMake when a case is
# added or removed; the list file changes then (file(CONFIGURE) writes only a
# changed content), which rebuilds the test and so lists its cases again.
file(GLOB KUBEON_BAD_INPUT_CMDS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/testdata/bad-inputs/*/cmd)
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/bad_inputs_cases.txt CONTENT "${KUBEON_BAD_INPUT_CMDS}")

# change_commands_test answers approve/reject from an in-process HTTPS API
# server (kube/test_server.h: cpp-httplib with OpenSSL) and, when
# tools/kube-sim is part of the build, from kube-sim (KUBE_SIM_BINARY).
# demo_sources_test runs a real Prometheus (metrics/prometheus_process.h, which
# polls it with cpp-httplib) and, when tools/kube-sim is part of the build, the
# kube-sim executable (KUBE_SIM_BINARY); linked once those targets exist.
function(kubeon_cli_link_extras)
  # report_test compares the streamed plan JSON with the tree's dump on a
  # cluster that tools/gen-cluster builds in memory (when tools are built).
  if(TARGET report_test AND TARGET gencluster)
    target_link_libraries(report_test PRIVATE gencluster)
    target_compile_definitions(report_test PRIVATE KUBEON_HAVE_GENCLUSTER=1)
  endif()
  if(TARGET change_commands_test)
    target_link_libraries(change_commands_test PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
    if(TARGET kube-sim)
      add_dependencies(change_commands_test kube-sim)
      target_compile_definitions(change_commands_test PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    endif()
  endif()
  if(TARGET demo_sources_test)
    target_link_libraries(demo_sources_test PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
    if(TARGET kube-sim)
      add_dependencies(demo_sources_test kube-sim)
      target_compile_definitions(demo_sources_test PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    endif()
  endif()
  # apply_command_test: the demo applied on kube-sim end to end; CTest label
  # "long" on all its tests, so the sanitizer build (ctest -LE long) does not
  # compile it.
  if(KUBEON_TESTS AND TARGET kube-sim AND TARGET kubeon_cli AND NOT KUBEON_SANITIZE)
    add_executable(apply_command_test ${PROJECT_SOURCE_DIR}/src/cli/apply_command_test.cc)
    target_link_libraries(apply_command_test PRIVATE kubeon_cli GTest::gtest GTest::gtest_main)
    target_compile_definitions(apply_command_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    add_dependencies(apply_command_test kube-sim)
    kubeon_register_gtest(apply_command_test LABELS long)
  endif()
  # bad_inputs_test: the real kubeon-gpu binary on every case of
  # testdata/bad-inputs/ (one GoogleTest test per case directory, see
  # KUBEON_BAD_INPUT_CMDS above; one CTest test each where tests are listed
  # one by one, KUBEON_CTEST_PER).  Runs in both CI builds.
  if(KUBEON_TESTS AND TARGET kubeon-gpu)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cli/bad_inputs_test.cc PROPERTIES
      OBJECT_DEPENDS ${PROJECT_BINARY_DIR}/bad_inputs_cases.txt)
    add_executable(bad_inputs_test ${PROJECT_SOURCE_DIR}/src/cli/bad_inputs_test.cc)
    target_link_libraries(bad_inputs_test PRIVATE GTest::gtest GTest::gtest_main)
    target_compile_definitions(bad_inputs_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBEON_GPU_BINARY="$<TARGET_FILE:kubeon-gpu>")
    add_dependencies(bad_inputs_test kubeon-gpu)
    kubeon_register_gtest(bad_inputs_test)
  endif()
  # apply_crash_test: the real kubeon-gpu binary SIGKILLed after each cluster
  # write of the demo's step 1 on kube-sim, then resumed; CTest label "long".
  # Only its tests (all "long") are in these executables, and long suites run
  # once, in the optimised build: the sanitizer build does not compile them.
  if(KUBEON_TESTS AND TARGET kube-sim AND TARGET kubeon-gpu AND NOT KUBEON_SANITIZE)
    add_executable(apply_crash_test ${PROJECT_SOURCE_DIR}/src/cli/apply_crash_test.cc)
    target_link_libraries(apply_crash_test PRIVATE kubeon_cli GTest::gtest GTest::gtest_main)
    target_compile_definitions(apply_crash_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>"
      KUBEON_GPU_BINARY="$<TARGET_FILE:kubeon-gpu>"
      KUBEON_GPU_CRASHPOINT_BINARY="$<TARGET_FILE:kubeon-gpu-crashpoint>")
    add_dependencies(apply_crash_test kube-sim kubeon-gpu kubeon-gpu-crashpoint)
    kubeon_register_gtest(apply_crash_test LABELS long TIMEOUT 600)
    # apply_rbac_test: the same demo applied as the kubeon-gpu ServiceAccount
    # under deploy/'s ClusterRole (RBAC enforced by kube-sim); label "long".
    add_executable(apply_rbac_test ${PROJECT_SOURCE_DIR}/src/cli/apply_rbac_test.cc)
    target_link_libraries(apply_rbac_test PRIVATE kubeon_cli yaml-cpp GTest::gtest GTest::gtest_main)
    target_compile_definitions(apply_rbac_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>"
      KUBEON_GPU_BINARY="$<TARGET_FILE:kubeon-gpu>")
    add_dependencies(apply_rbac_test kube-sim kubeon-gpu)
    kubeon_register_gtest(apply_rbac_test LABELS long TIMEOUT 600)
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_cli_link_extras)
