// Discovery documents, in the legacy (non-aggregated) form every kubectl
// understands: /version, /api, /api/v1, /apis, /apis/<group>,
// /apis/<group>/<version>.
//
// kubectl 1.27+ asks for aggregated discovery with an Accept header listing
// application/json;g=apidiscovery.k8s.io;v=v2[beta1];as=APIGroupDiscoveryList
// before plain application/json; answering with Content-Type
// application/json and these documents makes it fall back to the legacy
// endpoints, as it does against older servers.
//
// Subresources are listed as "<plural>/<sub>" entries; pods/eviction names
// group policy, version v1, kind Eviction, which is what kubectl drain
// checks before it uses the eviction API.
#pragma once

#include <optional>
#include <string>

#include "api_error.h"
#include "custom_resources.h"

namespace kubeon::kubesim {

json VersionInfo(const std::string& git_version);
json ApiVersions(const std::string& server_address);
// `custom`: the custom resource types served besides the built-ins (may be
// null); their groups and resources are listed like the built-ins'.
json ApiGroupList(const CustomTypes* custom = nullptr);
// nullopt when the group (or group/version) is not served.
std::optional<json> ApiGroup(const std::string& group, const CustomTypes* custom = nullptr);
std::optional<json> ApiResourceList(const std::string& group, const std::string& version,
                                    const CustomTypes* custom = nullptr);

}  // namespace kubeon::kubesim
