// The libcurl easy-handle plumbing shared by the project's HTTP clients
// (kube/curl_transport.cc for the Kubernetes API, metrics/prometheus_http.cc
// for Prometheus): process-wide initialisation, the options every request
// sets, and one classification of libcurl's failures.  Each client keeps its
// own error type and messages and maps CurlFailure onto them.
//
// Contract:
//  - CurlGlobalInit() runs curl_global_init(CURL_GLOBAL_DEFAULT) once per
//    process (thread-safe); call it before the first curl_easy_init().
//  - SetCommonOptions() sets, on a new or curl_easy_reset() handle: the URL;
//    no signals (CURLOPT_NOSIGNAL, for threads); the caller's error buffer;
//    the User-Agent; the connect timeout and the whole-transfer timeout
//    (0 = none); TCP keepalive; redirects are not followed; http and https
//    only.  TLS: with verify_tls, the peer certificate and host name are
//    verified, and a given CA replaces the system trust store (CAPATH is
//    cleared, so nothing else is trusted): ca_pem is PEM text handed over
//    from memory (CURLOPT_CAINFO_BLOB, never written to disk), else ca_file
//    is a PEM file; without verify_tls neither is verified and no CA is set.
//    It sets nothing else: method, headers, body, callbacks, HTTP version,
//    compression, client certificates and connection routing are the
//    caller's.  libcurl copies the strings; ca_pem's bytes and error_buffer
//    must stay valid until the transfer has ended.
//  - ClassifyCurlCode() sorts a failed transfer's CURLcode into the classes
//    both clients report (see CurlFailure); codes it does not list are kOther.
//  - CurlErrorDetail() is the error buffer's text when libcurl wrote one,
//    else libcurl's generic text for the code.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <string>
#include <string_view>

namespace kubeon::net {

void CurlGlobalInit();

struct EasyOptions {
  std::string url;
  std::string user_agent = "kubeon-gpu";
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds timeout{0};  // whole transfer; 0 = none
  char* error_buffer = nullptr;          // CURL_ERROR_SIZE bytes, or null
  bool verify_tls = true;
  std::string_view ca_pem;  // with verify_tls: trust only these certificates
  std::string ca_file;      // with verify_tls and no ca_pem: trust only this file
};

void SetCommonOptions(CURL* curl, const EasyOptions& options);

enum class CurlFailure {
  kConnection,  // not reached, or the connection broke before a complete
                // answer: DNS (host or proxy), refused, reset, send/receive
                // error, partial or empty answer, HTTP/2 framing
  kTimeout,     // connect or whole-transfer timeout
  kTls,         // handshake, certificate verification, CA/CRL/certificate
                // files, TLS engine
  kStopped,     // a callback of the caller stopped the transfer (a write
                // callback taking less than offered, a progress callback
                // returning non-zero)
  kOther,
};

CurlFailure ClassifyCurlCode(CURLcode code);

std::string CurlErrorDetail(CURLcode code, const char* error_buffer);

}  // namespace kubeon::net
