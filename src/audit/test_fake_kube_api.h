// Test-only: an in-memory Kubernetes API as a kube::HttpTransport, with just
// the semantics KubeAuditStore relies on, so its unit tests run without a
// server.  (kube_store_test also runs the same tests against kube-sim.)
//
//  - Objects live at their paths; GET of a path with no object under it lists
//    the objects directly below it ({"items": [...], "metadata": {}}).
//  - POST creates (409 AlreadyExists when present) and sets
//    metadata.resourceVersion (one counter for all objects), uid, generation 1
//    and creationTimestamp; objects under /apis/gpu.kubeon.io/ have a status
//    subresource: status is dropped on create, kept by PUT of the object
//    (which bumps generation when spec changes) and replaced only by PUT of
//    PATH/status.
//  - PUT with a metadata.resourceVersion other than the stored one is a 409
//    Conflict; PUT of a missing object is a 404.
//  - PATCH applies a JSON merge patch to the object.
//  - fail_next_status_puts makes the next N PUTs of a /status path answer 409
//    (another writer won), and writes counts PUT and POST requests.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "kube/http_transport.h"

namespace kubeon::audit::testing {

class FakeKubeApi : public kube::HttpTransport {
 public:
  struct State {
    std::mutex mu;
    std::map<std::string, nlohmann::json> objects;
    int64_t rv = 100;
    int fail_next_status_puts = 0;
    int writes = 0;
  };
  explicit FakeKubeApi(State& state) : s_(state) {}

  kube::HttpResult Send(const kube::HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(s_.mu);
    std::string path = request.path.substr(0, request.path.find('?'));
    if (request.method == "GET") {
      auto it = s_.objects.find(path);
      if (it != s_.objects.end()) return Answer(200, it->second);
      if (path.size() > 7 && path.substr(path.size() - 7) == "/status") {
        it = s_.objects.find(path.substr(0, path.size() - 7));
        if (it != s_.objects.end()) return Answer(200, it->second);
      }
      nlohmann::json items = nlohmann::json::array();
      for (const auto& [p, o] : s_.objects) {
        if (p.rfind(path + "/", 0) == 0 && p.find('/', path.size() + 1) == std::string::npos) items.push_back(o);
      }
      if (!IsCollection(path)) return Error(404, "NotFound", "not found");
      return Answer(200, {{"items", items}, {"metadata", {{"resourceVersion", std::to_string(s_.rv)}}}});
    }
    nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
    if (body.is_discarded()) return Error(400, "BadRequest", "body is not JSON");
    ++s_.writes;
    if (request.method == "POST") {
      const std::string name = body["metadata"].value("name", "");
      const std::string at = path + "/" + name;
      if (s_.objects.count(at)) return Error(409, "AlreadyExists", name + " already exists");
      body["metadata"]["resourceVersion"] = std::to_string(++s_.rv);
      body["metadata"]["uid"] = "uid-" + std::to_string(s_.rv);
      body["metadata"]["generation"] = 1;
      body["metadata"]["creationTimestamp"] = "2026-12-03T10:00:00Z";
      if (HasStatusSubresource(path)) body.erase("status");
      s_.objects[at] = body;
      return Answer(201, body);
    }
    if (request.method == "PUT") {
      const bool status = path.size() > 7 && path.substr(path.size() - 7) == "/status";
      const std::string at = status ? path.substr(0, path.size() - 7) : path;
      auto it = s_.objects.find(at);
      if (it == s_.objects.end()) return Error(404, "NotFound", "not found");
      nlohmann::json& stored = it->second;
      if (status && s_.fail_next_status_puts > 0) {
        --s_.fail_next_status_puts;
        stored["metadata"]["resourceVersion"] = std::to_string(++s_.rv);  // "another writer"
        return Error(409, "Conflict", "the object has been modified");
      }
      if (body["metadata"].value("resourceVersion", "") != stored["metadata"].value("resourceVersion", "")) {
        return Error(409, "Conflict", "the object has been modified; please apply your changes to the latest version");
      }
      nlohmann::json next = stored;
      if (status) {
        next["status"] = body.value("status", nlohmann::json::object());
      } else if (HasStatusSubresource(at)) {
        if (body.value("spec", nlohmann::json()) != stored.value("spec", nlohmann::json())) {
          next["metadata"]["generation"] = stored["metadata"].value("generation", 1) + 1;
        }
        next["spec"] = body.value("spec", nlohmann::json());
        for (const char* k : {"labels", "annotations"}) {
          if (body["metadata"].contains(k)) next["metadata"][k] = body["metadata"][k];
        }
      } else {
        next = body;
        next["metadata"]["uid"] = stored["metadata"]["uid"];
      }
      next["metadata"]["resourceVersion"] = std::to_string(++s_.rv);
      stored = next;
      return Answer(200, stored);
    }
    if (request.method == "PATCH") {  // merge patch (RFC 7386) of the object
      auto it = s_.objects.find(path);
      if (it == s_.objects.end()) return Error(404, "NotFound", "not found");
      it->second.merge_patch(body);
      it->second["metadata"]["resourceVersion"] = std::to_string(++s_.rv);
      return Answer(200, it->second);
    }
    return Error(405, "MethodNotAllowed", request.method + " is not supported by the fake");
  }

  kube::HttpResult Stream(const kube::HttpRequest&, const kube::StreamHandler&) override {
    return kube::TransportError{kube::TransportErrorKind::kOther, "the fake does not stream"};
  }

  // A JSON answer, and a metav1.Status failure (also for other fakes).
  static nlohmann::json StatusBody(int code, const std::string& reason, const std::string& message) {
    return {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"}, {"reason", reason},
            {"message", message}, {"code", code}};
  }
  static kube::HttpResult Answer(int code, const nlohmann::json& body) {
    kube::HttpResponse r;
    r.status = code;
    r.headers = {{"Content-Type", "application/json"}};
    r.body = body.dump();
    return r;
  }
  static kube::HttpResult Error(int code, const std::string& reason, const std::string& message) {
    return Answer(code, StatusBody(code, reason, message));
  }

 private:
  static bool HasStatusSubresource(const std::string& path) { return path.rfind("/apis/gpu.kubeon.io/", 0) == 0; }
  static bool IsCollection(const std::string& path) {
    const std::string last = path.substr(path.rfind('/') + 1);
    return last == "gpuchanges" || last == "configmaps" || last == "validatingadmissionpolicybindings";
  }

  State& s_;
};

}  // namespace kubeon::audit::testing
