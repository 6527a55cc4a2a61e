package sim

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// upstreamPod is pod p as the workload controllers' informers would hold it, for the
// differential harnesses that run.sh installs in this package (DaemonSet, StatefulSet,
// ReplicaSet): its name and UID in namespace default, its creation time, labels and owner,
// its phase, its Ready condition (none until its first transition) and, while it is
// terminating, a deletion at e's instant. Each harness sets the spec (the node) itself.
func upstreamPod(e *Engine, p *podState, labels map[string]string, owner metav1.OwnerReference) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.pod.Name, Namespace: "default", UID: types.UID(p.pod.UID),
			CreationTimestamp: metav1.NewTime(time.Unix(0, int64(p.pod.CreationTimestamp))),
			Labels:            labels, OwnerReferences: []metav1.OwnerReference{owner}},
		Status: corev1.PodStatus{Phase: corev1.PodPhase(p.pod.Phase.String())},
	}
	if !p.pod.ReadyTransition.IsZero() {
		status := corev1.ConditionFalse
		if p.pod.Ready {
			status = corev1.ConditionTrue
		}
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status,
			LastTransitionTime: metav1.NewTime(time.Unix(0, int64(p.pod.ReadyTransition)))}}
	}
	if p.pod.Terminating {
		at := metav1.NewTime(time.Unix(0, int64(e.timestamp(e.now))))
		pod.DeletionTimestamp = &at
	}
	return pod
}

// TestUpstreamPod follows one pod of a Deployment through its life: the object the
// harnesses hand the real controllers has its phase, Ready condition and deletion.
func TestUpstreamPod(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate}, Action{Name: "empty", Kind: ActionScale, Replicas: 0})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	owner := metav1.OwnerReference{Kind: "ReplicaSet", Name: "web-x", UID: "rs-x"}
	seen := map[string]bool{}
	runEngine(t, e, func() {
		if len(s.pods) == 0 || s.pods[0].stage == stageGone {
			return
		}
		p := s.pods[0]
		pod := upstreamPod(e, p, map[string]string{"app": "web"}, owner)
		if pod.Name != p.pod.Name || string(pod.UID) != p.pod.UID || pod.OwnerReferences[0].UID != "rs-x" ||
			pod.CreationTimestamp.UnixNano() != int64(p.pod.CreationTimestamp) || string(pod.Status.Phase) != p.pod.Phase.String() {
			t.Fatalf("at %v: %+v for pod %+v", e.now, pod.ObjectMeta, *p.pod)
		}
		switch conds := pod.Status.Conditions; {
		case len(conds) == 0:
			seen["no condition"] = true
			if !p.pod.ReadyTransition.IsZero() {
				t.Errorf("at %v: no Ready condition, but a transition at %v", e.now, p.pod.ReadyTransition)
			}
		case (conds[0].Status == corev1.ConditionTrue) != p.pod.Ready ||
			conds[0].LastTransitionTime.UnixNano() != int64(p.pod.ReadyTransition):
			t.Errorf("at %v: condition %+v, pod ready %v since %v", e.now, conds[0], p.pod.Ready, p.pod.ReadyTransition)
		case p.pod.Ready:
			seen["ready"] = true
		}
		if (pod.DeletionTimestamp != nil) != p.pod.Terminating {
			t.Errorf("at %v: deletion %v, pod terminating %v", e.now, pod.DeletionTimestamp, p.pod.Terminating)
		}
		if p.pod.Terminating {
			seen["terminating"] = true
		}
	})
	for _, want := range []string{"no condition", "ready", "terminating"} {
		if !seen[want] {
			t.Errorf("the pod never went through %q", want)
		}
	}
}
