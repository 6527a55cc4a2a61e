// Package zeroing clears short slices faster than the clear builtin does.
//
// clear(s) on a slice whose elements hold pointers calls the runtime (memclrHasPointers,
// which runs the garbage collector's bulk write barrier first): about 70 instructions a call
// whatever the length. The simulator clears short lists of pointers hundreds of thousands of
// times a run, to keep nothing alive (a sync's plan lists, dirty pods, a write's batch), most
// of them of one to four elements; storing the zero value element by element costs a few
// instructions each.
package zeroing

// loopMax is the longest slice Clear zeroes element by element; longer ones are cleared by
// the builtin.
const loopMax = 8

// Clear sets every element of s to its zero value, as clear(s) does.
func Clear[T any](s []T) {
	if len(s) > loopMax {
		clear(s)
		return
	}
	var zero T
	// A three-clause loop: the compiler turns `for i := range s { s[i] = zero }` into
	// clear's runtime call.
	for i := 0; i < len(s); i++ {
		s[i] = zero
	}
}
