package model

import (
	"testing"
)

// More Appendix A scenarios of UPSTREAM.md (harness runs of upstream k8s.io/endpointslice
// v0.37.2), checked against both reconcilers; together with TestUpstreamExamples they cover
// the reconciler pitfalls of §9.
func TestUpstreamAppendixA(t *testing.T) {
	// E10: 200 pods, one pod replaced by a new one (delete + add in one sync) → u1: the new
	// endpoint takes the freed place in the same slice (step 2 fills the dirty slice).
	t.Run("E10 one pod replaced", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		names := e.add(200, nil)
		e.expect("c2", 100, 100)
		e.remove(names[7])
		e.add(1, nil)
		e.expect("u1", 100, 100)
	})
	// E28 and pitfall 8: a pod whose IP changes is a different endpoint (remove + add); in
	// one sync both land in the same slice → u1.
	t.Run("E28 IP change", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		names := e.add(50, nil)
		e.expect("c1", 50)
		e.change(names[3], func(p *Pod) { p.IPs = []string{"10.250.0.1"} })
		e.expect("u1", 50)
	})
	// Pitfall 8: a pod recreated with the same name and IP but a new UID is the same
	// endpoint, updated in place → u1, sizes unchanged.
	t.Run("pitfall 8 UID change", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		names := e.add(30, nil)
		e.expect("c1", 30)
		e.change(names[0], func(p *Pod) { p.OwnIdentity().UID = "recreated" })
		e.expect("u1", 30)
	})
	// E33 and pitfall 3: {90,50}, one endpoint removed from each and 20 added → u2 {100,58}:
	// step 2 fills the already-dirty slices, fullest first.
	t.Run("E33 step 2 fills fullest first", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		a := e.add(90, nil)
		e.expect("c1", 90)
		b := e.add(50, nil)
		e.expect("c1", 50, 90)
		e.remove(a[0], b[0])
		e.add(20, nil)
		e.expect("u2", 58, 100)
	})
	// E30: pods that match only some of the Service's ports get their own port map and
	// slices: 40 pods with http+metrics, 10 with http only → c2.
	t.Run("E30 partial port matches", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		svc := *e.svc
		svc.Ports = []ServicePort{
			{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: NamedPort("http")},
			{Name: "metrics", Protocol: ProtocolTCP, Port: 9090, TargetPort: NamedPort("metrics")},
		}
		e.setService(&svc)
		e.add(40, func(p *Pod) {
			p.ContainerPorts = []ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: ProtocolTCP}, {Name: "metrics", ContainerPort: 9100, Protocol: ProtocolTCP}}
		})
		e.add(10, func(p *Pod) {
			p.ContainerPorts = []ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: ProtocolTCP}}
		})
		e.expect("c2", 10, 40)
	})
}
