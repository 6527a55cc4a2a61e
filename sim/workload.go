package sim

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"epsim/model"
)

// podStage is where a pod is in its lifecycle.
type podStage uint8

const (
	stagePending   podStage = iota // created, not yet scheduled
	stageScheduled                 // on a node, no IP yet
	stageRunning                   // has an IP
	stageGone                      // deleted from the API
)

// podState is one pod of the simulation and the engine's bookkeeping around it.
//
// There is one per pod of the run, so it is kept to 48 bytes: counters and indexes are
// int32 (node and pod counts, ordinals and per-pod changes are far below 2³¹), a set pod's
// ordinal and node share a field, the rarely read flags share a byte, the Service is its
// owner's, and the pod-template-hash is its ReplicaSet's (hash).
type podState struct {
	pod *model.Pod
	// owner is the ReplicaSet that created the pod and owns it, of its pod template (a
	// StatefulSet's or DaemonSet's revision resolves to the one that counts its pods), or
	// for a replayed pod its Service's replay owner, which owns nothing: see svc and rs.
	owner *replicaSet
	node  int32 // -1 until scheduled
	// epoch invalidates lifecycle events scheduled before a later change (e.g. deletion).
	epoch int32
	// setIndex is a StatefulSet pod's ordinal (≥ 0) or a DaemonSet pod's node n (-2-n), -1
	// otherwise: see ordinal and pinned.
	setIndex int32
	stage    podStage
	// available is Ready for at least minReadySeconds (Deployment availability).
	available bool
	// live is true while the pod counts as a ReplicaSet replica (created, not terminating).
	live bool
	// marks holds the rank class and the stuck and observed flags (see podMarks).
	marks podMarks
	// sliceRef and endpointsRef are where the two controllers' builders keep the pod.
	sliceRef     model.PodRef
	endpointsRef model.EndpointsPodRef
}

// svc returns the pod's Service.
func (p *podState) svc() *serviceState { return p.owner.svc }

// rs returns the ReplicaSet that created the pod and owns it; nil for a replayed pod.
func (p *podState) rs() *replicaSet {
	if p.owner.replayOwner() {
		return nil
	}
	return p.owner
}

// setPod makes pod the pod's current object (never modified afterwards).
func (p *podState) setPod(pod *model.Pod) {
	p.pod = pod
	class, _ := rankOf(pod)
	p.marks = p.marks&^marksRankClass | podMarks(class)
	if s := p.owner.svc; s.victims != nil {
		s.victimPodChanged(p, p.live, p.node)
	}
}

// ordinal returns a StatefulSet pod's ordinal, -1 for other pods.
func (p *podState) ordinal() int32 { return max(p.setIndex, -1) }

// pinned returns the node a DaemonSet pod is bound to, -1 for other pods.
func (p *podState) pinned() int32 {
	if p.setIndex < -1 {
		return -2 - p.setIndex
	}
	return -1
}

// podMarks are a pod's rarely read marks, in one byte.
type podMarks uint8

const (
	// marksRankClass is the rank class rankOf gives the pod object (1–3).
	marksRankClass podMarks = 3
	// marksStuck is set on failed nodes: the kubelet no longer reports, so the pod never
	// stops.
	marksStuck podMarks = 4
	// marksObserved is set once the kubelet has written the observedGeneration of the pod's
	// deletion: a kubelet that takes the pod up again (its node back) patches nothing new.
	marksObserved podMarks = 8
	// marksTriggerSeen is set on the pods of a Service's trigger time list while a sync
	// reads it (controller.triggerTime), and cleared after.
	marksTriggerSeen podMarks = 16
)

// rankClass returns the rank class of the pod object (see rankOf).
func (p *podState) rankClass() int8 { return int8(p.marks & marksRankClass) }

// stuck reports whether the pod is on a failed node (marksStuck).
func (p *podState) stuck() bool { return p.marks&marksStuck != 0 }

// observed reports whether the kubelet wrote the deletion's observedGeneration (marksObserved).
func (p *podState) observed() bool { return p.marks&marksObserved != 0 }

// setMark sets or clears mark m.
func (p *podState) setMark(m podMarks, on bool) {
	if on {
		p.marks |= m
	} else {
		p.marks &^= m
	}
}

// serviceState is one Service and the Deployment behind it.
type serviceState struct {
	idx      int
	cfg      *ServiceConfig
	svc      *model.Service
	replicas int
	// pods are the pods in creation order. A gone pod stays in the list (stage gone) until
	// gone counts an eighth of it, when the list is compacted (dropGone): removal is O(1) amortised.
	pods []*podState
	gone int32
	// progressAt is the lastUpdateTime of the Deployment's Progressing condition, in whole
	// seconds of virtual time (as stored): when the Deployment last made progress, or
	// created its new ReplicaSet (see deploymentStatus.progress).
	progressAt int32
	rollout    *Action // the rollout in progress, nil when settled
	// newRS is the ReplicaSet of the current template; oldRSs the older ones the Deployment
	// controller created, oldest first (ReplicaSetsByCreationTimestamp). An old ReplicaSet
	// with no replicas, no pods and nothing in progress is dropped, but for the newest.
	newRS  *replicaSet
	oldRSs []*replicaSet
	// newRSCreated is false until the Deployment controller has created newRS.
	newRSCreated bool
	// dcItem is the Deployment's place in the Deployment controller's workqueue.
	dcItem workItem
	// dcRetrying is true while a delayed add of the Deployment waits for dcRetryAt.
	dcRetrying bool
	// created is true once the create action ran. (The flags share one word: a Service's
	// state was 320 bytes with them apart.)
	created bool
	// retiredRSs counts the old ReplicaSets pruneOldRSs dropped that the API server still
	// holds: the revision history, which the Deployment controller cleans up past
	// revisionHistoryLimit. (16 bits fit the flags' word; it stops at the most they hold.)
	retiredRSs uint16
	// generation is the Deployment's metadata.generation (a new template or replicas move
	// it on); dcStatus its status as the Deployment controller last wrote it.
	generation int32
	dcStatus   deploymentStatus
	// dcFailures is the Deployment's retry count in the Deployment controller's workqueue,
	// and dcRetryAt the deadline of its delayed add when dcRetrying.
	dcFailures int32
	dcRetryAt  Time
	// dcEvents is the spam filter of the Deployment controller's Events about the Deployment.
	dcEvents eventSpamFilter
	// surge and unavail are the rolling update's maxSurge and maxUnavailable, resolved
	// against the replicas (setStrategy).
	surge   int32
	unavail int32
	timing  *serviceTiming
	// podSpec is the current template's pod spec fields (its container ports), which its
	// pods share (a StatefulSet's pods add their hostnames to a copy).
	podSpec *model.PodSpecFields
	// manual is the user-written Endpoints object of a selector-less Service
	// (ServiceConfig.ManualEndpoints), nil otherwise.
	manual *model.Endpoints
	// set is the StatefulSet or DaemonSet state, nil for a Deployment (most Services: kept
	// apart, it costs them nothing).
	set *setState
	// victims is the scale-down indexes' state while a ReplicaSet of the Deployment has one.
	victims *victimState
}

