# The test body registered in place of a check whose tool was not found at configure time.
message(FATAL_ERROR "${TEST}: '${TOOL}' was not found when CMake configured the build; "
  "run scripts/install-deps, then reconfigure (cmake --preset dev)")
