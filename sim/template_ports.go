package sim

import "epsim/model"

// templatePorts returns containerPorts(s.svc): the template's ports if they are still
// those, else the ones made last for a Service of the same config if they are, else new
// ones. Pods never modify their ports, so every pod of the Services stamped from one config
// shares one slice, across rollouts too (one per template otherwise: 150 bytes per Service).
func (e *Engine) templatePorts(s *serviceState) []model.ContainerPort {
	if s.podPorts != nil && sameContainerPorts(s.podPorts, s.svc) {
		return s.podPorts
	}
	if p, ok := e.portsByConf[s.cfg]; ok && s.cfg != nil && sameContainerPorts(p, s.svc) {
		return p
	}
	p := containerPorts(s.svc)
	if s.cfg != nil {
		if e.portsByConf == nil {
			e.portsByConf = map[*ServiceConfig][]model.ContainerPort{}
		}
		e.portsByConf[s.cfg] = p
	}
	return p
}

// sameContainerPorts reports whether ports is containerPorts(svc).
func sameContainerPorts(ports []model.ContainerPort, svc *model.Service) bool {
	if len(ports) != len(svc.Ports) {
		return false
	}
	for i, sp := range svc.Ports {
		if ports[i] != (model.ContainerPort{Name: sp.Name, ContainerPort: sp.TargetPort.IntVal, Protocol: sp.Protocol}) {
			return false
		}
	}
	return true
}
