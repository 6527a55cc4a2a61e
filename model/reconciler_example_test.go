package model_test

import (
	"fmt"

	"epsim/model"
)

type oneNode struct{}

func (oneNode) Node(name string) (*model.Node, bool) {
	return &model.Node{Name: name, Zone: "zone-a", Ready: true}, true
}

// ExampleServiceSlices shows the incremental reconciler's cycle: feed changes, Sync, send the
// writes, report the successful ones with Applied.
func ExampleServiceSlices() {
	svc := &model.Service{
		Namespace: "default", Name: "web", UID: "u1", ClusterIP: "10.96.0.1",
		IPFamilies: []model.IPFamily{model.IPv4},
		Ports:      []model.ServicePort{{Name: "http", Protocol: model.ProtocolTCP, Port: 80, TargetPort: model.IntPort(8080)}},
	}
	s := model.NewServiceSlices(svc, oneNode{}, model.ReconcilerOptions{MaxEndpointsPerSlice: 2})
	for i := 1; i <= 3; i++ {
		s.SetPod(&model.Pod{PodIdentity: model.NewPodIdentity("default", fmt.Sprintf("web-%d", i), ""), NodeName: "n1",
			Phase: model.PodRunning, IPs: []string{fmt.Sprintf("10.0.0.%d", i)}, Ready: true})
	}
	res := s.Sync(0)
	for _, p := range res.Plans {
		for i, c := range p.ToCreate {
			c.Name = fmt.Sprintf("%sx%d", c.GenerateName, i) // the API server names it
			s.Applied("create", c)
			fmt.Println("create", c.Name, len(c.Endpoints), "endpoints")
		}
	}
	s.DeletePod("default", "web-1")
	res = s.Sync(0)
	fmt.Println("writes after removing a pod:", res.Writes())
	// Output:
	// create web-x0 2 endpoints
	// create web-x1 1 endpoints
	// writes after removing a pod: 1
}

// ExamplePodRef shows a caller that keeps a PodRef per pod: each change of the pod then
// reaches its entry without a lookup by name.
func ExamplePodRef() {
	svc := &model.Service{
		Namespace: "default", Name: "web", UID: "u1", ClusterIP: "10.96.0.1",
		IPFamilies: []model.IPFamily{model.IPv4},
		Ports:      []model.ServicePort{{Name: "http", Protocol: model.ProtocolTCP, Port: 80, TargetPort: model.IntPort(8080)}},
	}
	s := model.NewServiceSlices(svc, oneNode{}, model.ReconcilerOptions{})
	var ref model.PodRef
	pod := &model.Pod{PodIdentity: model.NewPodIdentity("default", "web-1", ""), NodeName: "n1",
		Phase: model.PodRunning, IPs: []string{"10.0.0.1"}}
	s.SetPodRef(&ref, pod)
	ready := *pod // pods are never modified once passed: a change is a new Pod (sharing its identity)
	ready.Ready = true
	s.SetPodRef(&ref, &ready)
	res := s.Sync(0)
	ep := res.Plans[0].ToCreate[0].Endpoints[0]
	fmt.Println(ep.Addresses, "ready:", ep.Conditions.Ready)
	s.DeletePodRef(&ref, "default", "web-1")
	fmt.Println("endpoints left:", len(s.Sync(0).Plans[0].ToCreate[0].Endpoints))
	// Output:
	// [10.0.0.1] ready: true
	// endpoints left: 0
}

// ExampleServiceSlices_ChangedEndpoints shows a writer that keeps a sum over each stored
// slice's endpoints (here, the ready ones) and updates it from an update's changes.
func ExampleServiceSlices_ChangedEndpoints() {
	svc := &model.Service{
		Namespace: "default", Name: "web", UID: "u1", ClusterIP: "10.96.0.1",
		IPFamilies: []model.IPFamily{model.IPv4},
		Ports:      []model.ServicePort{{Name: "http", Protocol: model.ProtocolTCP, Port: 80, TargetPort: model.IntPort(8080)}},
	}
	s := model.NewServiceSlices(svc, oneNode{}, model.ReconcilerOptions{})
	for i := 1; i <= 5; i++ {
		s.SetPod(&model.Pod{PodIdentity: model.NewPodIdentity("default", fmt.Sprintf("web-%d", i), ""), NodeName: "n1",
			Phase: model.PodRunning, IPs: []string{fmt.Sprintf("10.0.0.%d", i)}, Ready: true})
	}
	stored := s.Sync(0).Plans[0].ToCreate[0]
	stored.Name = "web-x0"
	s.Applied("create", stored)
	ready := 5

	s.DeletePod("default", "web-2")
	update := s.Sync(0).Plans[0].ToUpdate[0]
	changes, ok := s.ChangedEndpoints(update, stored, nil)
	for _, c := range changes {
		if c.Was != nil && c.Was.Conditions.Ready == model.ConditionTrue {
			ready--
		}
		if c.Now != nil && c.Now.Conditions.Ready == model.ConditionTrue {
			ready++
		}
	}
	fmt.Println("read from its changes:", ok, "changes:", len(changes), "ready:", ready, "of", len(update.Endpoints))
	// Output:
	// read from its changes: true changes: 1 ready: 4 of 4
}
