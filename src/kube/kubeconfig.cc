// See kubeconfig.h.
#include "kube/kubeconfig.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace kubeon::kube {
namespace {

namespace fs = std::filesystem;

constexpr const char* kServiceAccountDir = "var/run/secrets/kubernetes.io/serviceaccount";

// A named entry (cluster, user or context) and the file that defined it.
struct Entry {
  YAML::Node body;   // the "cluster:" / "user:" / "context:" map
  std::string file;  // defining file: errors name it, relative paths start at it
  int line = 0;      // 1-based line of the entry
};

struct MergedConfig {
  std::vector<std::string> files;  // files actually read, in order
  std::string current_context;
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
};

std::string JoinFiles(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) {
    if (!out.empty()) out += ":";
    out += f;
  }
  return out;
}

// "kubeconfig FILE:LINE: " (line omitted when 0).
std::string At(const std::string& file, int line) {
  std::string out = "kubeconfig " + file;
  if (line > 0) out += ":" + std::to_string(line);
  return out + ": ";
}

int LineOf(const YAML::Node& node) { return node.Mark().is_null() ? 0 : node.Mark().line + 1; }

Status ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::Error(path + ": read error");
  *out = buf.str();
  return Status::Ok();
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string ResolvePath(const std::string& file, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(file).parent_path() / path).lexically_normal().string();
}

// Reads optional string `key` of map `m`; absent or null leaves *out empty.
Status GetString(const YAML::Node& m, const char* key, const std::string& where, std::string* out) {
  out->clear();
  YAML::Node v = m[key];
  if (!v || v.IsNull()) return Status::Ok();
  if (!v.IsScalar()) return Status::Error(where + key + " must be a string");
  *out = v.Scalar();
  return Status::Ok();
}

Status GetBool(const YAML::Node& m, const char* key, const std::string& where, bool* out) {
  *out = false;
  YAML::Node v = m[key];
  if (!v || v.IsNull()) return Status::Ok();
  try {
    *out = v.as<bool>();
  } catch (const YAML::Exception&) {
    return Status::Error(where + key + " must be true or false");
  }
  return Status::Ok();
}

// Adds the named entries of list `key` (e.g. clusters[].cluster) to *into;
// names already present (from an earlier file) keep their first definition.
Status MergeNamed(const YAML::Node& doc, const char* key, const char* body_key, const std::string& file,
                  std::map<std::string, Entry>* into) {
  YAML::Node list = doc[key];
  if (!list || list.IsNull()) return Status::Ok();
  if (!list.IsSequence()) return Status::Error(At(file, LineOf(list)) + key + " must be a list");
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    std::string where = At(file, LineOf(item)) + key + "[" + std::to_string(i) + "]: ";
    if (!item.IsMap()) return Status::Error(where + "must be a map with name and " + body_key);
    std::string name;
    Status s = GetString(item, "name", where, &name);
    if (!s.ok()) return s;
    if (name.empty()) return Status::Error(where + "name is missing");
    if (!seen.insert(name).second) {
      return Status::Error(where + "duplicate name \"" + name + "\"");
    }
    YAML::Node body = item[body_key];
    if (body && !body.IsNull() && !body.IsMap()) {
      return Status::Error(where + body_key + " must be a map");
    }
    if (!into->count(name)) into->emplace(name, Entry{body, file, LineOf(item)});
  }
  return Status::Ok();
}

Status MergeText(const std::string& text, const std::string& file, MergedConfig* merged) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return Status::Error(At(file, e.mark.line + 1) + "invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    return Status::Error(At(file, 0) + "invalid YAML: " + e.msg);
  }
  merged->files.push_back(file);
  if (!doc || doc.IsNull()) return Status::Ok();  // an empty file is an empty config
  if (!doc.IsMap()) return Status::Error(At(file, LineOf(doc)) + "not a kubeconfig (expected a map)");
  std::string current;
  Status s = GetString(doc, "current-context", At(file, LineOf(doc["current-context"])), &current);
  if (!s.ok()) return s;
  if (merged->current_context.empty()) merged->current_context = current;
  if (s = MergeNamed(doc, "clusters", "cluster", file, &merged->clusters); !s.ok()) return s;
  if (s = MergeNamed(doc, "users", "user", file, &merged->users); !s.ok()) return s;
  return MergeNamed(doc, "contexts", "context", file, &merged->contexts);
}

