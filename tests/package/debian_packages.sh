#!/usr/bin/env bash
# The Debian packages of a /usr build (made and installed by build_prefix.sh):
# builds them with cpack into BUILD_DIR/debian-packages, checks what each
# carries (every installed file in exactly one package, /etc files as
# conffiles, the expected Depends) and runs lintian (errors and warnings
# fail unless the package overrides them). debian_install.sh installs them.
#
#   debian_packages.sh BUILD_DIR
#
# Exit codes: 0 pass, 1 fail, 77 skip (a tool missing and CI is not set;
# under CI=true that is a failure).
set -euo pipefail
build=$(cd "${1:?usage: debian_packages.sh BUILD_DIR}" && pwd)
out="$build/debian-packages"
start_s=$(date +%s)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "debian_packages: $*" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
step() { echo "[$(($(date +%s) - start_s))s] $*"; }

for tool in cpack dpkg-deb dpkg-shlibdeps lintian systemd-analyze; do
  command -v "$tool" > /dev/null || skip "$tool not installed (packaging/install-deps.sh)"
done
[ -d "$build/destdir/usr/bin" ] || fail "no /usr install in $build/destdir (build_prefix.sh)"

step "cpack"
rm -rf "$out"
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" > "$out/cpack.log" 2>&1) || { tail -30 "$out/cpack.log"; fail "cpack"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
packages="agent-sandbox-server agent-sandbox-files agent-sandbox-agents agent-sandbox-dev-tools
  agent-sandbox-browser agent-sandbox-inspector agent-sandbox-mcp libabx-plugin-sdk2
  libabx-plugin-sdk-dev"
for p in $packages; do
  ls "$out/${p}_${version}-"*.deb > /dev/null 2>&1 || fail "no $p .deb in $out"
done
[ "$(ls "$out"/*.deb | wc -l)" -eq 9 ] || fail "$(ls "$out"/*.deb | wc -l) .debs, want 9"
deb() { ls "$out/${1}_"*.deb; }

