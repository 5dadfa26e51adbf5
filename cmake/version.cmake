# Writes tether/version.h from version.h.in, run as a script (cmake -P) at every build, so that
# the commit a binary reports is the one it was built from, also after commits made since
# configuring. configure_file rewrites the header only when its text changes: an unchanged
# commit recompiles nothing.
#
# Inputs (-D): SOURCE_DIR (the checkout), TEMPLATE, OUTPUT, VERSION, BUILD_TYPE, COMPILER.
# The commit is `git rev-parse --short HEAD` in SOURCE_DIR; without a checkout (a container
# build copies the sources without .git) it is the environment's TETHER_GIT_COMMIT, else
# "unknown".
foreach(input SOURCE_DIR TEMPLATE OUTPUT VERSION BUILD_TYPE COMPILER)
  if(NOT DEFINED ${input})
    message(FATAL_ERROR "version.cmake: -D${input}=... is missing")
  endif()
endforeach()

execute_process(COMMAND git rev-parse --short HEAD
  WORKING_DIRECTORY "${SOURCE_DIR}"
  OUTPUT_VARIABLE TETHER_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE git_result ERROR_QUIET)
if(NOT git_result EQUAL 0 OR TETHER_GIT_COMMIT STREQUAL "")
  set(TETHER_GIT_COMMIT "$ENV{TETHER_GIT_COMMIT}")
endif()
if(TETHER_GIT_COMMIT STREQUAL "")
  set(TETHER_GIT_COMMIT "unknown")
endif()

set(PROJECT_VERSION "${VERSION}")
set(TETHER_BUILD_TYPE "${BUILD_TYPE}")
set(TETHER_COMPILER "${COMPILER}")
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
