//go:build !unix

package scenarios

// addressSpaceLimit returns 0: no address-space limit is known outside Unix.
func addressSpaceLimit() int64 { return 0 }
