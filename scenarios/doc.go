// Package scenarios loads, validates and embeds epsim scenarios (YAML) and turns them into a
// sim.Config. Decoding is strict: unknown fields, wrong types and out-of-range values are
// errors naming file:line:column and the field path, all reported at once.
package scenarios
