#!/usr/bin/env bash
# Runs the Endpoints model against the real Endpoints controller of Kubernetes (see
# endpoints_diff_test.go.txt): `make upstream-endpoints`, or this script from anywhere.
#
# Upstream keeps syncService unexported, so the test cannot call it from another module:
# this script copies the working tree's tracked files to a temporary directory, puts
# upstream's pkg/controller/endpoint there as package epsim/model/upstreamep (from the
# module cache, downloaded through the module proxy; nothing of it is kept in the
# repository) with a one-line exported wrapper, adds k8s.io/kubernetes to that copy's go.mod
# (its staging modules pinned to the matching v0.x release, as any module that imports it
# must), and runs the test there. The first run downloads k8s.io/kubernetes and its
# dependencies.
#
# Environment: EPSIM_DIFF_SEEDS (first-last, default 1-200; about 20 s a hundred seeds on
# one core), EPSIM_DIFF_STEPS (default 20), KUBERNETES_VERSION (default v1.37.2, the release
# UPSTREAM.md follows).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
go=${GO:-go}
version=${KUBERNETES_VERSION:-v1.37.2}
staging=v0.${version#v1.}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$tmp"
else
	# Not a clone: all of it but the binaries.
	(cd "$root" && tar --exclude=./bin -cf - .) | tar -xf - -C "$tmp"
fi

dir='s/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
k8s=$(cd "$tmp" && $go mod download -json "k8s.io/kubernetes@$version" | sed -n "$dir")
if [ -z "$k8s" ] || [ ! -d "$k8s/pkg/controller/endpoint" ]; then
	echo "upstream-endpoints: could not download k8s.io/kubernetes@$version" >&2
	exit 1
fi
up=$tmp/model/upstreamep
mkdir "$up"
for f in endpoints_controller.go endpoints_tracker.go; do
	sed 's/^package endpoint$/package upstreamep/' "$k8s/pkg/controller/endpoint/$f" >"$up/$f"
done
cp "$here/export.go.txt" "$up/export.go"
cp "$here/endpoints_diff_test.go.txt" "$tmp/model/upstream_endpoints_diff_test.go"

cd "$tmp"
edits=(-require="k8s.io/kubernetes@$version")
staged='s/^[[:space:]]*\(k8s.io\/[^ ]*\) => \.\/staging\/.*/\1/p'
for m in $(sed -n "$staged" "$k8s/go.mod"); do
	edits+=(-replace="$m=$m@$staging")
done
$go mod edit "${edits[@]}"
GOFLAGS=-mod=mod $go test ./model -run '^TestEndpointsAsUpstreamController$' -count=1 -v \
	-timeout 0
