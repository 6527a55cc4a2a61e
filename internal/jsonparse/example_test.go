package jsonparse_test

import (
	"encoding/json"
	"fmt"

	"epsim/internal/jsonparse"
)

// A decoder of a small struct: it takes what it decodes exactly as encoding/json would,
// and leaves the rest (here a port given as a string) to encoding/json, which says what is
// wrong.
func ExampleParser() {
	type port struct {
		Name string `json:"name"`
		Port int64  `json:"port"`
	}
	decode := func(b []byte) (port, error) {
		var v port
		p := jsonparse.NewParser(b)
		p.Space()
		if p.Peek() == '{' && p.Object([]string{"name", "port"}, func(f int) bool {
			if f == 0 {
				return p.String(&v.Name)
			}
			return p.Int(&v.Port, 32)
		}) && p.End() {
			return v, nil
		}
		v = port{}
		err := json.Unmarshal(b, &v)
		return v, err
	}
	fmt.Println(decode([]byte(`{"name": "http", "port": 80, "appProtocol": "h2c"}`)))
	fmt.Println(decode([]byte(`{"name": "http", "port": "80"}`)))
	// Output:
	// {http 80} <nil>
	// {http 0} json: cannot unmarshal string into Go struct field port.port of type int64
}
