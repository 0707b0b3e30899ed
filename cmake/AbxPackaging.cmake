# Debian packages of a /usr install, built by CPack's DEB generator from the
# install components (`cpack -G DEB` or the `package` target in a build
# configured with -DCMAKE_INSTALL_PREFIX=/usr; docs/packaging.md):
#
#   component  package                  carries
#   server     agent-sandbox-server     the server, the core plugins, /etc config, the unit
#   files      agent-sandbox-files      abx_files.so and its drop-in (one per optional
#   agents     agent-sandbox-agents     abx_agents.so + adapters     group: installing
#   dev_tools  agent-sandbox-dev-tools  abx_dev_tools.so             the package turns
#   browser    agent-sandbox-browser    abx_browser.so               the group on)
#   inspector  agent-sandbox-inspector  abx_inspector.so, the /ui page
#   mcp        agent-sandbox-mcp        abx_mcp.so, the MCP server at /mcp (opt-in group)
#   sdk        libabx-plugin-sdk2       libabx_plugin_sdk.so.2 (named after its soname)
#   sdk_dev    libabx-plugin-sdk-dev    headers, the .so link, the CMake package
#
# Files under /etc are conffiles: config/CMakeLists.txt records them per
# component. Included from the root CMakeLists.txt after every install rule.
include_guard(GLOBAL)
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  # Debian packages install into /usr only; other prefixes install with
  # `cmake --install`.
  return()
endif()

set(ABX_DEB_MAINTAINER "agent-sandbox-server maintainers <maintainers@agent-sandbox.invalid>"
  CACHE STRING "Maintainer field of the Debian packages (name <address>)")
set(ABX_DEB_RELEASE 1 CACHE STRING "Debian revision of the packages (the part after the -)")
set(ABX_DEB_VERSION "${PROJECT_VERSION}-${ABX_DEB_RELEASE}")
set(abx_deb_src ${PROJECT_SOURCE_DIR}/packaging/debian)
set(abx_deb_out ${CMAKE_BINARY_DIR}/debian)
# Read below with file(READ) or gzip: a change configures anew.
file(GLOB abx_deb_read CONFIGURE_DEPENDS ${abx_deb_src}/lintian-overrides/*)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${abx_deb_read} ${abx_deb_src}/agent-sandbox-server.1)

# component -> package name
set(abx_deb_components server files agents dev_tools browser inspector mcp sdk sdk_dev)
set(abx_deb_server_name agent-sandbox-server)
set(abx_deb_files_name agent-sandbox-files)
set(abx_deb_agents_name agent-sandbox-agents)
set(abx_deb_dev_tools_name agent-sandbox-dev-tools)
set(abx_deb_browser_name agent-sandbox-browser)
set(abx_deb_inspector_name agent-sandbox-inspector)
set(abx_deb_mcp_name agent-sandbox-mcp)
set(abx_deb_sdk_name libabx-plugin-sdk2)
set(abx_deb_sdk_dev_name libabx-plugin-sdk-dev)
set(abx_deb_plugin_components files agents dev_tools browser inspector mcp)

# The Debian package that ships a library the plugins open by soname at run
# time (dlopen: dpkg-shlibdeps cannot see it), e.g. libarchive13.
function(abx_deb_package_of_soname soname out)
  execute_process(COMMAND dpkg-query -S "*/${soname}" OUTPUT_VARIABLE owners
    RESULT_VARIABLE rc ERROR_QUIET)
  string(REGEX MATCH "^[^:, ]+" package "${owners}")
  if(NOT rc EQUAL 0 OR NOT package)
    message(FATAL_ERROR "Debian packages: no installed package ships ${soname}")
  endif()
  set(${out} ${package} PARENT_SCOPE)
endfunction()
abx_deb_package_of_soname(${ABX_LIBARCHIVE_SONAME} abx_deb_libarchive)
abx_deb_package_of_soname(${ABX_ICU_UC_SONAME} abx_deb_libicu)
abx_deb_package_of_soname(${ABX_LIBCRYPTO_SONAME} abx_deb_libcrypto)

# What every package carries: copyright, changelog, lintian overrides
# (packaging/debian/lintian-overrides: common, then the package's own file).
configure_file(${abx_deb_src}/changelog.in ${abx_deb_out}/changelog @ONLY)
execute_process(COMMAND gzip -9n -c ${abx_deb_out}/changelog
  OUTPUT_FILE ${abx_deb_out}/changelog.Debian.gz COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND gzip -9n -c ${abx_deb_src}/agent-sandbox-server.1
  OUTPUT_FILE ${abx_deb_out}/agent-sandbox-server.1.gz COMMAND_ERROR_IS_FATAL ANY)
