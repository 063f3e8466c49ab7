#!/usr/bin/env bash
# The function-length check (issue 38; CTest function_length): every function defined in the
# library's sources (src/**/*.cc and *.h, tests excepted) fits a screen, at most
# PARATUNE_MAX_FUNCTION_LINES (60) lines from its signature to its closing brace, as Universal
# Ctags measures it (--fields=+ne: line and end). Functions longer than that today are listed in
# scripts/function-length-exceptions.txt with their length; the check fails when a function not
# listed is over the limit, when a listed one grew, and when a listed one is no longer over the
# limit or no longer exists (so the list only shrinks: remove its line).
#   function-length.sh [SOURCE_DIR]      (default: the repository of this script)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
limit="${PARATUNE_MAX_FUNCTION_LINES:-60}"
exceptions="$root/scripts/function-length-exceptions.txt"
command -v ctags > /dev/null || { echo "function-length: ctags (Debian universal-ctags) is not installed" >&2; exit 2; }
ctags --version 2>/dev/null | grep -q "Universal Ctags" || { echo "function-length: ctags is not Universal Ctags" >&2; exit 2; }
cd "$root"
# "file name lines" of each function over the limit, the longest of a name in a file.
measured="$(find src -name '*.cc' -o -name '*.h' | grep -v -E '_test(_util)?\.(cc|h)$' | sort |
  ctags -L - --languages=C++ --c++-kinds=f --fields=+ne -f - |
  awk -F'\t' -v limit="$limit" '{
      line = 0; end = 0
      for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) line = substr($i, 6); if ($i ~ /^end:/) end = substr($i, 5) }
      n = end - line + 1
      key = $2 " " $1
      if (n > limit && n > best[key]) best[key] = n
    } END { for (k in best) print k, best[k] }' | sort)"
status=0
declare -A listed
while read -r file name lines; do
  [ -z "${file:-}" ] || [ "${file:0:1}" = "#" ] && continue
  listed["$file $name"]="$lines"
done < "$exceptions"
declare -A seen
while read -r file name lines; do
  [ -n "${file:-}" ] || continue
  key="$file $name"
  seen["$key"]=1
  if [ -z "${listed[$key]:-}" ]; then
    echo "function-length: $file: $name is $lines lines (limit $limit): split it by the concepts it already names" >&2
    status=1
  elif [ "$lines" -gt "${listed[$key]}" ]; then
    echo "function-length: $file: $name grew from ${listed[$key]} to $lines lines (listed exception; limit $limit)" >&2
    status=1
  fi
done <<< "$measured"
for key in "${!listed[@]}"; do
  if [ -z "${seen[$key]:-}" ]; then
    echo "function-length: ${key% *}: ${key#* } is no longer over $limit lines (or gone): remove its line from scripts/function-length-exceptions.txt" >&2
    status=1
  fi
done
over="$(grep -c . <<< "$measured" || true)"
echo "function-length: $over functions over $limit lines, ${#listed[@]} listed exceptions"
exit "$status"
