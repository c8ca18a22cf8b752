# Turns data/mig-catalog.json into a C++ source defining kubeon::mig::BuiltinCatalogJson().
# Invoked by the build with -DIN=<json> -DOUT=<cc>.
file(READ ${IN} CONTENT HEX)
string(LENGTH "${CONTENT}" HEXLEN)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
file(WRITE ${OUT} "// Generated from data/mig-catalog.json by cmake/embed_catalog.cmake. Do not edit.\n#include <string_view>\nnamespace kubeon::mig {\nstatic const char kCatalog[] = {${BYTES} 0};\nstd::string_view BuiltinCatalogJson() { return std::string_view(kCatalog, sizeof(kCatalog) - 1); }\n}  // namespace kubeon::mig\n")
