#!/bin/bash
set -euo pipefail
for f in /app/inbox/*; do
  [ -f "$f" ] || continue
  ext="${f##*.}"
  mkdir -p "/app/sorted/$ext"
  mv "$f" "/app/sorted/$ext/"
done
