package scenarios

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// twoWebs is a scenario with a Service named web in two namespaces, of 3 and 5 replicas.
const twoWebs = `name: two-webs
cluster:
  nodes: 10
services:
  - name: web
    namespace: a
    replicas: 3
  - name: web
    namespace: b
    replicas: 5
timeline:
`

// TestServiceRefsByNamespace: a timeline reference "namespace/name" names that namespace's
// entry alone, and the checks of what an action asks for (pods, creation) go by entry, not
// by name: two entries of one name are two Services.
func TestServiceRefsByNamespace(t *testing.T) {
	restart := func(ref string, pods int) string {
		return "  - {name: create, action: create}\n" +
			"  - {name: restart, action: restartPods, pods: " + strconv.Itoa(pods) + ", services: [" + ref + "]}\n"
	}
	for _, tc := range []struct {
		name, timeline string
		want           []string // the error's lines; none when it loads
	}{
		{name: "a/web has 3 pods", timeline: restart("a/web", 4),
			want: []string{`x.yaml:13:5: timeline[1].pods: 4 pods is more than service "a/web" has at this point of the timeline (3 replicas)`}},
		{name: "b/web has 5 pods", timeline: restart("b/web", 4)},
		{name: "web names both", timeline: restart("web", 4),
			want: []string{`x.yaml:13:5: timeline[1].pods: 4 pods is more than service "web" has at this point of the timeline (3 replicas)`}},
		{name: "no such namespace", timeline: restart("c/web", 1),
			want: []string{`x.yaml:13:62: timeline[1].services[0]: no service "web" in namespace "c" (web is in a, b)`}},
		{name: "no such name", timeline: restart("a/db", 1),
			want: []string{`x.yaml:13:62: timeline[1].services[0]: unknown service "a/db"; allowed: web`}},
		{name: "created by namespace",
			timeline: "  - {name: create, action: create, services: [a/web]}\n  - {name: roll, action: rollout, services: [b/web]}\n",
			want:     []string{`x.yaml:13:46: timeline[1].services[0]: service "b/web" is not created by an earlier create action`}},
		{name: "created twice",
			timeline: "  - {name: create, action: create, services: [a/web]}\n  - {name: again, action: create, services: [web]}\n",
			want:     []string{`x.yaml:13:46: timeline[1].services[0]: service "web" is already created by an earlier create action; a Service is created once`}},
		{name: "scaled by entry",
			timeline: "  - {name: create, action: create}\n  - {name: up, action: scale, services: [a/web], replicas: 8}\n" +
				"  - {name: restart, action: restartPods, pods: 7, services: [a/web]}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(twoWebs+tc.timeline), nil)
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestDefaultNamespaceIsOneNamespace: an entry without namespace is in default, so one of
// the same name in namespace default is the same Service twice.
func TestDefaultNamespaceIsOneNamespace(t *testing.T) {
	doc := strings.Replace(twoWebs, "namespace: a", "namespace: default", 1)
	doc = strings.Replace(doc, "    namespace: b\n", "", 1) + "  - {name: create, action: create}\n"
	_, err := Parse("x.yaml", []byte(doc), nil)
	want := "x.yaml:8:5: services[1].name: duplicate service default/web (first at line 5)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestFootprintCountsEntriesOfOneName: the memory estimate counts each entry of a shared
// name at its own peak.
func TestFootprintCountsEntriesOfOneName(t *testing.T) {
	sc, err := Parse("x.yaml", []byte(twoWebs+"  - {name: create, action: create}\n  - {name: up, action: scale, services: [a/web], replicas: 100}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := footprintOf(&sc.Config).pods; got != 105 {
		t.Errorf("pods at the peak: %d, want 105 (a/web scaled to 100, b/web's 5)", got)
	}
}

// TestNamespacesSpreadsCopies: namespaces spreads an entry's copies round robin over
// NAMESPACE-0 …, each needs a Service (at most count), the last one's name must be a DNS
// label, and actions go on naming the copies by the entry's namespace field.
func TestNamespacesSpreadsCopies(t *testing.T) {
	entry := func(fields string) string {
		return "name: spread\ncluster:\n  nodes: 10\nservices:\n  - {name: svc, " + fields + ", replicas: 1}\n" +
			"timeline:\n  - {name: create, action: create}\n  - {name: one, action: rollout, services: [team/svc-4]}\n"
	}
	for _, tc := range []struct {
		name, fields string
		want         []string // the error's lines; none when it loads
		namespaces   []string // of copies 0, 1, …
	}{
		{name: "round robin", fields: "namespace: team, namespaces: 3, count: 5",
			namespaces: []string{"team-0", "team-1", "team-2", "team-0", "team-1"}},
		{name: "one namespace", fields: "namespace: team, namespaces: 1, count: 5",
			namespaces: []string{"team", "team", "team", "team", "team"}},
		{name: "more namespaces than Services", fields: "namespace: team, namespaces: 6, count: 5",
			want: []string{`x.yaml:5:46: services[0].namespaces: 6 is more than count (5): each namespace needs a Service of the entry`}},
		{name: "zero", fields: "namespace: team, namespaces: 0, count: 5",
			want: []string{`x.yaml:5:46: services[0].namespaces: 0 out of range (1..1000000)`}},
		{name: "last name too long", fields: "namespace: " + strings.Repeat("n", 62) + ", namespaces: 5, count: 5",
			want: []string{`x.yaml:5:104: services[0].namespaces: namespace "` + strings.Repeat("n", 62) + `-4" of the last copies is too long (at most 63 characters): shorten namespace`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("x.yaml", []byte(entry(tc.fields)), nil)
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
			for k, want := range tc.namespaces {
				if ns := sc.Config.Services[0].NamespaceOf(k); ns != want {
					t.Errorf("copy %d in namespace %q, want %q", k, ns, want)
				}
			}
		})
	}
}
