// Command sim is epsim's command-line interface. See doc.go for the manual.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: sim run SCENARIO")
		return 2
	}
	fmt.Fprintf(os.Stderr, "sim %s: not implemented yet\n", args[0])
	return 1
}
