package jsonparse

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sample is a struct of every kind the Parser decodes, decoded by decodeSample as
// encoding/json decodes it.
type sample struct {
	Name  string            `json:"name"`
	Kind  string            `json:"kind"`
	N     int64             `json:"n"`
	Small int64             `json:"small"` // an int32's range
	B     bool              `json:"b"`
	BP    *bool             `json:"bp"`
	I32   int32             `json:"i32"`
	P     *string           `json:"p"`
	IP    *int64            `json:"ip"`
	M     map[string]string `json:"m"`
	L     []string          `json:"l"`
	Items []item            `json:"items"`
	U     upper             `json:"u"`
}

type item struct {
	K string `json:"k"`
	V int64  `json:"v"`
}

// upper is a type with an UnmarshalJSON of its own: it keeps the value's bytes, upper-cased.
type upper struct{ s string }

func (u *upper) UnmarshalJSON(b []byte) error {
	u.s = strings.ToUpper(string(b))
	return nil
}

var sampleFields = []string{"name", "kind", "n", "small", "b", "p", "ip", "m", "l", "items", "u", "bp", "i32"}

func decodeSample(b []byte) (sample, bool) {
	var s sample
	p := NewParser(b)
	p.Space()
	ok := p.Peek() == '{' && p.Object(sampleFields, func(f int) bool {
		switch f {
		case 0:
			return p.String(&s.Name)
		case 1:
			return p.Shared(&s.Kind)
		case 2:
			return p.Int(&s.N, 64)
		case 3:
			return p.Int(&s.Small, 32)
		case 4:
			return p.Bool(&s.B)
		case 5:
			return p.StringPointer(&s.P)
		case 6:
			return p.IntPointer(&s.IP, 64)
		case 7:
			return p.StringMap(&s.M)
		case 8:
			return Slice(&p, &s.L, p.String)
		case 9:
			return Slice(&p, &s.Items, func(it *item) bool {
				return p.Object([]string{"k", "v"}, func(f int) bool {
					if f == 0 {
						return p.String(&it.K)
					}
					return p.Int(&it.V, 64)
				})
			})
		case 10:
			return p.Unmarshaler(&s.U)
		case 11:
			return p.BoolPointer(&s.BP)
		default:
			return p.Int32(&s.I32)
		}
	}) && p.End()
	return s, ok
}

// checkSample fails if decodeSample takes data and decodes it otherwise than
// encoding/json, or refuses a plain input it should take.
func checkSample(t *testing.T, data []byte) (taken bool) {
	t.Helper()
	got, ok := decodeSample(data)
	if !ok {
		return false
	}
	var want sample
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%q: taken, but encoding/json says %v", data, err)
	}
	if want.Small != int64(int32(want.Small)) {
		// The sample's int32 field is an int64 for encoding/json: out of an int32's range
		// it must have been refused.
		t.Fatalf("%q: took %d as a 32-bit integer", data, got.Small)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nparser:        %+v\nencoding/json: %+v", data, got, want)
	}
	return true
}

var sampleCases = map[string]bool{ // input: whether the parser takes it
	`{}`:                        true,
	`null`:                      false, // a decoder's caller checks for an object
	` {"name":"a","kind":"b"} `: true,
	`{"name":null,"m":null,"l":null,"p":null,"ip":null,"items":null,"u":null}`: true,
	`{"name":"a\u00e9\n","m":{"k\"":"v","x":null},"l":["a",null,"\ud800"]}`:    true,
	"{\"name\":\"a\xff\"}":                                 true,
	`{"n":-9223372036854775808,"small":2147483647,"ip":0}`: true,
	`{"n":9223372036854775808}`:                            false,
	`{"small":2147483648}`:                                 false,
	`{"n":1.0}`:                                            false,
	`{"n":1e2}`:                                            false,
	`{"n":"1"}`:                                            false,
	`{"n":-0}`:                                             true,
	`{"b":true,"p":"x","l":[],"items":[{"k":"a","v":1},null,{}]}`: true,
	`{"u":{"a":[1,2]}}`: true,
	`{"u":"x"}`:         true,
	`{"other":{"deep":[1,{"x":null}]},"name":"a"}`: true,
	`{"name":"a","name":"b"}`:                      false, // encoding/json keeps the last
	`{"items":[{"k":"a"}],"items":[{"v":1}]}`:      false, // encoding/json merges
	`{"Name":"a"}`:      false, // encoding/json's case-insensitive match
	`{"\u006eame":"a"}`: false, // an escaped key
	`{"ſmall":1}`:       false, // folds to "small" (U+017F)
	`{"name":1}`:        false,
	`{"b":"true"}`:      false,
	`{"m":{"a":1}}`:     false,
	`{"l":{}}`:          false,
	`{"items":[1]}`:     false,
	`{"name":"a",}`:     false,
	`{"name":"a"} x`:    false,
	`{"name":"a`:        false,
	`{"x":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`: false,
	`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`:           true,
}

