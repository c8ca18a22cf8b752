# Turns a JSON data file into a C++ source defining a function that returns it
# as a std::string_view.  Invoked by the build with -DIN=<json> -DOUT=<cc>;
# optional -DNAMESPACE= and -DFUNCTION= (defaults: the MIG catalog,
# data/mig-catalog.json -> kubeon::mig::BuiltinCatalogJson()).
if(NOT DEFINED NAMESPACE)
  set(NAMESPACE kubeon::mig)
endif()
if(NOT DEFINED FUNCTION)
  set(FUNCTION BuiltinCatalogJson)
endif()
get_filename_component(SOURCE_NAME ${IN} NAME)
file(READ ${IN} CONTENT HEX)
string(LENGTH "${CONTENT}" HEXLEN)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
file(WRITE ${OUT} "// Generated from ${SOURCE_NAME} by cmake/embed_catalog.cmake. Do not edit.\n#include <string_view>\nnamespace ${NAMESPACE} {\nstatic const char kData[] = {${BYTES} 0};\nstd::string_view ${FUNCTION}() { return std::string_view(kData, sizeof(kData) - 1); }\n}  // namespace ${NAMESPACE}\n")