foreach(component IN LISTS abx_deb_components)
  set(package ${abx_deb_${component}_name})
  install(FILES ${abx_deb_src}/copyright ${abx_deb_out}/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
  # The overrides every package has, then the package's own.
  file(READ ${abx_deb_src}/lintian-overrides/common overrides)
  if(EXISTS ${abx_deb_src}/lintian-overrides/${package})
    file(READ ${abx_deb_src}/lintian-overrides/${package} own)
    string(APPEND overrides "${own}")
  endif()
  file(WRITE ${abx_deb_out}/${component}/lintian/${package} "${overrides}")
  install(FILES ${abx_deb_out}/${component}/lintian/${package}
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides COMPONENT ${component})
endforeach()

# The server package: the unit, its environment file (root only: it holds
# the token, and the sandboxed programs run as the service user), the man page.
install(FILES ${abx_deb_src}/agent-sandbox-server.service
  DESTINATION lib/systemd/system COMPONENT server)
install(FILES ${abx_deb_src}/agent-sandbox-server.default DESTINATION /etc/default
  RENAME agent-sandbox-server PERMISSIONS OWNER_READ OWNER_WRITE COMPONENT server)
set_property(GLOBAL APPEND PROPERTY ABX_CONFFILES_server /etc/default/agent-sandbox-server)
install(FILES ${abx_deb_out}/agent-sandbox-server.1.gz
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT server)
# The plugin packages' maintainer scripts, for third-party plugin packages
# too: ${AgentSandboxPluginSDK_DIR}/debian/ after find_package().
install(FILES ${abx_deb_src}/plugin.preinst.in ${abx_deb_src}/plugin.postrm.in
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/AgentSandboxPluginSDK/debian COMPONENT sdk_dev)

# Control files: conffiles of each component, the server's maintainer
# scripts and triggers, each plugin package's preinst/postrm for its drop-in.
set(ABX_PLUGIN_DIR_FULL ${CMAKE_INSTALL_FULL_LIBDIR}/agent-sandbox/plugins)
configure_file(${abx_deb_src}/agent-sandbox-server/triggers.in
  ${abx_deb_out}/server/triggers @ONLY)
set(abx_deb_server_extra ${abx_deb_out}/server/triggers)
foreach(script postinst prerm postrm)
  list(APPEND abx_deb_server_extra ${abx_deb_src}/agent-sandbox-server/${script})
endforeach()
set(abx_deb_sdk_extra ${abx_deb_src}/libabx-plugin-sdk2/triggers)
foreach(component IN LISTS abx_deb_plugin_components)
  get_property(drop_in GLOBAL PROPERTY ABX_DROP_IN_${component})
  list(LENGTH drop_in count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "Debian packages: component ${component} has ${count} drop-ins")
  endif()
  set(ABX_DEB_PACKAGE ${abx_deb_${component}_name})
  set(ABX_DROP_IN ${drop_in})
  foreach(script preinst postrm)
    configure_file(${abx_deb_src}/plugin.${script}.in ${abx_deb_out}/${component}/${script} @ONLY)
    list(APPEND abx_deb_${component}_extra ${abx_deb_out}/${component}/${script})
  endforeach()
endforeach()
foreach(component IN LISTS abx_deb_components)
  get_property(conffiles GLOBAL PROPERTY ABX_CONFFILES_${component})
  if(conffiles)
    list(JOIN conffiles "\n" text)
    file(WRITE ${abx_deb_out}/${component}/conffiles "${text}\n")
    list(APPEND abx_deb_${component}_extra ${abx_deb_out}/${component}/conffiles)
  endif()
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME agent-sandbox-server)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${ABX_DEB_MAINTAINER}")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${abx_deb_components})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${ABX_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SOURCE agent-sandbox-server)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ABX_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Stripped binaries (the build is RelWithDebInfo); dependencies on system
# libraries from dpkg-shlibdeps. The SDK library is found in the build tree
# (it is not installed yet): its dependency is the explicit one below.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(abx_deb_same "(= ${ABX_DEB_VERSION})")
foreach(component IN LISTS abx_deb_components)
  string(TOUPPER ${component} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${abx_deb_${component}_name})
  set(CPACK_DEBIAN_${C}_PACKAGE_SECTION net)
  set(CPACK_DEBIAN_${C}_PACKAGE_CONTROL_EXTRA "${abx_deb_${component}_extra}")
endforeach()
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_SDK_DEV_PACKAGE_SECTION libdevel)

