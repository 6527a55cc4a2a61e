package model

import (
	"math/bits"
	"unicode/utf8"
)

// This file holds the encoding primitives the size model is built from: protobuf varint and
// length-delimited field arithmetic (as the gogo-generated Size methods of k8s.io/api compute
// it), and the byte length of values as Go's encoding/json writes them. Nothing here
// serializes; every function only counts.

// Constant pieces of the wire forms.
const (
	// protobufMagicBytes is the "k8s\x00" prefix of every protobuf-encoded object.
	// upstream: apimachinery runtime/serializer/protobuf/protobuf.go protoEncodingPrefix.
	protobufMagicBytes = 4
	// protobufFrameBytes is the 4-byte big-endian length that frames each protobuf watch event.
	// upstream: apimachinery runtime/serializer/protobuf/protobuf.go LengthDelimitedFramer.
	protobufFrameBytes = 4
	// jsonTimeBytes is a metav1.Time in JSON: "2006-01-02T15:04:05Z" with its quotes.
	// upstream: apimachinery apis/meta/v1/time.go Time.MarshalJSON (RFC3339, UTC, seconds).
	jsonTimeBytes = 22
)

// varintLen is the length of x as a protobuf varint.
// upstream: generated.pb.go sovGenerated.
func varintLen(x uint64) int64 { return int64(bits.Len64(x|1)+6) / 7 }

// int32VarintLen is the varint length of a proto2 int32: negative values are sign-extended
// to 64 bits and take 10 bytes (sovGenerated(uint64(int32))).
func int32VarintLen(v int32) int64 { return varintLen(uint64(int64(v))) }

// pbBytes is the size of a length-delimited field with a one-byte tag: tag, length, payload.
func pbBytes(payload int64) int64 { return 1 + varintLen(uint64(payload)) + payload }

// pbString is pbBytes for a string field.
func pbString(s string) int64 { return pbBytes(int64(len(s))) }

// pbTimestampBytes is the size of a set metav1.Time message: Timestamp{seconds, nanos}, with
// nanos always 0 because metav1.Time drops sub-second precision on the wire.
// upstream: apimachinery apis/meta/v1/time_proto.go Time.ProtoTime, Timestamp.Size.
func pbTimestampBytes(t Timestamp) int64 {
	return 1 + varintLen(uint64(unixSeconds(t))) + 2
}

// unixSeconds is time.Unix(0, t).Unix(): floor division of nanoseconds by 1e9.
func unixSeconds(t Timestamp) int64 {
	s := int64(t) / 1e9
	if int64(t)%1e9 < 0 {
		s--
	}
	return s
}

// jsonString is the length of s as encoding/json writes a string (with HTML escaping on, as
// json.Marshal and json.NewEncoder do): the two quotes, plus each byte or rune as written.
//   - '"' and '\\', and '\b' '\f' '\n' '\r' '\t' become two-byte escapes;
//   - other control bytes below 0x20, and '<' '>' '&', become \u00XX (6 bytes);
//   - each byte of invalid UTF-8 becomes \ufffd (6 bytes);
//   - U+2028 and U+2029 (3 bytes each) become \u2028 and \u2029 (6 bytes).
//
// upstream: Go encoding/json encode.go appendString.
func jsonString(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += jsonASCIIExtra[c]
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}

// jsonASCIIExtra is, per ASCII byte, the bytes encoding/json adds when escaping it.
var jsonASCIIExtra = func() (t [utf8.RuneSelf]int64) {
	for c := range 0x20 {
		t[c] = 5
	}
	for _, c := range []byte{'"', '\\', '\b', '\f', '\n', '\r', '\t'} {
		t[c] = 1
	}
	for _, c := range []byte{'<', '>', '&'} {
		t[c] = 5
	}
	return t
}()

// jsonKey is the length of `"key":` for a struct field name (plain ASCII, never escaped).
func jsonKey(key string) int64 { return int64(len(key)) + 3 }

// jsonInt is the length of v in decimal, as encoding/json writes integers.
func jsonInt(v int64) int64 {
	if v < 0 {
		if v == -1<<63 {
			return 20
		}
		return 1 + jsonUint(uint64(-v))
	}
	return jsonUint(uint64(v))
}

func jsonUint(v uint64) int64 {
	n := int64(1)
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// jsonBool is the length of "true" or "false".
func jsonBool(b bool) int64 {
	if b {
		return 4
	}
	return 5
}

// jsonRawCompact is the length of valid JSON text raw once encoding/json has compacted it, as
// it does with every json.Marshaler's output (metav1.FieldsV1): whitespace outside strings
// is dropped, and '<' '>' '&' U+2028 U+2029 are escaped even inside strings.
// upstream: Go encoding/json encode.go marshalerEncoder (appendCompact with escapeHTML).
func jsonRawCompact(raw string) int64 {
	var n int64
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			n += 6
			continue
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			n += 6
			i += 2
			continue
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			n++
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		n++
	}
	return n
}

// jsonListBytes is the length of a JSON array from its element count and the sum of its
// elements' contributions, each counted as element length + 1 (its separating comma): the
// last element's comma is the closing bracket. An empty list is "[]", a nil one "null".
func jsonListBytes(count int, sumWithCommas int64, isNil bool) int64 {
	switch {
	case count > 0:
		return 1 + sumWithCommas
	case isNil:
		return 4
	default:
		return 2
	}
}

// jsonObject accumulates the length of a JSON object field by field.
type jsonObject struct {
	n      int64 // bytes of the fields so far, without separators
	fields int
}

// add records one field `"key":` followed by a value of the given length.
func (o *jsonObject) add(key string, valueBytes int64) {
	o.n += jsonKey(key) + valueBytes
	o.fields++
}

// addRaw records one field whose key and value are already counted together.
func (o *jsonObject) addRaw(fieldBytes int64) {
	o.n += fieldBytes
	o.fields++
}

// size is the object's length: braces, fields and the commas between them.
func (o *jsonObject) size() int64 {
	if o.fields == 0 {
		return 2
	}
	return 2 + o.n + int64(o.fields-1)
}
