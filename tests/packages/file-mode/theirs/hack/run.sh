#!/bin/sh
set -eu
kubectl apply -f app.yaml
