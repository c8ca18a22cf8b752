set(AREA_SOURCES report.cc plan_command.cc)
set(AREA_DEPS kubeon_model kubeon_mig kubeon_policy kubeon_metrics kubeon_plan kubeon_kube CLI11::CLI11 nlohmann_json::nlohmann_json)
set(AREA_TESTS report_test.cc plan_command_test.cc)
