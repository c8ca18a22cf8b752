set(AREA_SOURCES cluster.cc snapshot_json.cc prices.cc)
set(AREA_DEPS nlohmann_json::nlohmann_json yaml-cpp)
set(AREA_TESTS cluster_test.cc snapshot_json_test.cc prices_test.cc)
