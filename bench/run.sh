#!/usr/bin/env bash
# Runs the load harness and rewrites the results part of docs/PERFORMANCE.md,
# the raw results beside it and its SVG plots (docs/perf-*.svg); progress
# (round, scenario, time left) goes to stderr.
#   bench/run.sh           full run: 5 rounds, about 15 minutes
#   bench/run.sh -quick    one short round, about 2 to 3 minutes
#   bench/run.sh -from ../docs/performance-results.json   only redraw the plots
# Extra flags go to benchrun (see `go run ./cmd/benchrun -h`).
set -euo pipefail
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
go run ./cmd/benchrun "$@"