step "contents"
# Every file `cmake --install` puts down is in exactly one package.
(cd "$build/destdir" && find . ! -type d | sort) > "$out/installed.txt"
for f in "$out"/*.deb; do
  dpkg-deb --fsys-tarfile "$f" | tar -tv > "${f%.deb}.list"
done
cat "$out"/*.list | grep -v '^d' | awk '{print $6}' | sort > "$out/packaged.txt"
uniq -d "$out/packaged.txt" | grep . && fail "files in more than one package"
diff "$out/installed.txt" "$out/packaged.txt" > "$out/contents.diff" ||
  { cat "$out/contents.diff"; fail "installed files and packaged files differ (< installed, > packaged)"; }
# Each package: its /etc files are its conffiles, nothing else is.
for f in "$out"/*.deb; do
  etc=$(grep -v '^d' "${f%.deb}.list" | awk '{print $6}' | grep '^\./etc/' | sed 's/^\.//' | sort || true)
  conf=$(dpkg-deb --info "$f" conffiles 2> /dev/null | sort || true)
  [ "$etc" = "$conf" ] || fail "$(basename "$f"): /etc files and conffiles differ: [$etc] vs [$conf]"
done
list() { local d; d=$(deb "$1"); echo "${d%.deb}.list"; }
contains() { awk '{print $6}' "$(list "$1")" | grep -- "$2" > /dev/null || fail "$1 lacks $2"; }
contains agent-sandbox-server ./usr/bin/agent-sandbox-server
contains agent-sandbox-server ./usr/lib/systemd/system/agent-sandbox-server.service
for p in commands system process terminal; do contains agent-sandbox-server "/abx_$p.so$"; done
contains agent-sandbox-files /abx_files.so
# Each plugin's OpenAPI fragment travels with it.
for p in commands system process terminal; do contains agent-sandbox-server "/abx_$p.openapi.json$"; done
contains agent-sandbox-files /abx_files.openapi.json
contains agent-sandbox-dev-tools /abx_dev_tools.openapi.json
contains agent-sandbox-files ./etc/agent-sandbox/plugins.d/10-files.yaml
for p in agents adapter_command adapter_claude_code adapter_qwen_code adapter_cursor adapter_codex; do
  contains agent-sandbox-agents "/abx_$p.so$"
done
contains agent-sandbox-inspector /abx_inspector.so
contains agent-sandbox-inspector /abx_inspector.openapi.json
contains agent-sandbox-inspector ./etc/agent-sandbox/plugins.d/50-inspector.yaml
contains agent-sandbox-mcp /abx_mcp.so
contains agent-sandbox-mcp /abx_mcp.openapi.json
contains agent-sandbox-mcp ./etc/agent-sandbox/plugins.d/60-mcp.yaml
contains libabx-plugin-sdk2 "/libabx_plugin_sdk.so.2$"
contains libabx-plugin-sdk-dev "/libabx_plugin_sdk.so$"
contains libabx-plugin-sdk-dev /AgentSandboxPluginSDKConfig.cmake
contains libabx-plugin-sdk-dev /AbxAddPlugin.cmake
contains libabx-plugin-sdk-dev ./usr/include/abx/sdk/plugin.h
# The token file is root's alone (the sandboxed programs run as the service user).
grep -q '^-rw------- root/root .* \./etc/default/agent-sandbox-server$' "$(list agent-sandbox-server)" ||
  fail "/etc/default/agent-sandbox-server is not 0600 root:root"
depends() {
  local d
  d=$(dpkg-deb -f "$(deb "$1")" Depends)
  grep -q -- "$2" <<<"$d" || fail "$1 Depends lacks '$2': $d"
}
depends agent-sandbox-server "libabx-plugin-sdk2 (= $version-"
depends agent-sandbox-server adduser
depends agent-sandbox-server procps
depends agent-sandbox-server libyaml-cpp
# The server and its plugins no longer link POCO (the SDK's codecs and digests).
for p in agent-sandbox-server agent-sandbox-files agent-sandbox-terminal agent-sandbox-browser; do
  [ -f "$(deb "$p" 2>/dev/null)" ] || continue
  ! dpkg-deb -f "$(deb "$p")" Depends | grep libpoco >/dev/null || fail "$p still depends on POCO"
done
for p in files agents dev-tools browser inspector mcp; do depends "agent-sandbox-$p" "agent-sandbox-server (= $version-"; done
depends agent-sandbox-files libarchive13
depends agent-sandbox-agents libssl3  # libcrypto: the sealed secrets of agents_state.json
depends agent-sandbox-dev-tools git
depends agent-sandbox-browser chromium
depends agent-sandbox-browser libicu
depends libabx-plugin-sdk-dev "libabx-plugin-sdk2 (= $version-"
dpkg-deb -I "$(deb libabx-plugin-sdk2)" shlibs | grep '^libabx_plugin_sdk 2 libabx-plugin-sdk2' >/dev/null ||
  fail "libabx-plugin-sdk2 has no shlibs entry"

step "systemd-analyze verify"
# Every key and value of the unit must parse (systemd ignores what it does
# not understand, with a warning); the server binary is not installed here.
unit="$build/destdir/usr/lib/systemd/system/agent-sandbox-server.service"
cp "$unit" "$out/"
(cd "$out" && systemd-analyze verify --man=no agent-sandbox-server.service 2>&1 || true) |
  grep -v 'Command /usr/bin/agent-sandbox-server is not executable' > "$out/verify.txt" || true
[ ! -s "$out/verify.txt" ] || { cat "$out/verify.txt"; fail "systemd-analyze verify"; }

step "hardening"
# Every ELF file shipped: full RELRO (a GNU_RELRO segment and BIND_NOW, so
# the GOT is read-only once the program runs); the server and the SDK
# library also call the fortified libc functions and the stack-protector.
elves=$(find "$build/destdir" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
[ -n "$elves" ] || fail "no ELF file in $build/destdir"
for elf in $elves; do
  readelf -lW "$elf" | grep GNU_RELRO >/dev/null || fail "$elf: no GNU_RELRO segment"
  readelf -dW "$elf" | grep -E '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' >/dev/null || fail "$elf: not linked with -z now"
done
for elf in "$build/destdir/usr/bin/agent-sandbox-server" "$build"/destdir/usr/lib/*/libabx_plugin_sdk.so.2; do
  syms=$(readelf --dyn-syms -W "$elf")
  grep -q '__stack_chk_fail' <<<"$syms" || fail "$elf: no stack protector"
  grep -Eq ' __[a-z_]+_chk(@|$)' <<<"$syms" || fail "$elf: no fortified libc call"
done

step "lintian"
lintian --fail-on error,warning --tag-display-limit 0 "$out"/*.deb > "$out/lintian.txt" 2>&1 ||
  { grep -v '^N:' "$out/lintian.txt"; fail "lintian (errors or warnings not overridden)"; }
grep -E '^[EW]: ' "$out/lintian.txt" && fail "lintian reported errors or warnings"
step "done: $(ls "$out"/*.deb | wc -l) packages in $out, lintian clean"

