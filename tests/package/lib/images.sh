# Shared by the image tests (images_build.sh, image_check.sh); sourced.
# The images of one set of .debs are tagged IMAGE_REPO:<preset>, a name
# derived from the .deb folder, so two checkouts on one machine build and
# check their own images side by side in the same container storage.
#
#   images_setup DEB_DIR CACHE_DIR   sets IMAGE_REPO and CONTAINERS_CONF

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
skip() {
  echo "images: $*" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
}
images_start_s=$(date +%s)
step() { echo "[$(($(date +%s) - images_start_s))s] $*"; }

# Every tool the image tests use, else skip (a failure under CI=true).
images_require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" > /dev/null || skip "$tool not installed (packaging/install-deps.sh)"
  done
  [ "$(id -u)" -eq 0 ] || skip "needs root (podman and buildah with --isolation chroot)"
}

images_setup() {
  local debs=$1 cache=$2
  mkdir -p "$cache"
  cache=$(cd "$cache" && pwd)
  IMAGE_REPO="localhost/abx-test-$(printf '%s' "$(cd "$debs" && pwd)" | sha256sum | cut -c1-12)"
  # No default ulimits: a container here may not raise its limits above the
  # caller's, which the stock defaults do.
  if [ -z "${CONTAINERS_CONF:-}" ]; then
    printf '[containers]\ndefault_ulimits = []\n' > "$cache/containers.conf"
    export CONTAINERS_CONF="$cache/containers.conf"
  fi
}

# The buildah command line of every container the tests run: chroot
# isolation (no namespaces needed) and the host's network, so the server
# inside listens on the host's 127.0.0.1.
buildah_run() { buildah run --isolation chroot --network host "$@"; }
