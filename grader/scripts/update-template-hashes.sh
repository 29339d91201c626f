#!/usr/bin/env sh
# Records the hashes of the untouched student templates (each lab's editable files and answers.toml)
# in labs/TEMPLATES.sha256. Run it after changing a template on purpose; CI checks the record.
set -eu
cd "$(dirname "$0")/../.."
: >labs/TEMPLATES.sha256.tmp
for dir in labs/[0-9][0-9]_*/; do
  dir=${dir%/}
  sol="solutions/${dir#labs/}"
  [ -d "$sol" ] || continue
  for f in "$sol"/*; do
    base=$(basename "$f")
    [ -f "$dir/$base" ] && sha256sum "$dir/$base" >>labs/TEMPLATES.sha256.tmp
  done
done
LC_ALL=C sort -k2 labs/TEMPLATES.sha256.tmp >labs/TEMPLATES.sha256
rm labs/TEMPLATES.sha256.tmp
echo "recorded $(wc -l <labs/TEMPLATES.sha256) template files in labs/TEMPLATES.sha256"
