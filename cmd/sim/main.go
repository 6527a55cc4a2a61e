// Command sim is epsim's command-line interface. See doc.go for the manual.
package main

import (
	"os"
	"runtime"
)

func main() {
	// The runtime samples an allocation every 512 KB for heap profiles and keeps every
	// sampled call stack for the life of the process: 1.4 MiB of many-services' peak RSS
	// that nothing reads unless --memprofile asks for a profile (simulate turns sampling on
	// then, at the rate the process started with: GODEBUG=memprofilerate=N sets it).
	heapProfileRate = runtime.MemProfileRate
	runtime.MemProfileRate = 0
	os.Exit(newEnv(os.Stdout, os.Stderr).main(os.Args[1:]))
}
