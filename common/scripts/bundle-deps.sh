#!/usr/bin/env bash
# Bundle the header-only dependencies (toml++, CLI11, nlohmann-json; Catch2 v2 with --with-catch2) into a
# relocatable prefix for GPU hosts without network access. Run it where the packages are installed
# (e.g. Debian: apt-get install libtomlplusplus-dev libcli11-dev nlohmann-json3-dev), copy the prefix to
# the GPU host, and configure there with
#     cmake --preset default -DCMAKE_PREFIX_PATH=/path/to/bundle
#
# Usage: common/scripts/bundle-deps.sh [--with-catch2] [PREFIX]      (default PREFIX: .deps/bundle)
set -euo pipefail

with_catch2=0
prefix=""
for arg in "$@"; do
  case "$arg" in
    --with-catch2) with_catch2=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "bundle-deps: unknown option $arg" >&2; exit 2 ;;
    *) prefix="$arg" ;;
  esac
done
prefix="${prefix:-.deps/bundle}"

# Where to look for installed headers: the usual system prefixes and CMAKE_PREFIX_PATH.
search=(/usr/include /usr/local/include)
IFS=: read -r -a extra <<<"${CMAKE_PREFIX_PATH:-}"
for p in "${extra[@]}"; do [ -n "$p" ] && search=("$p/include" "${search[@]}"); done

find_header() {  # find_header <relative path> → the include dir that holds it
  for d in "${search[@]}"; do
    if [ -e "$d/$1" ]; then echo "$d"; return 0; fi
  done
  echo "bundle-deps: $1 not found in ${search[*]} (install the package or set CMAKE_PREFIX_PATH)" >&2
  return 1
}

macro() {  # macro <file> <name> → value of '#define NAME value'
  sed -n "s/^[[:space:]]*#[[:space:]]*define[[:space:]]\+$2[[:space:]]\+\"\?\([0-9.]*\)\"\?.*/\1/p" "$1" | head -n1
}

write_config() {  # write_config <package> <target> <version> [compile definitions]
  local pkg="$1" target="$2" version="$3" defs="${4:-}"
  local dir="$prefix/lib/cmake/$pkg"
  mkdir -p "$dir"
  cat >"$dir/${pkg}Config.cmake" <<CFG
# Relocatable config written by bundle-deps.sh: header-only $pkg $version.
get_filename_component(_bundle_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET $target)
  add_library($target INTERFACE IMPORTED)
  set_target_properties($target PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "\${_bundle_prefix}/include")
  if(NOT "$defs" STREQUAL "")
    set_property(TARGET $target PROPERTY INTERFACE_COMPILE_DEFINITIONS "$defs")
  endif()
endif()
set(${pkg}_VERSION "$version")
unset(_bundle_prefix)
CFG
  cat >"$dir/${pkg}ConfigVersion.cmake" <<CFG
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
CFG
}

rm -rf "$prefix"
mkdir -p "$prefix/include"

d=$(find_header toml++/toml.h)
cp -r "$d/toml++" "$prefix/include/"
v="$(macro "$d/toml++/impl/version.h" TOML_LIB_MAJOR).$(macro "$d/toml++/impl/version.h" TOML_LIB_MINOR).$(macro "$d/toml++/impl/version.h" TOML_LIB_PATCH)"
write_config tomlplusplus tomlplusplus::tomlplusplus "$v" "TOML_HEADER_ONLY=1"
echo "bundled toml++ $v from $d"

d=$(find_header CLI/CLI.hpp)
cp -r "$d/CLI" "$prefix/include/"
v=$(macro "$d/CLI/Version.hpp" CLI11_VERSION)
write_config CLI11 CLI11::CLI11 "$v"
echo "bundled CLI11 $v from $d"

d=$(find_header nlohmann/json.hpp)
cp -r "$d/nlohmann" "$prefix/include/"
v="$(macro "$d/nlohmann/json.hpp" NLOHMANN_JSON_VERSION_MAJOR).$(macro "$d/nlohmann/json.hpp" NLOHMANN_JSON_VERSION_MINOR).$(macro "$d/nlohmann/json.hpp" NLOHMANN_JSON_VERSION_PATCH)"
if [ "$v" = ".." ]; then  # newer releases keep the version in a separate header
  h="$d/nlohmann/detail/abi_macros.hpp"
  v="$(macro "$h" NLOHMANN_JSON_VERSION_MAJOR).$(macro "$h" NLOHMANN_JSON_VERSION_MINOR).$(macro "$h" NLOHMANN_JSON_VERSION_PATCH)"
fi
write_config nlohmann_json nlohmann_json::nlohmann_json "$v"
echo "bundled nlohmann-json $v from $d"

if [ "$with_catch2" = 1 ]; then
  d=$(find_header catch2/catch.hpp)
  mkdir -p "$prefix/include/catch2"
  cp "$d/catch2/catch.hpp" "$prefix/include/catch2/"
  v="$(macro "$d/catch2/catch.hpp" CATCH_VERSION_MAJOR).$(macro "$d/catch2/catch.hpp" CATCH_VERSION_MINOR).$(macro "$d/catch2/catch.hpp" CATCH_VERSION_PATCH)"
  write_config Catch2 Catch2::Catch2 "$v"
  echo "bundled Catch2 $v (single header) from $d"
fi

echo "bundle ready: $prefix ($(du -sh "$prefix" | cut -f1)); configure with -DCMAKE_PREFIX_PATH=$(cd "$prefix" && pwd)"
