# Audit log (issue 11): the AuditStore interface (audit_store.h) and its
# SQLite implementation for the CLI (sqlite_store.h).  SQLite comes from
# Debian (libsqlite3-dev), found with CMake's FindSQLite3.
find_package(SQLite3 REQUIRED)
set(AREA_SOURCES audit_store.cc decision.cc sqlite_store.cc)
set(AREA_DEPS kubeon_model SQLite::SQLite3 nlohmann_json::nlohmann_json)
set(AREA_TESTS audit_store_test.cc decision_test.cc sqlite_store_test.cc)
