#!/bin/bash
set -euo pipefail
cd /app/release
find . -type f ! -name '*.tmp' | sed 's|^\./||' | LC_ALL=C sort | xargs -r -d '\n' sha256sum > /app/release.sha256
