# kubeon_net: text made safe to print (printable.h: control characters; redact.h:
# URL passwords), used by everything that prints cluster or file text, and
# the libcurl easy-handle plumbing shared by the HTTP clients of
# kubeon_kube (Kubernetes API) and kubeon_metrics (Prometheus).
#
# curl_easy_test serves plain HTTP in-process with cpp-httplib (Debian builds
# it as a library, with OpenSSL); it is linked at the end of the top-level
# directory (cmake_language(DEFER)), once the test target exists, so the
# production library does not carry it.
find_package(CURL REQUIRED)
set(AREA_SOURCES curl_easy.cc redact.cc printable.cc)
set(AREA_DEPS CURL::libcurl)
set(AREA_TESTS curl_easy_test.cc redact_test.cc printable_test.cc)

function(kubeon_net_link_extras)
  if(TARGET curl_easy_test)  # absent with KUBEON_UNIT_TESTS=OFF
    target_link_libraries(curl_easy_test PRIVATE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
  endif()
endfunction()
cmake_language(DEFER CALL kubeon_net_link_extras)
