package trace

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"epsim/model"
	"epsim/sim"
)

// syncWrite is one API write as a sync made it, without its time.
type syncWrite struct {
	mode      sim.Mode
	verb      string
	endpoints int
	outcome   string
}

func writeLog(res *sim.Results, from sim.Time) []syncWrite {
	var out []syncWrite
	for _, w := range res.Writes {
		if w.At >= from {
			out = append(out, syncWrite{w.Mode, w.Verb, w.Endpoints, w.Outcome})
		}
	}
	return out
}

// only returns the writes of mode m.
func only(log []syncWrite, m sim.Mode) []syncWrite {
	var out []syncWrite
	for _, w := range log {
		if w.mode == m {
			out = append(out, w)
		}
	}
	return out
}

func sameLog(t *testing.T, what string, want, got []syncWrite) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: %d writes, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
		return
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("%s: write %d is %+v, want %+v", what, i, got[i], want[i])
			return
		}
	}
}

// midRunRecording is what 'kubectl get pods -A --watch --output-watch-events -o json' prints
// when started at `from` in a simulated run: every pod alive then as an ADDED event (the
// listing), then every later event. It returns the stream and the events' arrival times:
// the listing printed over `spread` starting one second before `from` (the run is quiet
// then), the rest at their simulated times.
func midRunRecording(t *testing.T, rec *recording, from time.Time, spread time.Duration) ([]byte, []time.Time, int) {
	t.Helper()
	alive := map[string]*corev1.Pod{}
	var order []string
	i := 0
	for ; i < len(rec.events) && rec.events[i].at.Before(from); i++ {
		ev := rec.events[i]
		key := ev.pod.Namespace + "/" + ev.pod.Name
		if ev.typ == model.EventDeleted {
			delete(alive, key)
			continue
		}
		if _, ok := alive[key]; !ok {
			order = append(order, key)
		}
		alive[key] = ev.pod
	}
	var listing []*corev1.Pod
	for _, k := range order {
		if p, ok := alive[k]; ok {
			listing = append(listing, p)
			delete(alive, k) // a pod deleted and re-created under the same name is listed once
		}
	}
	var buf bytes.Buffer
	var arrivals []time.Time
	start := from.Add(-time.Second)
	for j, p := range listing {
		if err := WriteWatchEvent(&buf, model.EventAdded, p); err != nil {
			t.Fatal(err)
		}
		arrivals = append(arrivals, start.Add(spread*time.Duration(j)/time.Duration(len(listing))))
	}
	for ; i < len(rec.events); i++ {
		ev := rec.events[i]
		if err := WriteWatchEvent(&buf, ev.typ, ev.pod); err != nil {
			t.Fatal(err)
		}
		arrivals = append(arrivals, ev.at)
	}
	return buf.Bytes(), arrivals, len(listing)
}

// clockOf returns a Record clock giving the i-th event arrivals[i].
func clockOf(arrivals []time.Time) func() time.Time {
	i := 0
	return func() time.Time { i++; return arrivals[i-1] }
}

// replayTrace replays a trace against the recording's Services and Nodes (through kubectl's
// list formats).
func replayTrace(t *testing.T, cfg sim.Config, rec *recording, tr []byte) (*sim.Results, *sim.ReplayStats, *Stats) {
	t.Helper()
	svcs, nodes := writeLists(t, rec.services, rec.nodes)
	src := NewPodReader(bytes.NewReader(tr), "trace.jsonl")
	res, stats, err := sim.Replay(cfg, svcs, nodes, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, stats, src.Stats()
}

// TestReplayOfMidRunRecording: a recording started while 1,000 pods exist, replayed through a
// 'sim record' trace of kubectl's watch stream whose listing arrived at one instant, over
// 300 ms (the failing case: the controllers synced partial listings, 3 creates and 20
// updates instead of 10 creates), and fed live through a pipe at that pace. The Service
// existed before the recording, and so did its objects: every replay's controllers find
// them up to date at start-up (the listing's 10 slices and the Endpoints of 1,000 pods),
// writing nothing (a partial listing would make updates), and then make exactly the
// simulation's own writes for the churn that follows.
func TestReplayOfMidRunRecording(t *testing.T) {
	cfg := engineTestConfig(20, 1000)
	rec, simulated := simulate(t, cfg, nil)
	from := simEpoch.Add(time.Duration(simulated.Phases[1].Start))
	simLog := writeLog(simulated, simulated.Phases[1].Start)
	if len(simLog) == 0 {
		t.Fatal("the simulation wrote nothing after the listing")
	}
	// What the controllers write when they start on the listing: nothing.
	var want []syncWrite

	for _, tc := range []struct {
		name   string
		spread time.Duration
		live   bool
	}{
		{"listing at one instant", 0, false},
		{"listing over 300ms", 300 * time.Millisecond, false},
		{"live through a pipe, listing over 300ms", 300 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watch, arrivals, listed := midRunRecording(t, rec, from, tc.spread)
			var tr bytes.Buffer
			var in io.Reader = bytes.NewReader(watch)
			if tc.live {
				// kubectl writes into a pipe in chunks of a few KB, as it prints.
				pr, pw := io.Pipe()
				go func() {
					for b := watch; len(b) > 0; {
						n := min(len(b), 4096)
						if _, err := pw.Write(b[:n]); err != nil {
							return
						}
						b = b[n:]
					}
					pw.Close()
				}()
				in = pr
			}
			if _, err := Record(in, &tr, "stdin", clockOf(arrivals)); err != nil {
				t.Fatal(err)
			}
			res, rstats, pstats := replayTrace(t, cfg, rec, tr.Bytes())
			if rstats.Listed != int64(listed) || pstats.Listed != int64(listed) || listed != 1000 {
				t.Errorf("listed %d (stream %d), want the %d pods alive", rstats.Listed, pstats.Listed, listed)
			}
			if rstats.SeededServices != 1 {
				t.Errorf("%d Services began with their objects, want 1", rstats.SeededServices)
			}
			for _, m := range []sim.Mode{sim.ModeEndpointSlices, sim.ModeEndpoints} {
				if got, want := res.Total.Mode(m).Objects, map[sim.Mode]int64{sim.ModeEndpointSlices: 10, sim.ModeEndpoints: 1}[m]; got != want {
					t.Errorf("%s: %d objects at the end, want %d", m, got, want)
				}
			}
			for _, m := range []sim.Mode{sim.ModeEndpointSlices, sim.ModeEndpoints} {
				log, w := only(writeLog(res, 0), m), only(want, m)
				sameLog(t, string(m)+" start-up", w, log[:min(len(w), len(log))])
				// Then the same writes per sync as the simulation for the churn after the listing.
				sameLog(t, string(m)+" after start-up", only(simLog, m), log[min(len(w), len(log)):])
			}
		})
	}
}

