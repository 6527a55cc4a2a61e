package scenarios

import (
	"fmt"
	"testing"
)

func TestServicesOf10(t *testing.T) {
	for _, n := range []int{1, 3} {
		sc, err := Parse("services.yaml", []byte(ServicesOf10(n)), nil)
		if err != nil {
			t.Fatalf("ServicesOf10(%d) does not load: %v", n, err)
		}
		cfg := sc.Config
		if cfg.Name != fmt.Sprintf("services-%d", n) || cfg.Cluster.Nodes != 5000 || len(cfg.Timeline) != 2 {
			t.Errorf("ServicesOf10(%d): name %q, %d nodes, %d actions", n, cfg.Name, cfg.Cluster.Nodes, len(cfg.Timeline))
		}
		services, pods := 0, 0
		for _, s := range cfg.Services {
			services += max(s.Count, 1)
			pods += max(s.Count, 1) * s.Replicas
		}
		if services != n || pods != 10*n {
			t.Errorf("ServicesOf10(%d): %d Services of %d pods in all, want %d of 10 each", n, services, pods, n)
		}
	}
}
