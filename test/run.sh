#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test (set-up included) and ends with "N passed, N failed".
# Arguments select tests by name, e.g. test/run.sh forward unit/.
cd "$(dirname "$0")/.."
if ! bash usertools/setup.sh tests; then
	echo "set-up failed: no test ran"
	echo "0 passed, 1 failed"
	exit 1
fi
exec python3 test/runner.py "$@"
