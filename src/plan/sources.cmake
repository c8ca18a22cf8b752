# kubeon_plan: the planner and what it writes into the plan (artifacts, the
# migration schedule).  SHA-256 (content-derived names, step hashes) comes
# from OpenSSL's libcrypto.  schedule_test also compiles schedule_checker.cc,
# the test's independent replay of a schedule (a test helper, not in the
# library); it is added at the end of the top-level directory, once the test
# target exists.
find_package(OpenSSL REQUIRED)
set(AREA_SOURCES sizing.cc cutting_stock.cc mig_packer.cc node_choice.cc operator_fit.cc ts_packer.cc usage_join.cc ref_order.cc
                 sha256.cc artifacts.cc schedule.cc schedule_json.cc planner.cc)
set(AREA_DEPS kubeon_model kubeon_mig kubeon_policy kubeon_metrics nlohmann_json::nlohmann_json yaml-cpp OpenSSL::Crypto)
set(AREA_TESTS sizing_test.cc cutting_stock_test.cc mig_packer_test.cc node_choice_test.cc operator_fit_test.cc ts_packer_test.cc
               planner_test.cc artifacts_test.cc sha256_test.cc schedule_json_test.cc schedule_test.cc usage_join_test.cc ref_order_test.cc)

if(KUBEON_TESTS)
  cmake_language(DEFER CALL target_sources schedule_test PRIVATE ${PROJECT_SOURCE_DIR}/src/plan/schedule_checker.cc)
endif()
