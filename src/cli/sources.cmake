set(AREA_SOURCES report.cc plan_command.cc change_commands.cc apply_command.cc)
set(AREA_DEPS kubeon_model kubeon_mig kubeon_policy kubeon_metrics kubeon_plan kubeon_kube kubeon_audit kubeon_apply CLI11::CLI11 nlohmann_json::nlohmann_json)
set(AREA_TESTS report_test.cc plan_command_test.cc demo_sources_test.cc change_commands_test.cc)

# change_commands_test answers approve/reject from an in-process HTTPS API
# server (kube/test_server.h: cpp-httplib with OpenSSL).
# demo_sources_test runs a real Prometheus (metrics/prometheus_process.h, which
# polls it with cpp-httplib) and, when tools/kube-sim is part of the build, the
# kube-sim executable (KUBE_SIM_BINARY); linked once those targets exist.
function(kubeon_cli_link_extras)
  if(TARGET change_commands_test)
    target_link_libraries(change_commands_test PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
  endif()
  if(TARGET demo_sources_test)
    target_link_libraries(demo_sources_test PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
    if(TARGET kube-sim)
      add_dependencies(demo_sources_test kube-sim)
      target_compile_definitions(demo_sources_test PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    endif()
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_cli_link_extras)