func TestParserDecodesAsEncodingJSON(t *testing.T) {
	for in, want := range sampleCases {
		if got := checkSample(t, []byte(in)); got != want {
			t.Errorf("%.80q: taken %v, want %v", in, got, want)
		}
	}
}

func TestIntern(t *testing.T) {
	interned := map[string]string{}
	p := NewParser([]byte(`{"kind":"Pod","name":"a","m":{"k":"v"}}`))
	p.Intern = func(b []byte) string {
		s := string(b)
		interned[s] = s
		return s
	}
	var s sample
	ok := p.Object(sampleFields, func(f int) bool {
		switch f {
		case 0:
			return p.String(&s.Name)
		case 1:
			return p.Shared(&s.Kind)
		default:
			return p.StringMap(&s.M)
		}
	})
	if !ok || s.Kind != "Pod" || s.Name != "a" || s.M["k"] != "v" {
		t.Fatalf("decoded %+v, %v", s, ok)
	}
	if want := map[string]string{"Pod": "Pod", "k": "k", "v": "v"}; !reflect.DeepEqual(interned, want) {
		t.Fatalf("interned %v, want %v (shared strings and maps only)", interned, want)
	}
}

// FuzzParser checks, on any input, that Skip accepts exactly the valid JSON values (within
// MaxDepth) and that a decoder built on the parser decodes only as encoding/json does.
func FuzzParser(f *testing.F) {
	for in := range sampleCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := NewParser(data)
		p.Space()
		skipped := p.Skip() && p.End()
		if skipped && !json.Valid(data) {
			t.Fatalf("%q: Skip took invalid JSON", data)
		}
		if !skipped && json.Valid(data) && depth(data) < MaxDepth {
			t.Fatalf("%q: Skip refused valid JSON", data)
		}
		checkSample(t, data)
	})
}

// depth returns the deepest nesting of brackets in data, outside strings.
func depth(data []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// TestStrAtEveryOffset puts each kind of byte Str must look at (quote, backslash escapes,
// control characters, UTF-8, valid or not) at every offset of strings of 0 to 40 bytes, so
// that it falls at every place of the eight-byte words Str reads, and checks Str against
// encoding/json: it takes a string token exactly when that is valid JSON, ending where the
// token ends, and calls it plain exactly when its content is the decoded string.
func TestStrAtEveryOffset(t *testing.T) {
	specials := []string{`"`, `\"`, `\\`, `\n`, `\u00e9`, `\u12`, `\x`, "\x00", "\x1f", "\t", " ", "\x7f", "\xc3\xa9", "\xc3", "\xff", "\xe2\x82\xac", "\xed\xa0\x80"}
	for n := 0; n <= 40; n++ {
		for k := 0; k <= n; k++ {
			for _, sp := range specials {
				content := strings.Repeat("a", k) + sp + strings.Repeat("b", n-k)
				for _, after := range []string{"", `,"x"`, strings.Repeat(" ", 9)} {
					in := `"` + content + `"` + after
					p := Parser{b: []byte(in)}
					got, plain, ok := p.Str()
					// The token encoding/json would read: the string up to its closing quote.
					dec := json.NewDecoder(strings.NewReader(in))
					var want string
					err := dec.Decode(&want)
					wantOK := err == nil
					if ok != wantOK {
						t.Fatalf("%q: ok %v, encoding/json: %v", in, ok, err)
					}
					if !ok {
						continue
					}
					if end := int(dec.InputOffset()); p.i != end {
						t.Fatalf("%q: ends at %d, encoding/json at %d", in, p.i, end)
					}
					if string(got) != in[1:p.i-1] {
						t.Fatalf("%q: content %q", in, got)
					}
					if plain != (string(got) == want) {
						t.Fatalf("%q: plain %v, content %q, decoded %q", in, plain, got, want)
					}
				}
			}
		}
	}
}
