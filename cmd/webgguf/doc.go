// Package main is the native command line: inspect, gen, run, eval, bench.
package main
