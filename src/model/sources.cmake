# kubeon_model: the cluster model and its readers, and the JSON writers
# every area uses (json_writer: streamed text, json_tree_writer: a tree).  The snapshot is parsed
# with simdjson's on-demand API (Debian libsimdjson-dev, CMake package simdjson).
find_package(simdjson REQUIRED)
set(AREA_SOURCES cluster.cc durations.cc labels.cc snapshot_json.cc snapshot_stream.cc prices.cc input_file.cc json_nesting.cc json_block_scan.cc
                 json_block_scan_avx2.cc first_index.cc projected_capacity.cc json_writer.cc json_tree_writer.cc)
set(AREA_DEPS nlohmann_json::nlohmann_json yaml-cpp simdjson::simdjson)
set(AREA_TESTS cluster_test.cc durations_test.cc labels_test.cc snapshot_json_test.cc snapshot_stream_test.cc prices_test.cc input_file_test.cc json_nesting_test.cc json_block_scan_test.cc
               first_index_test.cc run_parts_test.cc projected_capacity_test.cc json_writer_test.cc json_tree_writer_test.cc)
# The item scan's AVX2 version (json_block_scan_avx2.cc) is the one file
# compiled for AVX2, PCLMUL and POPCNT; it runs only where the CPU has them.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/model/json_block_scan_avx2.cc
                              PROPERTIES COMPILE_OPTIONS "-mavx2;-mpclmul;-mpopcnt")
endif()
