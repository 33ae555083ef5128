#!/usr/bin/env bash
# The kafkats command: topics, produce from stdin, consume to stdout, groups and offsets.
# Installed with the package it is `npx kafkats`; here it runs from this repository's build.
#
#   KAFKATS_BOOTSTRAP=localhost:9092 bash examples/cli.sh
set -euo pipefail
kafkats () { node "$(dirname "$0")/../dist/cli/main.js" "$@"; }
export KAFKATS_BOOTSTRAP="${KAFKATS_BOOTSTRAP:-localhost:9092}"
topic="${TOPIC:-events}"

# region topics
kafkats topics create "$topic" -p 3 --config retention.ms=86400000 --if-not-exists
kafkats topics describe "$topic"
# endregion topics

# region produce
seq 1 100 | kafkats produce -t "$topic" -z lz4 -q                         # a record per line
echo '{"key":"u1","value":{"n":1},"headers":{"h":"x"},"partition":0}' | kafkats produce -t "$topic" --format json -q
# endregion produce

# region consume
kafkats consume -t "$topic" -o beginning -e -q | wc -l                     # values, one per line; exit at the end
kafkats consume -t "$topic" -o beginning -e -q --format json | tail -n 1   # JSON lines
kafkats consume -t "$topic" -p 0 -o -2 -e -q -f '%p:%o %k=%s\n'            # kcat's -f tokens: %t %p %o %T %k %s %K %S %h
kafkats consume -t "$topic" -g "$topic-readers" -o beginning -e -q > /dev/null   # as a group member (commits on exit)
kafkats groups describe "$topic-readers"                                   # members and lag per partition
kafkats offsets "$topic"
# endregion consume

kafkats topics delete "$topic" --if-exists
