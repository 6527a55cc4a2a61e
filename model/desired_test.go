package model

import (
	"math/rand/v2"
	"testing"
)

// TestDesiredEqualBeyondHash holds desiredEqualBeyondHash to what it stands for: building
// the desired endpoint (fillEndpoint) and comparing it with EndpointsEqualBeyondHash. Pods,
// nodes and Services vary in every field the build reads (readiness, termination, node name,
// zone, publishNotReadyAddresses, a reference of another kind); the stored endpoints are
// built from other random inputs, or are the desired one with one field changed (nil, another
// value, the same value through another pointer).
func TestDesiredEqualBeyondHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	randomPod := func() *Pod {
		p := &Pod{PodIdentity: NewPodIdentity(pick("a", "b"), pick("p", "q"), pick("u1", "u2")), NodeName: pick("", "n1", "n2"),
			IPs: []string{"10.0.0.1"}, Ready: rng.IntN(2) == 0, Terminating: rng.IntN(3) == 0}
		if rng.IntN(4) == 0 {
			p.Kind = pick("", "Other")
		}
		return p
	}
	randomNode := func(pod *Pod) *Node {
		if rng.IntN(4) == 0 {
			return nil
		}
		return &Node{Name: pick(pod.NodeName, "n1", "n2"), Zone: pick("", "z1", "z2")}
	}
	randomSvc := func() *Service {
		return &Service{Namespace: "a", Name: "s", PublishNotReadyAddresses: rng.IntN(3) == 0}
	}
	str := func(v string) *string { return &v }
	equal, differ := 0, 0
	for range 200_000 {
		pod := randomPod()
		node := randomNode(pod)
		svc := randomSvc()
		s := &ServiceSlices{svc: svc}
		pe := &podEntry{seen: pod, node: node}
		var want Endpoint
		fillEndpoint(&want, pod, node, svc, nil)
		var b Endpoint
		if rng.IntN(2) == 0 {
			other := randomPod()
			fillEndpoint(&b, other, randomNode(other), randomSvc(), nil)
		} else {
			b = want
			switch rng.IntN(10) {
			case 0:
				b.Conditions.Ready = ConditionUnset
			case 1:
				b.Conditions.Serving = ConditionOf(want.Conditions.Serving != ConditionTrue)
			case 2:
				b.Conditions.Terminating = ConditionFalse
			case 3:
				b.NodeName = str(pick("", "n1", "n2"))
			case 4:
				b.NodeName = nil
			case 5:
				b.Zone = str(pick("", "z1", "z2"))
			case 6:
				b.Zone = nil
			case 7:
				r := *want.TargetRef
				r.UID = pick(r.UID, "u3")
				b.TargetRef = &r
			case 8:
				b.TargetRef = nil
			case 9:
				b.TargetRef = &pod.ObjectReference // the identity's own, of whatever kind
			}
		}
		w := EndpointsEqualBeyondHash(&want, &b)
		if got := s.desiredEqualBeyondHash(pe, &b); got != w {
			t.Fatalf("pod %+v (%+v), node %+v, publishNotReady %v, stored %+v: got %v, want %v",
				*pod, *pod.PodIdentity, node, svc.PublishNotReadyAddresses, b, got, w)
		}
		if w {
			equal++
		} else {
			differ++
		}
	}
	if equal < 10_000 || differ < 10_000 {
		t.Fatalf("%d equal and %d different cases: the generator misses one side", equal, differ)
	}
}
