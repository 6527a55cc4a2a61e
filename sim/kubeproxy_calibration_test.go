package sim

// The decode and encode costs per byte that the kube-proxy and API server CPU model uses
// (DefaultKubeProxyCosts, DefaultAPIServerCosts) come from this file: the real apimachinery
// v0.37.2 serializers decoding and encoding EndpointSlices and Endpoints, as kube-proxy's
// informer and the API server's watch cache do. Run
//
//	go test ./sim -run TestCalibrateCodecCosts -v -calibrate
//
// to print the measured ns/byte on this machine; the defaults record one such measurement.
// Without -calibrate the test measures once more and checks that the shipped constants are
// within a factor of the measurement (a loose bound: the machine it runs on is shared), and
// that JSON costs more per byte than protobuf, as it must.

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
)

var calibrate = flag.Bool("calibrate", false, "print measured codec costs (ns/byte) instead of checking the shipped ones")

func calibrationSlice(n int) *discoveryv1.EndpointSlice {
	port, proto, name := int32(8080), corev1.ProtocolTCP, "http"
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-abcde", Namespace: "default", ResourceVersion: "123456", UID: "6b3c2f0e-4b8e-4d7a-9c1e-2f1a0b9c8d7e",
			Labels:      map[string]string{"kubernetes.io/service-name": "web", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"},
			Annotations: map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": "2026-01-01T00:00:00Z"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}},
	}
	addr := netip.MustParseAddr("10.0.0.1")
	for i := range n {
		ready, zone, node := true, "zone-a", fmt.Sprintf("node-%d", i)
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{addr.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &ready, Terminating: new(bool)},
			NodeName:   &node, Zone: &zone,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: fmt.Sprintf("web-5d8f7c9b4-%05d", i), UID: "0b9c8d7e-6b3c-4b8e-9c1e-2f1a4d7a0b9c"},
		})
		addr = addr.Next()
	}
	return s
}

// nsPerByte runs f (which handles size bytes) until about d of CPU time has passed and
// returns CPU ns per byte.
func nsPerByte(size int, d time.Duration, f func()) float64 {
	n := 0
	start := cpuTime()
	for time.Duration(cpuTime()-start) < d {
		for range 10 {
			f()
		}
		n += 10
	}
	return float64(cpuTime()-start) / float64(n*size)
}

// codecCosts are measured ns/byte: decode and encode by encoding (index: model.Protobuf,
// model.JSON), TLS sealing, and gzip at level 1.
type codecCosts struct {
	decode, encode [2]float64
	tls, gzip      float64
}

func measureCodecCosts(t *testing.T, d time.Duration) codecCosts {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := discoveryv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	factory := serializer.NewCodecFactory(scheme)
	slice := calibrationSlice(100)
	var c codecCosts
	for i, mediaType := range []string{runtime.ContentTypeProtobuf, runtime.ContentTypeJSON} {
		info, ok := runtime.SerializerInfoForMediaType(factory.SupportedMediaTypes(), mediaType)
		if !ok {
			t.Fatalf("no serializer for %s", mediaType)
		}
		enc := factory.EncoderForVersion(info.Serializer, discoveryv1.SchemeGroupVersion)
		dec := factory.UniversalDeserializer()
		var buf bytes.Buffer
		if err := enc.Encode(slice, &buf); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		c.encode[i] = nsPerByte(len(data), d, func() {
			var b bytes.Buffer
			if err := enc.Encode(slice, &b); err != nil {
				t.Fatal(err)
			}
		})
		c.decode[i] = nsPerByte(len(data), d, func() {
			if _, _, err := dec.Decode(data, nil, &discoveryv1.EndpointSlice{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// TLS: AES-128-GCM sealing, what crypto/tls does per record on the API server.
	block, _ := aes.NewCipher(make([]byte, 16))
	gcm, _ := cipher.NewGCM(block)
	record, nonce := make([]byte, 16*1024), make([]byte, gcm.NonceSize())
	out := make([]byte, 0, len(record)+gcm.Overhead())
	c.tls = nsPerByte(len(record), d, func() { out = gcm.Seal(out[:0], nonce, record, nil) })
	// gzip at level 1, as the API server compresses a relist, over slices whose UIDs and
	// pod names differ as a cluster's do (identical objects would compress faster).
	// The API server keeps its gzip writers in a pool (responsewriters
	// NewGzipWriterPoolOrDie): one writer, reset for each stream.
	stream := gzipCalibrationStream(t, factory)
	w, err := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	c.gzip = nsPerByte(len(stream), d, func() {
		w.Reset(io.Discard)
		if _, err := w.Write(stream); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
	return c
}

// gzipCalibrationStream is 20 100-endpoint slices, protobuf, with random UIDs and pod name
// suffixes.
func gzipCalibrationStream(t *testing.T, factory serializer.CodecFactory) []byte {
	info, ok := runtime.SerializerInfoForMediaType(factory.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	enc := factory.EncoderForVersion(info.Serializer, discoveryv1.SchemeGroupVersion)
	names := newNameGenerator(1, 2)
	var buf bytes.Buffer
	for range 20 {
		s := calibrationSlice(100)
		s.UID = types.UID(names.uid())
		for i := range s.Endpoints {
			ref := s.Endpoints[i].TargetRef
			ref.Name, ref.UID = names.generate("web-5d8f7c9b4-"), types.UID(names.uid())
		}
		if err := enc.Encode(s, &buf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestCalibrateCodecCosts(t *testing.T) {
	if testing.Short() && !*calibrate {
		t.Skip("timing measurement; skipped with -short")
	}
	d := 200 * time.Millisecond
	if *calibrate {
		d = 2 * time.Second
	}
	c := measureCodecCosts(t, d)
	t.Logf("measured ns/byte: decode protobuf %.2f json %.2f; encode protobuf %.2f json %.2f; TLS seal %.3f; gzip %.2f",
		c.decode[0], c.decode[1], c.encode[0], c.encode[1], c.tls, c.gzip)
	if *calibrate {
		return
	}
	if c.decode[1] <= c.decode[0] {
		t.Errorf("JSON decode %.2f ns/B is not dearer than protobuf %.2f ns/B", c.decode[1], c.decode[0])
	}
	kp, api := DefaultKubeProxyCosts(), DefaultAPIServerCosts()
	const factor = 8 // shared CI machines vary; the constants only need the right magnitude
	for _, x := range []struct {
		name            string
		shipped, actual float64
	}{
		{"kube-proxy decode protobuf", kp.DecodeProtobufNanosPerByte, c.decode[0]},
		{"kube-proxy decode json", kp.DecodeJSONNanosPerByte, c.decode[1]},
		{"apiserver encode protobuf", api.EncodeProtobufNanosPerByte, c.encode[0]},
		{"apiserver encode json", api.EncodeJSONNanosPerByte, c.encode[1]},
		{"apiserver TLS", api.TLSNanosPerByte, c.tls},
		{"apiserver gzip", api.GzipNanosPerByte, c.gzip},
	} {
		if x.actual > x.shipped*factor || x.actual < x.shipped/factor {
			t.Errorf("%s: shipped %.3f ns/B, measured %.3f ns/B (more than %d× apart)", x.name, x.shipped, x.actual, factor)
		}
	}
}
