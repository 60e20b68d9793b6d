#!/bin/bash
set -euo pipefail
f=/app/config/service.ini
sed -i -E -e '/^\[server\]/,/^\[/ s/^port[[:space:]]*=.*/port = {{port}}/' \
          -e '/^\[server\]/,/^\[/ s/^workers[[:space:]]*=.*/workers = {{workers}}/' \
          -e '/^\[logging\]/,/^\[/ s/^level[[:space:]]*=.*/level = {{level}}/' "$f"
grep -q "^port = {{port}}$" "$f"
