#!/bin/sh
# Checks the package against the cluster's API.
set -eu
echo "checking the package"
cd "$(dirname "$0")/.."

kubectl apply --dry-run=client -f .
