#!/usr/bin/env bash
# The format check (CTest clang_format): every C++ file of src/, tools/, bench/ and fuzz/ is as
# clang-format leaves it under .clang-format. Formatting differs between clang-format releases,
# so the check runs with the release the style was applied with (Debian 12's clang-format 14,
# installed by scripts/install-deps.sh) and says so and skips (CTest status 77) with another.
# Apply: clang-format -i FILE...
#   check-format.sh [SOURCE_DIR]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
command -v clang-format > /dev/null || { echo "check-format: clang-format is not installed (scripts/install-deps.sh)" >&2; exit 2; }
version="$(clang-format --version)"
if ! grep -q "version 14\." <<< "$version"; then
  echo "check-format: skipped: the style was applied with clang-format 14, this is: $version"
  exit 77
fi
mapfile -t files < <(find src tools bench fuzz -type f \( -name '*.cc' -o -name '*.h' \) | sort)
if ! clang-format --dry-run --Werror "${files[@]}" 2> "${TMPDIR:-/tmp}/check-format.$$"; then
  grep -E "^[^ ].*: error:" "${TMPDIR:-/tmp}/check-format.$$" | sed 's/:[0-9]*:[0-9]*: error: .*//' | sort -u | head -20 |
    sed 's/^/check-format: not formatted: /' >&2
  rm -f "${TMPDIR:-/tmp}/check-format.$$"
  echo "check-format: run clang-format -i on the files above" >&2
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/check-format.$$"
echo "check-format: ${#files[@]} files formatted"
