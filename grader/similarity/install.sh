#!/usr/bin/env bash
# Installs the similarity detector's dependencies (Dolos) into grader/similarity/node_modules.
# Idempotent: run it as often as you like. Needs network access to Debian's archive (only if
# node/npm are missing) and to the npm registry.
#
#   grader/similarity/install.sh
#
# Steps: (1) Debian's nodejs + npm via apt-get when `node` or `npm` is missing (sudo only when not
# root); (2) `npm ci` from package-lock.json, with install scripts on, so tree-sitter's and the
# grammars' native addons compile (node-gyp, needs g++, make, python3 and Node's headers);
# (3) a smoke check that loads Dolos, parses two small C++ files and prints the versions.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

die() {
    echo "install.sh: $*" >&2
    exit 1
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq || die "apt-get update failed"
    as_root apt-get install -y -qq --no-install-recommends "$@" || die "apt-get install $* failed"
}

# ---- 1. node and npm (and what node-gyp needs to build the native addons)
need=()
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v make >/dev/null 2>&1 || need+=(make)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 || die "missing ${need[*]} and no apt-get to install them"
    echo "install.sh: installing ${need[*]} from Debian's archive"
    apt_install "${need[@]}" ca-certificates
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')" || die "node does not run"
[ "$node_major" -ge 18 ] || die "node $(node --version) is too old: Dolos needs node >= 18"

# Node's C headers for node-gyp: use the installed ones (no download) when they are there.
# Debian's nodejs ships them in libnode-dev; NodeSource's nodejs in /usr/include/node.
if [ ! -f /usr/include/node/node_api.h ] && [ -z "${npm_config_nodedir:-}" ]; then
    if command -v apt-get >/dev/null 2>&1 && dpkg -s nodejs 2>/dev/null | grep -q '^Version:.*deb'; then
        echo "install.sh: installing libnode-dev (Node's headers) from Debian's archive"
        apt_install libnode-dev
    fi
fi
if [ -f /usr/include/node/node_api.h ] && [ -z "${npm_config_nodedir:-}" ]; then
    export npm_config_nodedir=/usr
fi

# ---- 2. the packages, exactly as locked
smoke() {
    node --input-type=module -e '
import { Dolos, File } from "@dodona/dolos-lib";
import fs from "node:fs";
const v = p => JSON.parse(fs.readFileSync(new URL(`./node_modules/${p}/package.json`, `file://${process.cwd()}/`))).version;
const a = "int f(int x) { int y = x + 1; for (int i = 0; i < 3; ++i) y *= 2; return y; }\n";
const b = "int g(int q) { int w = q + 1; for (int k = 0; k < 3; ++k) w *= 2; return w; }\n";
const r = await new Dolos({ language: "cpp", kgramLength: 8, kgramsInWindow: 4 }).analyze([new File("a.cu", a), new File("b.cu", b)]);
const p = r.allPairs()[0];
if (!(p.similarity > 0.9)) throw new Error(`smoke check: renamed copy scored ${p.similarity}`);
console.log(`similarity: node ${process.version}, @dodona/dolos-lib ${v("@dodona/dolos-lib")}, ` +
  `@dodona/dolos-parsers ${v("@dodona/dolos-parsers")}, tree-sitter ${v("tree-sitter")}; smoke check ok (renamed copy ${p.similarity.toFixed(3)})`);
' 2>&1
}

# node_modules/.install-stamp: the lock file's hash and node's version of the last good install.
stamp="$(sha256sum package-lock.json | cut -d' ' -f1) $(node --version)"
if [ -f node_modules/.install-stamp ] && [ "$(cat node_modules/.install-stamp)" = "$stamp" ] && out="$(smoke)"; then
    echo "$out (already installed)"
    exit 0
fi

echo "install.sh: npm ci in $here"
# --ignore-scripts=false: the native addons are built by install scripts (node-gyp); an npm
# configured to skip scripts would leave tree-sitter unusable.
npm ci --no-audit --no-fund --ignore-scripts=false --foreground-scripts >npm-install.log 2>&1 || {
    tail -n 40 npm-install.log >&2
    die "npm ci failed (full log: $here/npm-install.log)"
}
if ! out="$(smoke)"; then
    echo "install.sh: first smoke check failed; rebuilding the native addons" >&2
    echo "$out" >&2
    npm rebuild --ignore-scripts=false --foreground-scripts >>npm-install.log 2>&1 || {
        tail -n 40 npm-install.log >&2
        die "npm rebuild failed (full log: $here/npm-install.log)"
    }
    out="$(smoke)" || {
        echo "$out" >&2
        die "smoke check failed after npm rebuild: Dolos or tree-sitter does not load"
    }
fi
rm -f npm-install.log
echo "$stamp" >node_modules/.install-stamp
echo "$out"
