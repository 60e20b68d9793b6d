#!/bin/bash
set -euo pipefail
cd /app/photos
for f in IMG_*_*.jpg; do
  d="${f:4:8}"; t="${f:13:6}"
  mkdir -p "${d:0:4}/${d:4:2}"
  mv "$f" "${d:0:4}/${d:4:2}/${d:6:2}_${t}.jpg"
done
