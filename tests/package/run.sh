#!/usr/bin/env bash
# Validates the Kubernetes manifests of packaging/k8s/ (k8s_manifests.mjs):
# the agent-sandbox controller kinds against the controller's CRD schemas in
# CRDS_DIR, every pod that runs the server by explicit checks, and broken
# copies that must be rejected.
#
#   run.sh CRDS_DIR
#
# Exit codes: 0 pass, 1 fail, 77 skip (node/npm, the pinned npm packages or
# CRDS_DIR unavailable and CI is not set; under CI=true that is a failure).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
crds="${1:-}"
skip() { echo "package: $1" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
[ -n "$crds" ] && [ -d "$crds" ] || skip "no CRD folder '$crds' (configure with -DABX_AGENT_SANDBOX_CRDS=DIR)"
rc=0
bash "$here/install.sh" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
exec node "$here/k8s_manifests.mjs" --manifests "$repo/packaging/k8s" --crds "$crds" --source "$repo"
