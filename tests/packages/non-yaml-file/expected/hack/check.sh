#!/bin/sh
set -eu
kubectl apply --dry-run=server -f .