# adduser: the postinst's system user; procps: the unit's /bin/kill (reload).
set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS "libabx-plugin-sdk2 ${abx_deb_same}, adduser, procps")
set(CPACK_DEBIAN_SERVER_PACKAGE_SUGGESTS "agent-sandbox-files, agent-sandbox-agents, \
agent-sandbox-dev-tools, agent-sandbox-browser, agent-sandbox-inspector, agent-sandbox-mcp")
set(CPACK_DEBIAN_SERVER_DESCRIPTION "HTTP sandbox server for coding agents
agent-sandbox-server serves a sandbox over HTTP: shell commands and
background processes, terminals over WebSocket, system information and
declarative commands, behind a token and a policy. Optional groups come as
their own packages (agent-sandbox-files, -agents, -dev-tools, -browser,
-inspector, -mcp).
The service runs as the system user agent-sandbox and starts once a token
is set in /etc/default/agent-sandbox-server.")

set(abx_deb_plugin_depends "agent-sandbox-server ${abx_deb_same}")
set(CPACK_DEBIAN_FILES_PACKAGE_DEPENDS "${abx_deb_plugin_depends}, ${abx_deb_libarchive}")
set(CPACK_DEBIAN_FILES_DESCRIPTION "file operations group for agent-sandbox-server
The files group of agent-sandbox-server: read, write, list, search, move
and delete files below the base dir, streamed uploads and downloads, and
archives (libarchive).")
set(CPACK_DEBIAN_AGENTS_PACKAGE_DEPENDS "${abx_deb_plugin_depends}, ${abx_deb_libcrypto}")
# The agent CLIs (claude, qwen, codex, cursor-agent) are installed by the
# operator, most from npm.
set(CPACK_DEBIAN_AGENTS_PACKAGE_SUGGESTS "nodejs, npm")
set(CPACK_DEBIAN_AGENTS_DESCRIPTION "agents group for agent-sandbox-server
The agents group of agent-sandbox-server: hosted agent sessions, the
OpenAI Responses wire and agent definitions, with runtime adapters for
agent CLIs (a declarative command adapter, Claude Code, Qwen Code, Cursor
and Codex). The CLIs themselves are not part of this package.")
set(CPACK_DEBIAN_DEV_TOOLS_PACKAGE_DEPENDS "${abx_deb_plugin_depends}, git")
set(CPACK_DEBIAN_DEV_TOOLS_PACKAGE_SUGGESTS "python3, nodejs")
set(CPACK_DEBIAN_DEV_TOOLS_DESCRIPTION "developer tools group for agent-sandbox-server
The dev_tools group of agent-sandbox-server (opt-in): run code snippets
(Python, Node.js, Bash) and read git status and diffs.")
set(CPACK_DEBIAN_BROWSER_PACKAGE_DEPENDS "${abx_deb_plugin_depends}, chromium, ${abx_deb_libicu}")
set(CPACK_DEBIAN_BROWSER_DESCRIPTION "browser group for agent-sandbox-server
The browser group of agent-sandbox-server (opt-in): headless Chromium
driven over the DevTools protocol, every connection checked against the
URL policy.")
set(CPACK_DEBIAN_INSPECTOR_PACKAGE_DEPENDS "${abx_deb_plugin_depends}")
set(CPACK_DEBIAN_INSPECTOR_DESCRIPTION "inspector page for agent-sandbox-server
The inspector group of agent-sandbox-server: a web page at /ui that shows
agent sessions with their turns as they stream, background processes and
their output, terminals, recent audit decisions and server metrics, through
the public API with a token pasted into the page. Its files are built into
the plugin.")
set(CPACK_DEBIAN_MCP_PACKAGE_DEPENDS "${abx_deb_plugin_depends}")
set(CPACK_DEBIAN_MCP_DESCRIPTION "MCP server group for agent-sandbox-server
The mcp group of agent-sandbox-server (opt-in): the sandbox as a Model
Context Protocol server (Streamable HTTP) at /mcp, whose tools are the
server's own routes, admitted, limited and audited by the same policy.")
set(CPACK_DEBIAN_SDK_DESCRIPTION "plugin SDK library of agent-sandbox-server
The shared library that agent-sandbox-server and its plugins link: the
plugin ABI's key functions, JSON and subprocess helpers.")
set(CPACK_DEBIAN_SDK_DEV_PACKAGE_DEPENDS "libabx-plugin-sdk2 ${abx_deb_same}")
set(CPACK_DEBIAN_SDK_DEV_PACKAGE_SUGGESTS "cmake, libgmock-dev")
set(CPACK_DEBIAN_SDK_DEV_DESCRIPTION "plugin SDK of agent-sandbox-server (development files)
Headers, the CMake package AgentSandboxPluginSDK and abx_add_plugin() for
building agent-sandbox-server plugins and agent adapters out of tree.")

include(CPack)
