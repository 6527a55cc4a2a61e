// Package jsonparse is a JSON parser for hand-written decoders that stand in for
// encoding/json on large inputs (a day of pod events, a cluster's lists) and must decode
// exactly what encoding/json would decode into the same Go value, or say they cannot.
//
// A decoder walks a value with the Parser's methods, each of which reports false where the
// input is not valid JSON or is something the method does not decode exactly as
// encoding/json does; the decoder then reports false too, and its caller decodes the value
// with encoding/json instead, which gives the result or the error. What the Parser refuses,
// besides invalid JSON:
//
//   - in an object decoded into a struct (Object): a key given twice (encoding/json merges a
//     repeated object into the first), a key that matches a field only case-insensitively
//     (encoding/json's fallback match), an escaped key;
//   - a number that is not an integer where an integer goes, or out of range;
//   - any other type than the field's, and nesting deeper than MaxDepth.
//
// Null, as in encoding/json, leaves a field as it is (nil for pointers, slices and maps
// freshly decoded), sets a pointer, slice or map to nil, and makes a map value its zero
// value.
package jsonparse

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// MaxDepth bounds the nesting the parser follows; deeper input is refused (encoding/json's
// own limit is 10,000).
const MaxDepth = 512

// Parser reads one JSON value from a byte slice.
type Parser struct {
	b     []byte
	i     int
	depth int
	// Intern, when set, turns the strings that Shared and StringMap decode into strings
	// that many values share (a cache); it is given the string's bytes, which it must copy.
	Intern func([]byte) string
}

// NewParser returns a parser at the start of b.
func NewParser(b []byte) Parser { return Parser{b: b} }

// Object decodes an object of a struct type whose JSON field names are names, calling
// field with the index of each field met (the parser at its value, which field decodes),
// and checking the values of other keys. Null leaves the struct as it is.
func (p *Parser) Object(names []string, field func(f int) bool) bool {
	if p.Null() {
		return true
	}
	var seen uint64
	return p.Members(func(key, _ []byte, plain bool) bool {
		if !plain {
			return false
		}
		switch f := fieldIndex(names, key); {
		case f >= 0:
			if seen&(1<<f) != 0 {
				return false
			}
			seen |= 1 << f
			return field(f)
		case foldsToField(names, key):
			return false
		}
		return p.Skip()
	})
}

// Members walks the object at the parser, calling member for each key — its text between
// the quotes, its whole token, and whether the text is the key itself (no escapes, valid
// UTF-8) — with the parser at the member's value, which member decodes.
func (p *Parser) Members(member func(key, token []byte, plain bool) bool) bool {
	return p.list('{', '}', func() bool {
		from := p.i
		key, plain, ok := p.Str()
		if !ok {
			return false
		}
		token := p.b[from:p.i]
		p.Space()
		if p.Peek() != ':' {
			return false
		}
		p.i++
		p.Space()
		return member(key, token, plain)
	})
}

// Array walks an array, calling elem with the parser at each element, which elem
// decodes. The caller has handled null.
func (p *Parser) Array(elem func() bool) bool { return p.list('[', ']', elem) }

