# The in-cluster controller (issue 12): watches GpuPolicy objects, plans and
# applies each as its mode and window allow, keeps its state in the API
# server, serves /healthz, /readyz, /metrics and the reviewer page
# (reviewer_api.h: web/ compiled in by cmake/embed_web.cmake, JSON API,
# writes authorized by TokenReview + SubjectAccessReview, authenticator.h).
#
# The HTTP listener (http_server.cc) uses cpp-httplib (PkgConfig::HTTPLIB,
# found in the top-level CMakeLists.txt), the one production library that
# links it.  Tests that run kube-sim, kubeon-gpu or Prometheus are defined
# once those targets exist (kubeon_controller_link_extras below); they carry
# the CTest label "long".
set(AREA_SOURCES policy_view.cc metrics.cc json_log.cc policy_scope.cc policy_status.cc policy_object.cc
    event_recorder.cc leader_election.cc http_server.cc controller.cc
    authenticator.cc history_sources.cc reviewer_api.cc)
set(AREA_DEPS kubeon_inputs kubeon_apply kubeon_audit kubeon_kube kubeon_plan kubeon_policy kubeon_model kubeon_mig kubeon_metrics
    PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto nlohmann_json::nlohmann_json Threads::Threads)
set(AREA_TESTS policy_view_test.cc metrics_test.cc json_log_test.cc policy_scope_test.cc policy_status_test.cc
    policy_object_test.cc leader_election_test.cc controller_test.cc authenticator_test.cc history_sources_test.cc
    reviewer_api_test.cc)

function(kubeon_controller_link_extras)
  foreach(t leader_election_test controller_test)
    if(TARGET kube-sim AND TARGET ${t})
      add_dependencies(${t} kube-sim)
      target_compile_definitions(${t} PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    endif()
  endforeach()
  # controller_e2e_test: the kubeon-gpu binary's controller on kube-sim, a
  # real Prometheus scraping it, two replicas and a SIGKILLed leader.
  # Only its tests (all "long") are in these executables, and long suites run
  # once, in the optimised build: the sanitizer build does not compile them.
  if(KUBEON_TESTS AND TARGET kube-sim AND TARGET kubeon-gpu AND NOT KUBEON_SANITIZE)
    add_executable(controller_e2e_test ${PROJECT_SOURCE_DIR}/src/controller/controller_e2e_test.cc)
    target_link_libraries(controller_e2e_test PRIVATE kubeon_controller GTest::gtest GTest::gtest_main)
    target_compile_definitions(controller_e2e_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>"
      KUBEON_GPU_BINARY="$<TARGET_FILE:kubeon-gpu>"
      KUBEON_GPU_CRASHPOINT_BINARY="$<TARGET_FILE:kubeon-gpu-crashpoint>")
    add_dependencies(controller_e2e_test kube-sim kubeon-gpu kubeon-gpu-crashpoint)
    kubeon_register_gtest(controller_e2e_test LABELS long TIMEOUT 300)
    # controller_rbac_test: the controller as the kubeon-gpu ServiceAccount
    # under deploy/'s ClusterRole; the calls it makes equal the grants.
    add_executable(controller_rbac_test ${PROJECT_SOURCE_DIR}/src/controller/controller_rbac_test.cc)
    target_link_libraries(controller_rbac_test PRIVATE kubeon_controller yaml-cpp GTest::gtest GTest::gtest_main)
    target_compile_definitions(controller_rbac_test PRIVATE
      KUBEON_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>"
      KUBEON_GPU_BINARY="$<TARGET_FILE:kubeon-gpu>")
    add_dependencies(controller_rbac_test kube-sim kubeon-gpu)
    kubeon_register_gtest(controller_rbac_test LABELS long TIMEOUT 300)
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_controller_link_extras)
