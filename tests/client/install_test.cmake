# ctest script: installs the build in BUILD_DIR under WORK_DIR/prefix, then configures and
# builds the example consumer EXAMPLE_DIR against that prefix only, and runs it once against
# an unreachable server (it must report UNAVAILABLE, proving it linked and ran).
foreach(var BUILD_DIR EXAMPLE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_test.cmake: ${var} not set")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# LINKER_FLAGS: the build's own (a sanitizer build's libraries need its runtime linked in).
run_step("configure example" ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
run_step("build example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

execute_process(COMMAND ${WORK_DIR}/build/list_models 127.0.0.1:1
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
if(NOT rc EQUAL 3 OR NOT err MATCHES "UNAVAILABLE")
  message(FATAL_ERROR "example run: expected exit 3 with UNAVAILABLE, got ${rc}:\n${out}\n${err}")
endif()
message(STATUS "example consumer built against ${prefix} and ran")
