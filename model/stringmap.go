package model

import (
	"slices"
	"strings"
)

// StringMap is an object's labels or annotations as their pairs, sorted by key, each key
// once. The simulator keeps the labels and annotations of every stored EndpointSlice, most
// of them two or three labels and one annotation, shared by the slices of a Service or of a
// second: a Go map of up to eight entries takes 336 bytes, where three pairs take 96. The API
// does not tell nil from empty; neither does StringMap (compare lengths).
//
// Several objects may share one StringMap, as they shared a map: adding a key (Set) or
// removing one (Delete) makes a new array and leaves the old one as it was, but Set of a
// key already there changes its value in place, as a map's entry would change; Clone a
// shared StringMap before that.
type StringMap []Label

// StringMapOf returns the pairs of m, sorted by key (nil for an empty m).
func StringMapOf(m map[string]string) StringMap {
	if len(m) == 0 {
		return nil
	}
	return labelsOf(m)
}

// labelsOf returns the pairs of m sorted by key, in an array of their number (empty and
// non-nil for an empty m).
func labelsOf(m map[string]string) []Label {
	s := make([]Label, 0, len(m))
	for k, v := range m {
		s = append(s, Label{Key: k, Value: v})
	}
	slices.SortFunc(s, compareLabels)
	return s
}

// labelMap returns pairs as a map (empty and non-nil when there are none).
func labelMap(pairs []Label) map[string]string {
	m := make(map[string]string, len(pairs))
	for _, l := range pairs {
		m[l.Key] = l.Value
	}
	return m
}

func compareLabels(a, b Label) int { return strings.Compare(a.Key, b.Key) }

// StringMapFrom returns a StringMap of the given pairs (key, value, key, value, …), which
// need not be sorted; a later pair replaces an earlier one of the same key.
func StringMapFrom(pairs ...string) StringMap {
	if len(pairs)%2 != 0 {
		panic("model.StringMapFrom: odd number of arguments")
	}
	var s StringMap
	for i := 0; i < len(pairs); i += 2 {
		s.Set(pairs[i], pairs[i+1])
	}
	return s
}

// Map returns the pairs as a map (nil when there are none).
func (s StringMap) Map() map[string]string {
	if len(s) == 0 {
		return nil
	}
	return labelMap(s)
}

// find returns where key is, or would be inserted, and whether it is there.
func (s StringMap) find(key string) (int, bool) {
	if len(s) <= 8 { // the usual few: a scan, no calls
		for i, l := range s {
			if l.Key >= key {
				return i, l.Key == key
			}
		}
		return len(s), false
	}
	return slices.BinarySearchFunc(s, key, func(l Label, k string) int { return strings.Compare(l.Key, k) })
}

// index returns where key is, or -1. The usual few pairs are scanned for an equal key: a
// key of another length differs at once, where find's ordered comparison of two label keys
// (a runtime call each) read their common prefix ("endpointslice.kubernetes.io/",
// "service.kubernetes.io/"). Two lookups per EndpointSlice write cost 1% of a run that way.
func (s StringMap) index(key string) int {
	if len(s) <= 8 {
		for i := range s {
			if s[i].Key == key {
				return i
			}
		}
		return -1
	}
	if i, ok := s.find(key); ok {
		return i
	}
	return -1
}

// Lookup returns the value of key and whether the key is present.
func (s StringMap) Lookup(key string) (string, bool) {
	if i := s.index(key); i >= 0 {
		return s[i].Value, true
	}
	return "", false
}

// Get returns the value of key, "" when it is absent.
func (s StringMap) Get(key string) string {
	v, _ := s.Lookup(key)
	return v
}

// Has reports whether key is present.
func (s StringMap) Has(key string) bool { return s.index(key) >= 0 }

// Set sets key to value. A new key makes a new array (see StringMap); a present one is
// changed in place, as a map's entry would be.
func (s *StringMap) Set(key, value string) {
	i, ok := s.find(key)
	if ok {
		(*s)[i].Value = value
		return
	}
	next := make(StringMap, len(*s)+1)
	copy(next, (*s)[:i])
	next[i] = Label{Key: key, Value: value}
	copy(next[i+1:], (*s)[i:])
	*s = next
}

// Delete removes key, making a new array when it was present (see StringMap).
func (s *StringMap) Delete(key string) {
	i, ok := s.find(key)
	if !ok {
		return
	}
	if len(*s) == 1 {
		*s = nil
		return
	}
	*s = slices.Concat((*s)[:i], (*s)[i+1:])
}

// Clone returns a copy of s with an array of its own (nil when s is empty).
func (s StringMap) Clone() StringMap {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// Equal reports whether s and t hold the same pairs.
func (s StringMap) Equal(t StringMap) bool { return slices.Equal(s, t) }
