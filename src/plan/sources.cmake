set(AREA_SOURCES sizing.cc cutting_stock.cc mig_packer.cc node_choice.cc operator_fit.cc ts_packer.cc usage_join.cc artifacts.cc planner.cc)
set(AREA_DEPS kubeon_model kubeon_mig kubeon_policy kubeon_metrics nlohmann_json::nlohmann_json yaml-cpp)
set(AREA_TESTS sizing_test.cc cutting_stock_test.cc mig_packer_test.cc node_choice_test.cc operator_fit_test.cc ts_packer_test.cc planner_test.cc artifacts_test.cc)