// templateHash is the current pod template's pod-template-hash: its ReplicaSet's, or for a
// StatefulSet or DaemonSet its revision's ("" before the first template).
func (s *serviceState) templateHash() string {
	switch {
	case s.set != nil && s.set.revision != nil:
		return s.set.revision.hash
	case s.newRS != nil:
		return s.newRS.hash
	}
	return ""
}

// named reports whether an action's list of Services names s: by its own name, or by the
// name of the scenario entry it was stamped from (an entry with count n names its Services
// name-0 … name-(n-1)). Actions name few Services, so targets finds them by a scan rather
// than an index kept all run (a map of 10,000 Services' names was 0.9 MB). A name names the
// Services of that name in every namespace; "namespace/name" only that namespace's (for a
// stamped Service, its entry's namespace field: ServiceConfig.Namespaces spreads the copies
// over namespaces of their own, which the scenario names by that field).
func (s *serviceState) named(ref string) bool {
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		in := s.svc.Namespace
		if s.cfg != nil {
			in = s.cfg.namespace()
		}
		if in != ns {
			return false
		}
		ref = name
	}
	return s.svc.Name == ref || s.cfg != nil && s.cfg.Name == ref
}

// setState is what the StatefulSet or DaemonSet controller keeps of a Service.
type setState struct {
	// item is the Service's place in the controller's queue; written the status its last
	// status write reported.
	item    workItem
	written setStatus
	// observed is the generation the last status write reported (status.observedGeneration):
	// a sync of a newer generation writes the status, whatever its pods did.
	observed int32
	// revisionDue says the set is new or its template changed: its next sync first creates
	// the ControllerRevision of the template.
	revisionDue bool
	// revisions counts the set's ControllerRevisions the API server holds, and
	// revisionsWithPods those that name a pod not yet gone (rsRare.setPods): the counts the
	// revision history's cleanup needs (setSync.historyDeletes), where upstream lists the
	// revisions and the pods' hashes. current is a StatefulSet's status.currentRevision, the
	// revision its rollout started from (nil before its first sync).
	revisions, revisionsWithPods int32
	current                      *replicaSet
	// events is the spam filter of the Events recorded about the workload (a pod created or
	// deleted), warnings that of its Warning Events (a pod create failed).
	events, warnings eventSpamFilter
	// failures counts the syncs that failed in a row (the workqueue's per-item backoff).
	failures int32
	// delayed says a DaemonSet's delayed add is waiting, to fire at delayedAt
	// (daemonSetAfter).
	delayed   bool
	delayedAt Time
	// maxSurge and maxUnavailable are a DaemonSet's rolling update strategy as given, which
	// each sync scales against the nodes that should run its pod (daemonStrategy).
	maxSurge, maxUnavailable IntOrPercent
	// ordinals holds a StatefulSet's pods by ordinal; daemonOn a DaemonSet's running pod
	// per node, surgeOn the new-revision pod a surging rollout started beside an old one
	// there, and terminatingOn its terminating pods per node.
	ordinals      []*podState
	daemonOn      []*podState
	surgeOn       []*podState
	terminatingOn []int32
	// revision is the ReplicaSet that names the pods of the current revision after the
	// first (merged into serviceState.newRS, which counts them); nil before a rollout.
	revision *replicaSet
	// daemon is a DaemonSet's index of its nodes for syncDaemonSet, ordinal a
	// StatefulSet's of its ordinals for syncStatefulSet.
	daemon  daemonIndex
	ordinal ordinalIndex
}

// serviceTiming holds the kubelet samplers of one ServiceConfig (shared by its stamped copies).
type serviceTiming struct {
	schedule, start, ready, stop, grace *sampler
}

// kubeletTiming owns the kubelet's random stream.
type kubeletTiming struct {
	rng    *rand.Rand
	byConf map[*ServiceConfig]*serviceTiming
}

func newKubeletTiming(rng *rand.Rand) *kubeletTiming {
	return &kubeletTiming{rng: rng, byConf: map[*ServiceConfig]*serviceTiming{}}
}

func (k *kubeletTiming) forService(c *ServiceConfig) *serviceTiming {
	if t, ok := k.byConf[c]; ok {
		return t
	}
	t := &serviceTiming{
		schedule: newSampler(c.Timing.Schedule, k.rng),
		start:    newSampler(c.Timing.Start, k.rng),
		ready:    newSampler(c.Timing.Ready, k.rng),
		stop:     newSampler(c.Timing.Stop, k.rng),
		grace:    newSampler(c.Timing.GracePeriod, k.rng),
	}
	k.byConf[c] = t
	return t
}

// buildServices stamps every ServiceConfig Count times, in config order.
func (e *Engine) buildServices() {
	e.ips = newIPAllocator(e.cfg.Cluster.Nodes)
	for ci := range e.cfg.Services {
		c := &e.cfg.Services[ci]
		count := max(c.Count, 1)
		proto := serviceTemplate(c)
		named := false
		for _, v := range c.Labels {
			named = named || v == NameLabelValue
		}
		var spread []string // the namespaces of the copies (ServiceConfig.Namespaces)
		for k := range min(c.Namespaces, count) {
			spread = append(spread, c.NamespaceOf(k))
		}
		for k := range count {
			name := c.Name
			if c.Count > 1 {
				name = fmt.Sprintf("%s-%d", c.Name, k)
			}
			s := &serviceState{idx: len(e.services), cfg: c, replicas: c.Replicas, timing: e.kubelet.forService(c)}
			s.svc = e.newService(proto, c, name)
			if c.Namespaces > 1 {
				s.svc.Namespace = spread[k%c.Namespaces]
			}
			e.namespaces.add(s)
			if named {
				s.svc.Labels = ownNameLabels(s.svc.Labels, name)
			}
			if s.kind() != KindDeployment {
				s.set = &setState{}
			}
			e.services = append(e.services, s)
		}
	}
}

// NameLabelValue, as a label value of a ServiceConfig, stands for each stamped Service's own
// name (app.kubernetes.io/name: $name gives web-0, web-1… their own names). It is not a
// valid label value, so it never stands for itself.
const NameLabelValue = "$name"

// ownNameLabels returns a copy of labels with every NameLabelValue replaced by name.
func ownNameLabels(labels map[string]string, name string) map[string]string {
	out := maps.Clone(labels)
	for k, v := range out {
		if v == NameLabelValue {
			out[k] = name
		}
	}
	return out
}

