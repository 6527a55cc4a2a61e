package jsonkind

import (
	"reflect"
	"testing"
)

func TestOf(t *testing.T) {
	var p *struct{ A int }
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{nil, "another value"},
		{reflect.TypeOf(p), "an object"},
		{reflect.TypeOf(map[string]int{}), "an object"},
		{reflect.TypeOf([]string{}), "an array"},
		{reflect.TypeOf(""), "a string"},
		{reflect.TypeOf(true), "true or false"},
		{reflect.TypeOf(int32(0)), "an integer (32-bit)"},
		{reflect.TypeOf(uint64(0)), "a non-negative integer (64-bit)"},
		{reflect.TypeOf(0.5), "a number"},
		{reflect.TypeOf(make(chan int)), "chan int"},
	} {
		if got := Of(tc.t); got != tc.want {
			t.Errorf("Of(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
