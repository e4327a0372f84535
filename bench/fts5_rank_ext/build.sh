#!/bin/sh
# Build the bm25c FTS5 extension (bench prototype): gcc and sqlite3ext.h (libsqlite3-dev).
set -e
cd "$(dirname "$0")"
gcc -O2 -fPIC -shared -o bm25c.so bm25c.c -lm
ls -l bm25c.so
