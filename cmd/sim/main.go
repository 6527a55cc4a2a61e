// Command sim is epsim's command-line interface. See doc.go for the manual.
package main

import (
	"os"
)

func main() {
	os.Exit(newEnv(os.Stdout, os.Stderr).main(os.Args[1:]))
}