// serviceTemplate returns what every Service stamped from c has in common: all but the
// name, UID and selector.
//
// Its maps and slices (labels, annotations, IP families, ports) are shared by those
// Services, so they are never modified: a change to one Service (the labelService action)
// makes a new Service with new maps (copy on write). Labels with NameLabelValue are each
// Service's own (ownNameLabels). Shared, they cost nothing per Service
// (one copy each was about 100 bytes per Service with one port, more with labels).
func serviceTemplate(c *ServiceConfig) *model.Service {
	svc := &model.Service{
		Namespace:                c.namespace(),
		Labels:                   maps.Clone(c.Labels),
		ClusterIP:                "10.96.0.10",
		PublishNotReadyAddresses: c.PublishNotReadyAddresses,
		TrafficDistribution:      c.TrafficDistribution,
		LocalEndpointsOnly:       model.UsesLocalEndpointsOnly("ClusterIP", c.InternalTrafficPolicy, 0),
	}
	if c.Headless {
		svc.ClusterIP = "None"
	}
	if c.TopologyMode != "" {
		svc.Annotations = map[string]string{model.AnnotationTopologyMode: c.TopologyMode}
	}
	for _, f := range c.IPFamilies {
		svc.IPFamilies = append(svc.IPFamilies, model.IPFamily(f))
	}
	if len(svc.IPFamilies) == 0 {
		svc.IPFamilies = []model.IPFamily{model.IPv4}
	}
	if svc.IPFamilies[0] == model.IPv6 && !c.Headless {
		svc.ClusterIP = "fd00:10:96::a"
	}
	for _, p := range c.Ports {
		proto := model.Protocol(p.Protocol)
		if proto == "" {
			proto = model.ProtocolTCP
		}
		target := p.TargetPort
		if target == 0 {
			target = p.Port
		}
		sp := model.ServicePort{Name: p.Name, Protocol: proto, Port: p.Port, TargetPort: model.IntPort(target)}
		if p.AppProtocol != "" {
			sp.AppProtocol = model.Ptr(p.AppProtocol)
		}
		svc.Ports = append(svc.Ports, sp)
	}
	return svc
}

// newService stamps the Service name of config c from its template proto (see
// serviceTemplate: what they share is never modified).
func (e *Engine) newService(proto *model.Service, c *ServiceConfig, name string) *model.Service {
	svc := new(model.Service)
	*svc = *proto
	svc.Name = name
	svc.UID = e.names.uid()
	if c.ManualEndpoints == 0 {
		svc.Selector = model.Selector{{Key: "app", Value: name}}
	}
	return svc
}

// setStrategy keeps a resolved maxSurge and maxUnavailable.
func (s *serviceState) setStrategy(surge, unavail int) {
	s.surge, s.unavail = int32(surge), int32(unavail)
}

// strategy resolves the service's own rolling update strategy against its replicas; a
// service that sets none has the Deployment default, 25%/25%.
func (s *serviceState) strategy() (surge, unavail int) {
	var ms, mu IntOrPercent
	if s.cfg != nil {
		ms, mu = s.cfg.MaxSurge, s.cfg.MaxUnavailable
	}
	if ms == (IntOrPercent{}) && mu == (IntOrPercent{}) {
		ms, mu = IntOrPercent{Value: 25, IsPercent: true}, IntOrPercent{Value: 25, IsPercent: true}
	}
	return s.resolveStrategy(ms, mu)
}

// specStrategy resolves the strategy Service s's workload spec holds against its replicas:
// that of the last rollout that set one (Engine.rolloutStrategy), else the Service's own. A
// scale changes the replicas only, so the strategy a rollout set stays, each percentage
// scaled again. upstream: apps/v1 DeploymentSpec.Strategy (a scale is an update of
// spec.replicas alone); deployment/util ResolveFenceposts on each sync.
func (e *Engine) specStrategy(s *serviceState) (surge, unavail int) {
	if a := e.rolloutStrategy[int32(s.idx)]; a != nil {
		return s.resolveStrategy(a.MaxSurge, a.MaxUnavailable)
	}
	return s.strategy()
}

// resolveStrategy scales a rolling update's maxSurge and maxUnavailable against the
// workload's replicas, by its kind's rules. A DaemonSet rounds both up, and takes
// unavailability 1 when it has neither; it also keeps them as given, for its syncs to
// scale against the nodes that should run its pod (daemonStrategy).
// upstream: pkg/controller/daemon/util UnavailableCount, SurgeCount; update.go
// updatedDesiredNodeCounts (unavailable 1 when both are 0).
func (s *serviceState) resolveStrategy(ms, mu IntOrPercent) (surge, unavail int) {
	if s.kind() != KindDaemonSet {
		return resolveFenceposts(ms, mu, s.replicas)
	}
	if s.set != nil {
		s.set.maxSurge, s.set.maxUnavailable = ms, mu
	}
	return resolveDaemonStrategy(ms, mu, s.replicas)
}

// daemonStrategy is a DaemonSet's maxSurge and maxUnavailable as a sync scales them: against
// desired, the nodes that should run its pod (ready ones), not all the nodes.
// upstream: daemon/update.go updatedDesiredNodeCounts (desiredNumberScheduled).
func (s *serviceState) daemonStrategy(desired int) (surge, unavail int) {
	return resolveDaemonStrategy(s.set.maxSurge, s.set.maxUnavailable, desired)
}

// resolveDaemonStrategy scales a DaemonSet's maxSurge and maxUnavailable against n nodes,
// both rounded up, unavailability 1 when both are 0 (but on no node).
// upstream: pkg/controller/daemon/util UnavailableCount, SurgeCount; update.go
// updatedDesiredNodeCounts.
func resolveDaemonStrategy(ms, mu IntOrPercent, n int) (surge, unavail int) {
	up := func(v IntOrPercent) int {
		if !v.IsPercent {
			return v.Value
		}
		return int(math.Ceil(float64(v.Value) * float64(n) / 100))
	}
	surge, unavail = up(ms), up(mu)
	if n > 0 && surge == 0 && unavail == 0 {
		unavail = 1
	}
	return surge, unavail
}

// resolveIntOrPercent scales maxSurge/maxUnavailable against replicas, rounding surge up and
// unavailability down, and forcing unavailability to 1 when both are 0.
// upstream: pkg/controller/deployment/util ResolveFenceposts.
func resolveFenceposts(surge, unavail IntOrPercent, replicas int) (int, int) {
	scale := func(v IntOrPercent, up bool) int {
		if !v.IsPercent {
			return v.Value
		}
		x := float64(v.Value) * float64(replicas) / 100
		if up {
			return int(math.Ceil(x))
		}
		return int(math.Floor(x))
	}
	s, u := scale(surge, true), scale(unavail, false)
	if s == 0 && u == 0 {
		u = 1
	}
	return s, u
}

// createService makes the Service exist and its Deployment start creating pods.
func (e *Engine) createService(s *serviceState) {
	if s.created {
		return
	}
	s.created = true
	e.serviceExists(s)
	s.svc.CreationTimestamp = timestamp(e.now)
	if s.cfg != nil && s.cfg.ManualEndpoints > 0 {
		// A selector-less Service: no workload, only the user's Endpoints object.
		s.manual = e.manualEndpoints(s)
		for _, c := range e.ctls {
			c.serviceAdded(s)
			c.userWrite(s) // with the Service
		}
		return
	}
	e.newTemplate(s)
	s.generation = 1
	s.setStrategy(s.strategy())
	for _, c := range e.ctls {
		c.serviceAdded(s)
	}
	e.prepareSet(s)
	if e.workloads.setFor(s) != nil {
		e.workloads.enqueueSet(s)
		return
	}
	e.workloads.enqueueDeployment(s)
}

// hash returns p's pod-template-hash: which ReplicaSet (or StatefulSet or DaemonSet
// revision) created it; "" for a replayed pod.
func (p *podState) hash() string {
	if p.rs() == nil {
		return ""
	}
	return p.rs().hash
}

