package model

import "testing"

// TestUsesLocalEndpointsOnly: kube-proxy uses only its node's endpoints for a Service port
// when the internal traffic policy is Local and the port takes no traffic from outside the
// cluster (no node port, load balancer address or external IP); whatever the external
// policy, a port that does uses the cluster's endpoints too.
// upstream: pkg/proxy/serviceport.go UsesClusterEndpoints, ExternallyAccessible.
func TestUsesLocalEndpointsOnly(t *testing.T) {
	for _, c := range []struct {
		serviceType, internalPolicy string
		externalIPs                 int
		want                        bool
	}{
		{"ClusterIP", "Local", 0, true},
		{"", "Local", 0, true}, // type unset: ClusterIP
		{"ClusterIP", "Cluster", 0, false},
		{"ClusterIP", "", 0, false}, // unset: Cluster
		{"ClusterIP", "Local", 1, false},
		{"NodePort", "Local", 0, false},
		{"LoadBalancer", "Local", 0, false},
		{"LoadBalancer", "Cluster", 2, false},
		{"ExternalName", "Local", 0, true}, // no kube-proxy rules at all; the flag is moot
	} {
		if got := UsesLocalEndpointsOnly(c.serviceType, c.internalPolicy, c.externalIPs); got != c.want {
			t.Errorf("UsesLocalEndpointsOnly(%q, %q, %d) = %v, want %v", c.serviceType, c.internalPolicy, c.externalIPs, got, c.want)
		}
	}
}
