/*
Package trace reads pod churn recorded from a real cluster, for 'sim replay', and writes the
recordings 'sim record' makes.

Inputs are read as kubectl writes them: JSON values one after another, pretty-printed over
many lines or one per line (encoding/json's Decoder streams them, so memory stays
proportional to the objects a caller keeps, not to the input):

  - a pod watch stream, 'kubectl get pods -A --watch --output-watch-events -o json':
    {"type": "ADDED"|"MODIFIED"|"DELETED", "object": {…Pod…}} (PodReader);
  - an EndpointSlice watch stream, 'kubectl get endpointslices -A --watch
    --output-watch-events -o json' (SliceReader), for comparing with the simulation;
  - lists, 'kubectl get services -A -o json' and 'kubectl get nodes -o json' (ReadServices,
    ReadNodes).

Objects are decoded into the package's own small types, which hold the fields epsim reads
with the names and JSON decoding of the k8s.io/api types' (times, int-or-strings and
quantities included), and converted to epsim's model types. Nothing here imports k8s.io
modules: they are the tests' oracles, which decode the same inputs with the real types and
check that both give the same model objects (TestWireMatchesAPITypes,
FuzzWireMatchesAPITypes). A malformed field the readers never read is skipped, where the
real types would refuse the object.

# Trace format

A trace (written by Record and Writer, conventionally *.jsonl) is one watch event per line
with the time it arrived at the recorder:

	{"time":"2026-01-01T00:00:05.250000001Z","type":"MODIFIED","object":{"kind":"Pod",…}}

time is RFC 3339 with nanoseconds, UTC; type and object are as in kubectl's watch output.
Pods are trimmed to what epsim reads (trimPod: names, uid, resourceVersion, labels,
creation and deletion timestamps, node, hostname, subdomain, container ports, phase, IPs,
conditions): no annotations, images, commands, env or volumes. EndpointSlices are kept
whole. Replay time 0 is the first event's time.

# Times of a raw kubectl stream

A watch stream printed by kubectl carries no arrival times. Readers then take an event's
time from its object: the latest of its creationTimestamp, its conditions'
lastTransitionTime and its deletion request (deletionTimestamp minus
deletionGracePeriodSeconds) — for EndpointSlices the creation, the
endpoints.kubernetes.io/last-change-trigger-time annotation and the deletion. These have
second precision, so Stats.RecordedTimes is false and callers should say so. Stream order
wins over timestamps: an event is never earlier than the one before it (Stats.Clamped
counts those moved by more than a second). The leading ADDED events are kubectl's initial
listing of objects that existed before the watch started: they all happen at time 0, and
time 0 is the latest timestamp among them.

# Errors

Malformed or truncated input gives an *InputError naming the input, the event number and
the byte offset, and saying what was expected; errors.Is(err, ErrFormat) holds. Objects of
other kinds and watch event types other than ADDED, MODIFIED and DELETED (BOOKMARK) are
skipped and counted in Stats.Skipped.

The package reads no clock: Record takes the clock as an argument. Usage:

	src := trace.NewPodReader(f, "trace.jsonl")
	res, stats, err := sim.Replay(cfg, services, nodes, src, nil)
*/
package trace
