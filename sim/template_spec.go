package sim

import "epsim/model"

// templateSpec returns the spec fields of s's pods: containerPorts(s.svc), and no hostname
// or subdomain. It is the template's if its ports are still those, else the one made last
// for a Service of the same config if they are, else a new one. Pods never modify their
// spec, so every pod of the Services stamped from one config shares one (a ports list per
// template was 150 bytes per Service; the fields in every pod, 64 bytes per pod).
func (e *Engine) templateSpec(s *serviceState) *model.PodSpecFields {
	if s.podSpec != nil && sameContainerPorts(s.podSpec.ContainerPorts, s.svc) {
		return s.podSpec
	}
	if sp, ok := e.specByConf[s.cfg]; ok && s.cfg != nil && sameContainerPorts(sp.ContainerPorts, s.svc) {
		return sp
	}
	sp := &model.PodSpecFields{ContainerPorts: containerPorts(s.svc)}
	if s.cfg != nil {
		if e.specByConf == nil {
			e.specByConf = map[*ServiceConfig]*model.PodSpecFields{}
		}
		e.specByConf[s.cfg] = sp
	}
	return sp
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