// isNew reports whether p belongs to the current pod template (the new ReplicaSet).
func (s *serviceState) isNew(p *podState) bool { return p.rs() != nil && p.rs().resolve() == s.newRS }

// setLive counts p in or out of its ReplicaSet's replicas (pods that are not terminating).
func (s *serviceState) setLive(p *podState, live bool) {
	if p.live == live {
		return
	}
	p.live = live
	if s.victims != nil {
		s.victimPodChanged(p, !live, p.node)
	}
	d := 1
	if !live {
		d = -1
	}
	if p.rs() == nil {
		return
	}
	rs := p.rs().resolve()
	rs.live += int32(d)
	if p.available {
		rs.available += int32(d)
	}
	if p.pod.Ready {
		rs.ready += int32(d)
	}
	if live || p.ordinal() < 0 || s.countsRevisionOf(p) {
		rs.changes++
	}
}

// countsRevisionOf reports whether a StatefulSet's status counts StatefulSet pod p by its
// revision: p is of the current revision (status.currentReplicas) or the update revision
// (status.updatedReplicas). A terminating pod of a third, left by a rollout that never
// completed, changes no field of the status (replicas, readyReplicas and
// availableReplicas count terminating pods too), so its deletion writes none.
// upstream: statefulset/stateful_set_control.go computeReplicaStatus.
func (s *serviceState) countsRevisionOf(p *podState) bool {
	r := p.rs()
	return r == s.set.current || r == s.updateRevision()
}

// setAvailable records a change of p's availability (Ready for minReadySeconds).
func (s *serviceState) setAvailable(p *podState, available bool) {
	if p.available == available {
		return
	}
	p.available = available
	if s.set != nil {
		if n := p.pinned(); n >= 0 {
			s.markDaemonNode(int(n))
		} else if o := p.ordinal(); o >= 0 {
			s.markOrdinal(int(o))
		}
	}
	if p.rs() == nil {
		return
	}
	rs := p.rs().resolve()
	if !p.live {
		if p.ordinal() >= 0 {
			// A StatefulSet's status.availableReplicas counts terminating pods too.
			// upstream: statefulset/stateful_set_control.go computeReplicaStatus.
			rs.changes++
		}
		return
	}
	if available {
		rs.available++
	} else {
		rs.available--
	}
	rs.changes++
}

// newTemplate starts a rollout: the current ReplicaSet joins the old ones, and the
// Deployment controller will create a ReplicaSet for the new template.
func (e *Engine) newTemplate(s *serviceState) {
	if s.set != nil {
		s.set.revisionDue = true
	}
	if s.newRS != nil && s.kind() != KindDeployment {
		// A StatefulSet or DaemonSet updates its pods in place of the old ones: one counter
		// set, newRS, serves every revision. The revision's pods name theirs by a
		// ReplicaSet merged into newRS from the start.
		s.set.revision = &replicaSet{svc: s, hash: e.names.templateHash(), rare: &rsRare{merged: s.newRS}}
		return
	}
	if s.newRS != nil && s.newRSCreated {
		s.addOldRS(s.newRS)
	}
	s.newRS = &replicaSet{svc: s, hash: e.names.templateHash()}
	s.newRSCreated = false
	// Every pod of a template has the same ports; pods are never modified in place, so they
	// share one spec.
	s.podSpec = e.templateSpec(s)
}

// workloadSettled notes the end of a rollout: no old pods left, none wanted.
func (e *Engine) workloadSettled(s *serviceState) {
	if s.rollout == nil || int(s.newRS.live) != s.replicas {
		return
	}
	if s.kind() == KindDeployment {
		for _, o := range s.oldRSs {
			if o.spec != 0 || o.live != 0 {
				return
			}
		}
		s.rollout = nil
		return
	}
	if int(s.newRS.available) != s.replicas {
		return
	}
	for _, p := range s.pods {
		if p.live && p.hash() != s.templateHash() {
			return
		}
	}
	s.rollout = nil
}

// podIdentity is the identity of s's pod name with uid: its template's container ports
// (newTemplate has set s.podSpec before any pod is made), and for a StatefulSet's pod, its
// hostname and subdomain (other workloads' pods set none).
func (e *Engine) podIdentity(s *serviceState, name, uid string) *model.PodIdentity {
	spec := s.podSpec
	if s.kind() == KindStatefulSet {
		// upstream: statefulset/stateful_set_utils.go initIdentity sets spec.hostname to
		// the pod's name and spec.subdomain to the set's serviceName.
		own := *spec
		own.Hostname, own.Subdomain = name, cmp.Or(s.cfg.ServiceName, s.svc.Name)
		spec = &own
	}
	return model.NewPodIdentityWith(s.svc.Namespace, name, uid, spec)
}

// createPod creates one pod of rs's template, named name (or a generated name when empty);
// the scheduler and the kubelet take it from there.
func (e *Engine) createPod(s *serviceState, rs *replicaSet, name string) *podState {
	// Names are unique within the namespace: for a generateName that draws a name in use,
	// the API server draws again (RetryGenerateName, up to 8 attempts).
	var uid string
	if ns := s.svc.Namespace; name == "" || e.podNames.has(ns, name) {
		hash := rs.hash // a ReplicaSet's pods: Deployment-hash-xxxxx
		if s.kind() == KindDaemonSet {
			hash = "" // DaemonSet-xxxxx
		}
		name, uid = e.names.podNameAndUID(s.svc.Name, hash, func(b []byte) bool { return e.podNames.hasBytes(ns, b) })
	} else {
		uid = e.names.uid()
	}
	// The pod has no labels: nothing in a run reads them (a pod's Service is p.svc(), not a
	// selector match), and a map per template was 760 bytes per Service in a rollout.
	// Recorded pods get theirs (record).
	p := &podState{owner: rs, node: -1, setIndex: -1} // rs's Service is s
	pod := &model.Pod{PodIdentity: e.podIdentity(s, name, uid), Phase: model.PodPending}
	pod.CreationTimestamp = timestamp(e.now)
	p.setPod(pod)
	e.podNames.add(p)
	s.pods = append(s.pods, p)
	s.setLive(p, true)
	e.podAdded(p)
	e.sched.firstAttempts++
	e.after(s.timing.schedule.sample(), e.arenas.scheduled.put(evPodScheduled{p: p, epoch: p.epoch, bind: true}))
	return p
}

func containerPorts(svc *model.Service) []model.ContainerPort {
	ports := make([]model.ContainerPort, 0, len(svc.Ports))
	for _, sp := range svc.Ports {
		ports = append(ports, model.ContainerPort{Name: sp.Name, ContainerPort: sp.TargetPort.IntVal, Protocol: sp.Protocol})
	}
	return ports
}

// deletePods starts graceful deletion of each pod.
func (e *Engine) deletePods(pods []*podState) {
	for _, p := range pods {
		e.deletePod(p)
	}
}

