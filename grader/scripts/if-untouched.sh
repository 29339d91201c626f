#!/usr/bin/env sh
# if-untouched.sh ROOT FILE... -- COMMAND...
# Runs COMMAND only if every FILE (relative to ROOT) is still the untouched template recorded in
# ROOT/labs/TEMPLATES.sha256; otherwise exits 77 (ctest: SKIPPED). Tests of the form "the untouched
# template scores 0" use it, so that they skip, rather than fail, once a student starts working.
set -eu
root=$1
shift
manifest="$root/labs/TEMPLATES.sha256"
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  file=$1
  shift
  expected=$(awk -v f="$file" '$2 == f { print $1 }' "$manifest")
  if [ -z "$expected" ]; then
    echo "if-untouched: $file has no recorded hash in $manifest (run grader/scripts/update-template-hashes.sh)" >&2
    exit 1
  fi
  actual=$(sha256sum "$root/$file" | cut -d' ' -f1)
  if [ "$actual" != "$expected" ]; then
    echo "SKIPPED: $file is no longer the untouched template (expected once you start the lab)"
    exit 77
  fi
done
[ "${1:-}" = "--" ] && shift
exec "$@"