// list walks the comma-separated items between open and close, calling item with the
// parser at each.
func (p *Parser) list(open, close byte, item func() bool) bool {
	if p.Peek() != open || p.depth >= MaxDepth {
		return false
	}
	p.depth++
	p.i++
	p.Space()
	if p.Peek() == close {
		p.i++
		p.depth--
		return true
	}
	for {
		p.Space()
		if !item() {
			return false
		}
		p.Space()
		switch p.Peek() {
		case ',':
			p.i++
		case close:
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

func fieldIndex(names []string, key []byte) int {
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	return -1
}

// foldsToField reports whether key matches a field name case-insensitively (as
// bytes.EqualFold, which encoding/json's fallback match equals).
func foldsToField(names []string, key []byte) bool {
	ascii := true
	for _, c := range key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for _, n := range names {
		if (!ascii || len(n) == len(key)) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// StringMap decodes an object of strings into *out (a new map, as encoding/json makes
// one for a nil map), or only checks it when out is nil. Keys and values are interned.
func (p *Parser) StringMap(out *map[string]string) bool {
	if p.Null() {
		if out != nil {
			*out = nil
		}
		return true
	}
	var m map[string]string
	if out != nil && p.Peek() == '{' {
		m = map[string]string{}
		*out = m
	}
	return p.Members(func(key, token []byte, plain bool) bool {
		var k, v string
		if m != nil && !p.SetString(&k, token, key, plain, true) {
			return false
		}
		if !p.Null() && !p.stringValue(&v, m != nil, true) {
			return false
		}
		if m != nil {
			m[k] = v
		}
		return true
	})
}

// SkipString checks a string (or null) that is not read.
func (p *Parser) SkipString() bool {
	if p.Null() {
		return true
	}
	_, _, ok := p.Str()
	return ok
}

// String decodes a string into *out; null leaves it.
func (p *Parser) String(out *string) bool {
	if p.Null() {
		return true
	}
	return p.stringValue(out, true, false)
}

// Shared decodes a string that many values share (a namespace, a node, a phase) into
// *out, interned; null leaves it.
func (p *Parser) Shared(out *string) bool {
	if p.Null() {
		return true
	}
	return p.stringValue(out, true, true)
}

// StringPointer decodes a string into a new string; null makes the pointer nil.
func (p *Parser) StringPointer(out **string) bool {
	if p.Null() {
		*out = nil
		return true
	}
	*out = new(string)
	return p.Shared(*out)
}

// stringValue decodes the string at the parser into *out when store is set (see
// SetString), else only checks it.
func (p *Parser) stringValue(out *string, store, shared bool) bool {
	from := p.i
	s, plain, ok := p.Str()
	if !ok {
		return false
	}
	return !store || p.SetString(out, p.b[from:p.i], s, plain, shared)
}

// SetString sets *out to the string of JSON token (text its content between the quotes,
// plain when that is the string itself), interned when shared. A string with escapes or
// bytes that are not UTF-8 is decoded by encoding/json.
func (p *Parser) SetString(out *string, token, text []byte, plain, shared bool) bool {
	if !plain {
		// Into a string of its own, so that out does not escape (a decoder's own
		// variables would be on the heap for every value).
		var v string
		if json.Unmarshal(token, &v) != nil {
			return false
		}
		*out = v
		return true
	}
	if shared && p.Intern != nil {
		*out = p.Intern(text)
	} else {
		*out = string(text)
	}
	return true
}

// Int decodes an integer that fits in bits into *out; null leaves it.
func (p *Parser) Int(out *int64, bits int) bool {
	if p.Null() {
		return true
	}
	tok, integer, ok := p.Number()
	if !ok || !integer {
		return false
	}
	v, err := strconv.ParseInt(string(tok), 10, bits)
	if err != nil {
		return false
	}
	*out = v
	return true
}

// Int32 decodes an integer that fits in 32 bits into *out; null leaves it.
func (p *Parser) Int32(out *int32) bool {
	v := int64(*out)
	ok := p.Int(&v, 32)
	*out = int32(v)
	return ok
}

// IntPointer decodes an integer that fits in bits into a new int64; null makes the
// pointer nil.
func (p *Parser) IntPointer(out **int64, bits int) bool {
	if p.Null() {
		*out = nil
		return true
	}
	*out = new(int64)
	return p.Int(*out, bits)
}

// Bool decodes true or false into *out; null leaves it.
func (p *Parser) Bool(out *bool) bool {
	switch {
	case p.Null():
		return true
	case p.Literal("true"):
		*out = true
		return true
	case p.Literal("false"):
		*out = false
		return true
	}
	return false
}

// BoolPointer decodes true or false into a new bool; null makes the pointer nil.
func (p *Parser) BoolPointer(out **bool) bool {
	if p.Null() {
		*out = nil
		return true
	}
	*out = new(bool)
	return p.Bool(*out)
}

// Unmarshaler decodes the value at the parser with v's UnmarshalJSON, given the value's
// bytes as encoding/json gives them (null too, as encoding/json does for a value that is
// not a pointer).
func (p *Parser) Unmarshaler(v json.Unmarshaler) bool {
	from := p.i
	return p.Skip() && v.UnmarshalJSON(p.b[from:p.i]) == nil
}

// Slice decodes an array as encoding/json decodes it into a nil slice: null leaves it
// nil, [] makes it empty, and each element is decoded by elem into a new zero value.
func Slice[E any](p *Parser, out *[]E, elem func(*E) bool) bool {
	if p.Null() {
		*out = nil
		return true
	}
	if p.Peek() != '[' {
		return false
	}
	*out = []E{}
	return p.Array(func() bool {
		var zero E
		*out = append(*out, zero)
		return elem(&(*out)[len(*out)-1])
	})
}

// Raw checks and passes over the value at the parser, of any type, and returns its bytes.
func (p *Parser) Raw() ([]byte, bool) {
	from := p.i
	if !p.Skip() {
		return nil, false
	}
	return p.b[from:p.i], true
}

// Offset returns how far into its input the parser has read.
func (p *Parser) Offset() int { return p.i }

// End passes over white space and reports whether the input ends there.
func (p *Parser) End() bool {
	p.Space()
	return p.i == len(p.b)
}

// Peek returns the byte at the parser, 0 at the end.
func (p *Parser) Peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// Space passes over white space.
func (p *Parser) Space() {
	// Compact JSON has no space between tokens: this much is inlined where Space is called.
	if p.i < len(p.b) && p.b[p.i] > ' ' {
		return
	}
	p.skipSpace()
}

func (p *Parser) skipSpace() {
	for p.i < len(p.b) && IsSpace(p.b[p.i]) {
		p.i++
	}
}

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Null passes over a null at the parser, if there is one.
func (p *Parser) Null() bool { return p.Literal("null") }

// Literal passes over lit at the parser, if it is there.
func (p *Parser) Literal(lit string) bool {
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// Str reads the JSON string at the parser: its content between the quotes, whether that
// content is the string itself (no escapes, valid UTF-8), and whether it is a valid string.
func (p *Parser) Str() (content []byte, plain, ok bool) {
	if p.Peek() != '"' {
		return nil, false, false
	}
	start := p.i + 1
	plain = true
	ascii := true
	for i := start; i < len(p.b); i++ {
		// Eight bytes at a time up to the first that needs a look (plainRun).
		for i+8 <= len(p.b) {
			n := plainRun(binary.LittleEndian.Uint64(p.b[i:]))
			i += n
			if n < 8 {
				break
			}
		}
		if i >= len(p.b) {
			break
		}
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			content = p.b[start:i]
			if !ascii && plain && !utf8.Valid(content) {
				plain = false
			}
			return content, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(p.b) {
				return nil, false, false
			}
			switch p.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(p.b) {
					return nil, false, false
				}
				for _, h := range p.b[i+1 : i+5] {
					if !isHexDigit(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false
}

// plainRun returns how many of the eight bytes of w (the first in its low byte) come
// before the first one that Str must look at: a quote, a backslash, a control character or
// a byte of a multi-byte UTF-8 sequence; 8 when there is none. Each test flags the bytes
// that match it in their high bit, exactly for the lowest such byte (a borrow runs only
// upwards, past a byte that matched), which is the only one read.
func plainRun(w uint64) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	special := (quote - ones) &^ quote         // a zero byte: '"'
	special |= (backslash - ones) &^ backslash // a zero byte: '\\'
	special |= (w - ones*0x20) &^ w            // a byte below 0x20
	special = (special | w) & highs            // and bytes of 0x80 and above
	return bits.TrailingZeros64(special) / 8
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Number reads the JSON number at the parser, and tells whether it is an integer (no
// fraction or exponent).
func (p *Parser) Number() (tok []byte, integer, ok bool) {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return nil, false, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	tok = b[p.i:i]
	p.i = i
	return tok, integer, true
}

// Skip checks and passes over the value at the parser, of any type.
func (p *Parser) Skip() bool {
	switch c := p.Peek(); {
	case c == '{':
		return p.Members(func(_, _ []byte, _ bool) bool { return p.Skip() })
	case c == '[':
		return p.Array(p.Skip)
	case c == '"':
		_, _, ok := p.Str()
		return ok
	case c == '-' || isDigit(c):
		_, _, ok := p.Number()
		return ok
	case c == 't':
		return p.Literal("true")
	case c == 'f':
		return p.Literal("false")
	}
	return p.Null()
}
