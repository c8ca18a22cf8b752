# Kubernetes API client (issue 4): kubeconfig loading, libcurl transport
# (its common curl setup is kubeon_net's), KubeClient, cluster snapshot.
#
# Test-only dependencies are linked at the end of the top-level directory
# (cmake_language(DEFER)), once the test, tool and bench targets exist, so the
# production library does not carry them: the tests that run an in-process
# HTTPS server use cpp-httplib (Debian builds it as a library, with OpenSSL)
# and OpenSSL; kube_sim_test and bench/snapshot_bench run the kube-sim
# executable (KUBE_SIM_BINARY) when tools/kube-sim is part of the build.
find_package(CURL REQUIRED)
find_package(simdjson REQUIRED)
set(AREA_SOURCES kubeconfig.cc curl_transport.cc list_page.cc client.cc snapshot.cc identity.cc)
set(AREA_DEPS kubeon_model kubeon_net nlohmann_json::nlohmann_json yaml-cpp simdjson::simdjson CURL::libcurl Threads::Threads)
set(AREA_TESTS kubeconfig_test.cc curl_transport_test.cc list_page_test.cc client_test.cc snapshot_test.cc kube_sim_test.cc identity_test.cc)

function(kubeon_kube_link_extras)
  foreach(t curl_transport_test client_test snapshot_test)
    if(TARGET ${t})
      target_link_libraries(${t} PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto)
    endif()
  endforeach()
  if(TARGET kube-sim)
    foreach(t kube_sim_test snapshot_bench)
      if(TARGET ${t})
        add_dependencies(${t} kube-sim)
        target_compile_definitions(${t} PRIVATE KUBE_SIM_BINARY="$<TARGET_FILE:kube-sim>")
      endif()
    endforeach()
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_kube_link_extras)
