package sim

// apiserverCPU adds watch-path CPU of the current phase.
func (c *collector) apiserverCPU(m Mode, cpu Time) {
	c.mode(m).APIServerCPUSeconds += cpu.Seconds()
}

// kubeProxyResults finishes both representative kube-proxies at the run's end and adds
// their figures to the phases: latency samples and decode CPU to the phase of the write,
// syncs to the phase of the newest change they programmed (periodic syncs by start time).
// A node's proxiers (one per IP family) add up: their syncs, CPU and busy time, and their
// programming latencies in one distribution.
func (c *collector) kubeProxyResults(end Time) {
	e := c.e
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		node := e.kubeProxies[modeIndex(m)]
		if node == nil {
			continue
		}
		proxiers := node.proxiers()
		busy := make([]Time, len(c.phases))
		for _, k := range proxiers {
			k.flush(end)
			for _, s := range k.syncs {
				i := s.phase
				if i < 0 {
					i = c.phaseAt(s.start)
				}
				r := c.phases[i].Mode(m)
				r.KubeProxySyncs++
				if s.full {
					r.KubeProxyFullSyncs++
				}
				r.KubeProxyCPUSeconds += s.cpu.Seconds()
				r.PeakSyncSeconds = max(r.PeakSyncSeconds, (s.end - s.start).Seconds())
				busy[i] += s.end - s.start
			}
		}
		var z summarizer
		for i := range c.phases {
			r := c.phases[i].Mode(m)
			r.KubeProxyCPUSeconds += node.dec.cpu[i].Seconds()
			r.KubeProxyDecodeCPUSeconds = node.dec.cpu[i].Seconds()
			var parts []runChunk
			for _, k := range proxiers {
				parts = append(parts, k.latency[i].parts...)
			}
			r.Programming = z.summarizeRuns(parts...)
			if d := c.phases[i].End - c.phases[i].Start; d > 0 {
				r.KubeProxyBusyFraction = min(busy[i].Seconds()/d.Seconds(), 1)
			}
		}
		for _, k := range proxiers {
			for i := range k.latency {
				c.programming[modeIndex(m)] = append(c.programming[modeIndex(m)], k.latency[i].parts...)
			}
		}
	}
}

// phaseAt returns the phase running at t: the last one that started at or before t.
func (c *collector) phaseAt(t Time) int {
	i := 0
	for j := range c.phases {
		if c.phases[j].Start <= t {
			i = j
		}
	}
	return i
}