Status MergeFile(const std::string& file, MergedConfig* merged) {
  std::string text;
  Status s = ReadFile(file, &text);
  if (!s.ok()) return Status::Error("kubeconfig " + s.message());
  return MergeText(text, file, merged);
}

// Reads "<field>-data" (base64) or "<field>" (a file) of `body`; both set is
// an error, as in kubectl.  *pem stays empty when neither is set.
Status ReadPemField(const Entry& entry, const std::string& where, const std::string& field, std::string* pem) {
  std::string data, path;
  Status s = GetString(entry.body, (field + "-data").c_str(), where, &data);
  if (!s.ok()) return s;
  if (s = GetString(entry.body, field.c_str(), where, &path); !s.ok()) return s;
  if (!data.empty() && !path.empty()) {
    return Status::Error(where + field + " and " + field + "-data are both set; keep one");
  }
  if (!data.empty()) {
    if (!DecodeBase64(data, pem)) return Status::Error(where + field + "-data is not valid base64");
    if (pem->find("-----BEGIN ") == std::string::npos) {
      return Status::Error(where + field + "-data does not hold PEM data");
    }
    return Status::Ok();
  }
  if (!path.empty()) {
    std::string resolved = ResolvePath(entry.file, path);
    s = ReadFile(resolved, pem);
    if (!s.ok()) return Status::Error(where + field + " " + s.message());
    if (pem->find("-----BEGIN ") == std::string::npos) {
      return Status::Error(where + field + " " + resolved + " does not hold PEM data");
    }
  }
  return Status::Ok();
}

Status ApplyCluster(const Entry& entry, const std::string& name, RestConfig* cfg) {
  const std::string where = At(entry.file, entry.line) + "cluster \"" + name + "\": ";
  if (!entry.body || entry.body.IsNull()) return Status::Error(where + "cluster is empty");
  Status s = GetString(entry.body, "server", where, &cfg->server);
  if (!s.ok()) return s;
  if (cfg->server.empty()) return Status::Error(where + "server is not set");
  if (cfg->server.rfind("https://", 0) != 0 && cfg->server.rfind("http://", 0) != 0) {
    return Status::Error(where + "server \"" + cfg->server + "\" must start with https:// or http://");
  }
  while (cfg->server.size() > 8 && cfg->server.back() == '/') cfg->server.pop_back();
  if (s = GetBool(entry.body, "insecure-skip-tls-verify", where, &cfg->insecure_skip_tls_verify); !s.ok()) return s;
  if (s = GetString(entry.body, "tls-server-name", where, &cfg->tls_server_name); !s.ok()) return s;
  std::string proxy;
  if (s = GetString(entry.body, "proxy-url", where, &proxy); !s.ok()) return s;
  if (!proxy.empty()) return Status::Error(where + "proxy-url is not supported");
  if (s = ReadPemField(entry, where, "certificate-authority", &cfg->ca_pem); !s.ok()) return s;
  if (cfg->insecure_skip_tls_verify && !cfg->ca_pem.empty()) {
    return Status::Error(where + "insecure-skip-tls-verify cannot be combined with a certificate authority");
  }
  return Status::Ok();
}

