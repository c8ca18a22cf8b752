# MIG catalog (data/mig-catalog.json, embedded by the top-level CMakeLists) and layout validator.
set(AREA_SOURCES catalog.cc layout.cc)
set(AREA_DEPS kubeon_model nlohmann_json::nlohmann_json)
set(AREA_TESTS catalog_test.cc layout_test.cc)
