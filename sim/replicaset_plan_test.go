package sim

import (
	"fmt"
	"time"
)

// checkReplicaSetPlan checks every ReplicaSet sync that manages replicas (TestMain) against
// a pass over the Deployment's pods, counted as upstream's syncReplicaSet and
// calculateStatus count them at the sync's instant: the status's counts (replicas: its pods
// neither terminating nor gone; ready; available, Ready for minReadySeconds;
// terminating, deleted and not stopped), and the creates and deletes towards spec.replicas
// within burstReplicas, the deleted pods distinct replicas of their own. (The differential
// test against the real controller, make upstream-replicaset, compares the same syncs with
// upstream's own.)
func checkReplicaSetPlan(e *Engine, rs *replicaSet, st rsStatus, creates int, deletes []*podState) {
	if rs.replayOwner() {
		return
	}
	var want rsStatus
	minReady := Time(0)
	if c := rs.svc.cfg; c != nil {
		minReady = Time(c.MinReady / time.Second * time.Second)
	}
	for _, p := range rs.svc.pods {
		if p.stage == stageGone || p.rs() != rs {
			continue
		}
		if p.pod.Terminating {
			if !p.pod.Phase.Terminal() {
				want.terminating++
			}
			continue
		}
		if p.pod.Phase.Terminal() {
			continue
		}
		want.live++
		if p.pod.Ready {
			want.ready++
			if minReady == 0 || !p.pod.ReadyTransition.IsZero() && virtualTime(p.pod.ReadyTransition)+minReady <= e.now {
				want.available++
			}
		}
	}
	want.generation, want.failure = st.generation, st.failure
	burst := e.workloads.burstReplicas
	wantCreates := min(max(int(rs.spec-want.live), 0), burst)
	wantDeletes := min(max(int(want.live-rs.spec), 0), burst)
	distinct := map[*podState]bool{}
	for _, p := range deletes {
		if p.rs() != rs || !p.live || distinct[p] {
			panic(fmt.Sprintf("at %v, ReplicaSet %s deletes %s, not a replica of its own or twice", e.now, rs.hash, p.pod.Name))
		}
		distinct[p] = true
	}
	if st != want || creates != wantCreates || len(deletes) != wantDeletes {
		panic(fmt.Sprintf("at %v, ReplicaSet %s (spec %d, burst %d): the sync counts %+v, creates %d and deletes %d; a pass over its pods %+v, %d and %d",
			e.now, rs.hash, rs.spec, burst, st, creates, len(deletes), want, wantCreates, wantDeletes))
	}
}
