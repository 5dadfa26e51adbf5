# Install and export rules: `cmake --install` puts the libraries, public headers and a CMake
# package under the prefix, so another project can
#   find_package(tether CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE tether::client)
# Exported targets keep the names the build uses (tether::client, tether::proto, tether::core,
# tether::expr, …); static libraries export their link-only dependencies too.

include(CMakePackageConfigHelpers)

set(tether_export_targets)
foreach(module IN ITEMS linalg expr structure model reduce integrate project simulate)
  if(TARGET tether_${module})
    set_target_properties(tether_${module} PROPERTIES EXPORT_NAME ${module})
    list(APPEND tether_export_targets tether_${module})
  endif()
endforeach()
set_target_properties(tether_core PROPERTIES EXPORT_NAME core)
set_target_properties(tether_proto PROPERTIES EXPORT_NAME proto)
set_target_properties(tether_health_proto PROPERTIES EXPORT_NAME health_proto)
set_target_properties(tether_client PROPERTIES EXPORT_NAME client)
list(APPEND tether_export_targets tether_core tether_proto tether_health_proto tether_client)

install(TARGETS ${tether_export_targets}
  EXPORT tetherTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers: the core's, the client's, and the generated messages of the wire contract.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/client/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_BINARY_DIR}/proto/generated/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")

# Whether tether::expr links asmjit (core/expr/CMakeLists.txt), for the package's dependencies.
get_property(TETHER_NATIVE_CODE_ASMJIT GLOBAL PROPERTY TETHER_NATIVE_CODE_ASMJIT)
if(NOT TETHER_NATIVE_CODE_ASMJIT)
  set(TETHER_NATIVE_CODE_ASMJIT OFF)
endif()
set(tether_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tether)
install(EXPORT tetherTargets NAMESPACE tether:: DESTINATION ${tether_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tetherConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tetherConfig.cmake
  INSTALL_DESTINATION ${tether_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tetherConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tetherConfig.cmake ${PROJECT_BINARY_DIR}/tetherConfigVersion.cmake
  DESTINATION ${tether_cmake_dir})
