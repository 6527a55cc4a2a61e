package sim

// apiserverCPU adds watch-path CPU of the current phase.
func (c *collector) apiserverCPU(m Mode, cpu Time) {
	c.mode(m).APIServerCPUSeconds += cpu.Seconds()
}

// kubeProxyResults finishes both representative kube-proxies at the run's end and adds
// their figures to the phases: latency samples and decode CPU to the phase of the write,
// syncs to the phase of the newest change they programmed (periodic syncs by start time).
func (c *collector) kubeProxyResults(end Time) {
	e := c.e
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		k := e.kubeProxies[modeIndex(m)]
		if k == nil {
			continue
		}
		k.flush(end)
		var z summarizer
		busy := make([]Time, len(c.phases))
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
		for i := range c.phases {
			r := c.phases[i].Mode(m)
			r.KubeProxyCPUSeconds += k.decodeCPU[i].Seconds()
			r.KubeProxyDecodeCPUSeconds = k.decodeCPU[i].Seconds()
			r.Programming = z.summarize(k.latency[i].parts...)
			if d := c.phases[i].End - c.phases[i].Start; d > 0 {
				r.KubeProxyBusyFraction = min(busy[i].Seconds()/d.Seconds(), 1)
			}
		}
		for i := range k.latency {
			c.programming[modeIndex(m)] = append(c.programming[modeIndex(m)], k.latency[i].parts...)
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
