package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEffectiveRoundTrip: the effective scenario loads back to the very same run, for every
// shipped scenario and the imported sample cluster.
func TestEffectiveRoundTrip(t *testing.T) {
	paths := []string{"testdata/import.golden.yaml"}
	for _, n := range Names() {
		paths = append(paths, n)
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			// Non-default kube-proxy, API server and controller costs, and mirroring workers, must
			// survive the round trip too.
			sc, cfg, err := Load(p, []string{"kubeProxy.mode=ipvs", "kubeProxy.minSyncPeriod=2s", "kubeProxy.costs.syncBase=3ms",
				"kubeProxy.costs.decodeJSONNanosPerByte=12.5", "apiServer.costs.perEventNanos=2500",
				"controlPlane.endpointsBuildPerPod=7us", "controlPlane.endpointSliceSyncPerPod=12us", "controlPlane.mirroringWorkers=3"})
			if err != nil {
				t.Fatal(err)
			}
			text := Effective(sc)
			again, err := Parse("effective.yaml", text, nil)
			if err != nil {
				t.Fatalf("effective scenario does not load: %v\n%s", err, text)
			}
			if !reflect.DeepEqual(again.Config, cfg) {
				t.Errorf("effective scenario loads to a different config:\n got %+v\nwant %+v\n%s", again.Config, cfg, text)
			}
			again.File, again.Expect = sc.File, sc.Expect
			if string(Effective(again)) != string(text) {
				t.Error("printing the effective scenario of the effective scenario changes it")
			}
		})
	}
	if _, err := os.Stat("testdata/import.golden.yaml"); err != nil {
		t.Fatal(err)
	}
}

// TestEffectiveSettingsRoundTrip: the effective settings (what sim replay --out writes for
// --scenario) load back, with LoadSettings, to the same settings, for every shipped
// scenario with overrides.
func TestEffectiveSettingsRoundTrip(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			_, cfg, err := Load(name, []string{"kubeProxy.mode=nftables", "controlPlane.maxEndpointsPerSlice=7", "seed=5", "slo=2m", "modes=endpointslices"})
			if err != nil {
				t.Fatal(err)
			}
			text := EffectiveSettings(&cfg, name)
			for _, section := range []string{"\ncluster:", "\nservices:", "\ntimeline:", "\nname:"} {
				if strings.Contains(string(text), section) {
					t.Errorf("the settings hold %s", strings.TrimSpace(section))
				}
			}
			path := filepath.Join(t.TempDir(), "settings.yaml")
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			_, again, err := LoadSettings(path, nil)
			if err != nil {
				t.Fatalf("the settings do not load: %v\n%s", err, text)
			}
			again.Name, again.Cluster, again.Services, again.Timeline = cfg.Name, cfg.Cluster, cfg.Services, cfg.Timeline
			if !reflect.DeepEqual(again, cfg) {
				t.Errorf("the settings load to others:\n got %+v\nwant %+v\n%s", again, cfg, text)
			}
		})
	}
}
