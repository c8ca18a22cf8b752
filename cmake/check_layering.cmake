# Checks that no area includes an area above it (CMakeLists.txt KUBEON_AREAS,
# lowest first): the production sources of src/<area>/ may include
# "<lower area>/..." and their own area only, and so may the test helpers
# beside them (*_test_util.h, *_support.h).  A test (*_test.cc) is not
# checked: an area's test may drive a higher area end to end (e.g. metrics'
# Prometheus test compares the plans made from both history sources).
#   cmake -DSRC=<source dir>/src "-DAREAS=model;net;..." -P check_layering.cmake
# Fails (message FATAL_ERROR) naming each file and include that reaches up.
set(problems "")
list(LENGTH AREAS count)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  list(GET AREAS ${i} area)
  file(GLOB files ${SRC}/${area}/*.h ${SRC}/${area}/*.cc)
  foreach(f ${files})
    if(f MATCHES "_test\\.cc$")
      continue()
    endif()
    file(STRINGS ${f} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" used "${line}")
      list(FIND AREAS ${used} j)
      if(j GREATER i)
        file(RELATIVE_PATH rel ${SRC} ${f})
        string(APPEND problems "  src/${rel}: ${line} (${area} is below ${used})\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "includes that reach up the layering (KUBEON_AREAS):\n${problems}")
endif()
message(STATUS "layering: no area includes one above it")