Status ApplyUser(const Entry& entry, const std::string& name, RestConfig* cfg) {
  const std::string where = At(entry.file, entry.line) + "user \"" + name + "\": ";
  if (!entry.body || entry.body.IsNull()) return Status::Ok();  // anonymous
  if (entry.body["exec"] && !entry.body["exec"].IsNull()) {
    return Status::Error(where + "exec credential plugins are not supported; use a kubeconfig with a token or client certificate");
  }
  if (entry.body["auth-provider"] && !entry.body["auth-provider"].IsNull()) {
    return Status::Error(where + "auth-provider is not supported; use a kubeconfig with a token or client certificate");
  }
  for (const char* key : {"username", "password"}) {
    if (entry.body[key] && !entry.body[key].IsNull()) {
      return Status::Error(where + "basic authentication (" + key + ") is not supported");
    }
  }
  for (const char* key : {"as", "as-groups", "as-uid", "as-user-extra"}) {
    if (entry.body[key] && !entry.body[key].IsNull()) {
      return Status::Error(where + "impersonation (" + key + ") is not supported");
    }
  }
  Status s = ReadPemField(entry, where, "client-certificate", &cfg->client_cert_pem);
  if (!s.ok()) return s;
  if (s = ReadPemField(entry, where, "client-key", &cfg->client_key_pem); !s.ok()) return s;
  if (cfg->client_cert_pem.empty() != cfg->client_key_pem.empty()) {
    return Status::Error(where + (cfg->client_cert_pem.empty() ? "client-key is set without client-certificate"
                                                               : "client-certificate is set without client-key"));
  }
  std::string token_file;
  if (s = GetString(entry.body, "token", where, &cfg->token); !s.ok()) return s;
  if (s = GetString(entry.body, "tokenFile", where, &token_file); !s.ok()) return s;
  if (!token_file.empty()) {
    // As in client-go, a token file takes precedence over an inline token.
    cfg->token_file = ResolvePath(entry.file, token_file);
    std::string text;
    s = ReadFile(cfg->token_file, &text);
    if (!s.ok()) return Status::Error(where + "tokenFile " + s.message());
    cfg->token = Trim(text);
    if (cfg->token.empty()) return Status::Error(where + "tokenFile " + cfg->token_file + " is empty");
  }
  return Status::Ok();
}

Result<RestConfig> Resolve(const MergedConfig& merged, const std::string& context_override) {
  const std::string files = JoinFiles(merged.files);
  const std::string name = context_override.empty() ? merged.current_context : context_override;
  if (name.empty()) {
    return Status::Error("kubeconfig " + files + ": current-context is not set and no --context was given");
  }
  auto ctx = merged.contexts.find(name);
  if (ctx == merged.contexts.end()) {
    return Status::Error("kubeconfig " + files + ": context \"" + name + "\" not found");
  }
  const Entry& c = ctx->second;
  const std::string where = At(c.file, c.line) + "context \"" + name + "\": ";
  if (!c.body || c.body.IsNull()) return Status::Error(where + "context is empty");
  RestConfig cfg;
  cfg.context_name = name;
  cfg.source = "kubeconfig " + files;
  Status s = GetString(c.body, "cluster", where, &cfg.cluster_name);
  if (!s.ok()) return s;
  if (s = GetString(c.body, "user", where, &cfg.user_name); !s.ok()) return s;
  if (s = GetString(c.body, "namespace", where, &cfg.namespace_); !s.ok()) return s;
  if (cfg.namespace_.empty()) cfg.namespace_ = "default";
  if (cfg.cluster_name.empty()) return Status::Error(where + "cluster is not set");
  auto cl = merged.clusters.find(cfg.cluster_name);
  if (cl == merged.clusters.end()) {
    return Status::Error(where + "cluster \"" + cfg.cluster_name + "\" not found");
  }
  if (s = ApplyCluster(cl->second, cfg.cluster_name, &cfg); !s.ok()) return s;
  if (!cfg.user_name.empty()) {
    auto u = merged.users.find(cfg.user_name);
    if (u == merged.users.end()) return Status::Error(where + "user \"" + cfg.user_name + "\" not found");
    if (s = ApplyUser(u->second, cfg.user_name, &cfg); !s.ok()) return s;
  }
  return cfg;
}

bool InClusterAvailable(const LoadOptions& options) {
  if (options.service_host.empty() || options.service_port.empty()) return false;
  fs::path dir = fs::path(options.in_cluster_root) / kServiceAccountDir;
  std::error_code ec;
  return fs::exists(dir / "token", ec) && fs::exists(dir / "ca.crt", ec);
}

std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(':', start);
    if (end == std::string::npos) end = value.size();
    std::string part = value.substr(start, end - start);
    if (!part.empty() && seen.insert(part).second) out.push_back(part);
    start = end + 1;
  }
  return out;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

bool DecodeBase64(const std::string& text, std::string* out) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  size_t symbols = 0;
  size_t padding = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return false;  // data after padding
    int v = Base64Value(c);
    if (v < 0) return false;
    ++symbols;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (symbols % 4 == 1 || padding > 2) return false;
  if (padding > 0 && (symbols + padding) % 4 != 0) return false;
  return true;
}