// deletePod sets the deletionTimestamp; the kubelet stops the containers and then the pod is
// removed. A pod that never got a node is removed at once.
func (e *Engine) deletePod(p *podState) {
	if p.stage == stageGone || p.pod.Terminating {
		return
	}
	p.epoch++
	p.svc().setLive(p, false)
	if p.node < 0 {
		// Never scheduled: deleted at once (grace period 0), yet the API server writes its
		// deletionTimestamp first, as for any graceful delete: an update every controller
		// sees (the endpoint controllers queue its Service, the deletionTimestamp being
		// new), then the delete.
		// upstream: pkg/registry/core/pod/strategy.go CheckGracefulDelete (no node: grace
		// 0); apiserver rest/delete.go BeforeDelete; registry/store.go Delete
		// (updateForGracefulDeletionAndFinalizers, then deleteImmediately).
		e.updatePod(p, func(pod *model.Pod) { pod.Terminating = true })
		if p.rs() != nil {
			p.rs().resolve().terminating++ // podGone counts it out
		}
		e.podGone(p)
		return
	}
	e.updatePod(p, func(pod *model.Pod) { pod.Terminating = true })
	if p.rs() != nil {
		p.rs().resolve().terminating++
	}
	if minReady := Time(p.svc().cfg.MinReady); p.ordinal() >= 0 && p.pod.Ready && !p.available && minReady > 0 {
		// A StatefulSet counts a terminating pod available as any other (its status's
		// availableReplicas), and its sync plans the availability check: the delete's new
		// epoch takes the check over.
		// upstream: statefulset/stateful_set.go sync (FindMinNextPodAvailabilityCheck);
		// stateful_set_control.go computeReplicaStatus.
		e.checkAvailable(p, p.pod.ReadyTransition, minReady)
	}
	p.svc().setPodTerminating(p)
	if p.stuck() {
		return // the kubelet is gone; the pod stays Terminating until its node is removed
	}
	e.kubeletTerminates(p)
}

// kubeletTerminatingStatus is the time from a pod's graceful deletion to the status its
// kubelet writes on taking it up: the pod worker's SyncTerminatingPod sets the status with
// the generation the deletion bumped as status.observedGeneration before it stops the
// containers, and the status manager patches it (the pod watch, a GET and a PATCH).
const kubeletTerminatingStatus = Time(50 * time.Millisecond)

// kubeletTerminates is p's kubelet taking up its deletion: a status write with the new
// observedGeneration (unless the containers stop first, when the status manager would
// write the two together), then the containers stopping within the grace period.
// upstream: apiserver pkg/registry/rest/delete.go BeforeDelete (generation+1 on a graceful
// delete); pkg/kubelet/kubelet.go SyncTerminatingPod (SetPodStatus before killPod);
// status/status_manager.go SetPodStatus (forced update of a terminating pod);
// PodObservedGenerationTracking, GA and locked on since 1.35.
func (e *Engine) kubeletTerminates(p *podState) {
	t := p.svc().timing
	stop := t.stop.sample()
	if g := t.grace.sample(); g < stop {
		stop = g
	}
	if kubeletTerminatingStatus < stop && !p.observed() {
		e.after(kubeletTerminatingStatus, e.arenas.observedGeneration.put(evPodObservedGeneration{p, p.epoch}))
	}
	e.after(stop, e.arenas.stopped.put(evPodStopped{p, p.epoch}))
}

// podGone removes a pod from the API.
func (e *Engine) podGone(p *podState) {
	if p.stage == stageGone {
		return
	}
	p.stage = stageGone
	p.epoch++
	s := p.svc()
	s.setLive(p, false)
	e.sched.forget(p)
	if p.node >= 0 {
		on := e.podsOnNode[p.node]
		if i := slices.Index(on, p); i >= 0 {
			e.podsOnNode[p.node] = slices.Delete(on, i, i+1)
		}
		if !p.pod.Phase.Terminal() {
			e.unassign(int(p.node)) // gone before it stopped (its node was removed)
		}
	}
	s.dropGone()
	e.podNames.remove(p.pod.Namespace, p.pod.Name)
	s.setPodGone(p)
	if p.rs() != nil {
		rs := p.rs().resolve()
		rs.changes++ // status.terminatingReplicas
		if p.pod.Terminating && !p.pod.Phase.Terminal() {
			rs.terminating-- // gone without stopping (its node was removed)
		}
	}
	e.podDeleted(p)
}

// dropGoneAtOnce is the largest pod list dropGone compacts at every gone pod.
const dropGoneAtOnce = 16

// podCount is the number of pods in the API (s.pods without the gone ones not yet dropped).
func (s *serviceState) podCount() int { return len(s.pods) - int(s.gone) }

// dropGone counts one more gone pod in s.pods and compacts the list once they are an eighth
// of it. Copying at most 7 live pods per gone one keeps removal O(1) amortised, and a gone
// pod (its podState, last Pod version, name and UID) is not held for long: a small Service
// would otherwise keep the pods of every rollout and drain until it had lost dozens. A list
// of up to dropGoneAtOnce pods is compacted at every gone pod: an eighth of it is one pod,
// which a Service of 10 held through most of a rollout (17 MB of the peak heap at 50,000
// Services of 10 pods), and copying at most 16 pods per gone one is still O(1).
//
// The list is compacted in its own array (the vacated tail cleared), unless that array is
// more than twice the live pods' number, after a scale-down: a new array for each compaction
// was 8.5 MB of many-services' allocations. No loop over s.pods removes a pod (the actions
// that delete pods range over a copy: firstRunning's list, a node's pods).
func (s *serviceState) dropGone() {
	s.gone++
	if int(s.gone)*8 < len(s.pods) && len(s.pods) > dropGoneAtOnce {
		return
	}
	gone := func(q *podState) bool { return q.stage == stageGone }
	if live := len(s.pods) - int(s.gone); cap(s.pods) > 2*live {
		kept := make([]*podState, 0, live)
		for _, q := range s.pods {
			if !gone(q) {
				kept = append(kept, q)
			}
		}
		s.pods = kept
	} else {
		s.pods = slices.DeleteFunc(s.pods, gone)
	}
	s.gone = 0
}

// updatePod applies change to a copy of the pod, so that controllers see an old and a new
// object as informers do, and notifies them. The update takes a resourceVersion, which is
// formatted only when the pods are being recorded (podVersions): the controllers read a
// pod's only to drop an update whose version equals the old one's (a resync), which no
// update made here is. Formatting it was one string per pod update.
func (e *Engine) updatePod(p *podState, change func(*model.Pod)) {
	old := p.pod
	next := *old
	change(&next)
	e.newPodVersion(p)
	p.setPod(&next)
	e.podUpdated(p, old)
}

// newPodVersion takes the next resourceVersion for an update of p, formatted only when pods
// are recorded (the recorded trace shows it).
func (e *Engine) newPodVersion(p *podState) {
	if e.podVersions != nil {
		e.podVersions[p] = e.api.podResourceVersion()
	} else {
		e.api.bumpPodResourceVersion()
	}
}

// touchPod is updatePod for a status write that changes no field of the pod the simulator
// keeps (observedGeneration; a deletion's grace period shortened to 0): a watch event and a
// controller update like any other, whose old and new objects are one, as every field read
// of them is equal. A copy for each was 64 bytes of garbage, two per pod a rollout replaces:
// 11 MB of many-services' rollouts.
func (e *Engine) touchPod(p *podState) {
	e.newPodVersion(p)
	e.podUpdated(p, p.pod)
}

