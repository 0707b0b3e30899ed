#!/usr/bin/env bash
# The documentation speaks to a reader of this repository: it cites nothing
# the reader does not have (the specification and design notes the project
# was built from, machine paths, "the original" server), and every relative
# link in it points at a file of the repository.
#   check_docs.sh REPO_ROOT
set -u
repo="${1:?usage: check_docs.sh REPO_ROOT}"
cd "$repo" || exit 1
docs=(README.md docs/*.md examples/README.md plugin-sdk/README.md)
existing=()
for f in "${docs[@]}"; do [ -f "$f" ] && existing+=("$f"); done
fail=0

# 1. References to what a reader does not have.
forbidden='DESIGN\.md|spec/|spec §|§[0-9]|the spec\b|spec'"'"'s|design notes?|the original\b|/work/|\.\./shared'
if grep -nEi "$forbidden" "${existing[@]}" | grep -v 'original response'; then
  echo "check_docs: the lines above cite something outside the repository" >&2
  fail=1
fi

# 2. Relative links ([text](path) and [text](path#anchor)) resolve.
for f in "${existing[@]}"; do
  dir="$(dirname "$f")"
  while IFS= read -r target; do
    target="${target%%#*}"
    [ -z "$target" ] && continue
    case "$target" in http://*|https://*|mailto:*) continue ;; esac
    if [ ! -e "$dir/$target" ]; then
      echo "check_docs: $f links to '$target', which does not exist" >&2
      fail=1
    fi
  done < <(grep -oE '\]\([^) ]+\)' "$f" | sed -E 's/^\]\(//; s/\)$//')
done
[ "$fail" = 0 ] && echo "check_docs: ${#existing[@]} documents, no outside reference, every link resolves"
exit "$fail"
