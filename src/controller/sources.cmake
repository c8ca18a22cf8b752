# The in-cluster controller (issue 12): watches GpuPolicy objects, plans and
# applies each as its mode and window allow, keeps its state in the API
# server, serves /healthz, /readyz, /metrics and the reviewer page.
#
# The HTTP listener (http_server.cc) uses cpp-httplib (PkgConfig::HTTPLIB,
# found in the top-level CMakeLists.txt), the one production library that
# links it.  Tests that run kube-sim, kubeon-gpu or Prometheus are defined
# once those targets exist (kubeon_controller_link_extras below); they carry
# the CTest label "long".
set(AREA_SOURCES policy_view.cc metrics.cc json_log.cc policy_scope.cc policy_status.cc policy_object.cc
    event_recorder.cc leader_election.cc http_server.cc controller.cc controller_command.cc)
set(AREA_DEPS kubeon_cli kubeon_apply kubeon_audit kubeon_kube kubeon_plan kubeon_policy kubeon_model
    PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto CLI11::CLI11 nlohmann_json::nlohmann_json Threads::Threads)
set(AREA_TESTS policy_view_test.cc metrics_test.cc json_log_test.cc policy_scope_test.cc policy_status_test.cc
    policy_object_test.cc)
