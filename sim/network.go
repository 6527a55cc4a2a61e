package sim

// network is the delivery model: each API server replica sends every event to its share of the
// watchers through its egress link, first come first served (a fluid queue); each node's
// ingress link receives every event once. Watchers of one replica are alike, so one queue per
// mode stands for all replicas, and cost is O(1) per write whatever the node count.
type network struct {
	e          *Engine
	enabled    bool
	replicas   int64
	egressBps  float64 // bits per second per replica
	ingressBps float64 // bits per second per node
	egressBusy [2]Time // per mode: when the egress queue drains
	nodeBusy   [2]Time // per mode: when a node's ingress queue drains
}

func newNetwork(e *Engine) *network {
	return &network{
		e:          e,
		enabled:    e.cfg.Network.Enabled,
		replicas:   int64(max(e.cfg.APIServer.Replicas, 1)),
		egressBps:  e.cfg.APIServer.EgressBitsPerSec,
		ingressBps: e.cfg.Network.NodeIngressBitsPerSec,
	}
}

// deliver queues a write's fan-out (fanoutBytes in all, perNodeBytes to each node) and returns
// the time the last watcher has it.
func (n *network) deliver(m Mode, fanoutBytes, perNodeBytes int64) Time {
	now := n.e.now
	if !n.enabled {
		return now
	}
	mi := modeIndex(m)
	done := now
	if n.egressBps > 0 {
		start := max(now, n.egressBusy[mi])
		share := float64(fanoutBytes) / float64(n.replicas)
		n.egressBusy[mi] = start + Time(share*8/n.egressBps*1e9)
		done = n.egressBusy[mi]
	}
	if n.ingressBps > 0 && perNodeBytes > 0 {
		start := max(now, n.nodeBusy[mi])
		n.nodeBusy[mi] = start + Time(float64(perNodeBytes)*8/n.ingressBps*1e9)
		done = max(done, n.nodeBusy[mi])
	}
	return done
}
