//go:build !race

package main

// raceDetector is true in a build with the race detector (race_test.go).
const raceDetector = false
