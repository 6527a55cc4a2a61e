package trace

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestListErrors checks what a list's errors say and where they point: an item's error at
// the item's first byte (not at the comma or bracket before it), a truncated list as such.
func TestListErrors(t *testing.T) {
	first := service(`"name":"a"`, ``)
	bad := service(`"name":"b"`, `"ports":[{"port":"80"}]`)
	pretty := "{\n    \"items\": [\n        " + first + ",\n        " + bad + "\n    ],\n    \"kind\": \"List\"\n}\n"
	for _, c := range []struct {
		name, in string
		read     func(string) error
		at       int
		msg      string
	}{
		{"item", list(first, bad), readServicesFrom, strings.Index(list(first, bad), bad), `event 1 at byte %d: Service field "spec.ports.port": expected an integer (32-bit), got JSON string`},
		{"first item", list(bad), readServicesFrom, strings.Index(list(bad), bad), `Service field "spec.ports.port"`},
		{"pretty", pretty, readServicesFrom, strings.Index(pretty, bad), `Service field "spec.ports.port"`},
		{"second value", list(first) + "\n" + list(bad), readServicesFrom, len(list(first)) + 1 + strings.Index(list(bad), bad), `event 2 at byte %d`},
		{"item kind", list(`{"kind":5}`), readNodesFrom, strings.Index(list(`{"kind":5}`), `{"kind":5}`), `list item: expected a Node object`},
		{"truncated", list(first)[:40], readServicesFrom, 40, `truncated input: the JSON value that starts at byte 0 ends before it is complete (expected the rest of a Service or a List of them)`},
		{"truncated nodes", " " + list(first)[:40], readNodesFrom, 41, `starts at byte 1 ends before it is complete (expected the rest of a Node or a List of them)`},
		{"an array", `[` + first + `]`, readServicesFrom, 0, `expected a Service or a List of them (a JSON object), got JSON array`},
		{"a number", `7`, readNodesFrom, 0, `expected a Node or a List of them (a JSON object), got JSON number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.read(c.in)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v, want an InputError", err)
			}
			if ie.Offset != int64(c.at) {
				t.Errorf("offset %d, want %d (%q): %v", ie.Offset, c.at, c.in[min(c.at, len(c.in)):min(c.at+10, len(c.in))], err)
			}
			msg := c.msg
			if strings.Contains(msg, "%d") {
				msg = strings.ReplaceAll(msg, "%d", strconv.Itoa(c.at))
			}
			if !strings.Contains(err.Error(), msg) {
				t.Errorf("error %q, want it to say %q", err, msg)
			}
			checkListsSameAsDecoder(t, []byte(c.in))
		})
	}
}

func readServicesFrom(in string) error {
	_, _, err := ReadServices(strings.NewReader(in), "services.json")
	return err
}

func readNodesFrom(in string) error {
	_, _, err := ReadNodes(strings.NewReader(in), "nodes.json")
	return err
}
