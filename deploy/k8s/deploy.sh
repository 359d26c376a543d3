#!/usr/bin/env bash
# Usage: deploy/k8s/deploy.sh <dev|prod>
# Deploys one overlay in order: configuration, then the migrations Job (waited for; a failure stops here with
# the old pods still serving), then everything else (the rolling updates of the api and the worker).
set -euo pipefail
overlay="$(dirname "$0")/overlays/${1:?usage: deploy.sh <dev|prod>}"
rendered="$(mktemp)"
trap 'rm -f "$rendered"' EXIT
kubectl kustomize "$overlay" >"$rendered"

kubectl apply -f "$rendered" -l app.kubernetes.io/component=config
# A Job's template cannot change: the previous release's Job goes before this release's runs.
kubectl delete -f "$rendered" -l app.kubernetes.io/component=migrations --ignore-not-found --wait=true
kubectl apply -f "$rendered" -l app.kubernetes.io/component=migrations
job=job/order-service-migrate
# Every object of an overlay is in its one namespace (kustomize prints it under metadata, two spaces in).
namespace="$(sed -n 's/^  namespace: //p' "$rendered" | head -1)"
for _ in $(seq 1 180); do
  succeeded="$(kubectl get -n "$namespace" "$job" -o jsonpath='{.status.succeeded}')"
  failed="$(kubectl get -n "$namespace" "$job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}')"
  if [ "$succeeded" = "1" ]; then break; fi
  if [ "$failed" = "True" ]; then
    kubectl logs -n "$namespace" "$job" --tail=50 || true
    echo "deploy: migrations failed; nothing else was rolled out" >&2
    exit 1
  fi
  sleep 5
done
[ "$succeeded" = "1" ] || { echo "deploy: migrations did not finish within 15 minutes" >&2; exit 1; }

kubectl apply -f "$rendered"
kubectl rollout status -n "$namespace" deployment/order-service-api --timeout=10m
kubectl rollout status -n "$namespace" deployment/order-service-worker --timeout=10m
