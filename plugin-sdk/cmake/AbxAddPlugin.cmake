# abx_add_plugin(<target> [KIND capability|adapter]
#                [CORE_SOURCES <files>...]  # static core, unit-testable without dlopen
#                SOURCES <files>...         # entry.cpp (ABX_DECLARE_PLUGIN) and the rest
#                [LINK <libs>...]
#                [COMPONENT <name>]         # the install component (one .deb per component)
#                [OPENAPI <file>])          # the OpenAPI fragment (default: openapi.json here, if any)
# Builds <target>.so as a MODULE with hidden visibility, no undefined symbols,
# linked against AgentSandbox::PluginSDK, and installs it where the server
# looks: ABX_PLUGIN_INSTALL_DIR (set by find_package(AgentSandboxPluginSDK)
# to the server install's plugin dir), else <libdir>/agent-sandbox/plugins.
# With CORE_SOURCES, <target>_core is a static library that the module and
# the plugin's tests link. COMPONENT puts the module in that install
# component, so a CPack package (a .deb per component) carries it; without
# it the module is in CMake's default component.
# The plugin's OpenAPI fragment (OPENAPI, else openapi.json in the calling
# source folder when there is one) goes beside the module as
# <target>.openapi.json, in the build tree and in the install: the server
# reads it from there for GET /openapi.json (docs/openapi.md).
include_guard(GLOBAL)
include(GNUInstallDirs)

function(abx_add_plugin target)
  cmake_parse_arguments(ARG "" "KIND;COMPONENT;OPENAPI" "SOURCES;CORE_SOURCES;LINK" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "abx_add_plugin(${target}): SOURCES is required")
  endif()
  # KIND documents what the plugin provides (the ABX_DECLARE_PLUGIN kind is
  # what the loader checks); catch a misspelling here all the same.
  if(ARG_KIND AND NOT ARG_KIND MATCHES "^(capability|adapter)$")
    message(FATAL_ERROR "abx_add_plugin(${target}): KIND must be capability or adapter")
  endif()
  set(hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
             POSITION_INDEPENDENT_CODE ON)
  if(ARG_CORE_SOURCES)
    add_library(${target}_core STATIC ${ARG_CORE_SOURCES})
    set_target_properties(${target}_core PROPERTIES ${hidden})
    target_compile_features(${target}_core PUBLIC cxx_std_20)
    target_include_directories(${target}_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${target}_core PUBLIC AgentSandbox::PluginSDK ${ARG_LINK})
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES PREFIX "" ${hidden})
  if(DEFINED ABX_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ABX_PLUGIN_OUTPUT_DIR})
  endif()
  target_compile_features(${target} PRIVATE cxx_std_20)
  target_link_libraries(${target} PRIVATE AgentSandbox::PluginSDK ${ARG_LINK})
  if(ARG_CORE_SOURCES)
    target_link_libraries(${target} PRIVATE ${target}_core)
  endif()
  # A sanitized in-tree build (clang's static runtime lives in the
  # executable) leaves the sanitizer's symbols for the loading binary.
  if(ABX_SANITIZE OR ABX_TSAN)
    target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL)
  else()
    target_link_options(${target} PRIVATE -Wl,-z,defs -Wl,--exclude-libs,ALL)
  endif()
  if(DEFINED ABX_PLUGIN_INSTALL_DIR)
    set(destination ${ABX_PLUGIN_INSTALL_DIR})
  else()
    set(destination ${CMAKE_INSTALL_LIBDIR}/agent-sandbox/plugins)
  endif()
  set(component)
  if(ARG_COMPONENT)
    set(component COMPONENT ${ARG_COMPONENT})
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${destination} ${component})
  _abx_plugin_openapi(${target} "${ARG_OPENAPI}" ${destination} "${component}")
endfunction()

function(_abx_plugin_openapi target fragment destination component)
  if(fragment)
    get_filename_component(fragment ${fragment} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${fragment})
      message(FATAL_ERROR "abx_add_plugin(${target}): OPENAPI ${fragment} does not exist")
    endif()
  elseif(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/openapi.json)
    set(fragment ${CMAKE_CURRENT_SOURCE_DIR}/openapi.json)
  else()
    return()
  endif()
  if(DEFINED ABX_PLUGIN_OUTPUT_DIR)
    set(out ${ABX_PLUGIN_OUTPUT_DIR}/${target}.openapi.json)
  else()
    set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}.openapi.json)
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${fragment} ${out}
    DEPENDS ${fragment} VERBATIM)
  add_custom_target(${target}_openapi DEPENDS ${out})
  add_dependencies(${target} ${target}_openapi)
  install(FILES ${fragment} DESTINATION ${destination} RENAME ${target}.openapi.json ${component})
endfunction()

# abx_library_soname(<library file> <out var>): the soname a plugin gives
# sdk::LazyLibrary (abx/sdk/lazy_library.h) to open, on first use, the
# library CMake found — "libarchive.so.13" for ".../libarchive.so".
function(abx_library_soname library out)
  file(REAL_PATH "${library}" real)
  get_filename_component(file "${real}" NAME)
  string(REGEX MATCH "^lib[^/]*\\.so\\.[0-9]+" soname "${file}")
  if(NOT soname)
    message(FATAL_ERROR "abx_library_soname: no soname in ${real}")
  endif()
  set(${out} "${soname}" PARENT_SCOPE)
endfunction()