// podLifecycleArenas are the arenas of the pod lifecycle events, one per kind.
type podLifecycleArenas struct {
	scheduled          eventArena[evPodScheduled]
	started            eventArena[evPodStarted]
	ready              eventArena[evPodReady]
	available          eventArena[evPodAvailable]
	stopped            eventArena[evPodStopped]
	gone               eventArena[evPodGone]
	setReady           eventArena[evPodSetReady]
	observedGeneration eventArena[evPodObservedGeneration]
}

// Pod lifecycle events (the kubelet's and the node lifecycle controller's), scheduled from
// their arenas (e.arenas) and applied through a pointer.
type (
	evPodScheduled struct {
		p     *podState
		epoch int32
		// retry is set for an attempt of a pod that was unschedulable, and bind when the
		// attempt makes a binding call of the scheduler's client (refunded if it finds no
		// node): at the end of its scheduling cycle it asks for the call's token, and waits
		// for it (bound set) when the client is short of tokens.
		retry, bind, bound bool
	}
	evPodStarted struct {
		p     *podState
		epoch int32
	}
	evPodReady struct {
		p     *podState
		epoch int32
	}
	evPodAvailable struct {
		p     *podState
		epoch int32
	}
	evPodStopped struct {
		p     *podState
		epoch int32
	}
	evPodGone struct {
		p     *podState
		epoch int32
	}
	evPodSetReady struct {
		p     *podState
		epoch int32
		ready bool
	}
)

func (ev evPodScheduled) String() string { return "pod scheduled " + ev.p.pod.Name }
func (ev evPodStarted) String() string   { return "pod started " + ev.p.pod.Name }
func (ev evPodReady) String() string     { return "pod ready " + ev.p.pod.Name }
func (ev evPodAvailable) String() string { return "pod available " + ev.p.pod.Name }
func (ev evPodStopped) String() string   { return "pod stopped " + ev.p.pod.Name }
func (ev evPodGone) String() string      { return "pod gone " + ev.p.pod.Name }
func (ev evPodSetReady) String() string {
	return fmt.Sprintf("pod ready=%v %s", ev.ready, ev.p.pod.Name)
}

func (evp *evPodScheduled) apply(e *Engine) {
	if evp.bind && !evp.bound {
		// The scheduling cycle is over: the binding call asks for its token now, after the
		// calls made before it. A cycle that found no node makes no call: its failure is
		// handled below, now (the token is given back at once, as if never taken).
		evp.bound = true
		if at := e.workloads.bind(e.now); at > e.now {
			if p := evp.p; p.epoch == evp.epoch && p.stage == stagePending && !e.nodeFree(p) {
				e.workloads.refundBind()
				evp.bind = false
			} else {
				e.schedule(at, evp)
				return
			}
		}
	}
	ev := takeEvent(evp)
	p := ev.p
	if !ev.retry {
		e.sched.firstAttempts--
	} else if p.pinned() < 0 {
		e.sched.trying--
	}
	if p.epoch != ev.epoch || p.stage != stagePending {
		return
	}
	// The scheduler knows a failed node only once the node lifecycle controller has marked
	// it not ready (and tainted it unreachable): until then it binds pods there, which no
	// kubelet starts. A DaemonSet pod is bound to its node if it fits there; it tolerates
	// the node being cordoned.
	n := e.findNode(p)
	if n < 0 {
		if ev.bind {
			e.workloads.refundBind() // no node: no binding call
		}
		e.unschedulable(p) // stays Pending until a retry finds it a node
		return
	}
	e.sched.forget(p)
	e.assign(n)
	p.node = int32(n)
	if s := p.owner.svc; s.victims != nil {
		s.victimPodChanged(p, p.live, -1)
	}
	p.stage = stageScheduled
	e.podsOnNode[n] = appendGrowingByAQuarter(e.podsOnNode[n], p)
	if p.pinned() >= 0 {
		p.svc().markDaemonNode(n) // scheduled pods come first in a DaemonSet's status
	}
	name := e.nodes[n].Name
	if e.nodeDown[n] {
		e.updatePod(p, func(pod *model.Pod) { pod.NodeName = name })
		p.setMark(marksStuck, true) // the node's kubelet takes it up when the node is back
		return
	}
	// The kubelet's first status (Ready=False, its lastTransitionTime now) comes
	// milliseconds after the binding: one update here.
	now := timestamp(e.now)
	e.updatePod(p, func(pod *model.Pod) {
		pod.NodeName = name
		if pod.ReadyTransition.IsZero() {
			pod.ReadyTransition = now
		}
	})
	e.after(p.svc().timing.start.sample(), e.arenas.started.put(evPodStarted{p, p.epoch}))
}

// kubeletAdmits is a recovered node's kubelet taking up a pod bound there while it was
// down: its first status (Ready=False, dated now) and the start of its containers.
func (e *Engine) kubeletAdmits(p *podState) {
	if p.pod.ReadyTransition.IsZero() {
		now := timestamp(e.now)
		e.updatePod(p, func(pod *model.Pod) { pod.ReadyTransition = now })
	}
	e.after(p.svc().timing.start.sample(), e.arenas.started.put(evPodStarted{p, p.epoch}))
}

// hostsInUse is which host numbers of node n's address range its pods hold, once the range
// has handed out every one (ipAllocator.wrapped); nil before, when none can be held twice.
// A pod holds its address from its start until it is gone.
func (e *Engine) hostsInUse(n int) *[ipHosts + 2]bool {
	if !e.ips.wrapped(n) {
		return nil
	}
	var used [ipHosts + 2]bool
	for _, p := range e.podsOnNode[n] {
		if ips := p.pod.IPs; len(ips) > 0 {
			if h := hostOf(ips[0]); h >= 0 {
				used[h] = true
			}
		}
	}
	return &used
}

func (evp *evPodStarted) apply(e *Engine) {
	ev := takeEvent(evp)
	p := ev.p
	if p.epoch != ev.epoch || p.stage != stageScheduled {
		return
	}
	p.stage = stageRunning
	ips := e.ips.allocate(int(p.node), p.svc().svc.IPFamilies, e.hostsInUse(int(p.node)))
	now := timestamp(e.now)
	running := func(pod *model.Pod) {
		pod.Phase = model.PodRunning
		pod.IPs = ips
		if pod.ReadyTransition.IsZero() {
			pod.ReadyTransition = now
		}
	}
	if d := p.svc().timing.ready.sample(); d > 0 {
		e.updatePod(p, running)
		e.after(d, e.arenas.ready.put(evPodReady{p, p.epoch}))
		return
	}
	// Ready at once: a pod with no readiness probe is ready as soon as its containers run,
	// in the same status update as its IPs (upstream: prober_manager.go UpdatePodStatus,
	// "no readinessProbe -> always ready", called by generateAPIPodStatus).
	e.setReadyWith(p, true, 0, running)
}

func (evp *evPodReady) apply(e *Engine) {
	ev := takeEvent(evp)
	p := ev.p
	if p.epoch != ev.epoch || p.stage != stageRunning || p.pod.Ready {
		return
	}
	e.setReady(p, true)
}

func (e *Engine) setReady(p *podState, ready bool) { e.setReadyWith(p, ready, 0, nil) }

