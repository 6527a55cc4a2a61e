package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"epsim/model"
)

// TestPodNameAndUID checks that naming a pod in one allocation draws what generate and uid
// draw from the pod's generateName (a ReplicaSet's name and a dash, or a DaemonSet's; cut
// to 58 characters when longer), and draws the suffix again while the name is taken.
func TestPodNameAndUID(t *testing.T) {
	long := strings.Repeat("l", 50)
	for _, c := range []struct{ owner, hash, generateName string }{
		{"web", "abc", "web-abc-"},
		{"agent", "", "agent-"},                 // a DaemonSet's pods
		{long, "0123456789", long + "-0123456"}, // cut to 58
		{long + "12345678", "", long + "12345678"},
	} {
		for _, takenFirst := range []int{0, 1, 3} {
			ref := newNameGenerator(7, 8)
			var names []string
			for range takenFirst + 1 {
				prefix := c.owner + "-"
				if c.hash != "" {
					prefix += c.hash + "-"
				}
				names = append(names, ref.generate(prefix))
			}
			if !strings.HasPrefix(names[0], c.generateName) || len(names[0]) != len(c.generateName)+5 {
				t.Fatalf("%s: generate made %q, not from %q", c.owner, names[0], c.generateName)
			}
			wantUID := ref.uid()

			g := newNameGenerator(7, 8)
			calls := 0
			name, uid := g.podNameAndUID(c.owner, c.hash, func(b []byte) bool {
				if string(b) != names[calls] {
					t.Errorf("candidate %d = %q, want %q", calls, b, names[calls])
				}
				calls++
				return calls <= takenFirst
			})
			if name != names[takenFirst] || uid != wantUID || calls != takenFirst+1 {
				t.Errorf("%s, taken %d times: got %q %q after %d candidates, want %q %q", c.generateName, takenFirst, name, uid, calls, names[takenFirst], wantUID)
			}
			if next, want := g.suffix(5), ref.suffix(5); next != want {
				t.Errorf("the streams part after naming: %q, want %q", next, want)
			}
		}
	}
}

// TestUIDDrawsAsIntN checks that a UID's hex digits, drawn from the stream's source, are the
// digits rng.IntN(16) draws, interleaved with other draws of the same stream (a run's names
// and UIDs depend on it).
func TestUIDDrawsAsIntN(t *testing.T) {
	g := newNameGenerator(11, 12)
	ref := rand.New(rand.NewPCG(11, 12))
	const hex = "0123456789abcdef"
	for range 200 {
		got := g.uid()
		want := make([]byte, 0, 36)
		for i := range 36 {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				want = append(want, '-')
				continue
			}
			want = append(want, hex[ref.IntN(16)])
		}
		if got != string(want) {
			t.Fatalf("uid %q, want %q", got, want)
		}
		if a, b := g.suffix(5), string(func() []byte {
			b := make([]byte, 5)
			for i := range b {
				b[i] = alphanums[ref.IntN(len(alphanums))]
			}
			return b
		}()); a != b {
			t.Fatalf("suffix %q after a uid, want %q", a, b)
		}
	}
}

// TestNamePCGIsRandPCG checks that the name stream's source gives rand.PCG's numbers from
// the same seeds, and, through rand.Rand, the same draws of every kind a run makes of it.
func TestNamePCGIsRandPCG(t *testing.T) {
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {42, 5}, {^uint64(0), 1 << 63}} {
		p, ref := &namePCG{hi: seed[0], lo: seed[1]}, rand.NewPCG(seed[0], seed[1])
		for i := range 100000 {
			if a, b := p.Uint64(), ref.Uint64(); a != b {
				t.Fatalf("seeds %v, number %d: %d, want %d", seed, i, a, b)
			}
		}
		g, r := rand.New(p), rand.New(ref)
		for i := range 1000 {
			if a, b := g.IntN(27), r.IntN(27); a != b {
				t.Fatalf("seeds %v, IntN %d: %d, want %d", seed, i, a, b)
			}
			if a, b := g.Float64(), r.Float64(); a != b {
				t.Fatalf("seeds %v, Float64 %d: %v, want %v", seed, i, a, b)
			}
		}
	}
}

