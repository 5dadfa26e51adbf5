# tether_embed_files(OUTPUT <file.cc> HEADER <header> FUNCTION <qualified name> FILES <files...>)
#
# Generates <file.cc> at build time defining
#   std::span<const <entry type>> <FUNCTION>()
# whose entries hold each file's base name and its bytes, so that a binary carries its data
# (the model catalog, the dashboard's files) and works from any directory. The entry type,
# declared in <header> and named by ENTRY, must be an aggregate whose first two members are
# std::string_view: the base name, then the bytes. Base names must be unique among FILES.
# The files are listed explicitly (no globbing); editing one regenerates the source.
set(TETHER_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files_script.cmake)

function(tether_embed_files)
  cmake_parse_arguments(arg "" "OUTPUT;HEADER;FUNCTION;ENTRY" "FILES" ${ARGN})
  # A CMake list cannot pass through -D unescaped; '|' never occurs in our paths.
  string(REPLACE ";" "|" files_arg "${arg_FILES}")
  add_custom_command(
    OUTPUT ${arg_OUTPUT}
    COMMAND ${CMAKE_COMMAND}
      "-DOUTPUT=${arg_OUTPUT}" "-DHEADER=${arg_HEADER}" "-DFUNCTION=${arg_FUNCTION}"
      "-DENTRY=${arg_ENTRY}" "-DFILES=${files_arg}"
      -P ${TETHER_EMBED_SCRIPT}
    DEPENDS ${arg_FILES} ${TETHER_EMBED_SCRIPT}
    COMMENT "Embedding ${arg_FUNCTION} data"
    VERBATIM)
endfunction()