// setReadyWith is setReady with the Ready condition's transition time since (zero: now)
// and other changes of the pod (also) in its update.
func (e *Engine) setReadyWith(p *podState, ready bool, since model.Timestamp, also func(*model.Pod)) {
	now := cmp.Or(since, timestamp(e.now))
	wasReady := p.pod.Ready
	if n := p.pinned(); n >= 0 {
		p.svc().markDaemonNode(int(n)) // status.numberReady
	}
	if p.rs() != nil {
		rs := p.rs().resolve()
		rs.changes++ // status.readyReplicas
		if p.live && p.pod.Ready != ready {
			if ready {
				rs.ready++
			} else {
				rs.ready--
			}
		}
	}
	minReady := Time(p.svc().cfg.MinReady)
	switch {
	case !ready:
		p.svc().setAvailable(p, false)
	case minReady == 0 || virtualTime(now)+minReady <= e.now:
		// Available as soon as ready: the sync the update starts counts both at once. So is
		// a pod whose Ready condition comes back with a transition time minReadySeconds or
		// more ago (its kubelet, back after its node's outage, keeps the time it had).
		// (upstream: pkg/api/v1/pod/util.go IsPodAvailable: lastTransitionTime +
		// minReadySeconds <= now.)
		p.svc().setAvailable(p, true)
	}
	e.updatePod(p, func(pod *model.Pod) {
		if also != nil {
			also(pod)
		}
		pod.Ready, pod.ReadyTransition = ready, now
	})
	if ready && minReady > 0 {
		e.checkAvailable(p, now, minReady)
		if p.pinned() >= 0 && !wasReady {
			// The DaemonSet controller's pod handler: a pod changed to ready queues its
			// DaemonSet again a second after minReadySeconds. upstream: daemon_controller.go
			// updatePod (changedToReady).
			e.workloads.daemonSetAfter(p.svc(), minReady+Time(time.Second))
		}
	}
}

// availableAfter is how long after now a pod that turned ready with the Ready condition's
// transition time since (whole seconds, as stored) is available with minReadySeconds
// minReady (IsPodAvailable: lastTransitionTime + minReadySeconds <= now), up to a second
// before minReadySeconds have passed since it turned ready.
//   - A ReplicaSet's or StatefulSet's sync that sees the pod ready plans its next
//     availability check for then: its controller sees the pod available at once
//     (evPodAvailable queues it). upstream: replica_set.go syncReplicaSet and
//     stateful_set.go sync (FindMinNextPodAvailabilityCheck); pkg/api/v1/pod/util.go
//     IsPodAvailable.
//   - A DaemonSet's controller sees it at its next sync: a pod event's, or its one delayed
//     add (daemonSetAfter).
func availableAfter(since model.Timestamp, minReady, now Time) Time {
	return max(virtualTime(since)+minReady-now, 0)
}

// checkAvailable plans the availability check of p, ready since since, for when
// minReadySeconds minReady have passed (availableAfter); the pod's epoch of now voids it
// when the pod changes first.
func (e *Engine) checkAvailable(p *podState, since model.Timestamp, minReady Time) {
	e.after(availableAfter(since, minReady, e.now), e.arenas.available.put(evPodAvailable{p, p.epoch}))
}

func (evp *evPodAvailable) apply(e *Engine) {
	ev := takeEvent(evp)
	p := ev.p
	if p.epoch != ev.epoch || p.stage == stageGone || !p.pod.Ready || p.available {
		return
	}
	if virtualTime(p.pod.ReadyTransition)+Time(p.svc().cfg.MinReady) > e.now {
		// Scheduled for an earlier Ready transition: the pod went not ready and ready again
		// since, and is available only minReadySeconds after that (its own event).
		// upstream: IsPodAvailable (lastTransitionTime + minReadySeconds <= now).
		return
	}
	p.svc().setAvailable(p, true)
	if p.pinned() >= 0 {
		return // a DaemonSet pod: seen at the DaemonSet's next sync (daemonSetAfter)
	}
	if rs := p.rs(); rs != nil && rs.rare != nil && rs.rare.listing && p.pod.ReadyTransition <= rs.rare.listedSecond {
		rs.rare.late++ // listed ready by the ReplicaSet's sync in progress: its status counts it
	}
	e.workloads.podChanged(p)
}

// podDeleteAfterStop is the time from containers stopped (the kubelet reports Ready=false) to
// the kubelet's final delete of the pod object.
const podDeleteAfterStop = Time(500e6)

func (evp *evPodStopped) apply(e *Engine) {
	ev := takeEvent(evp)
	p := ev.p
	if p.epoch != ev.epoch || p.stage == stageGone {
		return
	}
	// The kubelet's last status of a deleted pod whose containers have stopped: terminal
	// (the containers will not restart), not ready. A terminal pod has no endpoint, so its
	// endpoint goes with this update, not with the object's deletion after it.
	// upstream: pkg/kubelet/kubelet_pods.go getPhase (podIsTerminal), status_manager.go
	// (the pod deleted only once its terminal status is written); k8s.io/endpointslice
	// util.ShouldPodBeInEndpoints (isPodTerminal).
	ready := p.pod.Ready
	now := timestamp(e.now)
	if p.rs() != nil {
		rs := p.rs().resolve()
		if p.pod.Terminating {
			rs.terminating-- // terminal: no longer counted as terminating
		}
		if ready && p.pod.Phase == model.PodRunning {
			// A StatefulSet counts a terminating pod in readyReplicas until it stops
			// (isRunningAndReady): a status change. upstream: stateful_set_control.go
			// computeReplicaStatus.
			rs.changes++
		}
	}
	p.svc().setPodTerminal(p)
	wasTerminal := p.pod.Phase.Terminal()
	e.updatePod(p, func(pod *model.Pod) {
		pod.Phase = model.PodSucceeded // or Failed, by the exit codes: terminal either way
		if ready {
			pod.Ready, pod.ReadyTransition = false, now
		}
	})
	if p.node >= 0 && !wasTerminal {
		e.unassign(int(p.node)) // out of the scheduler's cache: its informer lists no terminal pods
	}
	e.after(podDeleteAfterStop, e.arenas.gone.put(evPodGone{p, p.epoch}))
}

func (evp *evPodGone) apply(e *Engine) {
	ev := takeEvent(evp)
	if ev.p.epoch != ev.epoch {
		return
	}
	// The kubelet deletes the pod with grace period 0. The API server first stores the
	// shortened deletion (an update: the deletionTimestamp moves to now), then removes the
	// object: an update and a delete, each a watch event.
	// upstream: pkg/kubelet/status/status_manager.go syncPod (canBeDeleted, Delete with grace
	// 0); apiserver rest/delete.go BeforeDelete (a shorter grace period is an update),
	// registry/store.go Delete (updateForGracefulDeletionAndFinalizers, then deleteImmediately).
	e.touchPod(ev.p)
	e.podGone(ev.p)
}

// evPodObservedGeneration is the kubelet's status write for a pod it is terminating:
// only status.observedGeneration changes (Ready stays as it was), yet every controller
// that compares deletionTimestamps by pointer sees a changed pod.
type evPodObservedGeneration struct {
	p     *podState
	epoch int32
}