// TestAlphanumDrawsAsIntN checks that a name character drawn from the stream's source is
// the one rng.IntN(27) draws, over many draws of several streams, each left where rng's
// would be.
func TestAlphanumDrawsAsIntN(t *testing.T) {
	for seed := range uint64(4) {
		g := newNameGenerator(seed, 99)
		ref := rand.New(rand.NewPCG(seed, 99))
		for i := range 50000 {
			if got, want := g.alphanum(), alphanums[ref.IntN(len(alphanums))]; got != want {
				t.Fatalf("seed %d, draw %d: %q, want %q", seed, i, got, want)
			}
		}
		if a, b := g.rng.Uint64(), ref.Uint64(); a != b {
			t.Fatalf("seed %d: the stream went on with %d, want %d", seed, a, b)
		}
	}
}

// TestIPAllocatorFormats checks the addresses against formatting them piece by piece: IPv4
// in 10.64.0.0/10 and on through 10.0.0.0/8 for larger clusters, and IPv6 in
// fd00:10::/32 in its canonical form (net/netip's, as the kubelet reports it), per
// node, host numbers wrapping after 250.
func TestIPAllocatorFormats(t *testing.T) {
	a := newIPAllocator(70000)
	fams := []model.IPFamily{model.IPv4, model.IPv6}
	for _, node := range []int{0, 1, 99, 100, 255, 256, 4999, 65535, 69999} {
		for n := range 260 {
			got := a.allocate(node, fams, nil)
			host := n%250 + 2
			hi, lo := 64+node/256, node%256
			want := []string{
				"10." + strconv.Itoa(hi%256) + "." + strconv.Itoa(lo) + "." + strconv.Itoa(host),
				netip.AddrFrom16([16]byte{0xfd, 0, 0, 0x10, byte(hi >> 8), byte(hi), byte(lo >> 8), byte(lo), 15: byte(host)}).String(),
			}
			if !slices.Equal(got, want) {
				t.Fatalf("node %d, pod %d: %v, want %v", node, n, got, want)
			}
		}
	}
	if got := a.allocate(3, nil, nil); got != nil {
		t.Errorf("no families: %v", got)
	}
}

// TestIPAllocatorRanges allocates the first address of every node of a cluster of a
// million: each must be an address (a node from 49,152 on had none, 10.256.0.2), in
// 10.0.0.0/8 and fd00:10::/32, and the first 65,536 nodes' IPv4 ranges, like every node's
// IPv6 range, their own.
func TestIPAllocatorRanges(t *testing.T) {
	const nodes = 1_000_000
	a := newIPAllocator(nodes)
	fams := []model.IPFamily{model.IPv4, model.IPv6}
	seen4 := make(map[netip.Addr]int, 1<<16)
	seen6 := make(map[netip.Addr]int, nodes)
	v4, v6 := netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00:10::/32")
	for node := range nodes {
		ips := a.allocate(node, fams, nil)
		ip4, err4 := netip.ParseAddr(ips[0])
		ip6, err6 := netip.ParseAddr(ips[1])
		if err4 != nil || err6 != nil || !v4.Contains(ip4) || !v6.Contains(ip6) {
			t.Fatalf("node %d: %v, want an address of %v and one of %v", node, ips, v4, v6)
		}
		if node < 1<<16 {
			if other, ok := seen4[ip4]; ok {
				t.Fatalf("node %d has node %d's IPv4 range (%s)", node, other, ip4)
			}
			seen4[ip4] = node
		}
		if other, ok := seen6[ip6]; ok {
			t.Fatalf("node %d has node %d's IPv6 range (%s)", node, other, ip6)
		}
		seen6[ip6] = node
	}
}