// TestListingRule: which leading ADDED events of a recorded trace form the listing.
func TestListingRule(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC)
	line := func(at time.Duration, typ, name string, created time.Time) string {
		return fmt.Sprintf(`{"time":%q,"type":%q,"object":{"kind":"Pod","metadata":{"name":%q,"namespace":"n","creationTimestamp":%q}}}`+"\n",
			t0.Add(at).Format(time.RFC3339Nano), typ, name, created.Format(time.RFC3339))
	}
	old := t0.Add(-time.Hour)
	fresh := t0.Add(2 * time.Second)
	for _, tc := range []struct {
		name   string
		in     string
		listed int
	}{
		{"a 1,000-pod listing over 300 ms", func() string {
			var b strings.Builder
			for i := range 1000 {
				b.WriteString(line(time.Duration(i)*300*time.Microsecond, "ADDED", fmt.Sprint("p", i), old))
			}
			b.WriteString(line(5*time.Second, "ADDED", "new", fresh))
			return b.String()
		}(), 1000},
		{"ends at the first other event", line(0, "ADDED", "a", old) + line(time.Millisecond, "MODIFIED", "a", old) + line(2*time.Millisecond, "ADDED", "b", old), 1},
		{"an old pod after a gap is listed", line(0, "ADDED", "a", old) + line(2*time.Second, "ADDED", "b", old) + line(10*time.Second, "ADDED", "c", fresh), 2},
		{"a new pod after a gap is not", line(0, "ADDED", "a", old) + line(10*time.Millisecond, "ADDED", "b", fresh) + line(2*time.Second, "ADDED", "c", fresh), 2},
		{"gaps within the spread so far", line(0, "ADDED", "a", fresh) + line(40*time.Millisecond, "ADDED", "b", fresh) + line(80*time.Millisecond, "ADDED", "c", fresh) + line(200*time.Millisecond, "ADDED", "d", fresh), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewPodReader(strings.NewReader(tc.in), "trace.jsonl")
			var listed int
			var times []sim.Time
			for {
				ev, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if ev.Listed {
					listed++
					if ev.At != 0 {
						t.Errorf("listed event at %v, want 0", ev.At)
					}
				} else {
					times = append(times, ev.At)
				}
			}
			if listed != tc.listed || r.Stats().Listed != int64(tc.listed) {
				t.Errorf("listed %d (stats %d), want %d; later times %v", listed, r.Stats().Listed, tc.listed, times)
			}
		})
	}
}

// TestInvalidPodIPs: events whose pod IP is not an IP are rejected and counted with their
// event numbers; the rest replay.
func TestInvalidPodIPs(t *testing.T) {
	ev := func(typ, name, ip string) string {
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "n"},
			Status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: ip}}}}
		var b bytes.Buffer
		if err := WriteWatchEvent(&b, model.EventType(typ), p); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	in := ev("ADDED", "a", "10.0.0.1") + ev("ADDED", "b", "10.0.0.300") + ev("MODIFIED", "a", "fd00::1") + ev("MODIFIED", "a", "not-an-ip")
	r := NewPodReader(strings.NewReader(in), "pods.json")
	var names []string
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Pod.Name+"/"+e.Pod.IPs[0])
	}
	s := r.Stats()
	if strings.Join(names, " ") != "a/10.0.0.1 a/fd00::1" || s.InvalidIPs != 2 || fmt.Sprint(s.InvalidIPEvents) != "[2 4]" || s.Events != 2 {
		t.Errorf("read %v, stats %+v", names, s)
	}
}
