package sim

import "testing"

// TestActionNamesOneNamespacesService: "namespace/name" names only that namespace's
// Service, where the name alone names the Services of that name in every namespace.
func TestActionNamesOneNamespacesService(t *testing.T) {
	base := testConfig(20, 4)
	web := base.Services[0]
	a, b := web, web
	a.Namespace, b.Namespace = "a", "b"
	writes := func(timeline ...Action) map[string]int64 {
		t.Helper()
		cfg := base
		cfg.Services = []ServiceConfig{a, b}
		cfg.Timeline = append([]Action{{Name: "create", Kind: ActionCreate}}, timeline...)
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, s := range res.Services {
			out[s.Namespace+"/"+s.Name] = s.Endpoints.Writes + s.EndpointSlices.Writes
		}
		return out
	}
	created := writes()
	roll := func(ref string) Action {
		return Action{Name: "roll", Kind: ActionRollout, Services: []string{ref},
			MaxSurge: IntOrPercent{Value: 1}, MaxUnavailable: IntOrPercent{Value: 0}}
	}
	one := writes(roll("a/web"))
	if one["b/web"] != created["b/web"] || one["a/web"] <= created["a/web"] {
		t.Errorf("rollout of a/web: writes %v, after the create alone %v; want only a/web's to grow", one, created)
	}
	both := writes(roll("web"))
	if both["a/web"] <= created["a/web"] || both["b/web"] <= created["b/web"] {
		t.Errorf("rollout of web: writes %v, after the create alone %v; want both to grow", both, created)
	}
	none := writes(roll("c/web"))
	if none["a/web"] != created["a/web"] || none["b/web"] != created["b/web"] {
		t.Errorf("rollout of c/web: writes %v, after the create alone %v; want none to grow", none, created)
	}
}
