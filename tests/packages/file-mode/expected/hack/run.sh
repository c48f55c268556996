#!/bin/sh
set -eu
kubectl --context acme apply -f app.yaml
