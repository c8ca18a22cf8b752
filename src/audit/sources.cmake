# Audit log (issues 11, 12): the AuditStore interface (audit_store.h), its
# SQLite implementation for the CLI (sqlite_store.h) and its GpuChange
# implementation in the API server (kube_store.h, kube_approvals.h), which is
# why the area depends on kubeon_kube (kube does not depend on audit).
# SQLite comes from Debian (libsqlite3-dev), found with CMake's FindSQLite3.
# audit_store_contract_test.h is the contract test suite both stores' tests
# instantiate.
find_package(SQLite3 REQUIRED)
set(AREA_SOURCES audit_store.cc change_id.cc decision.cc sqlite_store.cc kube_store.cc kube_approvals.cc open_store.cc)
set(AREA_DEPS kubeon_model kubeon_net kubeon_kube nlohmann_json::nlohmann_json SQLite::SQLite3)
set(AREA_TESTS audit_store_test.cc change_id_test.cc open_store_test.cc decision_test.cc sqlite_store_test.cc kube_store_test.cc kube_approvals_test.cc)

# kube_store_test and kube_approvals_test also run against kube-sim (KUBE_SIM_BINARY) when
# tools/kube-sim is part of the build.
function(kubeon_audit_link_extras)
  foreach(t kube_store_test kube_approvals_test)
    if(TARGET ${t} AND TARGET kube-sim)
      add_dependencies(${t} kube-sim)
      target_compile_definitions(${t} PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
    endif()
  endforeach()
endfunction()
cmake_language(DEFER CALL kubeon_audit_link_extras)
