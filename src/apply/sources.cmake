# The executor (issue 11): the policy Lease, the gate (mode, approval,
# window), ApplyPlan's bookkeeping, and the step state machine that carries a
# schedule step out on the cluster, its rollback, resume after a crash and
# revert.
#
# Tests that run the kube-sim executable (KUBE_SIM_BINARY) are defined once
# the kube-sim target exists (end of the top-level directory).
# step_runner_test carries the CTest label "long": all its tests are long, and
# long suites run once, in the optimised build (the sanitizer build, which
# runs ctest -LE long, does not compile it).
set(AREA_SOURCES rfc3339.cc change_json.cc lease.cc gate.cc apply_run.cc object_fields.cc operator_config.cc
    step_record.cc step_journal.cc step_wait.cc step_goal.cc gpu_capacity.cc node_ops.cc operator_configmaps.cc
    eviction.cc label_handshake.cc owner_rollout.cc terminations.cc step_machine.cc revert.cc step_runner.cc lease_revert.cc foreign_changes.cc
    apply_policy.cc retry.cc)
set(AREA_DEPS kubeon_kube kubeon_plan kubeon_audit kubeon_policy kubeon_metrics kubeon_model
    nlohmann_json::nlohmann_json yaml-cpp)
set(AREA_TESTS gate_test.cc apply_run_test.cc lease_test.cc object_fields_test.cc operator_config_test.cc
    step_record_test.cc step_journal_test.cc step_wait_test.cc step_goal_test.cc gpu_capacity_test.cc node_ops_test.cc
    operator_configmaps_test.cc eviction_test.cc label_handshake_test.cc owner_rollout_test.cc step_machine_test.cc
    terminations_test.cc revert_test.cc lease_revert_test.cc foreign_changes_test.cc content_hash_golden_test.cc
    retry_test.cc)

function(kubeon_apply_link_extras)
  # The content-hash golden plans the demo through inputs/ as the commands do.
  if(TARGET content_hash_golden_test)
    target_link_libraries(content_hash_golden_test PRIVATE kubeon_inputs)
  endif()
  if(TARGET kube-sim AND TARGET lease_test)
    add_dependencies(lease_test kube-sim)
    target_compile_definitions(lease_test PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
  endif()
  if(KUBEON_TESTS AND TARGET kube-sim AND TARGET kubeon_apply AND NOT KUBEON_SANITIZE)
    add_executable(step_runner_test ${PROJECT_SOURCE_DIR}/src/apply/step_runner_test.cc)
    target_link_libraries(step_runner_test PRIVATE kubeon_apply GTest::gtest GTest::gtest_main)
    target_compile_definitions(step_runner_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBEON_BINARY_DIR="${PROJECT_BINARY_DIR}"
      KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    add_dependencies(step_runner_test kube-sim)
    kubeon_register_gtest(step_runner_test LABELS long)
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_apply_link_extras)