func (ev evPodObservedGeneration) String() string {
	return "pod observedGeneration " + ev.p.pod.Name
}
func (evp *evPodObservedGeneration) apply(e *Engine) {
	ev := takeEvent(evp)
	if ev.p.epoch != ev.epoch || ev.p.stage == stageGone {
		return
	}
	p := ev.p
	p.setMark(marksObserved, true)
	// A kubelet back from a failure writes, with this status, the Ready condition it kept
	// (its readiness probe still runs while the pod terminates): a pod the node lifecycle
	// controller marked not ready meanwhile is ready again until its containers stop.
	// upstream: pkg/kubelet/kubelet.go SyncTerminatingPod (generateAPIPodStatus, then
	// SetPodStatus); prober/worker.go doProbe (only liveness and startup probes stop on
	// deletion); status/status_manager.go mergePodStatus (the kubelet's PodReady wins).
	if nl := e.nodeLC; nl != nil && p.stage == stageRunning && !p.pod.Ready {
		if since, ok := nl.readySince[p]; ok {
			delete(nl.readySince, p)
			e.setReadyWith(p, true, since, nil)
			return
		}
	}
	e.touchPod(p)
}

func (evp *evPodSetReady) apply(e *Engine) {
	ev := takeEvent(evp)
	p := ev.p
	if p.epoch != ev.epoch || p.stage != stageRunning || p.pod.Ready == ev.ready {
		return
	}
	e.setReady(p, ev.ready)
}

// podAdded, podUpdated and podDeleted are the informer notifications every controller gets.
func (e *Engine) podAdded(p *podState) {
	e.podEvents++
	e.record(model.EventAdded, p)
	e.workloads.podChanged(p)
	for _, c := range e.ctls {
		c.podAdded(p)
	}
	e.podEvent(p) // an add always has a projection key
}

func (e *Engine) podUpdated(p *podState, old *model.Pod) { e.podUpdate(p, old, false) }

// podResynced is podUpdated for an update of the version the pod already had (a resync, as
// a replay can record): the controllers take the object, and queue nothing for it.
// upstream: endpointslice util/controller_utils.go GetPodUpdateProjectionKey (equal
// resourceVersions: no key).
func (e *Engine) podResynced(p *podState, old *model.Pod) { e.podUpdate(p, old, true) }

func (e *Engine) podUpdate(p *podState, old *model.Pod, resync bool) {
	e.podEvents++
	e.record(model.EventModified, p)
	e.workloads.podChanged(p)
	for _, c := range e.ctls {
		c.podUpdated(p, old)
	}
	// A resync (the version the pod had) has no projection key, nor has an update that
	// changes nothing endpoints show (a label change reaches the engine as the pod leaving
	// one Service and joining another; a replay's recorded event opens its item itself,
	// openPodEvent).
	if !resync && podEndpointsChanged(old, p.pod) {
		e.podEvent(p)
	}
}

func (e *Engine) podDeleted(p *podState) {
	e.podEvents++
	e.record(model.EventDeleted, p)
	e.workloads.podChanged(p)
	for _, c := range e.ctls {
		c.podDeleted(p)
	}
	e.podEvent(p) // a delete always has a projection key
}

// PodRecorder is an optional Observer extension that receives every pod event of a generated
// workload, as a watch on pods would see it (used to record traces for replay tests). Each
// event has its own copy of the pod, and its labels.
type PodRecorder interface {
	PodEvent(TraceEvent)
}

func (e *Engine) record(t model.EventType, p *podState) {
	if e.replay != nil {
		return
	}
	if r, ok := e.obs.(PodRecorder); ok {
		pod := *p.pod
		r.PodEvent(TraceEvent{At: e.now, Type: t, Pod: &pod, Labels: p.labels(), ResourceVersion: e.podVersions[p]})
		if t == model.EventDeleted {
			delete(e.podVersions, p)
		}
	}
}

// labels returns the labels of a generated pod, those of its template: app (its Service's
// selector) and pod-template-hash. The pod itself does not carry them (createPod).
func (p *podState) labels() map[string]string {
	return map[string]string{"app": p.svc().svc.Name, "pod-template-hash": p.hash()}
}

// manualEndpoints builds the Endpoints object a user writes for a selector-less Service: one
// subset with the Service's target ports and ManualEndpoints ready addresses outside the pod
// network (no node, no target reference, as for an external database), spread over the
// Service's IP families.
func (e *Engine) manualEndpoints(s *serviceState) *model.Endpoints {
	ep := &model.Endpoints{ObjectMeta: model.ObjectMeta{
		Namespace: s.svc.Namespace, Name: s.svc.Name, UID: e.names.uid(), CreationTimestamp: s.svc.CreationTimestamp,
	}}
	ep.Subsets = e.manualSubsets(s, nil, s.cfg.ManualEndpoints)
	return ep
}

// setManualAddresses is the user updating a selector-less Service's Endpoints object to n
// addresses: the first ones stay, new ones are added after them.
func (e *Engine) setManualAddresses(s *serviceState, n int) {
	next := *s.manual
	var old []model.EndpointAddress
	if len(s.manual.Subsets) > 0 {
		old = s.manual.Subsets[0].Addresses
	}
	next.Subsets = e.manualSubsets(s, old[:min(n, len(old))], n)
	s.manual = &next
	for _, c := range e.ctls {
		if c.mode == ModeEndpoints {
			c.userWrite(s)
			continue
		}
		c.serviceUpdated(s) // the mirroring controller's Endpoints handler
	}
}

// manualSubsets is the subsets of a user's Endpoints object with n addresses, kept first
// (at most n of them) and new ones after: one subset with the Service's target ports, or
// none at all for no address, as the API server refuses a subset without addresses.
// upstream: pkg/apis/core/validation ValidateEndpointSubsets ("must specify addresses or
// notReadyAddresses").
func (e *Engine) manualSubsets(s *serviceState, kept []model.EndpointAddress, n int) []model.EndpointSubset {
	if n <= 0 {
		return nil
	}
	sub := model.EndpointSubset{Addresses: append([]model.EndpointAddress(nil), kept...)}
	for _, p := range s.svc.Ports {
		sub.Ports = append(sub.Ports, model.EndpointsPort{Name: p.Name, Port: p.TargetPort.IntVal, Protocol: p.Protocol, AppProtocol: p.AppProtocol})
	}
	e.addManualAddresses(s, &sub, n-len(sub.Addresses))
	return []model.EndpointSubset{sub}
}

// addManualAddresses appends n new addresses to sub.
func (e *Engine) addManualAddresses(s *serviceState, sub *model.EndpointSubset, n int) {
	for range n {
		e.manualIPs++
		k := e.manualIPs
		var ip string
		if families := s.svc.IPFamilies; families[len(sub.Addresses)%len(families)] == model.IPv6 {
			ip = fmt.Sprintf("fd00:ee::%x:%x", k>>16, k&0xffff)
		} else {
			// 172.16.0.0/12 holds a million addresses; beyond, 100.64.0.0/10.
			base := uint32(172<<24 | 16<<16)
			if k >= 1<<20 {
				base, k = uint32(100<<24|64<<16), k-1<<20
			}
			v := base + uint32(k)
			ip = fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
		}
		sub.Addresses = append(sub.Addresses, model.EndpointAddress{IP: ip})
	}
}
