#!/usr/bin/env bash
# Runs a model of a Kubernetes controller against the real controller: `make
# upstream-endpoints`, `make upstream-mirroring`, `make upstream-deployment`, `make
# upstream-daemonset`, `make upstream-statefulset`, `make upstream-replicaset` and `make
# upstream-proxy`, or this script from anywhere, with the harness's name as its argument:
#
#   endpoints  the Endpoints controller (pkg/controller/endpoint) against BuildEndpoints and
#              ServiceEndpoints: endpoints_diff_test.go.txt
#   mirroring  the EndpointSlice mirroring controller (pkg/controller/endpointslicemirroring)
#              against MirrorEndpoints: mirroring_diff_test.go.txt
#   deployment the Deployment controller's sync (pkg/controller/deployment) against the
#              model's deploymentPlan: deployment_diff_test.go.txt
#   daemonset  the DaemonSet controller's sync (pkg/controller/daemon) against every plan of
#              planDaemonSet in random timelines: daemonset_diff_test.go.txt
#   statefulset the StatefulSet controller's sync (pkg/controller/statefulset) against
#              every plan of its syncs in random timelines: statefulset_diff_test.go.txt
#   replicaset the ReplicaSet controller's sync (pkg/controller/replicaset) against every
#              sync of a Deployment's ReplicaSets in random timelines, its scale-down
#              ranking read at the model's instant (see patch): replicaset_diff_test.go.txt
#   proxy      kube-proxy's endpoint handling (pkg/proxy: the change trackers and
#              CategorizeEndpoints) against the representative kube-proxy's counts:
#              proxy_diff_test.go.txt
#
# Upstream keeps the controllers' syncs unexported, so no test can call them from another
# module: this script copies the working tree's tracked files to a temporary directory, puts
# the controller's package there as package epsim/model/upstream<name> (from the module
# cache, downloaded through the module proxy; nothing of it is kept in the repository) with
# a small exported wrapper (<name>_export.go.txt), adds k8s.io/kubernetes to that copy's
# go.mod (its staging modules pinned to the matching v0.x release, as any module that imports
# it must), and runs the harness's test there (in package model, or in package sim for the
# workload controllers and kube-proxy, whose models are there). kube-proxy's part is exported: its harness
# imports pkg/proxy as it is, from package sim (whose counts it reads), and nothing is
# copied. The first run downloads k8s.io/kubernetes and its dependencies.
#
# Environment: EPSIM_DIFF_SEEDS (first-last, default 1-200; a hundred seeds take about 20 s
# on one core for endpoints), EPSIM_DIFF_STEPS (default 20), KUBERNETES_VERSION (default
# v1.37.2, the release UPSTREAM.md follows).
set -euo pipefail
# The script is one block, which bash reads whole before it runs any of it: a change to this
# file while a sweep runs (bash reads a script as it goes) does not reach that sweep.
{
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
go=${GO:-go}
version=${KUBERNETES_VERSION:-v1.37.2}
staging=v0.${version#v1.}

name=${1:-}
patch= # a sed expression some harnesses apply to upstream's sources as well
case $name in
endpoints)
	src=pkg/controller/endpoint
	files=(endpoints_controller.go endpoints_tracker.go)
	test=TestEndpointsAsUpstreamController
	dest=model
	;;
mirroring)
	src=pkg/controller/endpointslicemirroring
	files=(endpointslicemirroring_controller.go events.go reconciler.go reconciler_helpers.go utils.go)
	test=TestMirroringAsUpstreamController
	dest=model
	;;
deployment)
	src=pkg/controller/deployment
	files=(deployment_controller.go progress.go recreate.go rollback.go rolling.go sync.go)
	test=TestDeploymentAsUpstreamController
	dest=sim
	;;
daemonset)
	src=pkg/controller/daemon
	files=(daemon_controller.go update.go)
	test=TestDaemonSetAsUpstreamController
	dest=sim
	;;
statefulset)
	src=pkg/controller/statefulset
	files=(stateful_pod_control.go stateful_set.go stateful_set_control.go stateful_set_status_updater.go stateful_set_utils.go)
	test=TestStatefulSetAsUpstreamController
	dest=sim
	;;
replicaset)
	src=pkg/controller/replicaset
	files=(replica_set.go replica_set_utils.go)
	test=TestReplicaSetAsUpstreamController
	dest=sim
	# The scale-down ranks at the wall clock's instant; the test's is the model's.
	patch='s/Now: metav1\.Now()}/Now: metav1.NewTime(RankNow())}/'
	;;
proxy)
	src=pkg/proxy
	files=()
	test=TestKubeProxyAsUpstream
	dest=sim
	;;
*)
	echo "usage: $0 endpoints|mirroring|deployment|daemonset|statefulset|replicaset|proxy" >&2
	exit 2
	;;
esac

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
if [ -z "$k8s" ] || [ ! -d "$k8s/$src" ]; then
	echo "upstream-$name: could not download k8s.io/kubernetes@$version" >&2
	exit 1
fi
if [ ${#files[@]} -gt 0 ]; then
	pkg=${src##*/}
	up=$tmp/model/upstream$name
	mkdir "$up"
	for f in "${files[@]}"; do
		sed -e "s/^package $pkg\$/package upstream$name/" -e "$patch" "$k8s/$src/$f" >"$up/$f"
	done
	if [ -n "$patch" ] && ! sed -n "${patch}p" "${files[@]/#/$k8s/$src/}" | grep -q .; then
		echo "upstream-$name: $version's sources have no line the patch $patch changes" >&2
		exit 1
	fi
	cp "$here/${name}_export.go.txt" "$up/export.go"
fi
cp "$here/${name}_diff_test.go.txt" "$tmp/$dest/upstream_${name}_diff_test.go"

cd "$tmp"
edits=(-require="k8s.io/kubernetes@$version")
staged='s/^[[:space:]]*\(k8s.io\/[^ ]*\) => \.\/staging\/.*/\1/p'
for m in $(sed -n "$staged" "$k8s/go.mod"); do
	edits+=(-replace="$m=$m@$staging")
done
$go mod edit "${edits[@]}"
GOFLAGS=-mod=mod $go test "./$dest" -run "^$test\$" -count=1 -v -timeout 0
exit
}
