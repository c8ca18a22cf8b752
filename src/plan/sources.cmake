# kubeon_plan: the planner and what it writes into the plan (artifacts, the
# migration schedule).  SHA-256 (content-derived names, step hashes) comes
# from OpenSSL's libcrypto.  schedule_test also compiles schedule_checker.cc,
# the test's independent replay of a schedule (a test helper, not in the
# library); it is added at the end of the top-level directory, once the test
# target exists.
find_package(OpenSSL REQUIRED)
set(AREA_SOURCES sizing.cc cutting_stock.cc mig_packer.cc node_choice.cc operator_fit.cc ts_packer.cc usage_join.cc ref_order.cc
                 sha256.cc artifacts.cc schedule.cc schedule_json.cc plan_invariants.cc planner.cc)
set(AREA_DEPS kubeon_model kubeon_mig kubeon_policy kubeon_metrics nlohmann_json::nlohmann_json yaml-cpp OpenSSL::Crypto)
set(AREA_TESTS sizing_test.cc cutting_stock_test.cc mig_packer_test.cc node_choice_test.cc operator_fit_test.cc ts_packer_test.cc
               planner_test.cc planner_property_test.cc plan_invariants_test.cc artifacts_test.cc sha256_test.cc schedule_json_test.cc schedule_test.cc usage_join_test.cc ref_order_test.cc)

# planner_property_test checks the planner on generated clusters
# (generated_cluster.h, plan_properties.h, test helpers beside it) with a
# bounded number of seeds and sizes; planner_sweep_test, the same checks on
# larger clusters up to 10,000 nodes, runs under the label long (optimised
# build only).
if(KUBEON_TESTS)
  function(kubeon_plan_test_sources)
    if(TARGET schedule_test)  # absent with KUBEON_UNIT_TESTS=OFF
      target_sources(schedule_test PRIVATE ${PROJECT_SOURCE_DIR}/src/plan/schedule_checker.cc)
    endif()
  endfunction()
  cmake_language(DEFER CALL kubeon_plan_test_sources)
  set(KUBEON_PLAN_PROPERTY_HELPERS ${PROJECT_SOURCE_DIR}/src/plan/schedule_checker.cc
      ${PROJECT_SOURCE_DIR}/src/plan/generated_cluster.cc ${PROJECT_SOURCE_DIR}/src/plan/plan_properties.cc)
  cmake_language(DEFER CALL target_sources planner_property_test PRIVATE ${KUBEON_PLAN_PROPERTY_HELPERS})
  if(NOT KUBEON_SANITIZE)
    add_executable(planner_sweep_test ${PROJECT_SOURCE_DIR}/src/plan/planner_sweep_test.cc ${KUBEON_PLAN_PROPERTY_HELPERS})
    target_link_libraries(planner_sweep_test PRIVATE kubeon_plan GTest::gtest GTest::gtest_main)
    kubeon_register_gtest(planner_sweep_test LABELS long TIMEOUT 1200)
  endif()
endif()
