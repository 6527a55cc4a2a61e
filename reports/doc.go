// Package reports renders sim.Results: tables, summary.json, CSV, the write log and charts.
// It never runs a simulation.
package reports
