#!/bin/bash
set -euo pipefail
cd /app/backups
: > /app/pruned.txt
for db in $(ls *.sql | sed -E 's/-[0-9]{4}-[0-9]{2}-[0-9]{2}\.sql$//' | sort -u); do
  ls "$db"-????-??-??.sql | sort -r | tail -n +$(({{keep}} + 1)) >> /app/pruned.txt
done
sort -o /app/pruned.txt /app/pruned.txt
xargs -r rm -f < /app/pruned.txt
