# kubeon_metrics: DCGM history files -> per-pod usage summaries; Prometheus
# history over HTTP (libcurl, with the shared setup of kubeon_net).
find_package(CURL REQUIRED)
set(AREA_SOURCES
  compute_histogram.cc
  csv_reader.cc
  history.cc
  history_builder.cc
  memory_series.cc
  message_text.cc
  openmetrics_reader.cc
  read_ahead.cc
  repeat_runs.cc
  sample_coverage.cc
  sample_parse.cc
  synthetic_history.cc
  prometheus_http.cc
  prometheus_client.cc
  promql.cc
  prometheus_history.cc)
set(AREA_DEPS kubeon_model kubeon_net CURL::libcurl nlohmann_json::nlohmann_json Threads::Threads)
set(AREA_TESTS
  byte_scan_test.cc
  compute_histogram_test.cc
  csv_reader_test.cc
  history_test.cc
  line_splitter_test.cc
  memory_series_test.cc
  message_text_test.cc
  openmetrics_reader_test.cc
  read_ahead_test.cc
  repeat_runs_test.cc
  view_index_test.cc
  sample_coverage_test.cc
  sample_parse_test.cc
  synthetic_history_test.cc
  promql_test.cc
  prometheus_client_test.cc
  prometheus_history_test.cc)

# Prometheus reader tests (issue 5): prometheus_client_test and memory_series_test run in-process
# HTTP servers (cpp-httplib); prometheus_history_test runs a real Prometheus
# (/usr/bin/prometheus, promtool) and the planner on both history paths.
# Linked at the end of the top-level directory (cmake_language(DEFER)), when
# the test and area targets exist; the production library links neither.
if(KUBEON_TESTS)
  function(kubeon_metrics_link_prometheus_tests)
    foreach(t prometheus_client_test memory_series_test)
      if(TARGET ${t})
        target_link_libraries(${t} PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
      endif()
    endforeach()
    if(TARGET prometheus_history_test)
      target_link_libraries(prometheus_history_test PRIVATE kubeon_plan kubeon_policy kubeon_mig kubeon_model
                            PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
    endif()
  endfunction()
  cmake_language(DEFER CALL kubeon_metrics_link_prometheus_tests)
endif()
