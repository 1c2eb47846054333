#!/usr/bin/env bash
# Runs the load harness and rewrites the results part of docs/PERFORMANCE.md.
#   bench/run.sh           full run: 5 rounds, about 12 minutes
#   bench/run.sh -quick    one short round, about 2 minutes
# Extra flags go to benchrun (see `go run ./cmd/benchrun -h`).
set -euo pipefail
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
go run ./cmd/benchrun "$@"