// TestNameHashes checks the set of slice names against a map of the names, and its hash
// against hash/fnv's FNV-1a of "namespace/name", which a run must draw the same every time.
func TestNameHashes(t *testing.T) {
	for _, n := range []objectName{{"default", "web-abcde"}, {"", ""}, {"team-a", "api-x7k2p"}} {
		f := fnv.New64a()
		f.Write([]byte(n.namespace + "/" + n.name))
		if got, want := nameHash64(n.namespace, n.name), f.Sum64(); got != want {
			t.Errorf("nameHash64(%q, %q) = %#x, want FNV-1a %#x", n.namespace, n.name, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	set, want := nameHashes{}, map[objectName]bool{}
	for step := range 20_000 {
		n := objectName{fmt.Sprintf("ns-%d", rng.IntN(3)), fmt.Sprintf("web-%d", rng.IntN(500))}
		switch rng.IntN(3) {
		case 0:
			set.add(n.namespace, n.name)
			want[n] = true
		case 1:
			set.remove(n.namespace, n.name)
			delete(want, n)
		}
		if got := set.has(n.namespace, n.name); got != want[n] {
			t.Fatalf("step %d: has(%v) = %t, want %t", step, n, got, want[n])
		}
		if len(set) != len(want) {
			t.Fatalf("step %d: %d names, want %d", step, len(set), len(want))
		}
	}
}

// TestIPAllocatorSkipsHeldHosts: once a node's range has handed out every host number, the
// ones its pods still hold are skipped, as host-local IPAM skips reserved addresses; with
// every one held, the next is handed out again.
func TestIPAllocatorSkipsHeldHosts(t *testing.T) {
	a := newIPAllocator(2)
	v4 := []model.IPFamily{model.IPv4}
	for range ipHosts {
		a.allocate(1, v4, nil)
	}
	if !a.wrapped(1) || a.wrapped(0) {
		t.Fatalf("wrapped: node 1 %v, node 0 %v; want true, false", a.wrapped(1), a.wrapped(0))
	}
	var held [ipHosts + 2]bool
	held[2], held[3], held[5] = true, true, true
	for _, want := range []string{"10.64.1.4", "10.64.1.6", "10.64.1.7"} {
		if got := a.allocate(1, v4, &held); got[0] != want {
			t.Fatalf("got %s, want %s", got[0], want)
		}
	}
	for h := range held {
		held[h] = true
	}
	if got := a.allocate(1, v4, &held); got[0] != "10.64.1.8" {
		t.Errorf("every host held: got %s, want the next in turn, 10.64.1.8", got[0])
	}
	for _, ip := range []string{"10.64.1.8", "fd00:10:40::fb", "fd00:10:40:1::2"} {
		if h := hostOf(ip); h < 2 || h > ipHosts+1 {
			t.Errorf("hostOf(%s) = %d", ip, h)
		}
	}
	if h := hostOf("fd00:10:40::fb"); h != 251 {
		t.Errorf("hostOf(fd00:10:40::fb) = %d, want 251", h)
	}
}

// TestPodIPsNeverShared: pods of a Service rolled out again and again on two nodes, beside
// pods that live through it all, never share an address: the rollouts hand out more than a
// node's 250 host numbers, and the long-lived pods' ones are skipped.
func TestPodIPsNeverShared(t *testing.T) {
	cfg := testConfig(2, 60)
	db := cfg.Services[0]
	db.Name, db.Replicas = "db", 4
	cfg.Services = append(cfg.Services, db)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	for i := range 10 {
		cfg.Timeline = append(cfg.Timeline, Action{Name: "roll-" + strconv.Itoa(i), Kind: ActionRollout, Services: []string{"web"}})
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	events, checked, maxNext := 0, 0, 0
	runEngine(t, e, func() {
		if events++; events%50 != 0 {
			return
		}
		checked++
		seen := map[string]string{}
		for n, pods := range e.podsOnNode {
			maxNext = max(maxNext, e.ips.next[n])
			for _, p := range pods {
				for _, ip := range p.pod.IPs {
					if other, ok := seen[ip]; ok {
						t.Fatalf("at %v: %s held by %s and %s", e.now, ip, other, p.pod.Name)
					}
					seen[ip] = p.pod.Name
				}
			}
		}
	})
	if maxNext <= ipHosts+10 {
		t.Errorf("a node handed out only %d addresses: the test needs more than %d", maxNext, ipHosts)
	}
	if checked == 0 {
		t.Error("nothing checked")
	}
}
