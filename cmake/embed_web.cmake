# Turns the reviewer page's files (web/index.html, web/app.js, web/app.css)
# into a C++ source defining kubeon::controller::WebAssets(): one entry per
# file with its URL path ("/" for index.html, "/static/<name>" otherwise),
# Content-Type, a strong ETag (the file's SHA-256) and its bytes.
# Invoked by the build with -DDIR=<web dir> -DFILES=<name;name;...> -DOUT=<cc>.
set(ENTRIES "")
set(DATA "")
set(I 0)
string(REPLACE "," ";" FILES "${FILES}")
foreach(NAME ${FILES})
  set(PATH ${DIR}/${NAME})
  file(READ ${PATH} CONTENT HEX)
  file(SHA256 ${PATH} HASH)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${CONTENT}")
  get_filename_component(EXT ${NAME} LAST_EXT)
  if(EXT STREQUAL ".html")
    set(TYPE "text/html; charset=utf-8")
  elseif(EXT STREQUAL ".js" OR EXT STREQUAL ".mjs")
    set(TYPE "text/javascript; charset=utf-8")
  elseif(EXT STREQUAL ".css")
    set(TYPE "text/css; charset=utf-8")
  elseif(EXT STREQUAL ".svg")
    set(TYPE "image/svg+xml")
  else()
    message(FATAL_ERROR "embed_web.cmake: no Content-Type for ${NAME}")
  endif()
  if(NAME STREQUAL "index.html")
    set(URL "/")
  else()
    set(URL "/static/${NAME}")
  endif()
  string(APPEND DATA "static const unsigned char kFile${I}[] = {${BYTES} 0};\n")
  string(APPEND ENTRIES "      {\"${URL}\", \"${TYPE}\", \"\\\"${HASH}\\\"\", std::string_view(reinterpret_cast<const char*>(kFile${I}), sizeof(kFile${I}) - 1)},\n")
  math(EXPR I "${I} + 1")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from web/ by cmake/embed_web.cmake. Do not edit.
#include \"controller/web_assets.h\"
namespace kubeon::controller {
namespace {
${DATA}}  // namespace
const std::vector<WebAsset>& WebAssets() {
  static const std::vector<WebAsset> kAssets = {
${ENTRIES}  };
  return kAssets;
}
}  // namespace kubeon::controller
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
