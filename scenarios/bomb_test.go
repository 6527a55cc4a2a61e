package scenarios

import (
	"strings"
	"testing"
	"time"
)

// An alias bomb (20000 services × 100 ports from 2 small anchors) stops at the visit budget.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: x\ncluster: {nodes: 1}\nx: &p {port: 1}\nserv: &s {name: a, ports: [")
	for i := 0; i < 100; i++ {
		b.WriteString("*p,")
	}
	b.WriteString("]}\nservices: [")
	for i := 0; i < 20000; i++ {
		b.WriteString("*s,")
	}
	b.WriteString("]\ntimeline: [{name: c, action: create}]\n")
	start := time.Now()
	_, err := Parse("b.yaml", []byte(b.String()), nil)
	el := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "too much aliasing") || el > 10*time.Second {
		t.Fatalf("alias bomb: %v after %v", err, el)
	}
}
