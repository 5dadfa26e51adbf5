# Renders a kustomization into one YAML stream: `kubectl kustomize DIR > OUT`, failing with
# kubectl's message when it cannot, or when it renders nothing.
#   cmake -DKUBECTL=... -DDIR=deploy/k8s -DOUT=rendered.yaml -P render_kustomize.cmake
execute_process(
  COMMAND ${KUBECTL} kustomize ${DIR}
  OUTPUT_FILE ${OUT}
  ERROR_VARIABLE errors
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "kubectl kustomize ${DIR} failed (${result}): ${errors}")
endif()
file(SIZE ${OUT} size)
if(size EQUAL 0)
  message(FATAL_ERROR "kubectl kustomize ${DIR} rendered nothing")
endif()
file(STRINGS ${OUT} kinds REGEX "^kind: ")
list(LENGTH kinds count)
message(STATUS "kubectl kustomize ${DIR}: ${count} objects")
