# The executor (issue 11): the policy Lease, the gate (mode, approval,
# window), ApplyPlan's bookkeeping and the step runner.
set(AREA_SOURCES rfc3339.cc lease.cc gate.cc)
set(AREA_DEPS kubeon_kube kubeon_plan kubeon_audit kubeon_policy kubeon_metrics nlohmann_json::nlohmann_json)
set(AREA_TESTS gate_test.cc lease_test.cc)

# lease_test runs the kube-sim executable (KUBE_SIM_BINARY).
function(kubeon_apply_link_extras)
  if(TARGET kube-sim AND TARGET lease_test)
    add_dependencies(lease_test kube-sim)
    target_compile_definitions(lease_test PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_apply_link_extras)
