#!/usr/bin/env sh
# screenshots.sh CHROMIUM CMAKE BUILD_DIR DOCS_DIR
# Builds the docs site and takes a picture of its home page and of lab 03's page with headless Chromium
# (DOCS_DIR/screenshots/*.png), for a person to look at. Exits 77 (ctest: SKIPPED) without Chromium or
# Doxygen.
set -u
chromium=$1 cmake=$2 build=$3 docs=$4
case "$chromium" in ""|*NOTFOUND) echo "SKIPPED: no headless Chromium (apt-get install chromium)"; exit 77 ;; esac
"$cmake" --build "$build" --target docs > "$docs/screenshots-build.log" 2>&1 || {
  if grep -q "unknown target" "$docs/screenshots-build.log"; then echo "SKIPPED: no Doxygen, no docs"; exit 77; fi
  cat "$docs/screenshots-build.log"; exit 1; }
mkdir -p "$docs/screenshots"
for page in index lab03; do
  out="$docs/screenshots/$page.png"
  rm -f "$out"
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1600 \
    --screenshot="$out" "file://$docs/html/$page.html" > /dev/null 2>&1
  if [ ! -s "$out" ]; then echo "FAIL: no screenshot of $page.html"; exit 1; fi
  echo "ok   $out ($(wc -c < "$out") bytes)"
done
