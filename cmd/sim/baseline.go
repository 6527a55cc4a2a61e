package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// scanBaselineJSON finds in a baseline's JSON what reports.ReadBaselineJSON (encoding/json)
// lets through or reports unclearly: a key given twice in an object, where encoding/json
// keeps the last value without a word, a figure out of a float64's range, and a figure that
// is not a number (encoding/json names the map, not the figure, and takes null as 0). It
// returns every such problem, each with its line and column, or nil; JSON it cannot read
// is left to ReadBaselineJSON, which says where it is broken.
func scanBaselineJSON(data []byte) error {
	s := baselineScanner{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	s.dec.UseNumber()
	if err := s.value(""); err != nil {
		return nil // invalid JSON: ReadBaselineJSON reports it
	}
	return errors.Join(s.errs...)
}

// baselineScanner walks a baseline's JSON token by token.
type baselineScanner struct {
	data []byte
	dec  *json.Decoder
	errs []error
}

// next reads a token and returns it with its offset in data.
func (s *baselineScanner) next() (json.Token, int, error) {
	at := int(s.dec.InputOffset())
	for at < len(s.data) && bytes.IndexByte([]byte(" \t\r\n:,"), s.data[at]) >= 0 {
		at++
	}
	tok, err := s.dec.Token()
	return tok, at, err
}

// value walks one value; path names it in messages ("" for the document, "figures").
func (s *baselineScanner) value(path string) error {
	tok, _, err := s.next()
	if err != nil {
		return err
	}
	return s.rest(tok, path)
}

// figure walks the value of figure name, a member of "figures".
func (s *baselineScanner) figure(name string) error {
	tok, at, err := s.next()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Number:
		// encoding/json refuses it as if it were no number at all.
		if _, err := strconv.ParseFloat(string(v), 64); errors.Is(err, strconv.ErrRange) {
			s.errorf(at, "figure %q: %s is out of range (a figure is at most %g)", name, v, math.MaxFloat64)
		}
	default:
		// encoding/json names the map, "figures", not the figure; and takes null as 0.
		s.errorf(at, "figure %q is %s, where a baseline has a number", name, tokenKind(tok))
	}
	return s.rest(tok, joinPath("figures", name))
}

// tokenKind names the JSON value a token starts, for messages.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return "a JSON string " + strconv.Quote(v)
	case bool:
		return "a JSON " + strconv.FormatBool(v)
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "a JSON array"
		}
		return "a JSON object"
	}
	return "a JSON number"
}

// rest walks the value that starts with tok: the members or items of an object or array.
func (s *baselineScanner) rest(tok json.Token, path string) error {
	var err error
	switch tok {
	case json.Delim('{'):
		first := map[string]int{}
		for s.dec.More() {
			tok, at, err := s.next()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			if prev, dup := first[key]; dup {
				s.errorf(at, "%s: key %q given twice (first at %s); a baseline names each once", orTop(path), key, s.position(prev))
			} else {
				first[key] = at
			}
			walk := func() error { return s.value(joinPath(path, key)) }
			if path == "figures" {
				walk = func() error { return s.figure(key) }
			}
			if err := walk(); err != nil {
				return err
			}
		}
		_, err = s.dec.Token()
	case json.Delim('['):
		for i := 0; s.dec.More(); i++ {
			if err := s.value(fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = s.dec.Token()
	}
	return err
}

// errorf records a problem at offset at.
func (s *baselineScanner) errorf(at int, format string, args ...any) {
	s.errs = append(s.errs, fmt.Errorf("%s: %s", s.position(at), fmt.Sprintf(format, args...)))
}

// position is "line:column" (1-based, in bytes) of offset at.
func (s *baselineScanner) position(at int) string {
	line, col := 1, 1
	for _, c := range s.data[:min(at, len(s.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

// joinPath names the member key of the object at path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + strconv.Quote(key)
}

// orTop names the document for the empty path.
func orTop(path string) string {
	if path == "" {
		return "the top-level object"
	}
	return path
}
