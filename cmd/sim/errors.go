package main

import (
	"errors"
	"fmt"
)

// Exit codes are the CLI's contract with scripts and CI.
const (
	exitOK       = 0 // success
	exitFailed   = 1 // the run (or writing its outputs) failed
	exitBadInput = 2 // usage errors and scenario errors
	exitInternal = 3 // a bug in sim: a crash, reported with what to send us
)

// exitError carries the exit code an error maps to.
type exitError struct {
	code int
	err  error
	// hint is printed on a second line, e.g. where to find usage.
	hint string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a command-line mistake: exit 2, with a pointer to the command's help.
func usageErrorf(cmd string, format string, args ...any) error {
	hint := "run 'sim help' for usage"
	if cmd != "" {
		hint = fmt.Sprintf("run 'sim help %s' for usage", cmd)
	}
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, args...), hint: hint}
}

// badInput marks err (a scenario or input file problem) as exit 2.
func badInput(err error) error { return &exitError{code: exitBadInput, err: err} }

// exitCode maps err to the process exit status.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailed
}
