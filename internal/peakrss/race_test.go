//go:build race

package main

// raceDetector is true in a build with the race detector, whose shadow memory multiplies
// what a process has resident (221 MB for 64 MiB touched).
const raceDetector = true
