// Package jsonkind names, for messages about input, the kind of JSON a Go type decodes from:
// the readers' Go types mean nothing to whoever wrote the input.
package jsonkind

import (
	"fmt"
	"reflect"
)

// Of returns the JSON a value of type t decodes from: "an object", "an array", "a string",
// "true or false", "an integer (32-bit)", "a non-negative integer (64-bit)", "a number";
// "another value" for no type, and the Go type's name for one JSON cannot fill.
func Of(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return fmt.Sprintf("an integer (%d-bit)", t.Bits())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		return fmt.Sprintf("a non-negative integer (%d-bit)", t.Bits())
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}
