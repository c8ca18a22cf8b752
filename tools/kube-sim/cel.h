// A subset of CEL (the Common Expression Language of
// ValidatingAdmissionPolicies), enough for policies like
// deploy/vap-approvals.yaml.
//
// Supported: literals (integers, doubles, 'single' or "double" quoted
// strings, true, false, null, [list, ...]), the variables object,
// oldObject and request (request.operation, request.userInfo.username,
// .uid, .groups, request.name, request.namespace), field selection a.b,
// index a['k'] / a[0], `in` (a key of a map, an element of a list), has(a.b),
// size(x), ==, !=, <, <=, >, >=, !, &&, ||, ?: and parentheses.  Anything
// else (other functions, methods, macros like all/exists, params,
// variables) fails to compile with a message naming it: such a policy is
// not enforced.
//
// Semantics as CEL: selecting a missing field or key is an error; has()
// is false instead; && and || absorb an error when the other side decides
// (false && error = false); comparing values of different types is an
// error, except that == and != between them are false/true.
#pragma once

#include <memory>
#include <string>

#include "api_error.h"

namespace kubeon::kubesim {

struct CelNode;

class CelProgram {
 public:
  // Parses `expression`; an unsupported construct is a 400 naming it.
  static Outcome<CelProgram> Compile(const std::string& expression);
  // Evaluates against `vars` (a JSON object: variable name -> value); an
  // evaluation error is a 400 with CEL's wording ("no such key: x").
  Outcome<json> Evaluate(const json& vars) const;

 private:
  std::shared_ptr<const CelNode> root_;
};

}  // namespace kubeon::kubesim