std::string RestConfig::Describe() const {
  std::string auth;
  if (!client_cert_pem.empty()) auth = "client certificate";
  if (!token.empty()) auth += std::string(auth.empty() ? "" : " + ") + "bearer token";
  if (auth.empty()) auth = "anonymous";
  std::string out = source;
  if (!context_name.empty()) out += " (context \"" + context_name + "\")";
  out += ": " + server + ", " + auth;
  if (insecure_skip_tls_verify) out += ", TLS verification DISABLED";
  return out;
}

LoadOptions LoadOptions::FromEnvironment() {
  LoadOptions o;
  if (const char* v = std::getenv("KUBECONFIG")) o.kubeconfig_env = v;
  if (const char* v = std::getenv("HOME")) o.home = v;
  if (const char* v = std::getenv("KUBERNETES_SERVICE_HOST")) o.service_host = v;
  if (const char* v = std::getenv("KUBERNETES_SERVICE_PORT")) o.service_port = v;
  return o;
}

Result<RestConfig> ParseKubeconfig(const std::string& yaml_text, const std::string& path,
                                   const std::string& context_override) {
  MergedConfig merged;
  Status s = MergeText(yaml_text, path, &merged);
  if (!s.ok()) return s;
  return Resolve(merged, context_override);
}

Result<RestConfig> LoadInClusterConfig(const LoadOptions& options) {
  if (options.service_host.empty() || options.service_port.empty()) {
    return Status::Error("in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  const fs::path dir = fs::path(options.in_cluster_root) / kServiceAccountDir;
  RestConfig cfg;
  cfg.source = "in-cluster service account";
  std::string host = options.service_host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // IPv6 literal
  cfg.server = "https://" + host + ":" + options.service_port;
  cfg.token_file = (dir / "token").string();
  std::string text;
  Status s = ReadFile(cfg.token_file, &text);
  if (!s.ok()) return Status::Error("in-cluster config: " + s.message());
  cfg.token = Trim(text);
  if (cfg.token.empty()) return Status::Error("in-cluster config: " + cfg.token_file + " is empty");
  s = ReadFile((dir / "ca.crt").string(), &cfg.ca_pem);
  if (!s.ok()) return Status::Error("in-cluster config: " + s.message());
  if (cfg.ca_pem.find("-----BEGIN ") == std::string::npos) {
    return Status::Error("in-cluster config: " + (dir / "ca.crt").string() + " does not hold PEM data");
  }
  std::string ns;
  if (ReadFile((dir / "namespace").string(), &ns).ok()) cfg.namespace_ = Trim(ns);
  if (cfg.namespace_.empty()) cfg.namespace_ = "default";
  return cfg;
}

Result<RestConfig> LoadRestConfig(const LoadOptions& options) {
  MergedConfig merged;
  std::vector<std::string> tried;
  if (!options.kubeconfig_path.empty()) {
    Status s = MergeFile(options.kubeconfig_path, &merged);
    if (!s.ok()) return s;
    return Resolve(merged, options.context);
  }
  if (options.kubeconfig_env && !options.kubeconfig_env->empty()) {
    for (const std::string& file : SplitList(*options.kubeconfig_env)) {
      tried.push_back(file);
      std::error_code ec;
      if (!fs::exists(file, ec)) continue;  // kubectl skips missing files in KUBECONFIG
      Status s = MergeFile(file, &merged);
      if (!s.ok()) return s;
    }
  } else if (!options.home.empty()) {
    std::string file = (fs::path(options.home) / ".kube" / "config").string();
    tried.push_back(file);
    std::error_code ec;
    if (fs::exists(file, ec)) {
      Status s = MergeFile(file, &merged);
      if (!s.ok()) return s;
    }
  }
  const bool empty = merged.contexts.empty() && merged.clusters.empty() && merged.current_context.empty();
  if (empty && options.context.empty() && InClusterAvailable(options)) return LoadInClusterConfig(options);
  if (merged.files.empty()) {
    std::string msg = "no kubeconfig found";
    if (!tried.empty()) msg += " (looked for " + JoinFiles(tried) + ")";
    msg += " and not running in a cluster; pass --kubeconfig or set KUBECONFIG";
    return Status::Error(msg);
  }
  return Resolve(merged, options.context);
}

}  // namespace kubeon::kube
